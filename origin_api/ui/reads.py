"""A session's events a page at a time, for the session view.

The `timeline` tool lists a session's first events (at most 500) and has no paging; a session
of 5,000 events must still open, so its view reads one page from the store with the parts the
tool is made of: the session's event index, the same visibility rule (what a forget hides is
left out) and the same event view, with the timeline's cut. Nothing here searches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

import lmdb

from origin_store import Store
from origin_store.entries import versions as store_entries
from origin_store.reader import (
    get_event,
    session_event_count,
    session_event_ids,
    session_event_ids_in,
    session_event_position,
)
from origin_store.records import SessionDoc

from ..contract.timeargs import render
from ..errors import not_found
from ..runtime import Origin
from ..service.reading import find_session
from ..service.shapes import EventView, SessionView
from ..service.views import event_view, session_view

#: Events on one page of a session.
PAGE_SIZE = 200
#: Characters of an event's text on the session page: a long reply, or a file written whole,
#: is rendered whole (origin_api.transcript); past it, the text is cut and its raw line has it.
PAGE_TEXT = 4_000


class PageEvent(EventView):
    """An event of the session view, with the entry versions citing it."""

    cited_by: list[str]


@dataclass(frozen=True)
class SessionPage:
    """One page of a session's visible events: `start` (0-based) is where it starts in them,
    a page's (`page`) or a window around the event asked for (`at`)."""

    session: SessionView
    events: list[PageEvent]
    page: int
    pages: int
    total: int
    start: int = 0
    at: str | None = None
    #: The event asked for is not among the events shown this way (forgotten, or not a message).
    missed: bool = False
    size: int = PAGE_SIZE

    @property
    def first(self) -> int:
        """The position in the session of this page's first event (1-based)."""
        return self.start + 1

    @property
    def aligned(self) -> bool:
        """Whether the window is one of the session's numbered pages."""
        return self.start % self.size == 0


def session_page(
    origin: Origin,
    session: str,
    source: str | None,
    page: int,
    *,
    include_tools: bool = True,
    size: int = PAGE_SIZE,
    at: str | None = None,
    start: int | None = None,
) -> SessionPage:
    """Page `page` (1-based; past the end is the last) of a session's visible events, oldest
    first; without `include_tools`, messages only (as the timeline tool without it). With `at`,
    the window of `size` events centred on that event instead (`window`); with `start`, the
    window from that position (0-based), as the pager of such a window steps."""
    store = origin.store
    with store.read() as txn:
        found = find_session(origin, txn, session, source)
        if found is None:
            raise not_found(f"Unknown session {session}.")
        hidden = store_entries.anything_hidden(store, txn)
        source_, name = found["source"], found["session"]
        if include_tools and not hidden:  # the session's event list alone says where
            position, total = (
                session_event_position(store, txn, source_, name, at)
                if at is not None
                else (None, found_count(origin, txn, found))
            )
            offset, missed = window(total, page, size, at, position, start)
            page_ids = session_event_ids_in(store, txn, source_, name, offset, offset + size)
        else:
            ids = visible_ids(origin, txn, found, hidden, include_tools=include_tools)
            total, position = len(ids), ids.index(at) if at in ids else None
            offset, missed = window(total, page, size, at, position, start)
            page_ids = ids[offset : offset + size]
        events: list[PageEvent] = []
        for event_id in page_ids:
            event = get_event(store, txn, event_id)
            if event is None:
                continue
            citing = _citing(store, txn, event_id, hidden)
            events.append({**event_view(event, PAGE_TEXT), "cited_by": citing})
        pages = max(1, -(-total // size))
        view = session_view(origin, txn, found)
        return SessionPage(
            view, events, min(pages, offset // size + 1), pages, total, offset, at, missed, size
        )


def found_count(origin: Origin, txn: lmdb.Transaction, found: SessionDoc) -> int:
    """How many events a session's list holds (nothing hidden: all of them are visible)."""
    return session_event_count(origin.store, txn, found["source"], found["session"])


def visible_ids(
    origin: Origin, txn: lmdb.Transaction, found: SessionDoc, hidden: bool, *, include_tools: bool
) -> list[str]:
    """A session's visible event ids in order: its event index alone, but for messages only,
    where the kind is in the record and every event is read once (~10 µs each)."""
    store = origin.store
    ids = [
        event_id
        for event_id in session_event_ids(store, txn, found["source"], found["session"])
        if not hidden or not store_entries.is_hidden(store, txn, event_id)
    ]
    if include_tools:
        return ids
    kept = []
    for event_id in ids:
        event = get_event(store, txn, event_id)
        if event is not None and event["kind"] == "message":
            kept.append(event_id)
    return kept


def window(
    total: int, page: int, size: int, at: str | None, position: int | None, start: int | None
) -> tuple[int, bool]:
    """Where the shown events start, and whether the event `at` names is missing. An event is
    shown with `size // 2` events before it where the session has them, so that the events
    around it are on the same page whichever page boundary it is near."""
    last = max(0, total - size)
    if at is not None:
        if position is None:
            return 0, True
        return min(max(0, position - size // 2), last), False
    if start is not None:
        return min(max(0, start), last), False
    pages = max(1, -(-total // size))
    return (min(max(1, page), pages) - 1) * size, False


def _citing(store: Store, txn: lmdb.Transaction, event_id: str, hidden: bool) -> list[str]:
    """The entry versions citing an event, but those a forget hides."""
    return [
        entry_id
        for entry_id in store_entries.citing_entries(store, txn, event_id)
        if not hidden or not store_entries.is_hidden(store, txn, entry_id)
    ]


class CitingVersion(TypedDict):
    """An entry version citing an event, as its raw line page lists it."""

    id: str
    kind: str
    text: str
    author: str
    created: str | None
    current: bool


def cited_by(origin: Origin, event_id: str) -> list[CitingVersion]:
    """The entries citing an event, for its raw line page: each version citing it (a correction
    keeps its sources, so an entry's versions usually all do), with its kind, its text, and
    whether it is still the entry's current version. What this store holds: on a device, an
    entry only the hub has is not listed."""
    store = origin.store
    found: list[tuple[bool, int, CitingVersion]] = []
    with store.read() as txn:
        hidden = store_entries.anything_hidden(store, txn)
        for entry_id in _citing(store, txn, event_id, hidden):
            version = store_entries.get_entry(store, txn, entry_id)
            if version is None:
                continue
            current = store_entries.lineage(store, txn, version["root"]).current == entry_id
            view: CitingVersion = {
                "id": entry_id,
                "kind": version["kind"],
                "text": version["text"],
                "author": version["author"],
                "created": render(version["created"]),
                "current": current,
            }
            found.append((not current, -version["created"], view))
    found.sort(key=lambda item: (item[0], item[1], item[2]["id"]))
    return [view for _, _, view in found]
