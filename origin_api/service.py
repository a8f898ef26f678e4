"""The seven tools' semantics, written once: plain functions over an open `Origin`.

Every front door (stdio MCP, the hub, the CLI) validates with `tools.TOOLS`, calls `call()`,
and turns `OriginError` into its own form. Nothing here knows about transports.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from origin_search import Filters, QueryError, clauses, snippet
from origin_store import entries as store_entries
from origin_store.errors import NotFound
from origin_store.parsers.registry import SOURCES
from origin_store.reader import (
    get_event,
    get_session,
    iter_sessions,
    mirror_info,
    read_mirror_text,
    session_event_ids,
)
from origin_store.textclip import cut_counted, shown, with_label

from .runtime import Origin
from .errors import OriginError, conflict, invalid, not_found
from .params import validate
from .timeargs import parse_time, render
from .tools import BY_NAME

SEARCH_TEXT = 400
SNIPPET = 200
TIMELINE_TEXT = 1_000
GET_TEXT = 20_000
SOURCE_TEXT = 500
RAW_TEXT = 4_000
PROMPT = 80
#: Event kinds `search` covers without include_tools: what people and agents said.
MESSAGE_KINDS = frozenset({"message", "memory"})
#: How long a search waits for another thread's ingest pass before answering without it.
SEARCH_INGEST_WAIT = 5.0


class Caller:
    """Who is calling: the author of entries written through this call."""

    def __init__(self, agent: str, device: str) -> None:
        self.agent = agent or "unknown"
        self.device = device

    @property
    def author(self) -> str:
        return f"{self.agent}@{self.device}" if self.device else self.agent


def call(origin: Origin, tool: str, args: Any, caller: Caller) -> Any:
    """Validate and run one tool; the single entry point of every front door."""
    spec = BY_NAME.get(tool)
    if spec is None:
        raise not_found(f"Unknown tool {tool!r}; Origin's tools are {', '.join(BY_NAME)}.")
    checked = validate(tool, spec.params, args)
    handler: Callable[..., Any] = HANDLERS[tool]
    return handler(origin, caller=caller, **checked)


# -- freshness and the index -------------------------------------------------------------------


def refresh(origin: Origin, *, force: bool = False) -> None:
    """Ingest new log lines (at most every 10 s unless forced), then bring the index up."""
    _ingest(origin, force=force)
    origin.searcher.catch_up()


def _ingest(origin: Origin, *, force: bool = False) -> None:
    interval = origin.settings.search_ingest_interval_ms / 1000
    if force or time.monotonic() - origin.last_ingest >= interval:
        origin.ingest(timeout=None if force else SEARCH_INGEST_WAIT)


# -- search ----------------------------------------------------------------------------------


def search(
    origin: Origin, *, caller: Caller, query: str | None, scope: str, kind: str | None, since: str | None,
    until: str | None, source: str | None, project: str | None, include_tools: bool, limit: int,
) -> dict:
    now = _now()
    since_ms = parse_time(since, "since", now_ms=now) if since else None
    until_ms = parse_time(until, "until", now_ms=now) if until else None
    try:
        found = clauses(query) if query is not None and query.strip() else None
    except QueryError as error:
        raise invalid(str(error)) from None
    _ingest(origin)
    seen = origin.searcher.snapshot()  # catches the index up; one look at the feed for both
    result: dict[str, list] = {"entries": [], "events": []}
    if scope in ("all", "entries"):
        entries = Filters(doc="entry", kinds=frozenset([kind]) if kind else None, project=project,
                          since_ms=since_ms, until_ms=until_ms, valid_at_ms=now)
        result["entries"] = _entries_out(origin, seen.find(found, entries, limit), limit, now)
    if scope in ("all", "events") and (found is not None or scope == "events"):
        events = Filters(doc="event", kinds=None if include_tools else MESSAGE_KINDS, source=source,
                         project=project, since_ms=since_ms, until_ms=until_ms)
        result["events"] = _events_out(origin, seen.find(found, events, limit), limit, found)
    return result


def _entries_out(origin: Origin, ids: list[str], limit: int, now: int) -> list[dict]:
    out: list[dict] = []
    seen: set[str] = set()
    with origin.store.read() as txn:
        for entry_id in ids:
            if entry_id in seen or len(out) >= limit:
                continue
            seen.add(entry_id)
            version = store_entries.get_entry(origin.store, txn, entry_id)
            if version is None or store_entries.is_hidden(origin.store, txn, entry_id):
                continue
            line = store_entries.lineage(origin.store, txn, version["root"])
            if line.current != entry_id:
                continue
            if version.get("valid_to") is not None and version["valid_to"] <= now:
                continue
            out.append(entry_view(version, line))
    return out


def _events_out(origin: Origin, ids: list[str], limit: int, found) -> list[dict]:  # noqa: ANN001
    out: list[dict] = []
    seen: set[str] = set()
    with origin.store.read() as txn:
        for event_id in ids:
            if len(out) >= limit:
                break
            if event_id in seen:
                continue
            seen.add(event_id)
            event = get_event(origin.store, txn, event_id)
            if event is None or store_entries.is_hidden(origin.store, txn, event_id):
                continue
            view = event_view(event, SEARCH_TEXT)
            # The log's own words: what the search matched (Origin's label is never searched).
            view["snippet"] = snippet(event["text"], found, width=SNIPPET) if found else None
            out.append(view)
    return out


# -- views ----------------------------------------------------------------------------------


def event_view(event: dict, limit: int) -> dict:
    """An event as the tools return it: its text labelled and cut to `limit` characters."""
    return {
        "id": event["id"],
        "time": render(event["time"]),
        "source": event["source"],
        "project": event["project"],
        "session": event["session"],
        "role": event["role"],
        "kind": event["kind"],
        "text": shown(event, limit),
    }


def entry_view(version: dict, line: store_entries.Lineage) -> dict:
    state = line.status_of(version)
    return {
        "id": version["id"],
        "kind": version["kind"],
        "text": version["text"],
        "confidence": version["confidence"],
        "status": state["status"],
        "concurrent": state["concurrent"],
        "project": version.get("project"),
        "author": version["author"],
        "created": render(version["created"]),
        "valid_from": render(version.get("valid_from")),
        "valid_to": render(version.get("valid_to")),
        "supersedes": version.get("supersedes"),
        "superseded_by": state["superseded_by"],
        "root": version["root"],
        "imported": bool(version.get("imported")),
    }


def session_view(origin: Origin, txn, session: dict) -> dict:  # noqa: ANN001
    title = session.get("title")
    prompt = None if title else _visible_prompt(origin, txn, session)
    return {
        "session": session["session"],
        "source": session["source"],
        "project": session["project"],
        "title": title,
        "prompt": prompt,
        "started": render(session["started"]),
        "ended": render(session["ended"]),
        "events": session["events"],
    }


def _prompt(text: str | None) -> str | None:
    if not text:
        return None
    flat = " ".join(text.split())
    return flat if len(flat) <= PROMPT else flat[: PROMPT - 1] + "…"


#: How far into a session the forgotten-prompt check looks for its first visible prompt.
_PROMPT_SCAN = 2_000


def _visible_prompt(origin: Origin, txn, session: dict) -> str | None:  # noqa: ANN001
    """The session's first prompt as shown, unless that prompt's event was forgotten: then the
    first visible user message in its place, or None. A forget leaves the stored prompt alone
    (a restore brings it back), so this is decided when reading; it costs nothing until
    something has been forgotten."""
    shown = _prompt(session.get("prompt"))
    store = origin.store
    if shown is None or not store_entries.anything_hidden(store, txn):
        return shown
    forgotten = False
    first_visible: str | None = None
    for n, event_id in enumerate(session_event_ids(store, txn, session["source"], session["session"])):
        if n >= _PROMPT_SCAN:
            break
        event = get_event(store, txn, event_id)
        if event is None or event["role"] != "user" or event["kind"] != "message":
            continue
        hidden = store_entries.is_hidden(store, txn, event_id)
        text = _prompt(event["text"])
        if text == shown:
            if not hidden:
                return shown
            forgotten = True
        elif not hidden and first_visible is None:
            first_visible = text
        if forgotten and first_visible is not None:
            return first_visible
    return first_visible if forgotten else shown


# -- timeline --------------------------------------------------------------------------------


def timeline(
    origin: Origin, *, caller: Caller, since: str, until: str | None, source: str | None, project: str | None,
    session: str | None, include_tools: bool, limit: int,
) -> dict:
    now = _now()
    since_ms = parse_time(since, "since", now_ms=now) if since else None
    until_ms = parse_time(until, "until", now_ms=now) if until else None
    refresh(origin)
    store = origin.store
    if session is not None:
        with store.read() as txn:
            found = None
            for candidate in [source] if source else SOURCES:
                found = get_session(store, txn, candidate, session)
                if found is not None:
                    break
            if found is None:
                raise not_found(f"Unknown session {session}." + (f" (source {source})" if source else ""))
            events = []
            for event_id in session_event_ids(store, txn, found["source"], session):
                if len(events) >= limit:
                    break
                event = get_event(store, txn, event_id)
                if event is None or store_entries.is_hidden(store, txn, event_id):
                    continue
                if not include_tools and event["kind"] != "message":
                    continue
                events.append(event_view(event, TIMELINE_TEXT))
            return {"session": session_view(origin, txn, found), "events": events}
    with store.read() as txn:
        chosen = []
        for item in iter_sessions(store, txn):
            if not item["events"] or item["ended"] is None:
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


# -- get and sources -------------------------------------------------------------------------


def _lookup(origin: Origin, txn, item_id: str) -> tuple[str, dict]:  # noqa: ANN001
    store = origin.store
    if item_id.startswith("ent_"):
        found = store_entries.get_entry(store, txn, item_id)
        kind = "entry"
    else:
        found = get_event(store, txn, item_id)
        kind = "event"
    if found is None:
        raise not_found(f"Unknown entry or event {item_id}.")
    if store_entries.is_hidden(store, txn, item_id):
        raise not_found(f"{item_id} has been forgotten.")
    return kind, found


def get(origin: Origin, *, caller: Caller, id: str) -> dict:  # noqa: A002 - the contract's name
    store = origin.store
    with store.read() as txn:
        kind, found = _lookup(origin, txn, id)
        if kind == "event":
            view = event_view(found, GET_TEXT)
            view.update(cwd=found.get("cwd"), git_branch=found.get("git_branch"), agent_version=found.get("agent_version"))
            return view
        line = store_entries.lineage(store, txn, found["root"])
        sources = []
        for cited in found["sources"]:
            event = get_event(store, txn, cited["event_id"])
            if event is None or store_entries.is_hidden(store, txn, cited["event_id"]):
                continue
            sources.append({"quote": cited.get("quote"), **event_view(event, SOURCE_TEXT)})
        history = [
            {"id": v["id"], "supersedes": v.get("supersedes"), "author": v["author"],
             "created": render(v["created"]), "status": line.status_of(v)["status"]}
            for v in line.versions
        ]
        return {"entry": entry_view(found, line), "sources": sources, "history": history}


def sources(origin: Origin, *, caller: Caller, id: str) -> list[dict]:  # noqa: A002
    store = origin.store
    with store.read() as txn:
        kind, found = _lookup(origin, txn, id)
        cited = [{"event_id": id, "quote": None}] if kind == "event" else found["sources"]
        items = []
        for citation in cited:
            event = get_event(store, txn, citation["event_id"])
            if event is None or store_entries.is_hidden(store, txn, citation["event_id"]):
                continue
            mirror = mirror_info(store, txn, event["m"]) or {}
            items.append((citation, event, mirror))
    out = []
    for citation, event, mirror in items:
        # The cut counts the characters of the whole line, which is streamed when it is huge.
        raw = read_mirror_text(origin.store, origin.home, event["m"], event["line"], RAW_TEXT)
        out.append({
            "event_id": event["id"],
            "time": render(event["time"]),
            "quote": citation.get("quote"),
            "original_file": mirror.get("original_file"),
            "mirror_file": mirror.get("mirror_file"),
            "line": event["line"],
            "raw": cut_counted(raw[0], raw[1], RAW_TEXT) if raw is not None else None,
        })
    return out


# -- remember, correct, forget ---------------------------------------------------------------

_SPACE = re.compile(r"\s+")
#: Events a quote is looked for in, per kind: the unindexed ones and the index's newest hits.
_QUOTE_CANDIDATES = 200


def _norm(text: str) -> str:
    return _SPACE.sub("", text).casefold()


def _resolve_sources(origin: Origin, cited: list[dict]) -> list[dict]:
    store = origin.store
    resolved: list[dict] = []
    for item in cited:
        event_id, quote = item.get("event_id"), item.get("quote")
        if event_id is not None:
            with store.read() as txn:
                event = get_event(store, txn, event_id)
                if event is None:
                    raise not_found(f"Unknown entry or event {event_id}.")
                if store_entries.is_hidden(store, txn, event_id):
                    raise OriginError(f"Event {event_id} has been forgotten and cannot be cited.", "conflict")
            if quote is not None and not _quoted(quote, event):
                raise not_found(f'Quote not found in event {event_id}: "{quote}"')
            resolved.append({"event_id": event_id, "quote": quote})
        else:
            resolved.append({"event_id": _find_quote(origin, quote), "quote": quote})
    unique: dict[tuple, dict] = {}
    for item in resolved:
        unique.setdefault((item["event_id"], item["quote"]), item)
    return list(unique.values())


def _quoted(quote: str, event: dict[str, Any]) -> bool:
    """Whether an event cited by id holds the quote: in the log's words, or in the event's
    text as `get` shows it, label included (an agent may quote what it was shown)."""
    wanted = _norm(quote)
    if wanted in _norm(event["text"]):
        return True
    return bool(event.get("label")) and wanted in _norm(with_label(event["text"], event["label"]))


def _find_quote(origin: Origin, quote: str) -> str:
    """The most recent visible message containing the quote, else a tool result; never a tool
    call (the agent's own remember call holds the quote)."""
    wanted = _norm(quote)
    try:
        found = clauses(quote)
    except QueryError:
        found = []
    if found and wanted:
        seen = origin.searcher.snapshot()
        store = origin.store
        for kinds in (frozenset({"message"}), frozenset({"tool_result"})):
            candidates = seen.find(found, Filters(doc="event", kinds=kinds, newest_first=True), _QUOTE_CANDIDATES)
            best: tuple[int, str] | None = None
            with store.read() as txn:
                for candidate in candidates:
                    event = get_event(store, txn, candidate)
                    if event is None or store_entries.is_hidden(store, txn, event["id"]):
                        continue
                    if wanted in _norm(event["text"]) and (best is None or (event["time"], event["id"]) > best):
                        best = (event["time"], event["id"])
            if best is not None:
                return best[1]
    raise not_found(f'No event contains the quote "{quote}". Search for the event and cite its id instead.')


def _entry_project(origin: Origin, cited: list[dict]) -> str | None:
    with origin.store.read() as txn:
        projects = {(get_event(origin.store, txn, c["event_id"]) or {}).get("project") for c in cited}
    return projects.pop() if len(projects) == 1 else None


def remember(
    origin: Origin, *, caller: Caller, kind: str, text: str, sources: list[dict], confidence: float,
    project: str | None, valid_from: str | None, valid_to: str | None,
) -> dict:
    now = _now()
    valid_from_ms = parse_time(valid_from, "valid_from", now_ms=now) if valid_from else None
    valid_to_ms = parse_time(valid_to, "valid_to", now_ms=now) if valid_to else None
    refresh(origin, force=True)
    cited = _resolve_sources(origin, sources)
    entry_id = store_entries.new_entry_id()
    version = {
        "id": entry_id, "kind": kind, "text": text.strip(), "confidence": float(confidence),
        "project": project if project is not None else _entry_project(origin, cited),
        "author": caller.author, "created": now, "valid_from": valid_from_ms, "valid_to": valid_to_ms,
        "supersedes": None, "root": entry_id, "imported": False, "sources": cited,
    }
    origin.store.write(lambda txn: store_entries.put_version(origin.store, txn, version), durable=True)
    origin.searcher.catch_up()
    with origin.store.read() as txn:
        line = store_entries.lineage(origin.store, txn, entry_id)
    return {"entry": entry_view(version, line)}


def correct(
    origin: Origin, *, caller: Caller, id: str, text: str, kind: str | None, confidence: float | None,  # noqa: A002
    sources: list[dict] | None, valid_from: str | None, valid_to: str | None,
) -> dict:
    now = _now()
    valid_from_ms = parse_time(valid_from, "valid_from", now_ms=now) if valid_from else None
    valid_to_ms = parse_time(valid_to, "valid_to", now_ms=now) if valid_to else None
    refresh(origin, force=True)
    store = origin.store
    with store.read() as txn:
        if not id.startswith("ent_"):
            if get_event(store, txn, id) is None:
                raise not_found(f"Unknown entry or event {id}.")
            raise invalid(f"{id} is an event; only entries can be corrected.")
        old = store_entries.get_entry(store, txn, id)
        if old is None:
            raise not_found(f"Unknown entry or event {id}.")
        if store_entries.is_hidden(store, txn, id):
            raise not_found(f"{id} has been forgotten.")
    added = _resolve_sources(origin, sources) if sources else []
    new_id = store_entries.new_entry_id()

    def work(txn) -> dict:  # noqa: ANN001
        line = store_entries.lineage(store, txn, old["root"])
        if line.current != id:
            raise conflict(f"Entry {id} was already corrected; its current version is {line.current}. Correct that one instead.")
        carried = list(old["sources"])
        for item in added:
            if item not in carried:
                carried.append(item)
        version = {
            "id": new_id, "kind": kind or old["kind"], "text": text.strip(),
            "confidence": float(confidence) if confidence is not None else old["confidence"],
            "project": old.get("project"), "author": caller.author, "created": max(now, old["created"] + 1),
            "valid_from": valid_from_ms if valid_from is not None else old.get("valid_from"),
            "valid_to": valid_to_ms if valid_to is not None else old.get("valid_to"),
            "supersedes": id, "root": old["root"], "imported": False, "sources": carried,
        }
        store_entries.put_version(store, txn, version)
        return version

    version = store.write(work, durable=True)
    origin.searcher.catch_up()
    with store.read() as txn:
        line = store_entries.lineage(store, txn, version["root"])
    return {"entry": entry_view(version, line)}


def forget(origin: Origin, *, caller: Caller, id: str, reason: str) -> dict:  # noqa: A002
    store = origin.store
    try:
        result = store.write(lambda txn: store_entries.forget(store, txn, id, reason.strip(), caller.author), durable=True)
    except NotFound:
        raise not_found(f"Unknown entry or event {id}.") from None
    origin.searcher.catch_up()
    return result


def _now() -> int:
    return int(time.time() * 1000)


HANDLERS: dict[str, Callable[..., Any]] = {
    "search": search,
    "timeline": timeline,
    "get": get,
    "sources": sources,
    "remember": remember,
    "correct": correct,
    "forget": forget,
}
