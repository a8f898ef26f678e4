"""What a search admits besides its text: one definition for the index and the unindexed tail.

The tantivy query is built from these fields (``index.py``) and the tail is matched with
:meth:`Filters.admits`; a test holds the two to each other on every boundary.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

#: ``valid_to`` of documents that never expire (events, entries without an end).
VALID_FOREVER = 2**63 - 1
DOC_TYPES = ("event", "entry")


@dataclass(frozen=True, slots=True)
class Filters:
    """``None`` means "any"; an empty ``kinds`` means "none".

    ``since_ms`` is inclusive and ``until_ms`` exclusive (on ``time``); ``valid_at_ms`` leaves
    out documents whose ``valid_to`` is at or before it. ``newest_first`` orders by time even
    when there are clauses (without clauses the order is always newest first).
    """

    doc: str | None = None
    kinds: frozenset[str] | None = None
    source: str | None = None
    project: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None
    valid_at_ms: int | None = None
    newest_first: bool = False

    def __post_init__(self) -> None:
        kinds: Collection[str] | None = self.kinds
        if kinds is not None and not isinstance(kinds, frozenset):
            value = frozenset([kinds] if isinstance(kinds, str) else kinds)
            object.__setattr__(self, "kinds", value)

    @property
    def empty(self) -> bool:
        """Nothing can pass: an unknown document type or no kind at all."""
        return (self.doc is not None and self.doc not in DOC_TYPES) or self.kinds == frozenset()

    def admits(self, doc: Mapping[str, Any]) -> bool:
        """Whether an index document (as ``feed.event_doc``/``entry_doc`` make it) passes."""
        if self.doc is not None and doc["doc"] != self.doc:
            return False
        if self.kinds is not None and doc["kind"] not in self.kinds:
            return False
        if self.source is not None and doc["source"] != self.source:
            return False
        if self.project is not None and doc["project"] != self.project:
            return False
        time: int = doc["time"]
        if self.since_ms is not None and time < self.since_ms:
            return False
        if self.until_ms is not None and time >= self.until_ms:
            return False
        if self.valid_at_ms is not None:
            valid_to = doc.get("valid_to")
            if (VALID_FOREVER if valid_to is None else valid_to) <= self.valid_at_ms:
                return False
        return True
