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
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from tantivy import Document, FieldType, Index, Occur, Order, Query, Schema, SchemaBuilder

from .analyzer import ANALYZER_NAME, ANALYZER_VERSION, build_analyzer, prepare
from .errors import IndexBusy, IndexUnavailable, QueryError, SearchError
from .query import Clause

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, opens are not serialised
    fcntl = None  # type: ignore[assignment]

#: Bump when fields change; with the analyzer version it decides whether an index is reusable.
SCHEMA_VERSION = 2
VERSION = f"origin-search schema {SCHEMA_VERSION} analyzer {ANALYZER_VERSION}\n"
VERSION_FILE = "origin-search.version"
#: Serialises open/create/wipe between processes; it survives wipes.
OPEN_LOCK_FILE = "origin-search.lock"
_TANTIVY_WRITER_LOCK = ".tantivy-writer.lock"

#: ``valid_to`` of documents that never expire (events, entries without an end).
VALID_FOREVER = 2**63 - 1
DOC_TYPES = ("event", "entry")

#: Indexing memory and threads. On 2 cores one indexing thread keeps up with the Python thread
#: feeding it; a second one only adds segments to merge (docs/search.md).
WRITER_HEAP_BYTES = 128_000_000
WRITER_THREADS = 1

_RAW_FIELDS = ("doc", "kind", "role", "source", "project", "session")
_FAST_RAW = frozenset({"doc", "kind", "role", "source", "project"})


def build_schema() -> Schema:
    sb = SchemaBuilder()
    sb.add_text_field("id", stored=True, tokenizer_name="raw")
    for name in _RAW_FIELDS:
        sb.add_text_field(name, tokenizer_name="raw", fast=name in _FAST_RAW)
    sb.add_integer_field("time", indexed=True, fast=True)
    sb.add_integer_field("valid_to", indexed=True, fast=True)
    # Where the store announced the document (its change-feed sequence), 0 when unknown: read
    # as a fast field, it names a hit without decompressing a block of stored documents.
    sb.add_integer_field("seq", fast=True)
    sb.add_text_field("text", tokenizer_name=ANALYZER_NAME, index_option="position")
    return sb.build()


@dataclass(frozen=True, slots=True)
class IndexStats:
    docs: int
    bytes: int
    segments: int


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    if fcntl is None:
        yield
        return
    with open(path, "a+b") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _writer_lock_held(path: Path) -> bool:
    lock = path / _TANTIVY_WRITER_LOCK
    if fcntl is None or not lock.exists():
        return False
    with open(lock, "a+b") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(f, fcntl.LOCK_UN)
    return False


def _looks_like_ours(path: Path) -> bool:
    names = {e.name for e in path.iterdir()} - {OPEN_LOCK_FILE}
    return not names or VERSION_FILE in names or "meta.json" in names


def _wipe(path: Path) -> None:
    if not _looks_like_ours(path):
        raise IndexUnavailable(
            f"{path} holds files that are not a search index; refusing to delete them."
        )
    if _writer_lock_held(path):
        raise IndexBusy(
            f"The search index at {path} must be rebuilt, but another process is writing to it."
        )
    for entry in path.iterdir():
        if entry.name == OPEN_LOCK_FILE:
            continue
        if entry.is_dir() and not entry.is_symlink():
            import shutil  # only a rebuild needs it; a fresh process's first search does not

            shutil.rmtree(entry)
        else:
            entry.unlink()


def _read_version(path: Path) -> str | None:
    try:
        return (path / VERSION_FILE).read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return None


def _write_version(path: Path) -> None:
    tmp = path / (VERSION_FILE + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(VERSION)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path / VERSION_FILE)


