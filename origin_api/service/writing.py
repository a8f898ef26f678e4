"""The three write tools: remember and correct (with the citing rules), and forget."""

from __future__ import annotations

import re
from typing import Protocol

import lmdb

from origin_search import Filters, QueryError, clauses
from origin_store.entries import versions as store_entries
from origin_store.errors import NotFound
from origin_store.reader import get_event
from origin_store.records import Citation, EntryVersion, EventDoc
from origin_store.textclip import Label, with_label

from ..contract.params import SourceArg
from ..contract.timeargs import optional_time
from ..errors import OriginError, conflict, invalid, not_found
from ..runtime import Origin
from .common import Caller, now_ms, refresh
from .shapes import EntryResult, EventDetail, EventView, ForgetResult, ReachItem
from .views import entry_view, event_view

#: An event a source cites: this device's record, or the hub's copy as its tools show it.
Cited = EventDoc | EventDetail | EventView

_SPACE = re.compile(r"\s+")
#: Events a quote is looked for in, per kind: the unindexed ones and the index's newest hits.
_QUOTE_CANDIDATES = 200


def _norm(text: str) -> str:
    return _SPACE.sub("", text).casefold()


class Elsewhere(Protocol):
    """Where a connected device sees the events only its hub has (`hubcite.HubEvents`)."""

    def event(self, event_id: str) -> EventDetail | None:
        """The hub's copy of the event, None when the hub does not know it either; raises
        `cannot_cite` for one forgotten there, and an error naming the hub when the hub cannot
        be reached."""

    def quoted(self, quote: str) -> EventView | None:
        """The most recent of the hub's messages holding the quote, else of its tool results;
        None when none does. Raises an error naming the hub when the hub cannot be reached."""


def cannot_cite(event_id: str) -> OriginError:
    return conflict(f"Event {event_id} has been forgotten and cannot be cited.")


def _resolve_sources(
    origin: Origin, cited: list[SourceArg], elsewhere: Elsewhere | None
) -> tuple[list[Citation], dict[str, Cited]]:
    """The citations as stored, and the events they cite (this device's, or its hub's copy)."""
    resolved: list[Citation] = []
    events: dict[str, Cited] = {}
    for item in cited:
        event_id, quote = item.get("event_id"), item.get("quote")
        event: Cited
        if event_id is not None:
            event = _cited_by_id(origin, event_id, quote, elsewhere)
        else:
            event = _find_quote(origin, str(quote), elsewhere)
            event_id = event["id"]
        events[event_id] = event
        resolved.append({"event_id": event_id, "quote": quote})
    unique: dict[tuple[str, str | None], Citation] = {}
    for citation in resolved:
        unique.setdefault((citation["event_id"], citation["quote"]), citation)
    return list(unique.values()), events


def _cited_by_id(
    origin: Origin, event_id: str, quote: str | None, elsewhere: Elsewhere | None
) -> Cited:
    """The event a source names by id (this device's, else its hub's copy), holding the quote."""
    store = origin.store
    with store.read() as txn:
        # A forget pulled from the hub hides ids this device never had: hidden first.
        if store_entries.is_hidden(store, txn, event_id):
            raise cannot_cite(event_id)
        local = get_event(store, txn, event_id)
    event: Cited | None = local
    if local is None and elsewhere is not None:
        event = elsewhere.event(event_id)
    if event is None:
        raise not_found(f"Unknown entry or event {event_id}.")
    label = local.get("label") if local is not None else None
    if quote is not None and not _quoted(quote, event["text"], label):
        raise not_found(f'Quote not found in event {event_id}: "{quote}"')
    return event


def holds(quote: str, text: str) -> bool:
    """Whether a text holds the quote, whitespace and case ignored."""
    return _norm(quote) in _norm(text)


def _quoted(quote: str, text: str, label: Label | None) -> bool:
    """Whether an event cited by id holds the quote: in the log's words, or in the event's
    text as `get` shows it, label included (an agent may quote what it was shown; the hub's
    copy is already as `get` shows it)."""
    if holds(quote, text):
        return True
    return bool(label) and holds(quote, with_label(text, label))


