"""`origin compact`: the store rewritten into a new data file that takes the place of the old.

LMDB never gives pages back to the file system: what an upgrade moved or compressed, what a
forget or a rescan rewrote, stays allocated in the data file as free pages that only later
writes reuse. A store upgraded from schema 3 or older keeps its plain records' 1.5x of the logs
on disk after they were compressed into a third of that. And a store created before schema 7
names each event by its id in three more places (`ev_ids`, `sess_events`, the feed: ~0.3x of
the logs at 1M events) where a new store names it by sequence number (`Store.seq_ids`).

Compacting copies every database in key order into a new environment (full pages, nothing
free), converting the older layout of events on the way, checks the copy's counts, then renames
the new data file over the old one. Sequence numbers are kept (the feed's and the records'),
so the search index, the sync cursors and the mirrors' patches stay true, and every other
database (entries, forgets, tokens, cursors, dictionaries) is copied byte for byte.

Crash-safe by construction: the old file is untouched until one `rename` puts a new file,
already on disk, in its place, and a compaction cut short leaves only `store.compacting`,
removed by the next. It needs the store to itself: every Origin process holds the store's lock
(`storelock`) shared, and the lock of LMDB, which an Origin from before it holds, is probed as
the store is opened and again at the swap.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar, cast

import lmdb
import orjson

from ..core import codec, storelock
from ..core.db import DBS, DUPSORT, FEED_EVENT, FEED_SEQ, SEQ_IDS, Store
from ..core.keys import event_hash_key, read_u64, session_seq_value
from ..core.lmdbio import Pairs, cursor_value, pairs, raw_get
from ..errors import StoreError
from ..reader import disk_usage
from ..system.durable import sync_dir

#: Beside `store`, on the same file system, so that the new file is renamed into place.
WORK_DIR = "store.compacting"
#: Puts per write transaction of a new environment (LMDB keeps a transaction's dirty pages in
#: a list of bounded size).
BATCH = 20_000
#: The databases of the layout before schema 7, left empty by a conversion.
_ID_LAYOUT = frozenset({"ev_ids", "sess_events"})

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Compacted:
    """What a compaction did: the store's bytes on disk before and after (`disk_usage`, as
    `origin status` and the doctor count them), the events it kept, and whether it converted
    them from the layout before schema 7."""

    before: int
    after: int
    events: int
    converted: bool


@dataclass(frozen=True, slots=True)
class Room:
    """What compacting would give back, read without it: the data file's pages LMDB holds free,
    and those of the layout before schema 7 (`older`) that converting it empties."""

    free: int
    older_layout: int
    older: bool

    @property
    def bytes(self) -> int:
        return self.free + self.older_layout


def room(store: Store) -> Room:
    """`Room` from LMDB's counts (no page is read): the file's pages less every database's."""
    psize = int(store.env.stat()["psize"])
    with store.read() as txn:

        def pages(db: Any = None) -> int:
            found = txn.stat(db) if db is not None else txn.stat()
            return int(found["branch_pages"] + found["leaf_pages"] + found["overflow_pages"])

        used = 2 + pages() + sum(pages(db) for db in store.dbs.values())  # 2: the meta pages
        older = 0 if store.seq_ids else sum(pages(store.dbs[n]) for n in _ID_LAYOUT)
    total = int(store.env.info()["last_pgno"]) + 1
    return Room(
        free=max(0, total - used) * psize, older_layout=older * psize, older=not store.seq_ids
    )