class SearchIndex:
    """One index directory. Open with :meth:`open`; cheap to share across threads."""

    def __init__(self, path: Path, index: Index, rebuilt: bool) -> None:
        self.path = path
        #: True when the index was created or recreated empty: feed it every event and entry.
        self.rebuilt = rebuilt
        self._index = index
        self._schema = index.schema
        #: Ids for ``seq`` values, None where a value names nothing (set by whoever owns the
        #: store, see catchup.ids_by_seq). Without it, or for a None, ids come from stored docs.
        self.ids_by_seq: Callable[[list[int]], list[str | None]] | None = None

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> SearchIndex:
        """Open the index at ``path``, creating it, or recreating it when its version differs.

        Raises :class:`IndexBusy` when it must be recreated while another process writes to it,
        and :class:`IndexUnavailable` when the directory cannot be used at all.
        """
        p = Path(path)
        try:
            p.mkdir(parents=True, exist_ok=True)
            with _locked(p / OPEN_LOCK_FILE):
                index: Index | None = None
                if _read_version(p) == VERSION and Index.exists(str(p)):
                    try:
                        index = Index.open(str(p))
                    except ValueError:
                        index = None  # damaged or from another tantivy: rebuild below
                rebuilt = index is None
                if index is None:
                    _wipe(p)
                    index = Index(build_schema(), path=str(p), reuse=False)
                    _write_version(p)
        except OSError as e:
            raise IndexUnavailable(f"Cannot open the search index at {p}: {e}") from e
        except ValueError as e:
            raise IndexUnavailable(f"Cannot open the search index at {p}: {e}") from e
        # Analyzers are not stored in the index: without this, adds and searches fail.
        index.register_tokenizer(ANALYZER_NAME, build_analyzer())
        return cls(p, index, rebuilt)

    def try_writer(
        self, heap_bytes: int = WRITER_HEAP_BYTES, threads: int = WRITER_THREADS
    ) -> IndexWriter | None:
        """The index's only writer, or None at once when another process or object holds it."""
        try:
            w = self._index.writer(heap_size=heap_bytes, num_threads=threads)
        except ValueError as e:
            if "LockBusy" in str(e):
                return None
            raise SearchError(f"Cannot write to the search index at {self.path}: {e}") from e
        return IndexWriter(self, w)

    def writer(
        self, heap_bytes: int = WRITER_HEAP_BYTES, threads: int = WRITER_THREADS
    ) -> IndexWriter:
        """Like :meth:`try_writer`, raising :class:`IndexBusy` instead of returning None."""
        w = self.try_writer(heap_bytes, threads)
        if w is None:
            raise IndexBusy(f"Another process is writing to the search index at {self.path}.")
        return w

    def reload(self) -> None:
        """See commits made by other processes now rather than within about a second."""
        self._index.reload()

    def search(
        self,
        clause_list: Sequence[Clause] | None,
        *,
        doc: str | None = None,
        kinds: Collection[str] | None = None,
        exclude_kinds: Collection[str] | None = None,
        roles: Collection[str] | None = None,
        source: str | None = None,
        project: str | None = None,
        since_ms: int | None = None,
        until_ms: int | None = None,
        valid_at_ms: int | None = None,
        limit: int = 20,
        offset: int = 0,
        newest_first: bool = False,
    ) -> list[tuple[str, float]]:
        """Ids with their BM25 score, best first; newest first without clauses or when asked.

        ``[]`` (a query with nothing searchable) finds nothing. ``None`` filters mean "any";
        an empty collection means "none". ``since_ms`` is inclusive, ``until_ms`` exclusive.
        ``valid_at_ms`` leaves out documents whose ``valid_to`` is at or before it. Filters
        never change scores. Newest-first results carry a score of 0.0.
        """
        if limit < 1 or offset < 0:
            raise QueryError("limit must be at least 1 and offset at least 0.")
        if clause_list is not None and not clause_list:
            return []
        for given in (kinds, roles):
            if given is not None and not given:
                return []
        schema = self._schema
        subs: list[tuple[Occur, Query]] = []
        if clause_list is None:
            subs.append((Occur.Must, Query.all_query()))
        else:
            subs.extend((Occur.Must, _clause_query(schema, c)) for c in clause_list)
        filters: list[Query] = []
        excluded: list[Query] = []
        # One searcher for the whole call: the entry count below must describe what it sees.
        searcher = self._index.searcher()
        if doc is not None:
            if doc not in DOC_TYPES:
                return []
            # Every document is one of the two types, so "events" is "not entries": excluding
            # the few entries is far cheaper than intersecting with a posting list that holds
            # nearly every document. With no entry at all there is nothing to exclude, which
            # keeps a one-word query a bare term query that tantivy can prune, and nothing to
            # search for entries (docs/search.md has the figures).
            entries = searcher.doc_freq("doc", "entry")  # deleted ones too: an upper bound
            if doc == "event":
                if entries:
                    excluded.append(Query.term_query(schema, "doc", "entry"))
            elif not entries:
                return []
            else:
                filters.append(Query.term_query(schema, "doc", doc))
        if kinds is not None:
            filters.append(Query.term_set_query(schema, "kind", _values(kinds)))
        if roles is not None:
            filters.append(Query.term_set_query(schema, "role", _values(roles)))
        if source is not None:
            filters.append(Query.term_query(schema, "source", source))
        if project is not None:
            filters.append(Query.term_query(schema, "project", project))
        if since_ms is not None or until_ms is not None:
            filters.append(
                Query.range_query(
                    schema,
                    "time",
                    FieldType.Integer,
                    lower_bound=since_ms,
                    upper_bound=until_ms,
                    include_lower=True,
                    include_upper=until_ms is None,
                )
            )
        if valid_at_ms is not None:
            filters.append(
                Query.range_query(
                    schema,
                    "valid_to",
                    FieldType.Integer,
                    lower_bound=valid_at_ms,
                    include_lower=False,
                )
            )
        # Under Must a filter would add its own score; a constant 0 keeps ranking pure BM25.
        subs.extend((Occur.Must, Query.const_score_query(f, 0.0)) for f in filters)
        if exclude_kinds:
            excluded.append(Query.term_set_query(schema, "kind", _values(exclude_kinds)))
        subs.extend((Occur.MustNot, q) for q in excluded)
        query = subs[0][1] if len(subs) == 1 else Query.boolean_query(subs)
        try:
            if clause_list is None or newest_first:
                result = searcher.search(
                    query,
                    limit=limit,
                    offset=offset,
                    count=False,
                    order_by_field="time",
                    order=Order.Desc,
                )
                hits = result.hits
                return list(zip(self._ids(searcher, [a for _, a in hits]), [0.0] * len(hits), strict=True))
            result = searcher.search(query, limit=limit, offset=offset, count=False)
            hits = result.hits
            ids = self._ids(searcher, [a for _, a in hits])
            return [(i, float(score)) for i, (score, _) in zip(ids, hits, strict=True)]
        except ValueError as e:
            raise SearchError(f"The search index could not answer: {e}") from e

    def _ids(self, searcher: Any, addrs: list[Any]) -> list[str]:
        """The hits' ids: through their ``seq`` where the owner can resolve it (one fast-field
        read and a store look-up each, about half the time of a stored document), else from
        the stored document."""
        lookup = self.ids_by_seq
        if lookup is None or not addrs:
            return [searcher.doc(a)["id"][0] for a in addrs]
        seqs = [int(v or 0) for v in searcher.fast_field_values("seq", addrs)]
        found = lookup(seqs)
        return [i if i is not None else searcher.doc(a)["id"][0] for i, a in zip(found, addrs, strict=True)]

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


