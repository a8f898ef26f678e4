"""The tantivy index of events and entries: derived data, rebuilt from the store at any time.

The index is kept in partitions (partitions.py), each a tantivy index in a directory of its
own under the index's, with the fields of schema.py. A search reads the partitions its filters
can find answers in, side by side on several threads when they are large (tantivy-py lets go
of the GIL while it searches), and merges their top hits by score; each partition ranks by its
own statistics (docs/search.md has what that changes, measured against one index).

Only ``id`` is stored where no ``seq`` names a document; texts for results and snippets come
from the store, which keeps the index small and document fetches cheap. The directory holds a
version file; an index written by another schema or analyzer version is wiped and recreated,
and :attr:`SearchIndex.rebuilt` tells the caller to feed everything again.

Concurrency: many processes may search, one may write (tantivy's writer locks, all of them
taken together). A search takes fresh searchers, so one :class:`SearchIndex` serves any number
of threads. This process sees its own commits at once; other processes' commits within about
a second, or after :meth:`reload`.
"""

from __future__ import annotations

import heapq
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from threading import Lock
from typing import Any, NamedTuple

from tantivy import Index, Order

from origin_store.records import EventDoc

from . import idf
from .analyzer import ANALYZER_NAME, build_analyzer
from .errors import IndexBusy, IndexUnavailable, QueryError, SearchError
from .filters import Filters
from .indexdir import (
    OPEN_LOCK_FILE,
    locked,
    mark_rebuild,
    read_version,
    rebuild_marked,
    wipe,
    write_version,
)
from .indexdir import VERSION_FILE as VERSION_FILE  # where tests and tools look for it
from .partitions import PARTITIONS, plan
from .query import Clause
from .schema import VERSION, build_query, build_schema
from .writer import IndexWriter

#: Indexing threads per partition's writer: with one each, a backfill's partitions index on
#: every core while the Python thread feeds them (docs/search.md).
WRITER_THREADS = 1
#: Documents in the partitions one search reads past which they are searched side by side:
#: below it a thread's hand-over costs more than the search itself.
SIDE_BY_SIDE_AT = 200_000

#: What names the hits at their ``seq`` values: each hit's id and its record, when the
#: feed item named the event by its record; None where a value names nothing.
NamedBySeq = Callable[[list[int]], list[tuple[str, EventDoc | None] | None]]
ANY = Filters()


def reusable(version: str | None) -> bool:
    """Whether an index whose version file says ``version`` is opened as it is."""
    return version == VERSION


class Hit(NamedTuple):
    id: str
    #: BM25 in its partition; 0.0 where hits come newest first.
    score: float
    #: The event's record where naming the hit read it; None: read it by id.
    event: EventDoc | None


@dataclass(frozen=True, slots=True)
class IndexStats:
    docs: int
    bytes: int
    segments: int


_pool: Executor | None = None
_pool_lock = Lock()


def _side_by_side() -> Executor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(len(PARTITIONS) - 1, thread_name_prefix="origin-search")
        return _pool


