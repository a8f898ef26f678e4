"""The four read tools: search, timeline, get and sources."""

from __future__ import annotations

from typing import TypeVar

import lmdb

from origin_search import Clause, Filters, QueryError, clauses, snippet
from origin_store.care import damage
from origin_store.entries import versions as store_entries
from origin_store.parsers.agents import AGENTS
from origin_store.reader import (
    get_event,
    get_session,
    iter_sessions,
    mirror_info,
    read_mirror_text,
    readable_event,
    session_event_ids,
)
from origin_store.records import Citation, EntryVersion, EventDoc, MirrorDoc, SessionDoc
from origin_store.textclip import cut_counted

from ..contract.timeargs import optional_time, render, render_event
from ..errors import invalid, not_found
from ..runtime import Origin
from .common import (
    GET_TEXT,
    MESSAGE_KINDS,
    RAW_TEXT,
    SEARCH_TEXT,
    SNIPPET,
    SOURCE_TEXT,
    TIMELINE_TEXT,
    Caller,
    ingest_if_due,
    now_ms,
    refresh,
)
from .shapes import (
    CitedEvent,
    EntryView,
    EventDetail,
    EventView,
    FoundEvent,
    GetResult,
    HistoryItem,
    SearchResult,
    SessionEvents,
    SourceItem,
    SourcesResult,
    TimelineResult,
)
from .views import entry_view, event_view, session_view

_Found = TypeVar("_Found")


def search(
    origin: Origin,
    *,
    caller: Caller,
    query: str | None,
    scope: str,
    kind: str | None,
    since: str | None,
    until: str | None,
    source: str | None,
    project: str | None,
    include_tools: bool,
    limit: int,
) -> SearchResult:
    now = now_ms()
    since_ms = optional_time(since, "since", now)
    until_ms = optional_time(until, "until", now)
    source = source_filter(source)
    try:
        # A blank query arrives as None: `params` reads it as left out, as the contract says.
        found = clauses(query) if query is not None else None
    except QueryError as error:
        raise invalid(str(error)) from None
    ingest_if_due(origin)
    seen = origin.searcher.snapshot()  # catches the index up; one look at the feed for both
    result: SearchResult = {"entries": [], "events": []}
    if scope in ("all", "entries"):
        entries = Filters(
            doc="entry",
            kinds=frozenset([kind]) if kind else None,
            project=project,
            since_ms=since_ms,
            until_ms=until_ms,
            valid_at_ms=now,
        )
        result["entries"] = _entries_out(origin, seen.find(found, entries, limit), limit, now)
    if scope in ("all", "events") and (found is not None or scope == "events"):
        events = Filters(
            doc="event",
            kinds=None if include_tools else MESSAGE_KINDS,
            source=source,
            project=project,
            since_ms=since_ms,
            until_ms=until_ms,
        )
        ids = seen.find(found, events, limit)
        result["events"] = _events_out(origin, ids, limit, found, seen.events)
    return result


def source_filter(source: str | None) -> str | None:
    """The source id a `source` filter names: an agent's as given, any other name folded as
    `ingest` folds it (`Claude Web` finds what `ingest` recorded as `claude-web`). An agent's
    name names the agent; what it recorded through `ingest` is `<agent>-recorded`."""
    if source is None or source in AGENTS:
        return source
    from origin_store.parsers.journal import fold  # the parsers' base: only for such a name

    folded = fold(source)
    if not folded:
        raise invalid(
            f"source must be an agent ({', '.join(AGENTS)}) or a source recorded with ingest; "
            f"{source[:40]!r} names neither."
        )
    return folded


def _entries_out(origin: Origin, ids: list[str], limit: int, now: int) -> list[EntryView]:
    """The current, visible, still valid entries among `ids` (`Searcher.find` names each once)."""
    out: list[EntryView] = []
    with origin.store.read() as txn:
        for entry_id in ids:
            if len(out) >= limit:
                break
            version = store_entries.get_entry(origin.store, txn, entry_id)
            if version is None or store_entries.is_hidden(origin.store, txn, entry_id):
                continue
            line = store_entries.lineage(origin.store, txn, version["root"])
            if line.current != entry_id:
                continue
            valid_to = version.get("valid_to")
            if valid_to is not None and valid_to <= now:
                continue
            out.append(entry_view(version, line))
    return out


def _events_out(
    origin: Origin,
    ids: list[str],
    limit: int,
    found: list[Clause] | None,
    read: dict[str, EventDoc],
) -> list[FoundEvent]:
    """The visible events among `ids` (`Searcher.find` names each once), with snippets;
    `read` holds the records naming the hits read already."""
    out: list[FoundEvent] = []
    unreadable: list[str] = []
    with origin.store.read() as txn:
        hiding = store_entries.anything_hidden(origin.store, txn)  # else no hit's to check
        for event_id in ids:
            if len(out) >= limit:
                break
            event = read.get(event_id) or readable_event(origin.store, txn, event_id, unreadable)
            if event is None or (hiding and store_entries.is_hidden(origin.store, txn, event_id)):
                continue
            # The log's own words: what the search matched (Origin's label is never searched).
            matched = snippet(event["text"], found, width=SNIPPET) if found else None
            out.append({**event_view(event, SEARCH_TEXT), "snippet": matched})
    damage.note(origin.store, unreadable)
    return out