def compact(home: Path, *, map_size: int = 1 << 30) -> Compacted:
    """Rewrite the store under `home` into a new data file. StoreBusy while another process
    has it open; StoreError when the disk cannot hold the copy or the copy does not count
    what the store holds (the store is then left as it was)."""
    path = home / "store"
    if not (path / "data.mdb").exists():
        raise StoreError(f"There is no store at {path} to compact.")
    work = home / WORK_DIR
    shutil.rmtree(work, ignore_errors=True)  # a compaction cut short
    store = Store.open(home, map_size=map_size, alone=True)
    users = store.take_lock()
    try:
        with store:
            before = disk_usage(path)
            info = store.env.info()
            used = info["last_pgno"] * store.env.stat()["psize"]
            free = shutil.disk_usage(home).free
            if used > free:
                raise StoreError(
                    f"Compacting {path} needs up to {used:,} bytes free beside it; {free:,} are."
                )
            converted = not store.seq_ids
            work.mkdir()
            try:
                # The map only reserves addresses (the new file grows as it is written): room
                # for a copy larger than the store, as a conversion's records are by their ids.
                events = _rewrite(store, work, max(info["map_size"], 2 * used))
            except lmdb.Error as error:
                raise StoreError(
                    f"Compacting {path} failed ({error}); the store is as it was."
                ) from error
        _swap(work / "data.mdb", path)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        storelock.release(users)
    return Compacted(before, disk_usage(path), events, converted)


