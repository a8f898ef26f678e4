"""The figures of a store that had none: built once from its records, and checked by a recount.

A store from before schema 8 has events no writer tallied. Its upgrade notes in `meta`
(`BACKFILL`) the last event record of that time; everything stored after is tallied by its
writer. `backfill` tallies the records up to that mark, `BATCH` per write transaction, moving the
mark's `done` in the same transaction, so a kill takes it up where it stopped and nothing is
counted twice; the mark is removed when it is over. It runs when the figures are first read
(`read.activity`), not on open: most commands never look at them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import lmdb

from ..core.codec import CodecError
from ..core.db import Store
from ..core.keys import read_u64, u64
from ..core.lmdbio import pairs, prefixed
from .tally import DAY, SESSION, Tally, session_key, split_day_key, unpack_day, unpack_session

#: `meta` key of a backfill not finished: {"upto": last record to tally, "done": tallied up to}.
BACKFILL = "activity_from"
#: Records tallied per write transaction (other writers wait meanwhile).
BATCH = 5000


def pending(store: Store, txn: lmdb.Transaction) -> bool:
    """Whether records wait to be tallied."""
    return store.meta_get(txn, BACKFILL) is not None


def backfill(store: Store) -> int:
    """Tally the records the mark names, a batch per transaction; returns how many."""
    total = 0
    while True:
        count = store.write(lambda txn: _step(store, txn))
        if count < 0:
            return total
        total += count


def _step(store: Store, txn: lmdb.Transaction) -> int:
    """One batch: -1 when nothing is left (the mark removed)."""
    mark: dict[str, int] | None = store.meta_get(txn, BACKFILL)
    if mark is None:
        return -1
    upto, done = int(mark["upto"]), int(mark["done"])
    if done >= upto:
        txn.delete(BACKFILL.encode(), db=store.dbs["meta"])
        return -1
    tally = Tally()
    cursor = txn.cursor(db=store.dbs["ev"])
    last = done
    count = 0
    if cursor.set_range(u64(done + 1)):
        for key, value in pairs(cursor):
            seq = read_u64(key)
            if seq > upto or count >= BATCH:
                break
            last = seq
            count += 1
            try:
                tally.add(store.codec.decode(txn, b"", value))
            except CodecError:
                continue  # `origin verify` names it; it cannot say what it counted
    tally.flush(store, txn)
    store.meta_put(txn, BACKFILL, {"upto": upto, "done": upto if count < BATCH else last})
    return count


@dataclass(slots=True)
class Recount:
    """The figures recounted from records (for `verify`): events and tokens per day key, and
    sessions per source."""

    days: dict[bytes, list[int]] = field(default_factory=dict)
    sessions: dict[str, set[str]] = field(default_factory=dict)
    tally: Tally = field(default_factory=Tally)

    def add(self, record: dict[str, Any]) -> None:
        self.tally.add(record)
        source, session = str(record.get("source")), str(record.get("session"))
        if session_key(source, session) is not None:  # as the tally: an unkeyable name is not kept
            self.sessions.setdefault(source, set()).add(session)


def compare(store: Store, txn: lmdb.Transaction, recount: Recount) -> list[str]:
    """How the stored figures differ from a recount of the records (nothing when they agree,
    or when a backfill is not over: they are not whole yet): events and tokens per day, source
    and project, and the sessions with events per source. Sessions started per day are not
    recounted: a session is started on the day of the first event this store kept of it, which
    the records do not say."""
    if pending(store, txn):
        return []
    db = store.dbs["activity"]
    kept: dict[bytes, tuple[int, ...]] = {}
    sessions: dict[str, int] = {}
    for key, value in prefixed(txn.cursor(db=db), DAY):
        events, _, tin, cached, out = unpack_day(value)
        if events or tin or cached or out:
            kept[key] = (events, tin, cached, out)
    for key, value in prefixed(txn.cursor(db=db), SESSION):
        if unpack_session(value)[0][0] <= 0:
            continue  # its events moved to another session (newer versions of their rows)
        source = key[1:].partition(b"\0")[0].decode(errors="replace")
        sessions[source] = sessions.get(source, 0) + 1
    counted = {key: (d[0], d[2], d[3], d[4]) for key, d in recount.tally.days.items() if any(d)}
    problems = []
    for key in sorted(set(kept) | set(counted)):
        if kept.get(key) != counted.get(key):
            day, source, project = split_day_key(key)
            problems.append(
                f"activity of {source} in {project or '(no project)'} on day {day}: kept "
                f"{kept.get(key)}, recounted {counted.get(key)} (events, tokens in, cached, out)"
            )
    for source in sorted(set(sessions) | set(recount.sessions)):
        found, expected = sessions.get(source, 0), len(recount.sessions.get(source, ()))
        if found != expected:
            problems.append(f"activity of {source}: {found} sessions kept, {expected} recounted")
    return problems
