"""What the session page shows around a session's events, read from the store: where and with
what it ran (directory, branch, agent version, model), the session that started it and those it
started (sub-agents, forks), the event that started each, the output an agent kept out of line,
and the agent's own command that continues it.

Each is read from a few events, not from the whole session: the first and last events give the
directory, branch and version (they can change within a session); the raw lines of a few of
them the model (no parser keeps it: Claude Code writes it in each reply's `message.model`,
Codex in its `turn_context`); a Claude Code session's sub-agents are the sessions named
`<session>/agent-…`, found by their ids' prefix; another agent's children, whose sessions name
their parent, are found once per store version (`_children`) for every session of the source.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from itertools import islice

import lmdb
import orjson

from origin_store.entries import versions as store_entries
from origin_store.reader import (
    get_event,
    read_mirror_text,
    session_event_ids,
    session_events_before,
    sessions_with_parent,
    sessions_with_prefix,
)
from origin_store.records import EventDoc, SessionDoc

from ...continuing.commands import Continuation, continuation
from ...continuing.resolve import facts
from ...contract.timeargs import render
from ...runtime import Origin
from ...service.reading import find_session
from ...service.views import session_view
from ..reads import PageEvent, SessionPage, session_page
from ..render import at_url

#: Events read at each end of a session for its directory, branch and version.
_ENDS = 30
#: Raw lines read at most at each end of a session for its model.
_MODEL_LINES = 3
#: The most sub-agent or fork sessions listed.
_CHILDREN = 100
#: The most parts of one out-of-line output looked for.
_PARTS = 200
#: Claude Code's note that a tool's output is kept in a file of its own (`outputs.py`).
_OUT_OF_LINE = re.compile(r"/([^/\s]+)/tool-results/([^/\s]+)\.txt")
#: Claude Code's note, in a Task's result, of the sub-agent that did it.
_AGENT_ID = re.compile(r"agentId: ([0-9a-z]+)")


@dataclass(frozen=True)
class Link:
    """A link the page shows: its words and where it goes."""

    label: str
    url: str


@dataclass
class SessionContext:
    """The session page's header and its events' extra links."""

    cwd: list[str] = field(default_factory=list)
    branch: list[str] = field(default_factory=list)
    version: list[str] = field(default_factory=list)
    model: list[str] = field(default_factory=list)
    device: str | None = None
    parent: Link | None = None
    children: list[Link] = field(default_factory=list)
    continued: Continuation | None = None
    #: By event id: the sub-agent it started, the output the agent kept out of line.
    extras: dict[str, list[Link]] = field(default_factory=dict)


def session_page_at(
    origin: Origin,
    session: str,
    source: str | None,
    *,
    page: int,
    start: int | None,
    at: str | None,
    messages: bool,
) -> tuple[SessionPage, bool]:
    """The page asked for, and whether it shows messages only: an event asked for that is not
    a message is shown among every event (a search hit can be a tool's output)."""
    found = session_page(
        origin, session, source, page, include_tools=not messages, at=at, start=start
    )
    if found.missed and messages:
        every = session_page(origin, session, source, page, at=at, start=start)
        if not every.missed:
            return every, False
    return found, messages


def session_context(
    origin: Origin, source: str, session: str, events: list[PageEvent]
) -> SessionContext:
    """The context of a session whose page shows `events`. What does not depend on the page is
    kept for the store's version (`_HEADERS`): the pages of one session, and a hit's window
    after another, read it once."""
    store = origin.store
    with store.read() as txn:
        doc = find_session(origin, txn, session, source)
        if doc is None:
            return SessionContext()
        key = (id(store), txn.id(), doc["source"], doc["session"])
        with _CACHE_LOCK:
            kept = _HEADERS.get(key)
        if kept is None:
            kept = _header(origin, txn, doc)
            with _CACHE_LOCK:
                if len(_HEADERS) >= _HEADERS_KEPT:
                    _HEADERS.pop(next(iter(_HEADERS)))
                _HEADERS[key] = kept
        header, children = kept
        context = replace(header, extras={})
        _spawns(origin, txn, children, events, context.extras)
        _outputs(origin, txn, events, context.extras)
        return context


#: The most sessions whose header is kept, oldest dropped first.
_HEADERS_KEPT = 64
_HEADERS: dict[tuple[int, int, str, str], tuple[SessionContext, list[SessionDoc]]] = {}


def _header(
    origin: Origin, txn: lmdb.Transaction, doc: SessionDoc
) -> tuple[SessionContext, list[SessionDoc]]:
    """The page's header, and the sessions this one started."""
    ends = _end_events(origin, txn, doc)
    children = _children_of(origin, txn, doc)
    header = SessionContext(
        cwd=_distinct(e.get("cwd") for e in ends) or ([doc["cwd"]] if doc["cwd"] else []),
        branch=_distinct(e.get("git_branch") for e in ends),
        version=_distinct(e.get("agent_version") for e in ends),
        model=_models(origin, ends),
        device=next((e.get("device") for e in ends if e.get("device")), None),
        parent=_parent(origin, txn, doc),
        children=[_link(origin, txn, child) for child in children],
        continued=continuation(facts(origin, txn, doc)),
    )
    return header, children


def _end_events(origin: Origin, txn: lmdb.Transaction, doc: SessionDoc) -> list[EventDoc]:
    """The session's first and last events (each once), oldest first."""
    store, source, session = origin.store, doc["source"], doc["session"]
    first = list(islice(session_event_ids(store, txn, source, session), _ENDS))
    last = session_events_before(store, txn, source, session, 2**62, _ENDS)[::-1]
    ids = list(dict.fromkeys(first + last))
    found = [get_event(store, txn, event_id) for event_id in ids]
    return [event for event in found if event is not None]


def _distinct(values: Iterable[object]) -> list[str]:
    """The values in the order they first appear, each once; what is empty left out."""
    return list(dict.fromkeys(v for v in values if isinstance(v, str) and v))


def _models(origin: Origin, ends: list[EventDoc]) -> list[str]:
    """The model named in the raw line of the first and of the last of the agent's own events
    that name one (a raw line is read alone: ~0.3 ms; a few are looked at from each end)."""
    mine = [e for e in ends if e["role"] == "assistant" or e["kind"] == "meta"]
    first = next(filter(None, map(lambda e: _model_of(origin, e), mine[:_MODEL_LINES])), None)
    last = next(filter(None, map(lambda e: _model_of(origin, e), mine[::-1][:_MODEL_LINES])), None)
    return _distinct([first, last])


def _model_of(origin: Origin, event: EventDoc) -> str | None:
    raw = event.get("raw")
    if raw is None and event["m"]:
        read = read_mirror_text(origin.store, origin.home, event["m"], event["line"], 200_000)
        raw = read[0] if read is not None else None
    return _model_in(raw) if raw and '"model"' in raw else None


def _model_in(raw: str) -> str | None:
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    for _ in range(4):  # a line's own fields, its message's or payload's, a row's
        if not isinstance(value, dict):
            return None
        model = value.get("model")
        if isinstance(model, str) and model:
            return model
        value = next((v for k, v in value.items() if k in _NESTS and isinstance(v, dict)), None)
    return None


_NESTS = ("message", "payload", "row", "response", "info")


def _link(origin: Origin, txn: lmdb.Transaction, doc: SessionDoc, at: str | None = None) -> Link:
    view = session_view(origin, txn, doc)
    title = view["title"] or view["prompt"] or doc["session"]
    return Link(title, at_url(doc["source"], doc["session"], at))


def _parent(origin: Origin, txn: lmdb.Transaction, doc: SessionDoc) -> Link | None:
    """The session that started this one, opened at the event that started it."""
    if not doc["parent"]:
        return None
    parent = find_session(origin, txn, doc["parent"], doc["source"])
    if parent is None:
        return None
    at = None
    if doc["started"] is not None:
        before = session_events_before(
            origin.store, txn, parent["source"], parent["session"], doc["started"], 10
        )
        called = [get_event(origin.store, txn, event_id) for event_id in before]
        prompt = _prompt_key(doc)
        spawn = next((e for e in called if e and _spawned(e, doc, prompt)), None)
        at = spawn["id"] if spawn else (before[0] if before else None)
        if at and store_entries.is_hidden(origin.store, txn, at):
            at = None
    return _link(origin, txn, parent, at)


def _prompt_key(doc: SessionDoc) -> str:
    """How the start of a sub-agent's prompt reads in its Task call's JSON."""
    prompt = (doc["prompt"] or "")[:60]
    return orjson.dumps(prompt).decode()[1:-1] if prompt else ""


def _spawned(event: EventDoc | PageEvent, child: SessionDoc, prompt: str) -> bool:
    """Whether `event` is the call that started `child`: the Task call with its prompt, or the
    result naming its agent."""
    text = event["text"] or ""
    if event["kind"] == "tool_use":
        return bool(prompt) and prompt in text
    agent = child["session"].partition("/agent-")[2]
    return bool(agent) and event["kind"] == "tool_result" and f"agentId: {agent}" in text


_CACHE_LOCK = threading.Lock()
#: (store, store version, source) → parent id → its children; one entry, the newest.
_CACHE: dict[tuple[int, int, str], dict[str, list[SessionDoc]]] = {}


def _children_of(origin: Origin, txn: lmdb.Transaction, doc: SessionDoc) -> list[SessionDoc]:
    """The sessions this one started, oldest first."""
    store, source, session = origin.store, doc["source"], doc["session"]
    if source == "claude-code":
        found = sessions_with_prefix(store, txn, source, f"{session}/agent-", _CHILDREN)
    else:
        key = (id(store), txn.id(), source)
        with _CACHE_LOCK:
            by_parent = _CACHE.get(key)
        if by_parent is None:
            by_parent = {}
            for one in sessions_with_parent(store, txn, source):
                by_parent.setdefault(one["parent"] or "", []).append(one)
            with _CACHE_LOCK:
                _CACHE.clear()
                _CACHE[key] = by_parent
        found = by_parent.get(session, [])[:_CHILDREN]
    found = [child for child in found if child["events"]]
    return sorted(found, key=lambda child: (child["started"] or 0, child["session"]))


def _spawns(
    origin: Origin,
    txn: lmdb.Transaction,
    children: list[SessionDoc],
    events: list[PageEvent],
    extras: dict[str, list[Link]],
) -> None:
    """On the events of this page, a link to each sub-agent or fork each one started: the call
    that names it, else the last of the agent's calls before it started."""
    for child in children:
        prompt = _prompt_key(child)
        spawn = next((e for e in events if _spawned(e, child, prompt)), None)
        started = render(child["started"])
        if spawn is None and started is not None:
            # ISO times of one zone sort as the times do (the page's are all rendered here).
            times = [e for e in events if e["time"] and e["time"] <= started]
            calls = [e for e in times if e["kind"] == "tool_use"] or times
            spawn = calls[-1] if calls and len(times) < len(events) else None
        if spawn is not None:
            label = "sub-agent: " + _link(origin, txn, child).label
            extras.setdefault(spawn["id"], []).append(
                Link(label, at_url(child["source"], child["session"]))
            )


def _outputs(
    origin: Origin, txn: lmdb.Transaction, events: list[PageEvent], extras: dict[str, list[Link]]
) -> None:
    """On a result whose output Claude Code kept in a file of its own, a link to each part of
    that output (events of the session, often far from the result: their time is the file's)."""
    store = origin.store
    for event in events:
        if event["kind"] != "tool_result" or event["source"] != "claude-code":
            continue
        found = _OUT_OF_LINE.search(event["text"] or "")
        if found is None:
            continue
        session, name = found.groups()
        parts: list[EventDoc] = []
        for part in range(_PARTS):
            part_id = f"claude-code:{session}:tool-results/{name}#{part}"
            part_event = get_event(store, txn, part_id)
            if part_event is None:
                break
            if not store_entries.is_hidden(store, txn, part_id):
                parts.append(part_event)
        extras.setdefault(event["id"], []).extend(
            Link(
                f"full output {n}/{len(parts)}" if n == 1 else f"{n}/{len(parts)}",
                at_url(p["source"], p["session"], p["id"]),
            )
            for n, p in enumerate(parts, 1)
        )
