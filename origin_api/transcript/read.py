"""A whole session read for export: its visible events in order, each whole (the `get` tool's
length), and the facts a reader of the file needs first (where, on what branch, with which
model and agent version, when).

The visibility rule is the session page's and the tools': what a forget hides is left out, so
a forgotten event is never exported. Texts are as the store keeps them, redacted at ingest.
"""

from __future__ import annotations

import re
from typing import NotRequired, TypedDict

import lmdb
import orjson

from origin_store.entries import versions as store_entries
from origin_store.reader import get_event, read_mirror_text, session_event_ids
from origin_store.records import EventDoc, SessionDoc
from origin_store.textclip import shown

from ..contract.timeargs import render_event
from ..errors import not_found
from ..runtime import Origin
from ..service.common import GET_TEXT, MESSAGE_KINDS
from ..service.reading import find_session
from ..service.shapes import EventView
from ..service.views import event_view

#: The JSON export's own name and version: a reader of the file can tell what it holds.
FORMAT = "origin-transcript"
VERSION = 1
#: How the model is named in an event's text where the log says it: Codex's turn context,
#: zcode's model change (a sub-agent's model, named in its parent's events, is not the session's).
_MODEL = re.compile(r'^(?:turn: model |model change: .*?"model(?:ID|Id|_id)?":")([\w.\-/:@]+)')
#: The raw line of a Claude Code assistant message is read for its model only this far.
_RAW_CHARS = 4_000


class Header(TypedDict):
    """What an exported session is: where it came from and when, and what the export holds."""

    session: str
    source: str
    title: str | None
    prompt: str | None
    project: str | None
    cwd: str | None
    git_branch: str | None
    model: str | None
    agent_version: str | None
    first: str | None
    last: str | None
    events: int  # the session's visible events
    exported: int  # the events in this export
    include_tools: bool


class ExportEvent(EventView):
    """An event of the export; `left_out` counts the events before it (since the previous one
    exported) that the export leaves out: tool calls and results, the harness's notes."""

    left_out: NotRequired[int]


class Transcript(TypedDict):
    format: str
    version: int
    header: Header
    events: list[ExportEvent]
    left_out_at_end: int


def read_transcript(
    origin: Origin, session: str, source: str | None = None, *, include_tools: bool = False
) -> Transcript:
    """A session (its id, or the id of one of its events) as an export reads it; without
    `include_tools`, its messages only (and memory files), counting what is left out."""
    store = origin.store
    with store.read() as txn:
        found = _session_of(origin, txn, session, source)
        hidden = store_entries.anything_hidden(store, txn)
        docs: list[EventDoc] = []
        for event_id in session_event_ids(store, txn, found["source"], found["session"]):
            if hidden and store_entries.is_hidden(store, txn, event_id):
                continue
            doc = get_event(store, txn, event_id)
            if doc is not None:
                docs.append(doc)
    events: list[ExportEvent] = []
    skipped = 0
    for doc in docs:
        if not include_tools and doc["kind"] not in MESSAGE_KINDS:
            skipped += 1
            continue
        view = event_view(doc, GET_TEXT)
        shown: ExportEvent = {
            "id": view["id"],
            "time": view["time"],
            "source": view["source"],
            "project": view["project"],
            "session": view["session"],
            "role": view["role"],
            "kind": view["kind"],
            "text": view["text"],
        }
        if skipped:
            shown["left_out"] = skipped
        events.append(shown)
        skipped = 0
    return {
        "format": FORMAT,
        "version": VERSION,
        "header": _header(origin, found, docs, len(events), include_tools),
        "events": events,
        "left_out_at_end": skipped,
    }


def _session_of(
    origin: Origin, txn: lmdb.Transaction, session: str, source: str | None
) -> SessionDoc:
    """The session named, or the session of the event named (a search hit's id exports its
    session); the contract's error when neither is known or the event was forgotten."""
    store = origin.store
    found = find_session(origin, txn, session, source)
    if found is not None:
        return found
    event = get_event(store, txn, session)
    if event is not None and not store_entries.is_hidden(store, txn, session):
        found = find_session(origin, txn, event["session"], event["source"])
        if found is not None:
            return found
    raise not_found(f"Unknown session {session}.")


def _header(
    origin: Origin, session: SessionDoc, docs: list[EventDoc], exported: int, tools: bool
) -> Header:
    timed = [doc["time"] for doc in docs if render_event(doc["time"]) is not None]
    return {
        "session": session["session"],
        "source": session["source"],
        "title": session.get("title"),
        "prompt": session.get("prompt"),
        "project": session["project"],
        "cwd": _last(docs, "cwd") or session.get("cwd"),
        "git_branch": _last(docs, "git_branch"),
        "model": _model(origin, docs),
        "agent_version": _last(docs, "agent_version"),
        "first": render_event(min(timed)) if timed else None,
        "last": render_event(max(timed)) if timed else None,
        "events": len(docs),
        "exported": exported,
        "include_tools": tools,
    }


def _last(docs: list[EventDoc], key: str) -> str | None:
    """A fact the events carry, as the last event that has it says (a session can change
    branch; the newest is what continuing it finds)."""
    for doc in reversed(docs):
        value = doc.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _model(origin: Origin, docs: list[EventDoc]) -> str | None:
    """The model, where the events name it (Codex, zcode, Grok) or, for Claude Code, where the
    raw line of its first reply does (`message.model`): read from the mirror, once."""
    for doc in reversed(docs):
        if doc["kind"] in ("meta", "system"):
            named = _MODEL.search(shown(doc, 300))
            if named:
                return named.group(1)
    for doc in docs:
        if doc["role"] == "assistant" and doc["source"] == "claude-code" and doc["m"]:
            raw = read_mirror_text(origin.store, origin.home, doc["m"], doc["line"], _RAW_CHARS)
            return _raw_model(raw[0]) if raw else None
    return None


def _raw_model(line: str) -> str | None:
    try:
        found = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    message = found.get("message") if isinstance(found, dict) else None
    model = message.get("model") if isinstance(message, dict) else None
    return model if isinstance(model, str) and model and not model.startswith("<") else None