def _swap(new: Path, path: Path) -> None:
    """The new data file in place of the old, while no process has the environment open. The
    next to open it opens alone, so LMDB starts its lock file afresh from the new file."""
    fd = os.open(new, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    with storelock.lmdb_alone(path):
        os.replace(new, path / "data.mdb")
        sync_dir(path)


def _rewrite(store: Store, work: Path, map_size: int) -> int:
    """Every database of `store` into a new environment in `work`, in key order, the layout
    before schema 7 converted; returns the events it keeps."""
    new = _environment(work, map_size, len(DBS) + 2)
    try:
        with new.begin(write=True) as txn:
            dbs = {n: new.open_db(n.encode(), txn=txn, dupsort=n in DUPSORT) for n in DBS}
        with store.read() as old:
            if store.seq_ids:
                for name in DBS:
                    _copy(new, dbs[name], pairs(old.cursor(db=store.dbs[name])))
            else:
                _convert(store, old, new, dbs, work / "scratch")
            events = _check(store, old, new, dbs)
        new.sync(True)
    finally:
        new.close()
    return events


def _environment(path: Path, map_size: int, max_dbs: int) -> lmdb.Environment:
    # Not `writemap`: the file grows page by page, never to the map's size.
    return lmdb.open(
        str(path), map_size=map_size, max_dbs=max_dbs, subdir=True, sync=False, metasync=False
    )


def _in_transactions(
    env: lmdb.Environment, items: Iterable[T], write: Callable[[lmdb.Transaction, list[T]], None]
) -> None:
    """`write` over `items`, BATCH at a time, each in a write transaction of its own."""
    left = iter(items)
    while chunk := list(islice(left, BATCH)):
        with env.begin(write=True) as txn:  # committed, or aborted by an error
            write(txn, chunk)


def _copy(env: lmdb.Environment, db: Any, items: Pairs) -> None:
    """Append `items`, in key order (and value order for duplicates), to `db`."""

    def write(txn: lmdb.Transaction, chunk: list[tuple[bytes, bytes]]) -> None:
        cursor = txn.cursor(db=db)
        for key, value in chunk:
            if not cursor.put(key, value, append=True):
                raise StoreError(f"Compacting: a key out of order ({key[:40]!r}); nothing changed.")

    _in_transactions(env, items, write)


def _check(store: Store, old: lmdb.Transaction, new: lmdb.Environment, dbs: dict[str, Any]) -> int:
    """The copy holds as many records, ids, feed items and entries as the store: anything else
    is refused before the swap. Returns the events kept."""
    with new.begin() as txn:
        for name, new_name in (
            ("ev", "ev"),
            ("ev_keys" if store.seq_ids else "ev_ids", "ev_keys"),
            ("events", "events"),
            ("feed", "feed"),
            ("entries", "entries"),
            ("hidden", "hidden"),
            ("tokens", "tokens"),
        ):
            had, has = old.stat(store.dbs[name])["entries"], txn.stat(dbs[new_name])["entries"]
            if had != has:
                raise StoreError(
                    f"Compacting: the copy holds {has:,} {new_name} where the store holds "
                    f"{had:,}; nothing changed."
                )
        return int(txn.stat(dbs["ev_keys"])["entries"] + txn.stat(dbs["events"])["entries"])


def _convert(
    store: Store, old: lmdb.Transaction, new: lmdb.Environment, dbs: dict[str, Any], scratch: Path
) -> None:
    """The layout before schema 7 into the one after: each record holds its id
    (`codec.named`), `ev_keys` finds it by a hash of the id, and `sess_seqs` and the feed name it
    by sequence number. A feed item naming an event no id finds is kept as it was (both
    layouts read it), and so is a record no id finds (`verify` names both); a session's
    mention of such an event names nothing in either layout and is left out."""
    ids = store.dbs["ev_ids"]
    # Two orders of the ids the new databases are written in: by sequence number (the records)
    # and by hash (`ev_keys`), in a scratch environment on disk, not in memory (10M ids).
    side = _environment(scratch, max(1 << 30, old.stat(ids)["entries"] * 256), 2)
    try:
        with side.begin(write=True) as txn:
            by_seq = side.open_db(b"by_seq", txn=txn)
            by_hash = side.open_db(b"by_hash", txn=txn)
        _fill(side, by_seq, by_hash, pairs(old.cursor(db=ids)))
        with side.begin() as names:
            for name in DBS:
                if name in _ID_LAYOUT:
                    continue
                items = pairs(old.cursor(db=store.dbs[name]))
                if name == "ev":
                    items = _named(store, old, items, names.cursor(db=by_seq))
                elif name == "ev_keys":
                    items = pairs(names.cursor(db=by_hash))
                elif name == "sess_seqs":
                    items = _session_seqs(old, store.dbs["sess_events"], ids)
                elif name == "feed":
                    items = _feed(old, items, ids)
                _copy(new, dbs[name], items)
        with new.begin(write=True) as txn:
            txn.put(SEQ_IDS, b"seq", db=dbs["meta"])
    finally:
        side.close()


def _fill(side: lmdb.Environment, by_seq: Any, by_hash: Any, ids: Pairs) -> None:
    def write(txn: lmdb.Transaction, chunk: list[tuple[bytes, bytes]]) -> None:
        for key, seq in chunk:
            txn.put(seq, key, db=by_seq)
            txn.put(event_hash_key(key), seq, db=by_hash)

    _in_transactions(side, ids, write)


def _named(store: Store, old: lmdb.Transaction, records: Pairs, by_seq: Any) -> Pairs:
    """Each record with its id before its frame (the frame as it was)."""
    for seq, value in records:
        if not by_seq.set_key(seq):
            yield seq, value  # no id finds it: as it was
            continue
        key = cursor_value(by_seq)
        kept = codec.named(value, key.decode())
        if kept is None:  # an id too long to hold before a frame: plain orjson holds it
            kept = orjson.dumps(store.codec.decode(old, key, value))
        yield seq, kept


def _session_seqs(old: lmdb.Transaction, sess_events: Any, ids: Any) -> Pairs:
    """Each session's (time, id) list as (time, sequence number), in that order."""
    sessions, events = old.cursor(db=sess_events), old.cursor(db=sess_events)
    for session in sessions.iternext_nodup(keys=True, values=False):
        session = bytes(session)
        named = []
        events.set_key(session)
        for value in cast(Iterator[bytes], events.iternext_dup()):
            seq = raw_get(old, value[8:], ids)
            if seq is not None:  # else it names nothing kept, in either layout
                named.append(session_seq_value(read_u64(value[:8]), read_u64(seq)))
        for value in sorted(named):
            yield session, value


def _feed(old: lmdb.Transaction, items: Pairs, ids: Any) -> Pairs:
    for seq, value in items:
        if value[:1] == FEED_EVENT:
            found = raw_get(old, value[1:], ids)
            if found is not None:
                value = FEED_SEQ + found
        yield seq, value
