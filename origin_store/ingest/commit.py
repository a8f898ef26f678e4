"""One batch into LMDB in one write transaction: events (deduplicated by id), sessions,
frames, problems, feed items and the file's new cursor, all or nothing."""

from __future__ import annotations

from typing import Any

import lmdb

from ..activity import Tally
from ..bounds import cwd_fits
from ..core import keys
from ..core.codec import Encoder
from ..core.db import Store, dumps, loads
from ..core.lmdbio import cursor_key, raw_get
from ..core.migrate import recompress
from ..entries.imports import import_memories
from ..mirrors import spans
from ..model import SessionFact, merge_session, new_session, widen
from ..records import Cursor, FeedItem, SessionDoc
from .batch import Batch, Pending

#: What an event says: a newer version of its row that changes none of these changes nothing.
_COMPARED = ("text", "text_chars", "label", "time", "session", "role", "kind", "cwd")
#: Characters of a problem's detail that are kept.
PROBLEM_DETAIL_CHARS = 500
#: What a session says beyond its events: a change to one of these with no new event is
#: announced in the feed on its own (a title that came later still reaches the hub).
_DESCRIBED = ("title", "prompt", "cwd", "project", "parent")


class _Commit:
    """The work of one write transaction; sessions are read once and written once."""

    def __init__(self, store: Store, txn: lmdb.Transaction, source: str, encode: Encoder) -> None:
        self.store = store
        self.encode = encode
        self.txn = txn
        self.dbs: dict[str, Any] = store.dbs
        self.source = source
        self.sessions: dict[bytes, SessionDoc] = {}
        self.described: dict[bytes, tuple[Any, ...]] = {}  # as each session was read
        self.with_events: set[str] = set()  # sessions announced by a new event already
        self.seq_of: dict[bytes, bytes] = {}  # the batch's new events' sequence numbers
        self.resolved: dict[tuple[bytes, int], int] = {}
        self.tally = Tally()  # the activity figures of the new events, flushed with them

    def session(self, name: str) -> SessionDoc:
        key = keys.session_key(self.source, name)
        found = self.sessions.get(key)
        if found is None:
            raw = raw_get(self.txn, key, self.dbs["sessions"])
            found = loads(raw) if raw else new_session(self.source, name)
            self.sessions[key] = found
            self.described[key] = tuple(found.get(f) for f in _DESCRIBED) if raw else ()
        return found

    def merge_facts(self, facts: list[SessionFact]) -> None:
        for fact in facts:
            merge_session(self.session(fact.session), fact)

    def settle_projects(self, pending: dict[bytes, Pending]) -> None:
        """In file order: an event without a cwd belongs to its session's project as it stood
        then; an event with one gives a session without one its cwd and project."""
        session = self.session
        for entry in pending.values():
            record = entry[0]
            sess = session(record["session"])
            if record["cwd"]:
                if not sess["cwd"]:
                    sess["cwd"] = record["cwd"]
                    sess["project"] = record["project"]
            elif entry[1] is None:
                record["project"] = sess["project"]
                entry[1] = self.encode(record)

    def put_events(
        self, pending: dict[bytes, Pending], order: list[bytes], upsert: bool = False
    ) -> int:
        """Events not stored yet, with their sess_events values, session counts and feed items;
        returns how many were new."""
        txn = self.txn
        dbs = self.dbs
        # Sequence numbers in file order (a repeated id leaves a gap, which is harmless), so
        # records are appended to `ev`, pages full, a session's events side by side.
        ev = txn.cursor(db=dbs["ev"])
        base = keys.read_u64(cursor_key(ev)) if ev.last() else 0
        seq_of = {key: keys.u64(base + n) for n, key in enumerate(pending, start=1)}
        # Ids in order keep the index's inserts local; put(overwrite=False) is the dedupe.
        ids = txn.cursor(db=self.store.ids_db)
        id_key = self.store.id_key
        legacy = dbs["events"] if txn.stat(dbs["events"])["entries"] else None
        fresh = {
            key
            for key in order
            if (legacy is None or raw_get(txn, key, legacy) is None)
            and ids.put(id_key(key), seq_of[key], overwrite=False)
        }
        self.seq_of = {key: seq_of[key] for key in fresh}
        for key, entry in pending.items():
            if key in fresh and not ev.put(seq_of[key], entry[1], append=True):
                # Cannot happen (the numbers follow the last one): never index what is not kept.
                raise RuntimeError(f"event record {key!r} could not be appended")
        store = self.store
        sess_db = store.sess_db
        session = self.session
        feed: list[bytes] = []
        tally = self.tally.add
        for key, (record, _, sess_key) in pending.items():  # file order
            if key not in fresh:
                continue
            tally(record)
            seq = keys.read_u64(seq_of[key])
            sess = session(record["session"])
            txn.put(
                sess_key, store.session_value(record["time"], key, seq), db=sess_db, dupdata=True
            )
            sess["events"] += 1
            widen(sess, record["time"])
            feed.append(store.event_feed_item(key, seq))
            self.with_events.add(record["session"])
        if feed:
            self.store.feed_append(self.txn, feed)
        if upsert:
            replaced = [
                key.decode()
                for key in order
                if key not in fresh and self.replace(key, pending[key])
            ]
            if replaced:
                update: FeedItem = {"t": "update", "ids": replaced}
                self.store.feed_append(self.txn, [update])
        return len(fresh)

    def replace(self, key: bytes, entry: Pending) -> bool:
        """A stored event replaced by the newer version of the row it came from, when what it
        says changed; a forgotten event stays forgotten (its content is not stored again)."""
        txn = self.txn
        raw = self.store.event_value(txn, key)
        if raw is None or raw_get(txn, key, self.dbs["hidden"]) is not None:
            return False
        old = self.store.codec.decode(txn, key, raw)
        record = entry[0]
        if all(old.get(field) == record.get(field) for field in _COMPARED) and old.get(
            "usage"
        ) == record.get("usage"):
            return False
        self.tally.add(old, -1)  # the figures follow the newer version
        self.tally.add(record)
        store = self.store
        seq = store.put_event_value(txn, key, entry[1])
        sess_key = entry[2]
        sess_value = store.session_value(record["time"], key, seq)
        old_key = keys.session_key(self.source, old["session"])
        old_value = store.session_value(old["time"], key, seq)
        if (old_key, old_value) != (sess_key, sess_value):
            txn.delete(old_key, old_value, db=store.sess_db)
            txn.put(sess_key, sess_value, db=store.sess_db, dupdata=True)
            if old["session"] != record["session"]:
                self.session(old["session"])["events"] -= 1
                self.session(record["session"])["events"] += 1
            widen(self.session(record["session"]), record["time"])
        return True

    def seq_for(self, event: bytes | int, span: bytes, form: int) -> int:
        """The sequence number of the record whose text a cut left out (`spans`), or 0 when no
        record holds it as cut: an event already stored whose text differs, say."""
        if isinstance(event, int):
            return event
        found = self.resolved.get((event, form))
        if found is not None:
            return found
        fresh = self.seq_of.get(event)
        if fresh is not None:
            number = keys.read_u64(fresh)
        else:
            number = self.store.event_seq(self.txn, event.decode()) or 0
            text = self.store.event_text(self.txn, number) if number else None
            if text is None or spans.written(text, form) != span:
                number = 0
        self.resolved[event, form] = number
        return number

    def put_cuts(self, batch: Batch) -> None:
        """Frames' patches with their events named by sequence number; the cuts of lines that
        wait in the tail kept for when they are sealed; those of lines sealed now dropped."""
        txn = self.txn
        tail_cuts = self.dbs["tail_cuts"]
        sealed = 0
        for frame in batch.frames:
            sealed = frame.first_line + frame.lines - 1
            if frame.pending:
                frame.patches = spans.encode(
                    [
                        (line, offset, seq, b"" if seq else span, form)
                        for line, offset, event, span, form in frame.pending
                        for seq in (self.seq_for(event, span, form),)
                    ]
                )
        if sealed:
            self.store.drop_tail_cuts(txn, batch.mirror_id, sealed)
        for number, cuts in (batch.tail_cuts or {}).items():
            kept = [
                (start, end, seq, form)
                for start, end, event, span, form in cuts
                for seq in (self.seq_for(event, span, form),)
                if seq
            ]
            if kept:
                txn.put(
                    keys.mirror_line_key(batch.mirror_id, number),
                    spans.pack_tail_cuts(kept),
                    db=tail_cuts,
                )

    def put_rest(self, batch: Batch, file_key: bytes, cursor: Cursor) -> None:
        """Sessions, frames, problems and the cursor."""
        txn, dbs = self.txn, self.dbs
        described: list[FeedItem] = []
        for key, sess in self.sessions.items():
            txn.put(key, dumps(sess), db=dbs["sessions"])
            if sess["cwd"] and cwd_fits(sess["cwd"]):  # one longer than a key: not listed
                txn.put(sess["cwd"].encode(), b"", db=dbs["cwds"])
            if sess["session"] not in self.with_events and self.described[key] != tuple(
                sess.get(f) for f in _DESCRIBED
            ):
                described.append({"t": "session", "id": f"{self.source}:{sess['session']}"})
        if described:
            self.store.feed_append(txn, described)
        self.put_cuts(batch)
        for frame in batch.frames:
            txn.put(
                keys.mirror_line_key(batch.mirror_id, frame.first_line),
                frame.pack(),
                db=dbs["frames"],
            )
        for number, problem in batch.problems:
            detail = problem.detail[:PROBLEM_DETAIL_CHARS]
            txn.put(
                keys.mirror_line_key(batch.mirror_id, number),
                dumps({"reason": problem.reason, "detail": detail}),
                db=dbs["problems"],
            )
        txn.put(file_key, dumps(cursor), db=dbs["files"])
        self.tally.flush(self.store, txn)


