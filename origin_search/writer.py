"""Writing the index: documents made ready (in this process or a feed reader's), and the
writer that adds, replaces and deletes them.

Apart from index.py (opening, the schema, searching) because a document is made without an
index: a feed reader in another process (feeder.py) runs :func:`prepared` and sends the
result over a pipe, and only the process holding tantivy's writer lock takes an
:class:`IndexWriter` (from :meth:`SearchIndex.writer`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from contextlib import suppress
from types import TracebackType
from typing import TYPE_CHECKING, Any

import orjson

from .analyzer import pairs, prepare
from .errors import SearchError
from .filters import VALID_FOREVER
from .indexdir import clear_rebuild
from .partitions import partition_of

if TYPE_CHECKING:
    from .index import SearchIndex

#: The fields kept as they are (one term each), which the filters read.
RAW_FIELDS = ("doc", "kind", "role", "source", "project", "session")

#: A document ready for the writer: its id, the feed sequence it was announced at (0 when
#: unknown), its JSON and its partition (`partitions.PARTITIONS`). Plain tuples, as a feed
#: reader in another process sends them.
Prepared = tuple[str, int, str, int]


def prepared(d: Mapping[str, Any]) -> Prepared:
    """``d`` (see :meth:`IndexWriter.upsert`) made ready for the writer: the analyzer's work
    and the JSON, so that it can be done in another process than the writer's."""
    return d["id"], d.get("seq") or 0, _document(d), partition_of(d["doc"], d["kind"], d["id"])


def _document(d: Mapping[str, Any]) -> str:
    """The document as JSON for ``add_json``: one call into tantivy, where building a
    ``Document`` field by field costs a call per field (~7 of a build's ~40 µs a document)."""
    doc: dict[str, Any] = {"id": d["id"]}
    seq = d.get("seq")
    if seq:
        doc["seq"] = seq
    else:
        doc["named"] = d["id"]
    for name in RAW_FIELDS:
        value = d.get(name)
        if value is not None:
            doc[name] = value
    doc["time"] = d["time"]
    valid_to = d.get("valid_to")
    doc["valid_to"] = VALID_FOREVER if valid_to is None else valid_to
    text = d.get("text")
    if text:
        analyzed = prepare(text)
        doc["text"] = analyzed
        joined = pairs(analyzed)
        if joined:
            doc["pairs"] = joined
    return orjson.dumps(doc).decode()


class IndexWriter:
    """Batches of upserts and deletes, visible to searches only after :meth:`commit`.

    One tantivy writer per partition, each with its own indexing thread, so a backfill indexes
    on several cores. A commit costs ~0.1 s or more (fsync), so commit per batch of seconds or
    thousands of documents, not per event. :meth:`close` without :meth:`commit` discards the
    batch. Calls are serialised by a lock, so threads may share one writer.
    """

    def __init__(self, owner: SearchIndex, writers: list[Any]) -> None:
        self._owner = owner
        self._ws: list[Any] | None = writers
        self._lock = threading.Lock()

    def _do(self, fn: Callable[[list[Any]], Any]) -> Any:
        with self._lock:
            if self._ws is None:
                raise SearchError("This index writer is closed.")
            try:
                return fn(self._ws)
            except ValueError as e:
                raise SearchError(f"The search index refused a change: {e}") from e

    def upsert(self, docs: Iterable[Mapping[str, Any]]) -> int:
        """Add or replace documents by id. Keys: id, doc, kind, role, source, project, session,
        time (ms), valid_to (ms or None), text, and optionally seq (the change-feed sequence
        that announced it, which the opener's ``named_by_seq`` resolves). Returns how many were given."""
        return self.upsert_prepared(prepared(d) for d in docs)

    def add(self, docs: Iterable[Mapping[str, Any]]) -> int:
        """Add documents known not to be in the index (no delete by id first, which an upsert
        pays for at commit); a document added twice would be found twice. Returns how many."""
        return self.add_prepared(prepared(d) for d in docs)

    def upsert_prepared(self, docs: Iterable[Prepared]) -> int:
        """:meth:`upsert` of documents made by :func:`prepared`: the id is deleted from every
        partition, as a replaced document of another kind may have lived in another."""

        def run(ws: list[Any]) -> int:
            n = 0
            for doc_id, _, json, part in docs:
                for w in ws:
                    w.delete_documents_by_term("id", doc_id)
                ws[part].add_json(json)
                n += 1
            return n

        return int(self._do(run))

    def add_prepared(self, docs: Iterable[Prepared]) -> int:
        """:meth:`add` of documents made by :func:`prepared`."""

        def run(ws: list[Any]) -> int:
            n = 0
            for _, _, json, part in docs:
                ws[part].add_json(json)
                n += 1
            return n

        return int(self._do(run))

    def delete(self, ids: Iterable[str]) -> int:
        def run(ws: list[Any]) -> int:
            n = 0
            for i in ids:
                for w in ws:
                    w.delete_documents_by_term("id", i)
                n += 1
            return n

        return int(self._do(run))

    def delete_all(self) -> None:
        self._do(lambda ws: [w.delete_all_documents() for w in ws])

    def commit(self) -> None:
        """Make the batch durable and visible to this process's searches. The first commit
        after a rebuild began ends it: the index is what its writer made it since. A kill
        between two partitions' commits leaves the store's mark before both, so the next
        catch-up upserts the batch again everywhere (nothing doubles)."""
        self._do(lambda ws: [w.commit() for w in ws])
        owner = self._owner
        if owner.rebuilt:
            clear_rebuild(owner.path)
            owner.rebuilt = False
        owner.reload()

    def rollback(self) -> None:
        """Discard everything since the last commit."""
        self._do(lambda ws: [w.rollback() for w in ws])

    def finish_merges(self) -> None:
        """Wait for the merges the commits started, then release the writers: for the end of
        a backfill, whose merges would be abandoned (and the index left in more segments) if
        the writers were dropped. The writer is closed after it."""
        with self._lock:
            ws, self._ws = self._ws, None
        for w in ws or ():
            w.wait_merging_threads()

    def close(self) -> None:
        """Release the writer locks; uncommitted changes are discarded."""
        with self._lock:
            ws, self._ws = self._ws, None
        for w in ws or ():
            # Dropping a writer discards its batch and frees its lock even if rollback fails.
            with suppress(ValueError):
                w.rollback()
        del ws

    def __enter__(self) -> IndexWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
