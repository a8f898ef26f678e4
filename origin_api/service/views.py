"""How entries, events and sessions are shown: the contract's fields, times rendered, texts
labelled and cut, and what a forget hides left out of what is derived from event text."""

from __future__ import annotations

import lmdb

from origin_store.entries import versions as store_entries
from origin_store.reader import readable_event, session_event_ids
from origin_store.records import EntryVersion, EventDoc, SessionDoc
from origin_store.textclip import shown

from ..contract.timeargs import render, render_event
from ..runtime import Origin
from .common import PROMPT
from .shapes import EntryView, EventView, SessionView


def event_view(event: EventDoc, limit: int) -> EventView:
    """An event as the tools return it: its text labelled and cut to `limit` characters."""
    return {
        "id": event["id"],
        "time": render_event(event["time"]),
        "source": event["source"],
        "project": event["project"],
        "session": event["session"],
        "role": event["role"],
        "kind": event["kind"],
        "text": shown(event, limit),
    }


def entry_view(version: EntryVersion, line: store_entries.Lineage) -> EntryView:
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


def session_view(origin: Origin, txn: lmdb.Transaction, session: SessionDoc) -> SessionView:
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


def _visible_prompt(origin: Origin, txn: lmdb.Transaction, session: SessionDoc) -> str | None:
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
    for n, event_id in enumerate(
        session_event_ids(store, txn, session["source"], session["session"])
    ):
        if n >= _PROMPT_SCAN:
            break
        event = readable_event(store, txn, event_id, [])  # the index's feed notes it
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
