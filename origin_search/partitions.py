"""Which partition of the index holds a document, and which partitions a search reads.

The index is kept in partitions by what searches select (docs/search.md): entries apart from
events, and events apart by kind, since the contract's default search (`include_tools`
false) reads only messages while tool calls, results and the agents' own records are four
fifths of an archive. A default search then scores only the documents it can return, and
searches of every kind read the partitions side by side on several cores. The tools are
split again by a hash of the id, so that no one partition holds most of the archive.

A document's partition is a function of the document alone (its type, kind and id), so a
writer in any process puts it in the same place, and a search planned from its `Filters`
reads every partition that can hold an answer, with no kind filter where the partition
holds only kinds the search asks for.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from .filters import Filters

#: Event kinds a search without tools returns (the contract's `include_tools: false`).
MESSAGE_KINDS = frozenset({"message", "memory"})
#: How many partitions the other events are hashed over.
TOOL_SHARDS = 2


@dataclass(frozen=True, slots=True)
class Partition:
    """One partition: its directory under the index's, and what it holds."""

    name: str
    doc: str  # "event" or "entry"
    #: The event kinds it holds; None: every kind but MESSAGE_KINDS (what a kind filter
    #: must then still check).
    kinds: frozenset[str] | None
    #: tantivy's indexing memory for its writer (at least 15 MB): sized to its share.
    heap_bytes: int


PARTITIONS: tuple[Partition, ...] = (
    Partition("entries", "entry", None, 15_000_000),
    Partition("messages", "event", MESSAGE_KINDS, 30_000_000),
    *(Partition(f"tools-{n}", "event", None, 40_000_000) for n in range(TOOL_SHARDS)),
)
_MESSAGES = 1
_FIRST_TOOLS = 2


def partition_of(doc: str, kind: str, doc_id: str) -> int:
    """The index in `PARTITIONS` of the partition holding a document."""
    if doc != "event":
        return 0
    if kind in MESSAGE_KINDS:
        return _MESSAGES
    return _FIRST_TOOLS + zlib.crc32(doc_id.encode()) % TOOL_SHARDS


def plan(filters: Filters) -> list[tuple[int, frozenset[str] | None]]:
    """The partitions a search under `filters` reads, each with the kinds it must still
    filter on there (None: every document of the partition has a kind the search asks for)."""
    out: list[tuple[int, frozenset[str] | None]] = []
    for n, part in enumerate(PARTITIONS):
        if filters.doc is not None and filters.doc != part.doc:
            continue
        asked = filters.kinds
        if asked is None:
            out.append((n, None))
        elif part.kinds is not None:  # a closed set of kinds: filter only where it is cut
            kept = asked & part.kinds
            if kept:
                out.append((n, None if kept == part.kinds else kept))
        elif part.doc == "entry":
            out.append((n, asked))
        elif kept := asked - MESSAGE_KINDS:
            out.append((n, kept))
    return out
