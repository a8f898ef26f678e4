"""Keeping the index behind the store's change feed, and reading the feed's unindexed end.

Only the process holding the tantivy writer indexes; it commits the index and then records the
last indexed sequence in LMDB. A process killed in between leaves the old sequence, and the
next catch-up upserts the same documents again (delete by id, then add), so nothing doubles.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from origin_store import Store
from origin_store.entries import get_entry, is_hidden, lineage
from origin_store.reader import get_event

from . import feeder
from .index import IndexWriter, Prepared, SearchIndex, prepared

INDEXED_SEQ = "indexed_seq"
#: The feed position a commit in progress covers, kept durably before the writer commits: the
#: index may hold documents up to here even when INDEXED_SEQ is behind (a kill between the two).
INDEXING_SEQ = "indexing_seq"
_READ_BATCH = 5_000
#: A commit waits for the indexing thread to drain and writes a segment; meanwhile nothing is
#: indexed (every 50,000 documents: 10 of a 1M-event build's 38 s). Every 250,000: 2.5 s, and
#: the build's anonymous memory stays near 215 MiB, the same as with one commit at the end (the
#: writer once held ~2 KB a document until a commit, when every document was an upsert).
_COMMIT_DOCS = 250_000
#: A catch-up this far behind reads the feed in a second process (`feeder`): its ~100 ms
#: start pays for itself within a few thousand documents.
FEED_PROCESS_AT = 100_000

#: An index document: id, doc, kind, role, source, project, session, time, valid_to, text, seq.
Doc = dict[str, Any]


@dataclass(slots=True)
class CatchUp:
    busy: bool = False  # another process holds the writer
    current: bool = False  # the feed had nothing past the index when checked
    items: int = 0
    docs: int = 0
    seq: int = 0
    seconds: float = 0.0
    apart: bool = False  # a second process read the feed (`feeder`), as far as it could


def indexed_seq(store: Store) -> int:
    with store.read() as txn:
        return _indexed_in(store, txn)


def _indexed_in(store: Store, txn: Any) -> int:
    return int(store.meta_get(txn, INDEXED_SEQ) or 0)


def event_doc(event: dict[str, Any], seq: int = 0) -> Doc:
    """The index document of an event; `seq` is the feed item announcing it, if known."""
    return {
        "id": event["id"],
        "doc": "event",
        "kind": event["kind"],
        "role": event["role"],
        "source": event["source"],
        "project": event["project"],
        "session": event["session"],
        "time": event["time"],
        "valid_to": None,
        "text": event["text"],
        "seq": seq,
    }


def entry_doc(entry: dict[str, Any]) -> Doc:
    return {
        "id": entry["id"],
        "doc": "entry",
        "kind": entry["kind"],
        "role": None,
        "source": None,
        "project": entry.get("project"),
        "session": None,
        "time": entry["created"],
        "valid_to": entry.get("valid_to"),
        "text": entry["text"],
    }


def catch_up(store: Store, index: SearchIndex, *, apart_from: int | None = None) -> CatchUp:
    """Index everything the feed announced since the last indexed sequence; from `apart_from`
    items behind (`FEED_PROCESS_AT`), another process reads the feed (`feeder`)."""
    started = time.perf_counter()
    with store.read() as txn:
        done = _indexed_in(store, txn)
        behind = store.feed_last(txn) > done
    if not behind and not index.rebuilt:
        # The common case before every search: one read transaction.
        return CatchUp(current=True, seq=done)
    writer = index.try_writer()
    if writer is None:
        index.reload()
        return CatchUp(busy=True, seq=indexed_seq(store))
    result = CatchUp()
    try:
        if index.rebuilt:
            writer.delete_all()
            writer.commit()
            store.write(lambda txn: reset(store, txn))
            index.rebuilt = False
        with store.read() as txn:
            seq = _indexed_in(store, txn)
            # An event announced past every position a commit ever covered is not in the index:
            # it is added without the delete an upsert makes (a fifth of a build's time, and the
            # delete queue was most of the writer's memory).
            maybe_there = max(seq, int(store.meta_get(txn, INDEXING_SEQ) or 0))
            behind_by = store.feed_last(txn) - seq
        pending = 0
        far = behind_by >= (FEED_PROCESS_AT if apart_from is None else apart_from)
        read = feeder.batches if far else read_batches
        result.apart = far
        for docs, deletes, last, count in read(store, seq, _READ_BATCH):
            if deletes:
                writer.delete(deletes)
            if docs:
                fresh = [d for d in docs if d[1] > maybe_there]
                if fresh:
                    writer.add_prepared(fresh)
                if len(fresh) < len(docs):
                    writer.upsert_prepared([d for d in docs if not d[1] > maybe_there])
            result.items += count
            result.docs += len(docs)
            pending += len(docs) + len(deletes)
            seq = last
            if pending >= _COMMIT_DOCS:
                _commit(store, writer, seq)
                pending = 0
        _commit(store, writer, seq)
        result.seq = seq
    finally:
        writer.close()
    result.seconds = time.perf_counter() - started
    return result


#: One batch of the feed, ready for the writer: documents to upsert, ids to delete, the last
#: feed sequence read, and how many feed items that was.
Batch = tuple[list[Prepared], list[str], int, int]


def read_batches(store: Store, after: int, limit: int = _READ_BATCH) -> Iterator[Batch]:
    """The feed after `after`, batch by batch, each read in its own transaction."""
    while True:
        upserts, deletes, last, count = _read_changes(store, after, limit)
        if not count:
            return
        yield [prepared(d) for d in upserts], deletes, last, count
        after = last


def reset(store: Store, txn: Any) -> None:
    """The index is empty: nothing indexed, nothing maybe indexed."""
    store.meta_put(txn, INDEXED_SEQ, 0)
    store.meta_put(txn, INDEXING_SEQ, 0)


def _commit(store: Store, writer: IndexWriter, seq: int) -> None:
    store.write(lambda txn: store.meta_put(txn, INDEXING_SEQ, seq), durable=True)
    writer.commit()
    store.write(lambda txn: store.meta_put(txn, INDEXED_SEQ, seq))


def _read_changes(store: Store, after: int, limit: int) -> tuple[list[Doc], list[str], int, int]:
    """Documents to upsert and ids to delete for the next `limit` feed items."""
    upserts: dict[str, Doc] = {}
    deletes: list[str] = []
    last = after
    count = 0
    with store.read() as txn:
        for seq, item, record in store.feed_since_events(txn, after, limit):
            last, count = seq, count + 1
            kind = item["t"]
            if kind == "event":
                event = record if record is not None else get_event(store, txn, item["id"])
                if event is not None and not is_hidden(store, txn, event["id"]):
                    upserts[event["id"]] = event_doc(event, seq)
            elif kind == "entry":
                _entry_changes(store, txn, item["root"], upserts, deletes)
            elif kind in ("hide", "unhide", "update"):
                for target in item["ids"]:
                    if target.startswith("ent_"):
                        version = get_entry(store, txn, target)
                        if version:
                            _entry_changes(store, txn, version["root"], upserts, deletes)
                    elif kind == "hide":
                        upserts.pop(target, None)
                        deletes.append(target)
                    else:
                        event = get_event(store, txn, target)
                        if event is not None and not is_hidden(store, txn, target):
                            upserts[target] = event_doc(event)
    return list(upserts.values()), deletes, last, count


def _entry_changes(
    store: Store, txn: Any, root: str, upserts: dict[str, Doc], deletes: list[str]
) -> None:
    """An entry is indexed by its current version only; older versions leave the index."""
    line = lineage(store, txn, root)
    for version in line.versions:
        if version["id"] != line.current or is_hidden(store, txn, version["id"]):
            upserts.pop(version["id"], None)
            deletes.append(version["id"])
        else:
            upserts[version["id"]] = entry_doc(version)


def unindexed_tail(store: Store, limit: int) -> list[Doc]:
    """What the index has not committed yet, from at most the newest `limit` feed items, in
    feed order (events and current entries; hidden ones left out)."""
    with store.read() as txn:
        last = store.feed_last(txn)
        after = max(_indexed_in(store, txn), last - limit)
    if after >= last:
        return []
    return _read_changes(store, after, limit)[0]