def write_batch(
    store: Store,
    batch: Batch,
    pending: dict[bytes, Pending],
    order: list[bytes],
    file_key: bytes,
    cursor: Cursor,
    device: str | None = None,
) -> int:
    """Record a batch and the file's new cursor; returns how many of its events were new.
    `order` is the pending keys sorted, made before the transaction. Records whose project is
    known are encoded before it too; the others once their session's project is read."""
    codec = store.codec
    sampled = codec.presample(batch.source, (entry[0] for entry in pending.values()))
    codec.prepare(batch.source)
    if codec.recompress_due:
        # A source's first dictionary was just stored (or adopted from a trainer that was
        # killed): the records kept plain before it are compressed with it now.
        codec.recompress_due = False
        recompress(store)
    encode = codec.encoder(batch.source, sample=not sampled)
    for entry in pending.values():
        if entry[0]["cwd"]:
            entry[1] = encode(entry[0])

    memories = batch.memories

    def work(txn: lmdb.Transaction) -> int:
        commit = _Commit(store, txn, batch.source, encode)
        commit.merge_facts(batch.facts)
        commit.settle_projects(pending)
        added = commit.put_events(pending, order, batch.upsert)
        commit.put_rest(batch, file_key, cursor)
        if memories:  # after the sessions: a forget lowers a session's visible count
            import_memories(store, txn, memories, device)
        return added

    return store.write(work)