def _values(given: Collection[str]) -> list[str]:
    return [given] if isinstance(given, str) else list(given)


def _clause_query(schema: Schema, clause: Clause) -> Query:
    if not clause or not clause[0] or not clause[-1] or not all(isinstance(t, str) for t in clause):
        raise QueryError(f"Not a search clause: {clause!r}; build clauses with clauses().")
    if len(clause) == 1:
        return Query.term_query(schema, "text", clause[0])
    # Offsets keep the gap of a dropped over-long token, as tantivy left one when indexing.
    return Query.phrase_query(schema, "text", [(i, t) for i, t in enumerate(clause) if t])


def _document(d: Mapping[str, Any]) -> Document:
    doc = Document()
    doc.add_text("id", d["id"])
    for name in _RAW_FIELDS:
        value = d.get(name)
        if value is not None:
            doc.add_text(name, value)
    doc.add_integer("time", d["time"])
    valid_to = d.get("valid_to")
    doc.add_integer("valid_to", VALID_FOREVER if valid_to is None else valid_to)
    doc.add_integer("seq", d.get("seq") or 0)
    text = d.get("text")
    if text:
        doc.add_text("text", prepare(text))
    return doc


class IndexWriter:
    """Batches of upserts and deletes, visible to searches only after :meth:`commit`.

    A commit costs ~0.1 s or more (fsync), so commit per batch of seconds or thousands of
    documents, not per event. :meth:`close` without :meth:`commit` discards the batch. Calls are
    serialised by a lock, so threads may share one writer.
    """

    def __init__(self, owner: SearchIndex, writer: Any) -> None:
        self._owner = owner
        self._w = writer
        self._lock = threading.Lock()

    def _do(self, fn: Callable[[Any], Any]) -> Any:
        with self._lock:
            if self._w is None:
                raise SearchError("This index writer is closed.")
            try:
                return fn(self._w)
            except ValueError as e:
                raise SearchError(f"The search index refused a change: {e}") from e

    def upsert(self, docs: Iterable[Mapping[str, Any]]) -> int:
        """Add or replace documents by id. Keys: id, doc, kind, role, source, project, session,
        time (ms), valid_to (ms or None), text, and optionally seq (the change-feed sequence
        that announced it, which ``ids_by_seq`` resolves). Returns how many were given."""

        def run(w: Any) -> int:
            n = 0
            for d in docs:
                w.delete_documents_by_term("id", d["id"])
                w.add_document(_document(d))
                n += 1
            return n

        return int(self._do(run))

    def delete(self, ids: Iterable[str]) -> int:
        def run(w: Any) -> int:
            n = 0
            for i in ids:
                w.delete_documents_by_term("id", i)
                n += 1
            return n

        return int(self._do(run))

    def delete_all(self) -> None:
        self._do(lambda w: w.delete_all_documents())

    def commit(self) -> None:
        """Make the batch durable and visible to this process's searches."""
        self._do(lambda w: w.commit())
        self._owner.reload()

    def rollback(self) -> None:
        """Discard everything since the last commit."""
        self._do(lambda w: w.rollback())

    def close(self) -> None:
        """Release the writer lock; uncommitted changes are discarded."""
        with self._lock:
            w, self._w = self._w, None
        if w is not None:
            # Dropping the writer discards the batch and frees the lock even if rollback fails.
            with suppress(ValueError):
                w.rollback()
            del w

    def __enter__(self) -> IndexWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
