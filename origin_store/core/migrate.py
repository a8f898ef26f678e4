"""Bringing an older store up to `db.SCHEMA_VERSION` when it is opened.

Schema 1 kept every event record as plain orjson under its id in `events`; schema 2 compresses
them (`codec`); schema 3 keeps a session's events as sorted duplicates of one key
(`sess_events`) instead of a key each (`sess_ev`); schema 4 keeps records under sequence numbers
(`ev`, appended, so its pages are full) found by id through `ev_ids`; schema 5 lists the
directories sessions ran in (`cwds`). The upgrade moves the
records of `events` to `ev`, trains a dictionary per source from a sample of the store's own
records, compresses the plain ones, then moves `sess_ev` into `sess_events`, each in batches of
`BATCH` per write transaction, and sets the schema last. Event ids and every other database stay
as they were, so every entry, citation, forget and token does.

Every step is a batch of whole moves (added and deleted in one transaction) or rewrites, and a
record is readable wherever it is (`Store.event_value` looks in `ev`, then `events`), so an
upgrade cut short (a crash, a kill) is simply taken up again at the next open; two processes
upgrading at once each re-read inside their write transaction and skip what is done.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import lmdb
import orjson

from .. import bounds
from .keys import plain_left_key, read_u64, split_session_event_key, u64
from .lmdbio import cursor_key, pairs

if TYPE_CHECKING:
    from .db import Store

#: Records rewritten per write transaction (other processes wait for the writer lock meanwhile).
BATCH = 2000


def upgrade(store: Store, schema: int) -> int:
    """Move, compress and re-index what an older schema kept; returns how many event records
    were compressed."""
    while store.write(partial(_move_events, store)):
        pass
    _train(store)
    rewritten = recompress(store)
    store.codec.recompress_due = False
    while store.write(partial(_move_session_events, store)):
        pass
    store.write(partial(_list_cwds, store))
    store.write(partial(_mark_activity, store))
    store.write(
        lambda txn: txn.put(b"schema", str(schema).encode(), db=store.dbs["meta"]),
        durable=True,
    )
    return rewritten


def _mark_activity(store: Store, txn: lmdb.Transaction) -> None:
    """Schema 8: the records no writer tallied, for `activity.backfill` (once: an upgrade taken
    up again keeps the first mark, and a store with figures already gets none)."""
    meta = store.dbs["meta"]
    if txn.get(b"activity_from", db=meta) is not None or txn.stat(store.dbs["activity"])["entries"]:
        return
    cursor = txn.cursor(db=store.dbs["ev"])
    last = read_u64(cursor_key(cursor)) if cursor.last() else 0
    if last:
        txn.put(b"activity_from", orjson.dumps({"upto": last, "done": 0}), db=meta)


def _list_cwds(store: Store, txn: lmdb.Transaction) -> None:
    """Every session's cwd into `cwds` (one write: there are as many as sessions, few)."""
    cwds = store.dbs["cwds"]
    for _, value in pairs(txn.cursor(db=store.dbs["sessions"])):
        cwd = orjson.loads(value).get("cwd")
        if isinstance(cwd, str) and cwd and bounds.cwd_fits(cwd):
            txn.put(cwd.encode(), b"", db=cwds)


def recompress(store: Store) -> int:
    """Compress every plain event record of a source that has a dictionary in this process,
    BATCH per write transaction; returns how many were rewritten.

    Run when a source's first dictionary was trained: the records kept plain before it are
    few (the events each process saw before it was due). Records of an older generation are
    left as they are: rewriting them cost more (a third of a 3-process backfill's time at
    100k events) than the ~20 % of their size it would save."""
    sources = store.codec.with_dicts()
    rewritten = 0
    after = b""
    while True:
        count, last = store.write(partial(_rewrite, store, after=after))
        rewritten += count
        if last is None:
            break
        after = last
    store.write(partial(_done, store, sources))
    return rewritten


def _done(store: Store, sources: list[str], txn: lmdb.Transaction) -> None:
    """Every record of `sources` was seen: none is left plain by the one that trained them."""
    for source in sources:
        txn.delete(plain_left_key(source), db=store.dbs["meta"])


def _train(store: Store) -> None:
    """Give every source with plain records a dictionary of the last generation, trained from
    a uniform sample of them, unless it has one already."""
    codec = store.codec
    sources: set[str] = set()
    with store.read() as txn:
        for key, value in store.iter_events(txn):
            if value[:1] != b"{":
                continue
            record = codec.decode(txn, key, value)
            source = str(record["source"])
            if source not in sources:
                sources.add(source)
                codec.prepare(source)  # a dictionary there already (an upgrade taken up again)
            if codec.dict_for(source) is None:
                codec.encoder(source)(record)  # sampled
    for source in sources:
        codec.prepare(source, last=True)


def _rewrite(store: Store, txn: lmdb.Transaction, *, after: bytes) -> tuple[int, bytes | None]:
    """Up to BATCH records of `ev` after sequence key `after` compressed if plain; the last
    key seen (None: the end)."""
    codec = store.codec
    cursor = txn.cursor(db=store.dbs["ev"])
    found = cursor.set_range(after + b"\0") if after else cursor.first()
    if not found:
        return 0, None
    seen = 0
    updates: list[tuple[bytes, bytes]] = []
    for key, value in pairs(cursor):
        seen += 1
        if store.codec.is_plain(value):
            record: dict[str, Any] = codec.decode(txn, key, value)  # plain: holds its id
            if codec.dict_for(record["source"]) is not None:
                updates.append((key, codec.encoder(record["source"], sample=False)(record)))
        if seen >= BATCH:
            break
    last = cursor_key(cursor) if seen >= BATCH else None
    for key, data in updates:
        txn.put(key, data, db=store.dbs["ev"])
    return len(updates), last


def _move_events(store: Store, txn: lmdb.Transaction) -> bool:
    """Move up to BATCH records from `events` (id -> record) to `ev` and `ev_ids`, bytes as
    they are; whether any were left to move."""
    legacy, ids = store.dbs["events"], store.dbs["ev_ids"]
    moved = []
    for key, value in pairs(txn.cursor(db=legacy)):
        moved.append((key, value))
        if len(moved) >= BATCH:
            break
    ev = txn.cursor(db=store.dbs["ev"])
    seq = store.next_event_seq(txn)
    for key, value in moved:
        if txn.put(key, seq, db=ids, overwrite=False):  # else in ev already: the newer
            ev.put(seq, value, append=True)
            seq = u64(read_u64(seq) + 1)
        txn.delete(key, db=legacy)
    return bool(moved)


def _move_session_events(store: Store, txn: lmdb.Transaction) -> bool:
    """Move up to BATCH `sess_ev` keys into `sess_events`; whether any were left to move."""
    old, new = store.dbs["sess_ev"], store.dbs["sess_events"]
    moved = []
    for key, _ in pairs(txn.cursor(db=old)):
        moved.append(key)
        if len(moved) >= BATCH:
            break
    for key in moved:
        session, value = split_session_event_key(key)
        txn.put(session, value, db=new, dupdata=True)
        txn.delete(key, db=old)
    return bool(moved)