def _find_quote(origin: Origin, quote: str, elsewhere: Elsewhere | None) -> Cited:
    """The most recent visible message containing the quote, else a tool result; never a tool
    call (the agent's own remember call holds the quote). This device's events first; on a
    connected device, when none holds it, the hub's (docs/sync.md)."""
    found: Cited | None = _find_quote_here(origin, quote)
    if found is None and elsewhere is not None:
        found = elsewhere.quoted(quote)
        if found is not None:
            with origin.store.read() as txn:  # forgotten here, and the hub not told yet
                if store_entries.is_hidden(origin.store, txn, found["id"]):
                    found = None
    if found is None:
        raise not_found(
            f'No event contains the quote "{quote}". Search for the event and cite its id instead.'
        )
    return found


def _find_quote_here(origin: Origin, quote: str) -> EventDoc | None:
    wanted = _norm(quote)
    try:
        found = clauses(quote)
    except QueryError:
        found = []
    if found and wanted:
        seen = origin.searcher.snapshot()
        store = origin.store
        for kinds in (frozenset({"message"}), frozenset({"tool_result"})):
            candidates = seen.find(
                found, Filters(doc="event", kinds=kinds, newest_first=True), _QUOTE_CANDIDATES
            )
            best: EventDoc | None = None
            with store.read() as txn:
                for candidate in candidates:
                    event = get_event(store, txn, candidate)
                    if event is None or store_entries.is_hidden(store, txn, event["id"]):
                        continue
                    if wanted in _norm(event["text"]) and (
                        best is None or (event["time"], event["id"]) > (best["time"], best["id"])
                    ):
                        best = event
            if best is not None:
                return best
    return None


def _entry_project(events: dict[str, Cited]) -> str | None:
    """The project of the cited events, when they all have the same one."""
    projects = {event.get("project") for event in events.values()}
    return projects.pop() if len(projects) == 1 else None


def remember(
    origin: Origin,
    *,
    caller: Caller,
    kind: str,
    text: str,
    sources: list[SourceArg],
    confidence: float,
    project: str | None,
    valid_from: str | None,
    valid_to: str | None,
    elsewhere: Elsewhere | None = None,
) -> EntryResult:
    now = now_ms()
    valid_from_ms = optional_time(valid_from, "valid_from", now)
    valid_to_ms = optional_time(valid_to, "valid_to", now)
    refresh(origin, force=True)
    cited, events = _resolve_sources(origin, sources, elsewhere)
    version = store_entries.new_version(
        kind=kind,
        text=text,
        confidence=confidence,
        project=project if project is not None else _entry_project(events),
        author=caller.author,
        created=now,
        sources=cited,
        valid_from=valid_from_ms,
        valid_to=valid_to_ms,
    )
    origin.store.write(
        lambda txn: store_entries.put_version(origin.store, txn, version), durable=True
    )
    origin.searcher.catch_up()
    with origin.store.read() as txn:
        line = store_entries.lineage(origin.store, txn, version["id"])
    return {"entry": entry_view(version, line)}


