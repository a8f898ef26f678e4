"""Keeping the index behind the store's change feed, and reading the feed's unindexed end.

Only the process holding the tantivy writer indexes; it commits the index and then records the
last indexed sequence in LMDB. A process killed in between leaves the old sequence, and the
next catch-up upserts the same documents again (delete by id, then add), so nothing doubles.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from origin_store import Store, marks

from . import feeder
from .feed import READ_BATCH, Doc, read_batches, read_changes
from .index import SearchIndex
from .writer import IndexWriter, Prepared

#: A commit waits for the indexing threads to drain and writes a segment per partition;
#: meanwhile nothing is indexed, and each commit starts merges in every partition at once,
#: which hold memory side by side: at 1M events, committing every 250,000 documents peaked at
#: 446-737 MiB of anonymous memory, once at the end at 259 MiB (and at 10M events, every
#: 250,000: 988 MiB). A kill loses at most this many documents' indexing, done again.
_COMMIT_DOCS = 2_000_000
#: A catch-up this far behind reads the feed in a second process (`feeder`): its ~100 ms
#: start pays for itself within a few thousand documents.
FEED_PROCESS_AT = 100_000


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
    return marks.indexed_seq(store, txn)


#: Told to the front door (`announce`) before a catch-up this far behind starts: it takes
#: about a minute per two million items on two cores, and a search in a fresh process waits.
ANNOUNCE_AT = FEED_PROCESS_AT


def catch_up(
    store: Store,
    index: SearchIndex,
    *,
    apart_from: int | None = None,
    announce: Callable[[int], object] | None = None,
) -> CatchUp:
    """Index everything the feed announced since the last indexed sequence; from `apart_from`
    items behind (`FEED_PROCESS_AT`), another process reads the feed (`feeder`). `announce`
    hears how many items are behind when that is `ANNOUNCE_AT` or more, before they are read."""
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
            if index.rebuild_pending():
                start_over(store, index, writer)
            else:
                index.rebuilt = False  # another process rebuilt it since this one opened it
        with store.read() as txn:
            seq = _indexed_in(store, txn)
            # An event announced past every position a commit ever covered is not in the index:
            # it is added without the delete an upsert makes (a fifth of a build's time, and the
            # delete queue was most of the writer's memory).
            maybe_there = max(seq, marks.indexing_seq(store, txn))
            behind_by = store.feed_last(txn) - seq
        if announce is not None and behind_by >= ANNOUNCE_AT:
            announce(behind_by)
        pending = 0
        far = behind_by >= (FEED_PROCESS_AT if apart_from is None else apart_from)
        read = feeder.batches if far else read_batches
        result.apart = far
        for docs, deletes, last, count in read(store, seq, READ_BATCH):
            _apply(writer, docs, deletes, maybe_there)
            result.items += count
            result.docs += len(docs)
            pending += len(docs) + len(deletes)
            seq = last
            if pending >= _COMMIT_DOCS:
                _commit(store, writer, seq)
                pending = 0
        _commit(store, writer, seq)
        result.seq = seq
        if far:
            # A backfill's last commits start merges; dropping the writers abandons them and
            # leaves every search reading more segments (34 in all at 1M events).
            writer.finish_merges()
    finally:
        writer.close()
    result.seconds = time.perf_counter() - started
    return result


def _apply(writer: IndexWriter, docs: list[Prepared], deletes: list[str], maybe_there: int) -> None:
    """One batch of the feed into the writer: documents announced past `maybe_there` added,
    the others upserted (they may be in the index already), the deleted ids deleted."""
    if deletes:
        writer.delete(deletes)
    if docs:
        fresh = [d for d in docs if d[1] > maybe_there]
        if fresh:
            writer.add_prepared(fresh)
        if len(fresh) < len(docs):
            writer.upsert_prepared([d for d in docs if not d[1] > maybe_there])


def start_over(store: Store, index: SearchIndex, writer: IndexWriter) -> None:
    """Empty the index and zero the store's mark, in an order a kill may cut anywhere: the
    index's rebuild mark stays on disk until the emptied index is committed, so whichever
    process writes next starts over too."""
    index.mark_rebuild()
    store.write(lambda txn: reset(store, txn), durable=True)
    writer.delete_all()
    writer.commit()


def reset(store: Store, txn: Any) -> None:
    """The index is empty: nothing indexed, nothing maybe indexed."""
    marks.note_indexed(store, txn, 0)
    marks.note_indexing(store, txn, 0)


def _commit(store: Store, writer: IndexWriter, seq: int) -> None:
    store.write(lambda txn: marks.note_indexing(store, txn, seq), durable=True)
    writer.commit()
    store.write(lambda txn: marks.note_indexed(store, txn, seq))


def unindexed_tail(store: Store, limit: int) -> list[Doc]:
    """What the index has not committed yet, from at most the newest `limit` feed items, in
    feed order (events and current entries; hidden ones left out)."""
    with store.read() as txn:
        last = store.feed_last(txn)
        after = max(_indexed_in(store, txn), last - limit)
    if after >= last:
        return []
    return read_changes(store, after, limit)[0]