def _forget_pool() -> None:
    """A forked child has none of its parent's threads: it starts a pool of its own."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, Lock()


os.register_at_fork(after_in_child=_forget_pool)


#: A reload that found a segment file gone reads the segments again this many times, after
#: 5, 10 and 15 ms: another process's merge has written its new list by then.
_RELOAD_ATTEMPTS = 3
_RELOAD_PAUSE_S = 0.005


class SearchIndex:
    """One index directory and its partitions. Open with :meth:`open`; cheap to share."""

    def __init__(
        self, path: Path, parts: list[Index], rebuilt: bool, named_by_seq: NamedBySeq | None
    ) -> None:
        self.path = path
        #: True when the index was created or recreated empty: feed it every event and entry.
        self.rebuilt = rebuilt
        self._parts = parts
        self._named_by_seq = named_by_seq

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], *, named_by_seq: NamedBySeq | None = None
    ) -> SearchIndex:
        """Open the index at ``path``, creating it, or recreating it when its version differs.

        ``named_by_seq`` names hits through the ``seq`` they were indexed with (the store's
        change feed, see :func:`origin_search.open_searcher`). Without it, or for a None, a
        hit's id is read from its stored document.

        Raises :class:`IndexBusy` when it must be recreated while another process writes to it,
        and :class:`IndexUnavailable` when the directory cannot be used at all.
        """
        p = Path(path)
        try:
            p.mkdir(parents=True, exist_ok=True)
            with locked(p / OPEN_LOCK_FILE):
                parts = _open_parts(p) if reusable(read_version(p)) else None
                if parts is None:
                    wipe(p)
                    # Before the version file: an index that is current but empty, beside a
                    # store whose mark says it is full, must never be taken as it stands.
                    mark_rebuild(p)
                    parts = _create_parts(p)
                    write_version(p, VERSION)
                # Recreated now, or by a process that died before its first commit after it.
                rebuilt = rebuild_marked(p)
        except (OSError, ValueError) as e:
            raise IndexUnavailable(f"Cannot open the search index at {p}: {e}") from e
        for part in parts:
            # Analyzers are not stored in the index: without this, adds and searches fail.
            part.register_tokenizer(ANALYZER_NAME, build_analyzer())
        return cls(p, parts, rebuilt, named_by_seq)

    def mark_rebuild(self) -> None:
        """Say on disk that this index must be emptied and fed again from the store before
        it is trusted; it stays said, for every process, until a commit that follows."""
        mark_rebuild(self.path)
        self.rebuilt = True

    def rebuild_pending(self) -> bool:
        """Whether the mark is still on disk: a process that opened the index during another's
        rebuild learns here, holding the writer, that the rebuild is done."""
        return rebuild_marked(self.path)

    def try_writer(self) -> IndexWriter | None:
        """The index's only writer (every partition's), or None at once when another process
        or object holds any of them."""
        writers: list[Any] = []
        try:
            for part, spec in zip(self._parts, PARTITIONS, strict=True):
                writers.append(part.writer(heap_size=spec.heap_bytes, num_threads=WRITER_THREADS))
        except ValueError as e:
            writers.clear()  # dropping a writer frees its lock
            if "LockBusy" in str(e):
                return None
            raise SearchError(f"Cannot write to the search index at {self.path}: {e}") from e
        return IndexWriter(self, writers)

    def writer(self) -> IndexWriter:
        """Like :meth:`try_writer`, raising :class:`IndexBusy` instead of returning None."""
        w = self.try_writer()
        if w is None:
            raise IndexBusy(f"Another process is writing to the search index at {self.path}.")
        return w

    def reload(self) -> None:
        """See commits made by other processes now rather than within about a second.

        Another process's writer deletes the files its merges replaced (tantivy guards them
        only from its own process's readers): a reload that read the list of segments just
        before may find one gone. It is read again; should the files keep moving, this
        process searches what it had, whose files it holds open, until the next reload."""
        for part in self._parts:
            for attempt in range(_RELOAD_ATTEMPTS):
                try:
                    part.reload()
                    break
                except ValueError as e:
                    if "FileDoesNotExist" not in str(e):
                        raise SearchError(
                            f"Cannot reload the search index at {self.path}: {e}"
                        ) from e
                    time.sleep(_RELOAD_PAUSE_S * (attempt + 1))

    def search(
        self, clause_list: Sequence[Clause] | None, filters: Filters = ANY, limit: int = 20
    ) -> list[tuple[str, float]]:
        """Ids with their BM25 score, best first; see :meth:`hits`."""
        return [(h.id, h.score) for h in self.hits(clause_list, filters, limit)]

    def hits(
        self, clause_list: Sequence[Clause] | None, filters: Filters = ANY, limit: int = 20
    ) -> list[Hit]:
        """The best hits, best first; newest first without clauses or when
        ``filters.newest_first`` (those carry a score of 0.0).

        ``[]`` (a query with nothing searchable) finds nothing. Filters never change scores.
        """
        if limit < 1:
            raise QueryError("limit must be at least 1.")
        if (clause_list is not None and not clause_list) or filters.empty:
            return []
        by_time = clause_list is None or filters.newest_first
        reads = plan(filters)
        if not reads:
            return []
        try:
            found = _search_all(self._parts, reads, clause_list, filters, limit, by_time)
            best = heapq.nlargest(limit, found, key=lambda h: (h[0], -h[1], -h[2]))
            return self._named(best, by_time)
        except ValueError as e:
            raise SearchError(f"The search index could not answer: {e}") from e

    def _named(self, best: list[_Found], by_time: bool) -> list[Hit]:
        """The hits' ids: each stored document holds its ``seq``, which the opener's lookup
        names (one store read, which also gives the event's record), or else its id."""
        stored = [searcher.doc(address) for _, _, _, searcher, address in best]
        seqs = [int(d["seq"][0]) if d["seq"] else 0 for d in stored]
        lookup = self._named_by_seq
        named = lookup(seqs) if lookup is not None and any(seqs) else [None] * len(seqs)
        out = []
        for (key, _, _, _, _), doc, name in zip(best, stored, named, strict=True):
            doc_id, event = name if name is not None else (_stored_id(doc), None)
            out.append(Hit(doc_id, 0.0 if by_time else float(key), event))
        return out

    def count(self) -> int:
        """Documents visible to searches now."""
        return sum(part.searcher().num_docs for part in self._parts)

    def stats(self) -> IndexStats:
        searchers = [part.searcher() for part in self._parts]
        size = 0
        for dirpath, _, names in os.walk(self.path):
            for name in names:
                try:
                    size += os.stat(os.path.join(dirpath, name)).st_size
                except FileNotFoundError:
                    continue  # a merge removed it meanwhile
        return IndexStats(
            docs=sum(s.num_docs for s in searchers),
            bytes=size,
            segments=sum(s.num_segments for s in searchers),
        )

    def clear(self) -> None:
        """Remove every document (for a rebuild from the store); needs the writer."""
        with self.writer() as w:
            w.delete_all()
            w.commit()


def _open_parts(path: Path) -> list[Index] | None:
    """Every partition opened, or None when one is missing or damaged: rebuild them all."""
    parts = []
    for spec in PARTITIONS:
        where = str(path / spec.name)
        try:
            if not Index.exists(where):
                return None
            parts.append(Index.open(where))
        except ValueError:
            return None  # missing, damaged or from another tantivy
    return parts


def _create_parts(path: Path) -> list[Index]:
    parts = []
    for spec in PARTITIONS:
        (path / spec.name).mkdir()
        parts.append(Index(build_schema(), path=str(path / spec.name), reuse=False))
    return parts


#: A partition's hit before it is named: its score or time, the partition's place and the
#: hit's rank in it (ties keep one order), its searcher and its address there.
_Found = tuple[float, int, int, Any, Any]


def _search_all(
    parts: list[Index],
    reads: list[tuple[int, frozenset[str] | None]],
    clause_list: Sequence[Clause] | None,
    filters: Filters,
    limit: int,
    by_time: bool,
) -> list[_Found]:
    """Each partition's top `limit`, side by side when they are large enough to gain; ranked
    by the whole index's IDF (`idf`), so that one scale orders them all."""
    searchers = [parts[n].searcher() for n, _ in reads]
    scaled = None
    if not by_time and clause_list is not None:  # ranked: every partition's statistics
        mine = {n: s for (n, _), s in zip(reads, searchers, strict=True)}
        every = [mine[n] if n in mine else part.searcher() for n, part in enumerate(parts)]
        scaled = idf.boosts(clause_list, every, [n for n, _ in reads])
    queries = [
        build_query(parts[n].schema, clause_list, filters, kinds, scaled[k] if scaled else None)
        for k, (n, kinds) in enumerate(reads)
    ]

    def one(n: int) -> list[_Found]:
        s = searchers[n]
        if by_time:
            hits = s.search(
                queries[n], limit=limit, count=False, order_by_field="time", order=Order.Desc
            ).hits
        else:
            hits = s.search(queries[n], limit=limit, count=False).hits
        return [(float(key), n, rank, s, address) for rank, (key, address) in enumerate(hits)]

    if len(reads) == 1 or sum(s.num_docs for s in searchers) < SIDE_BY_SIDE_AT:
        return [hit for n in range(len(reads)) for hit in one(n)]
    pool = _side_by_side()
    later = [pool.submit(one, n) for n in range(1, len(reads))]
    found = one(0)
    for future in later:
        found += future.result()
    return found


def _stored_id(stored: Any) -> str:
    named = stored["named"]
    if not named:
        raise IndexUnavailable("a hit has neither an id stored nor a seq the store names")
    return str(named[0])