def timeline(
    origin: Origin,
    *,
    caller: Caller,
    since: str,
    until: str | None,
    source: str | None,
    project: str | None,
    session: str | None,
    include_tools: bool,
    limit: int,
) -> TimelineResult:
    now = now_ms()
    since_ms = optional_time(since, "since", now)
    until_ms = optional_time(until, "until", now)
    source = source_filter(source)
    refresh(origin)
    store = origin.store
    if session is not None:
        with store.read() as txn:
            found = find_session(origin, txn, session, source)
            if found is None:
                raise not_found(
                    f"Unknown session {session}." + (f" (source {source})" if source else "")
                )
            events: list[EventView] = []
            unreadable: list[str] = []
            for event_id in session_event_ids(store, txn, found["source"], session):
                if len(events) >= limit:
                    break
                event = readable_event(store, txn, event_id, unreadable)
                if event is None or store_entries.is_hidden(store, txn, event_id):
                    continue
                if not include_tools and event["kind"] != "message":
                    continue
                events.append(event_view(event, TIMELINE_TEXT))
            shown: SessionEvents = {"session": session_view(origin, txn, found), "events": events}
        damage.note(store, unreadable)
        return shown
    with store.read() as txn:
        chosen: list[SessionDoc] = []
        for item in iter_sessions(store, txn):
            # A session's first and last event times are set together, by its first event.
            if not item["events"] or item["ended"] is None or item["started"] is None:
                continue
            if source and item["source"] != source or project and item["project"] != project:
                continue
            if since_ms is not None and item["ended"] < since_ms:
                continue
            if until_ms is not None and item["started"] >= until_ms:
                continue
            chosen.append(item)
        chosen.sort(key=lambda s: (s["ended"], s["session"]), reverse=True)
        return {"sessions": [session_view(origin, txn, s) for s in chosen[:limit]]}


def find_session(
    origin: Origin, txn: lmdb.Transaction, session: str, source: str | None
) -> SessionDoc | None:
    """A session by id: of `source`, else of the first agent that has it, else of a recorded
    source (whose names no list holds: a hub has those its devices recorded)."""
    store = origin.store
    for candidate in [source] if source else AGENTS:
        found = get_session(store, txn, candidate, session)
        if found is not None:
            return found
    if source:
        return None
    return next((s for s in iter_sessions(store, txn) if s["session"] == session), None)


def _visible(origin: Origin, txn: lmdb.Transaction, item_id: str, found: _Found | None) -> _Found:
    """What `item_id` names, or the contract's error. Hidden first: a forget pulled from the hub
    hides ids this device never had (another device's events), and those are forgotten here
    too, not unknown."""
    if store_entries.is_hidden(origin.store, txn, item_id):
        raise not_found(f"{item_id} has been forgotten.")
    if found is None:
        raise not_found(f"Unknown entry or event {item_id}.")
    return found


def _entry(origin: Origin, txn: lmdb.Transaction, entry_id: str) -> EntryVersion:
    return _visible(origin, txn, entry_id, store_entries.get_entry(origin.store, txn, entry_id))


def _event(origin: Origin, txn: lmdb.Transaction, event_id: str) -> EventDoc:
    return _visible(origin, txn, event_id, get_event(origin.store, txn, event_id))


def get(origin: Origin, *, caller: Caller, id: str) -> GetResult:
    store = origin.store
    with store.read() as txn:
        if not id.startswith("ent_"):
            event = _event(origin, txn, id)
            detail: EventDetail = {
                **event_view(event, GET_TEXT),
                "cwd": event.get("cwd"),
                "git_branch": event.get("git_branch"),
                "agent_version": event.get("agent_version"),
            }
            return detail
        found = _entry(origin, txn, id)
        line = store_entries.lineage(store, txn, found["root"])
        sources: list[CitedEvent] = []
        for cited in found["sources"]:
            event_found = get_event(store, txn, cited["event_id"])
            if event_found is None or store_entries.is_hidden(store, txn, cited["event_id"]):
                continue
            sources.append({"quote": cited.get("quote"), **event_view(event_found, SOURCE_TEXT)})
        history: list[HistoryItem] = [
            {
                "id": v["id"],
                "supersedes": v.get("supersedes"),
                "author": v["author"],
                "created": render(v["created"]),
                "status": line.status_of(v)["status"],
            }
            for v in line.versions
        ]
        return {"entry": entry_view(found, line), "sources": sources, "history": history}


def sources(origin: Origin, *, caller: Caller, id: str) -> SourcesResult:
    store = origin.store
    with store.read() as txn:
        cited: list[Citation]
        if id.startswith("ent_"):
            cited = _entry(origin, txn, id)["sources"]
        else:
            _event(origin, txn, id)
            cited = [{"event_id": id, "quote": None}]
        items: list[tuple[Citation, EventDoc, MirrorDoc | None]] = []
        for citation in cited:
            event = get_event(store, txn, citation["event_id"])
            if event is None or store_entries.is_hidden(store, txn, citation["event_id"]):
                continue
            items.append((citation, event, mirror_info(store, txn, event["m"])))
    return [_source_item(origin, citation, event, mirror) for citation, event, mirror in items]


def _source_item(
    origin: Origin, citation: Citation, event: EventDoc, mirror: MirrorDoc | None
) -> SourceItem:
    # The cut counts the characters of the whole line, which is streamed when it is huge.
    raw = read_mirror_text(origin.store, origin.home, event["m"], event["line"], RAW_TEXT)
    original_file = mirror["original_file"] if mirror else None
    mirror_file = mirror["mirror_file"] if mirror else None
    if not event["m"]:  # pushed by a device: its file and its line came with it
        original_file, mirror_file = event.get("original_file"), None
        given = event.get("raw")
        raw = (given, event.get("raw_chars") or len(given)) if given is not None else None
    return {
        "event_id": event["id"],
        "time": render_event(event["time"]),
        "quote": citation.get("quote"),
        "original_file": original_file,
        "mirror_file": mirror_file,
        "line": event["line"],
        "raw": cut_counted(raw[0], raw[1], RAW_TEXT) if raw is not None else None,
    }
