"""End marks of ephemeral mode: how far each log had grown while recording was paused.

A pass during a pause reads nothing, so once the pause is over nothing would tell what was
written during it from what was written after. Each pass during a pause therefore notes, for
every log it finds changed, the log's size then (a `stat`, never a read): its end mark, which only
grows. When the pause ends by itself (`--for`), the first pass over a marked log leaves out what
lies before its mark and records what follows; `origin resume` marks every changed log at its
current end and leaves out everything up to it. A log's mark goes once it is settled, so this
happens once per log.

Marks live in the store's `meta` database, one key per log named by a digest of its path (LMDB
keys are short and paths are not), each with the pause it belongs to (its `since`): a mark of
another pause counts for nothing. Only a mark that changes is written: while nobody writes, a
pass during a pause writes nothing at all.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass

import lmdb

from ..core.db import Store, loads
from ..core.lmdbio import prefixed

#: `meta` keys of end marks: `pause_mark:<digest of the log's path>`.
PREFIX = "pause_mark:"


@dataclass(frozen=True, slots=True)
class Mark:
    """A log's end mark: its path, its size when last seen during the pause that began at
    `since`, and what reads it (source name, index of its kind, root), so that `origin resume`
    can settle a log no pass of its own has found."""

    path: str
    size: int
    since: int
    source: str
    kind: int
    root: str


def _key(path: str) -> str:
    return PREFIX + hashlib.blake2b(path.encode(), digest_size=16).hexdigest()


def _read(value: object) -> Mark | None:
    try:
        return Mark(**value) if isinstance(value, dict) else None
    except TypeError:  # written by another version: a mark that cannot be read is no mark
        return None


def get(store: Store, txn: lmdb.Transaction, path: str, since: int) -> Mark | None:
    """The mark of the log at `path` for the pause that began at `since`, or None."""
    found = _read(store.meta_get(txn, _key(path)))
    return found if found is not None and found.since == since and found.path == path else None


def grow(store: Store, seen: Iterable[Mark]) -> int:
    """Note each log's size unless its mark (of the same pause) is already as large: one write
    transaction, and none when no mark grew. Returns how many marks were written."""
    grown: list[Mark] = []
    with store.read() as txn:
        for mark in seen:
            old = get(store, txn, mark.path, mark.since)
            if old is None or old.size < mark.size:
                grown.append(mark)
    if grown:

        def work(txn: lmdb.Transaction) -> None:
            for mark in grown:
                old = get(store, txn, mark.path, mark.since)  # another process may have grown it
                if old is None or old.size < mark.size:
                    store.meta_put(txn, _key(mark.path), asdict(mark))

        store.write(work)
    return len(grown)


def marked(store: Store, since: int) -> list[Mark]:
    """Every mark of the pause that began at `since`, in key order."""
    found: list[Mark] = []
    with store.read() as txn:
        cursor = txn.cursor(db=store.dbs["meta"])
        for _, value in prefixed(cursor, PREFIX.encode()):
            mark = _read(loads(value))
            if mark is not None and mark.since == since:
                found.append(mark)
    return found


def drop(store: Store, path: str) -> None:
    """Forget a settled log's mark."""
    store.write(lambda txn: txn.delete(_key(path).encode(), db=store.dbs["meta"]))


def clear(store: Store, *, keep: int | None = None) -> int:
    """Forget every mark (but those of the pause that began at `keep`); returns how many."""

    def work(txn: lmdb.Transaction) -> int:
        cursor = txn.cursor(db=store.dbs["meta"])
        doomed = [
            key
            for key, value in prefixed(cursor, PREFIX.encode())
            if keep is None or (mark := _read(loads(value))) is None or mark.since != keep
        ]
        for key in doomed:
            txn.delete(key, db=store.dbs["meta"])
        return len(doomed)

    return store.write(work)


def count(store: Store) -> int:
    """How many marks the store holds, of any pause (for tests and `doctor`)."""
    with store.read() as txn:
        return sum(1 for _ in prefixed(txn.cursor(db=store.dbs["meta"]), PREFIX.encode()))
