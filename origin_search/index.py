"""The tantivy index of events and entries: derived data, rebuilt from the store at any time.

Only ``id`` is stored; texts for results and snippets come from the store, which keeps the
index small and document fetches cheap (figures in docs/search.md). The directory holds a
version file; an index written by another schema or analyzer version is wiped and recreated,
and :attr:`SearchIndex.rebuilt` tells the caller to feed everything again.

Concurrency: many processes may search, one may write (tantivy's writer lock). A search takes a
fresh searcher, so one :class:`SearchIndex` serves any number of threads. This process sees its
own commits at once; other processes' commits within about a second, or after :meth:`reload`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tantivy import FieldType, Index, Occur, Order, Query, Schema, SchemaBuilder

from .analyzer import (
    ANALYZER_NAME,
    ANALYZER_VERSION,
    build_analyzer,
    is_alone,
    pair_tokens,
)
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
from .query import Clause
from .writer import RAW_FIELDS, IndexWriter

#: Bump when fields change; with the analyzer version it decides whether an index is reusable.
#: 3: the pairs field (adjacent CJK characters as one term); 4: ids stored only where no
#: ``seq`` names the document (``named``); 5: ``seq`` stored rather than a fast field.
SCHEMA_VERSION = 5
VERSION = f"origin-search schema {SCHEMA_VERSION} analyzer {ANALYZER_VERSION}\n"
#: Versions read as they are, each with whether its documents store their ``seq``: schema 4
#: differs only there (a fast field), and rebuilding a user's index for that (~7 minutes at
#: 10M events, searches seeing only the newest feed items meanwhile) would cost more than it
#: saves. A new or recreated index is always of ``VERSION``.
_SEQ_STORED = {VERSION: True, f"origin-search schema 4 analyzer {ANALYZER_VERSION}\n": False}


def reusable(version: str | None) -> bool:
    """Whether an index whose version file says ``version`` is opened as it is."""
    return version in _SEQ_STORED


#: Indexing memory and threads. On 2 cores one indexing thread keeps up with the Python thread
#: feeding it; a second one only adds segments to merge (docs/search.md).
WRITER_HEAP_BYTES = 128_000_000
WRITER_THREADS = 1

#: Ids for the ``seq`` values of hits, None where a value names nothing.
IdsBySeq = Callable[[list[int]], list[str | None]]
ANY = Filters()

_FAST_RAW = frozenset({"doc", "kind", "role", "source", "project"})


def build_schema(*, seq_stored: bool = True) -> Schema:
    sb = SchemaBuilder()
    # Indexed to delete and replace a document by its id; stored (``named``) only where no
    # ``seq`` names it: an entry, an event indexed without one. Stored for every event, the
    # ids were a tenth of the index (33 of 316 MB at 1M events) for what the feed names.
    sb.add_text_field("id", tokenizer_name="raw")
    sb.add_text_field("named", stored=True, index_option="basic", tokenizer_name="raw")
    for name in RAW_FIELDS:
        sb.add_text_field(name, tokenizer_name="raw", fast=name in _FAST_RAW)
    sb.add_integer_field("time", indexed=True, fast=True)
    sb.add_integer_field("valid_to", indexed=True, fast=True)
    # Where the store announced the document (its change-feed sequence), left out when
    # unknown: a hit is named through it. Stored, not a fast field: tantivy opens a fast
    # field's column in every segment on each read, which at 10M events (24 segments) cost
    # 0.4-0.9 ms a search however few hits were read, against ~1 us a hit for a stored one.
    if seq_stored:
        sb.add_integer_field("seq", stored=True)
    else:
        sb.add_integer_field("seq", fast=True)  # schema 4
    sb.add_text_field("text", tokenizer_name=ANALYZER_NAME, index_option="position")
    # Each two CJK characters at adjacent positions of `text`, as one term (analyzer.pairs):
    # a CJK word is searched here, not as a phrase of its characters.
    sb.add_text_field("pairs", tokenizer_name=ANALYZER_NAME, index_option="position")
    return sb.build()


@dataclass(frozen=True, slots=True)
class IndexStats:
    docs: int
    bytes: int
    segments: int


class SearchIndex:
    """One index directory. Open with :meth:`open`; cheap to share across threads."""

    def __init__(
        self,
        path: Path,
        index: Index,
        rebuilt: bool,
        ids_by_seq: IdsBySeq | None = None,
        seq_stored: bool = True,
    ) -> None:
        self.path = path
        #: True when the index was created or recreated empty: feed it every event and entry.
        self.rebuilt = rebuilt
        self._index = index
        self._schema = index.schema
        self._ids_by_seq = ids_by_seq
        self._seq_stored = seq_stored

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], *, ids_by_seq: IdsBySeq | None = None
    ) -> SearchIndex:
        """Open the index at ``path``, creating it, or recreating it when its version differs.

        ``ids_by_seq`` names hits through the ``seq`` they were indexed with (the store's
        change feed, see :func:`origin_search.open_searcher`): None where a value names
        nothing. Without it, or for a None, a hit's id is read from its stored document.

        Raises :class:`IndexBusy` when it must be recreated while another process writes to it,
        and :class:`IndexUnavailable` when the directory cannot be used at all.
        """
        p = Path(path)
        try:
            p.mkdir(parents=True, exist_ok=True)
            with locked(p / OPEN_LOCK_FILE):
                index: Index | None = None
                found = read_version(p)
                seq_stored = _SEQ_STORED.get(found or "", True)
                if reusable(found) and Index.exists(str(p)):
                    try:
                        index = Index.open(str(p))
                    except ValueError:
                        index = None  # damaged or from another tantivy: rebuild below
                if index is None:
                    wipe(p)
                    # Before the version file: an index that is current but empty, beside a
                    # store whose mark says it is full, must never be taken as it stands.
                    mark_rebuild(p)
                    index = Index(build_schema(), path=str(p), reuse=False)
                    write_version(p, VERSION)
                    seq_stored = True
                # Recreated now, or by a process that died before its first commit after it.
                rebuilt = rebuild_marked(p)
        except OSError as e:
            raise IndexUnavailable(f"Cannot open the search index at {p}: {e}") from e
        except ValueError as e:
            raise IndexUnavailable(f"Cannot open the search index at {p}: {e}") from e
        # Analyzers are not stored in the index: without this, adds and searches fail.
        index.register_tokenizer(ANALYZER_NAME, build_analyzer())
        return cls(p, index, rebuilt, ids_by_seq, seq_stored)

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
        """The index's only writer, or None at once when another process or object holds it."""
        try:
            w = self._index.writer(heap_size=WRITER_HEAP_BYTES, num_threads=WRITER_THREADS)
        except ValueError as e:
            if "LockBusy" in str(e):
                return None
            raise SearchError(f"Cannot write to the search index at {self.path}: {e}") from e
        return IndexWriter(self, w)

    def writer(self) -> IndexWriter:
        """Like :meth:`try_writer`, raising :class:`IndexBusy` instead of returning None."""
        w = self.try_writer()
        if w is None:
            raise IndexBusy(f"Another process is writing to the search index at {self.path}.")
        return w

    def reload(self) -> None:
        """See commits made by other processes now rather than within about a second."""
        self._index.reload()

    def search(
        self, clause_list: Sequence[Clause] | None, filters: Filters = ANY, limit: int = 20
    ) -> list[tuple[str, float]]:
        """Ids with their BM25 score, best first; newest first without clauses or when
        ``filters.newest_first`` (those carry a score of 0.0).

        ``[]`` (a query with nothing searchable) finds nothing. Filters never change scores.
        """
        if limit < 1:
            raise QueryError("limit must be at least 1.")
        if (clause_list is not None and not clause_list) or filters.empty:
            return []
        # One searcher for the whole call: the entry count below must describe what it sees.
        searcher = self._index.searcher()
        query = self._query(searcher, clause_list, filters)
        if query is None:
            return []
        try:
            if clause_list is None or filters.newest_first:
                result = searcher.search(
                    query, limit=limit, count=False, order_by_field="time", order=Order.Desc
                )
                hits = result.hits
                ids = self._ids(searcher, [a for _, a in hits])
                return [(i, 0.0) for i in ids]
            result = searcher.search(query, limit=limit, count=False)
            hits = result.hits
            ids = self._ids(searcher, [a for _, a in hits])
            return [(i, float(score)) for i, (score, _) in zip(ids, hits, strict=True)]
        except ValueError as e:
            raise SearchError(f"The search index could not answer: {e}") from e

    def _query(
        self, searcher: Any, clause_list: Sequence[Clause] | None, filters: Filters
    ) -> Query | None:
        """The tantivy query for clauses under filters; None when nothing can match."""
        schema = self._schema
        subs: list[tuple[Occur, Query]] = []
        if clause_list is None:
            subs.append((Occur.Must, Query.all_query()))
        else:
            subs.extend((Occur.Must, _clause_query(schema, c)) for c in clause_list)
        if filters.doc is not None:
            # Every document is one of the two types, so "events" is "not entries": excluding
            # the few entries is far cheaper than intersecting with a posting list that holds
            # nearly every document. With no entry at all there is nothing to exclude, which
            # keeps a one-word query a bare term query that tantivy can prune, and nothing to
            # search for entries (docs/search.md has the figures).
            entries = searcher.doc_freq("doc", "entry")  # deleted ones too: an upper bound
            if filters.doc == "event":
                if entries:
                    subs.append((Occur.MustNot, Query.term_query(schema, "doc", "entry")))
            elif not entries:
                return None
            else:
                subs.append(_filter(Query.term_query(schema, "doc", filters.doc)))
        subs.extend(_filter(q) for q in _field_filters(schema, filters))
        return subs[0][1] if len(subs) == 1 else Query.boolean_query(subs)

    def _ids(self, searcher: Any, addrs: list[Any]) -> list[str]:
        """The hits' ids: each stored document holds its ``seq``, which the opener's lookup
        names (one store read), or else its id (``named``). A schema 4 index keeps ``seq`` in
        a fast field, read for all hits at once."""
        if not addrs:
            return []
        if self._seq_stored:
            stored = [searcher.doc(a) for a in addrs]
            seqs = [int(d["seq"][0]) if d["seq"] else 0 for d in stored]
        else:
            stored = []
            seqs = [int(v or 0) for v in searcher.fast_field_values("seq", addrs)]
        lookup = self._ids_by_seq
        found = lookup(seqs) if lookup is not None and any(seqs) else [None] * len(seqs)
        return [
            i if i is not None else _stored_id(stored[n] if stored else searcher.doc(addrs[n]))
            for n, i in enumerate(found)
        ]

    def count(self) -> int:
        """Documents visible to searches now."""
        return self._index.searcher().num_docs

    def stats(self) -> IndexStats:
        searcher = self._index.searcher()
        size = 0
        for entry in self.path.iterdir():
            try:
                if entry.is_file():
                    size += entry.stat().st_size
            except FileNotFoundError:
                continue  # a merge removed it meanwhile
        return IndexStats(docs=searcher.num_docs, bytes=size, segments=searcher.num_segments)

    def clear(self) -> None:
        """Remove every document (for a rebuild from the store); needs the writer."""
        with self.writer() as w:
            w.delete_all()
            w.commit()


