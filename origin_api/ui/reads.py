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
from origin_store.reader import get_event, session_event_ids

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
    session: SessionView
    events: list[PageEvent]
    page: int
    pages: int
    total: int

    @property
    def first(self) -> int:
        """The position in the session of this page's first event (1-based)."""
        return (self.page - 1) * PAGE_SIZE + 1


def session_page(
    origin: Origin,
    session: str,
    source: str | None,
    page: int,
    *,
    include_tools: bool = True,
    size: int = PAGE_SIZE,
) -> SessionPage:
    """Page `page` (1-based; past the end is the last) of a session's visible events, oldest
    first; without `include_tools`, messages only (as the timeline tool without it)."""
    store = origin.store
    with store.read() as txn:
        found = find_session(origin, txn, session, source)
        if found is None:
            raise not_found(f"Unknown session {session}.")
        hidden = store_entries.anything_hidden(store, txn)
        ids = [
            event_id
            for event_id in session_event_ids(store, txn, found["source"], session)
            if not hidden or not store_entries.is_hidden(store, txn, event_id)
        ]
        if not include_tools:  # the kind is in the record: every event is read once
            kept = []
            for event_id in ids:
                event = get_event(store, txn, event_id)
                if event is not None and event["kind"] == "message":
                    kept.append(event_id)
            ids = kept
        pages = max(1, -(-len(ids) // size))
        page = min(max(1, page), pages)
        events: list[PageEvent] = []
        for event_id in ids[(page - 1) * size : page * size]:
            event = get_event(store, txn, event_id)
            if event is None:
                continue
            citing = _citing(store, txn, event_id, hidden)
            events.append({**event_view(event, PAGE_TEXT), "cited_by": citing})
        return SessionPage(session_view(origin, txn, found), events, page, pages, len(ids))


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
