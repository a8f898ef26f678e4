"""The one way in for a search: catch the index up, scan what it has not committed, ask tantivy.

:func:`open_searcher` opens the index for a store (hits are named through the store's change
feed); :meth:`Searcher.find` answers one query, and :meth:`Searcher.snapshot` several against
one look at the feed (one catch-up check and one tail read for all of them).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from origin_store import Store
from origin_store.reader import events_at
from origin_store.records import EventDoc

from .catchup import CatchUp, catch_up, start_over, unindexed_tail
from .errors import QueryError
from .feed import Doc
from .filters import Filters
from .index import ANY, SearchIndex
from .query import Clause, matches

#: Feed items a search scans itself at most: while a large backlog is being indexed (a first
#: backfill), only its newest part is found before it is indexed, so answers stay quick.
TAIL_SCAN = 10_000


class Snapshot:
    """The index and its unindexed tail as one search saw them."""

    __slots__ = ("_index", "events", "tail")

    def __init__(self, index: SearchIndex, tail: list[Doc]) -> None:
        self._index = index
        #: Documents announced after what the index has committed, oldest first.
        self.tail = tail
        #: The records of events read while naming the hits of :meth:`find`, by id: a caller
        #: showing them takes them from here rather than reading and decoding them again.
        self.events: dict[str, EventDoc] = {}

    def find(
        self, clause_list: Sequence[Clause] | None, filters: Filters = ANY, limit: int = 20
    ) -> list[str]:
        """Ids of at most ``limit`` documents: fresh ones from the tail first (newest first),
        then the index's hits (best first; newest first without clauses or when asked), each
        id once. ``None`` clauses list everything the filters admit; ``[]`` finds nothing."""
        if limit < 1:
            raise QueryError("limit must be at least 1.")
        if clause_list is not None and not clause_list:
            return []
        found: dict[str, None] = {}
        for doc in reversed(self.tail):
            if len(found) >= limit:
                return list(found)
            if filters.admits(doc) and (
                clause_list is None or matches(doc["text"] or "", clause_list)
            ):
                found[doc["id"]] = None
        for hit in self._index.hits(clause_list, filters, limit):
            if len(found) >= limit:
                break
            if hit.id not in found:
                found[hit.id] = None
                if hit.event is not None:
                    self.events[hit.id] = hit.event
        return list(found)


class Searcher:
    """Search over one store and its index; shared by every thread of a process."""

    def __init__(
        self, store: Store, index: SearchIndex, announce: Callable[[int], object] | None = None
    ) -> None:
        self.store = store
        self.index = index
        #: Hears how far behind a long catch-up starts (`catchup.ANNOUNCE_AT`).
        self.announce = announce

    def catch_up(self) -> CatchUp:
        """Index what the feed announced since the last indexed sequence, if this process can
        take the writer (otherwise see other processes' commits)."""
        return catch_up(self.store, self.index, announce=self.announce)

    def rebuild(self) -> CatchUp:
        """Empty the index and build it again from the store's change feed: the index is
        derived, so this loses nothing (and mends an index damaged or built by another analyzer)."""
        writer = self.index.writer()
        try:
            start_over(self.store, self.index, writer)
        finally:
            writer.close()
        return self.catch_up()

    def snapshot(self) -> Snapshot:
        """Catch up, then read the unindexed tail: what every search of the snapshot scans."""
        done = self.catch_up()
        tail = [] if done.current else unindexed_tail(self.store, TAIL_SCAN)
        return Snapshot(self.index, tail)

    def find(
        self, clause_list: Sequence[Clause] | None, filters: Filters = ANY, limit: int = 20
    ) -> list[str]:
        """One search: see :meth:`Snapshot.find`."""
        return self.snapshot().find(clause_list, filters, limit)


def open_searcher(
    store: Store,
    path: str | os.PathLike[str],
    *,
    announce: Callable[[int], object] | None = None,
) -> Searcher:
    """Open (or create, or rebuild) the index at ``path`` for ``store``; index hits are named
    through the store's change feed. ``announce`` hears how far behind a long catch-up starts."""

    def named_by_seq(seqs: list[int]) -> list[tuple[str, EventDoc | None] | None]:
        return events_at(store, seqs)

    return Searcher(store, SearchIndex.open(path, named_by_seq=named_by_seq), announce)