def _stored_id(stored: Any) -> str:
    named = stored["named"]
    if not named:
        raise IndexUnavailable("a hit has neither an id stored nor a seq the store names")
    return str(named[0])


def _filter(query: Query) -> tuple[Occur, Query]:
    # Under Must a filter would add its own score; a constant 0 keeps ranking pure BM25.
    return Occur.Must, Query.const_score_query(query, 0.0)


def _field_filters(schema: Schema, filters: Filters) -> Iterator[Query]:
    """The filters besides the document type, read from the fields :meth:`Filters.admits`
    reads: since inclusive, until exclusive, ``valid_to`` after ``valid_at_ms``."""
    if filters.kinds is not None:
        yield Query.term_set_query(schema, "kind", sorted(filters.kinds))
    if filters.source is not None:
        yield Query.term_query(schema, "source", filters.source)
    if filters.project is not None:
        yield Query.term_query(schema, "project", filters.project)
    since, until = filters.since_ms, filters.until_ms
    if since is not None or until is not None:
        yield Query.range_query(
            schema,
            "time",
            FieldType.Integer,
            lower_bound=since,
            upper_bound=until,
            include_lower=True,
            include_upper=until is None,
        )
    if filters.valid_at_ms is not None:
        yield Query.range_query(
            schema,
            "valid_to",
            FieldType.Integer,
            lower_bound=filters.valid_at_ms,
            include_lower=False,
        )


def _clause_query(schema: Schema, clause: Clause) -> Query:
    if not clause or not clause[0] or not clause[-1] or not all(isinstance(t, str) for t in clause):
        raise QueryError(f"Not a search clause: {clause!r}; build clauses with clauses().")
    if len(clause) == 1:
        return Query.term_query(schema, "text", clause[0])
    if all(is_alone(t) for t in clause):
        # A CJK word: the same documents as the phrase of its characters, from rarer terms.
        joined = pair_tokens(clause)
        if len(joined) == 1:
            return Query.term_query(schema, "pairs", joined[0])
        return Query.phrase_query(schema, "pairs", list(enumerate(joined)))
    # Offsets keep the gap of a dropped over-long token, as tantivy left one when indexing.
    return Query.phrase_query(schema, "text", [(i, t) for i, t in enumerate(clause) if t])