def correct(
    origin: Origin,
    *,
    caller: Caller,
    id: str,
    text: str,
    kind: str | None,
    confidence: float | None,
    sources: list[SourceArg] | None,
    valid_from: str | None,
    valid_to: str | None,
    elsewhere: Elsewhere | None = None,
) -> EntryResult:
    now = now_ms()
    valid_from_ms = optional_time(valid_from, "valid_from", now)
    valid_to_ms = optional_time(valid_to, "valid_to", now)
    refresh(origin, force=True)
    store = origin.store
    old = _correctable(origin, id)
    added = _resolve_sources(origin, sources, elsewhere)[0] if sources else []

    def work(txn: lmdb.Transaction) -> EntryVersion:
        line = store_entries.lineage(store, txn, old["root"])
        if line.current != id:
            raise conflict(
                f"Entry {id} was already corrected; its current version is {line.current}. Correct that one instead."
            )
        carried: list[Citation] = list(old["sources"])
        for item in added:
            if item not in carried:
                carried.append(item)
        # A correction of an imported entry stays imported: the memory file's next version
        # supersedes it (docs/memory.md), which the flag tells whoever reads it.
        version = store_entries.new_version(
            kind=kind or old["kind"],
            text=text,
            confidence=confidence if confidence is not None else old["confidence"],
            project=old.get("project"),
            author=caller.author,
            created=now,
            sources=carried,
            valid_from=valid_from_ms if valid_from is not None else old.get("valid_from"),
            valid_to=valid_to_ms if valid_to is not None else old.get("valid_to"),
            imported=bool(old.get("imported")),
            after=old,
        )
        store_entries.put_version(store, txn, version)
        return version

    version = store.write(work, durable=True)
    origin.searcher.catch_up()
    with store.read() as txn:
        line = store_entries.lineage(store, txn, version["root"])
    return {"entry": entry_view(version, line)}


def _correctable(origin: Origin, entry_id: str) -> EntryVersion:
    """The version `correct` was asked to correct, or the contract's error for an unknown, an
    event's or a forgotten id (whether it is still current is checked in the write)."""
    store = origin.store
    with store.read() as txn:
        if not entry_id.startswith("ent_"):
            if get_event(store, txn, entry_id) is None:
                raise not_found(f"Unknown entry or event {entry_id}.")
            raise invalid(f"{entry_id} is an event; only entries can be corrected.")
        # A forget pulled from the hub hides versions this device may never have had.
        if store_entries.is_hidden(store, txn, entry_id):
            raise not_found(f"{entry_id} has been forgotten.")
        old = store_entries.get_entry(store, txn, entry_id)
        if old is None:
            raise not_found(f"Unknown entry or event {entry_id}.")
        return old


def forget(origin: Origin, *, caller: Caller, id: str, reason: str) -> ForgetResult:
    store = origin.store
    try:
        result = store.write(
            lambda txn: store_entries.forget(store, txn, id, reason.strip(), caller.author),
            durable=True,
        )
    except NotFound:
        raise not_found(f"Unknown entry or event {id}.") from None
    origin.searcher.catch_up()
    return result


#: How much of each text a forget's reach shows: enough to recognise it.
REACH_TEXT = 160


def forget_reach(origin: Origin, id: str) -> list[ReachItem]:
    """What `forget` of `id` would hide now, each with a short text, for a person to read
    before confirming (the admin UI's forget page, `origin forget`): the store's own rule
    (`store_entries.reach`), the entry versions first, then the events. Empty when everything
    is hidden already; the contract's not-found error for an unknown id. This store's view:
    a device's forget also reaches what only its hub holds, which the hub applies."""
    store = origin.store
    with store.read() as txn:
        try:
            found = store_entries.reach(store, txn, id)
        except NotFound:
            raise not_found(f"Unknown entry or event {id}.") from None
        items: list[ReachItem] = []
        for entry_id in found.entries:
            version = store_entries.get_entry(store, txn, entry_id)
            text = version["text"] if version is not None else ""
            items.append(_reach_item(entry_id, "entry", text, None, None, entry_id == id))
        for event_id in found.events:
            event = get_event(store, txn, event_id)
            if event is None:
                items.append(_reach_item(event_id, "event", "", None, None, event_id == id))
                continue
            view = event_view(event, REACH_TEXT)
            items.append(
                _reach_item(
                    event_id, "event", view["text"], view["source"], view["session"], event_id == id
                )
            )
    return items


def _reach_item(
    item_id: str, kind: str, text: str, source: str | None, session: str | None, target: bool
) -> ReachItem:
    flat = " ".join(text.split())  # an event's text comes cut, with the contract's count
    short = flat if kind == "event" or len(flat) <= REACH_TEXT else flat[: REACH_TEXT - 1] + "…"
    return {
        "id": item_id,
        "kind": kind,
        "text": short,
        "source": source,
        "session": session,
        "target": target,
    }
