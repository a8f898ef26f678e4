"""Grok Build (xAI's `grok` CLI): `sessions/<percent-encoded cwd>/<session id>/updates.jsonl`, the
session's ACP update stream (research/formats.md §5.1–5.3). The `summary.json` beside it (titles,
parent) is read in grok.py.

A line is an envelope `{timestamp, method, params: {sessionId, update, _meta}}` whose
`_meta.eventId` is the record's own id, and the event's. Four things need more than one line:

- Chunks. A message is streamed as several `user_message_chunk` / `agent_message_chunk` /
  `agent_thought_chunk` lines, joined here into one event with the first chunk's id, time and
  line. The message being read (its id, time and text so far) waits in the per-file state and
  is emitted when a line arrives that does not continue it; after each pass the engine asks for
  it as it stands (`flush`, the kind's `finish`), so the last message of a file is searchable
  at once and replaced when it grows. A message longer than RUN_CHARS goes out in pieces of
  that size, which bounds the state.
- Tool calls. `tool_call` is the call; the `tool_call_update` that completes or fails it is the
  result (`:call` / `:result` ids on the tool call id). An update still in progress gives nothing.
- Forks. A fork's file starts with copies of its parent's lines, the session id rewritten but
  `eventId` kept (`<parent id>-NNNN`). They are the parent's events, read from the parent's file,
  so a line whose eventId names another session is skipped.
- Rewinds. `rewind_marker {target_prompt_index}` abandons that prompt and every line after it up
  to the marker; they stay in the file and their events in the archive. Those events were stored
  before the marker was read (and are not rewritten: their words are still what was said), so
  the marker becomes a system event that names the abandoned lines and the first abandoned
  event's id; the live branch goes on after it. The session's prompt is its first prompt as first read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote

from ...model import EventRecord, ParseProblem, Record, SessionFact
from ..base import (
    FileKind,
    Labelled,
    Words,
    build_events,
    labelled,
    load_object,
    never_raises,
    nonempty_str,
    safe_time,
)
from .build_text import NAME, RENDERERS, Line, content_text, tool_call_text, tool_result_text

#: The longest message text held in the state; a longer one is emitted in pieces of this size.
RUN_CHARS = 20_000
#: Prompt starts remembered to name a rewind's abandoned lines (rewinds go back a few prompts).
PROMPTS_KEPT = 32

#: The chunk updates, by the kind of message they stream.
_CHUNKS = {
    "user_message_chunk": "user",
    "agent_message_chunk": "agent",
    "agent_thought_chunk": "thought",
}
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_DRIVE = re.compile(r"[A-Za-z]:[\\/]")
#: (role, kind) of a user chunk by its variant: typed, the harness's turn, a `!` shell line.
_USER_ROLES = {"": ("user", "message"), "host": ("system", "system"), "bash": ("system", "meta")}


def start(relpath: str) -> dict[str, Any]:
    """The directory names the session and, percent-encoded, its cwd."""
    parts = PurePosixPath(relpath).parts
    state: dict[str, Any] = {"sid": parts[-2] if len(parts) >= 2 else "unknown", "t": 0}
    cwd = decode_cwd(parts[-3]) if len(parts) >= 3 else None
    if cwd is not None:
        state["cwd"] = cwd
    return state


def decode_cwd(name: str) -> str | None:
    """The cwd a session directory's group is named after (`urlencoding::encode`), or None for a
    long path's hashed slug, which does not decode to an absolute path."""
    path = unquote(name, errors="replace")
    return path if path.startswith(("/", "\\\\")) or _DRIVE.match(path) else None


@never_raises
def parse(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
    """Never raises: an update type or shape from a newer Grok Build must not stop ingestion."""
    return _parse(line, lineno, state)


def flush(state: dict[str, Any]) -> list[Record]:
    """The message still being read, as an event: for whoever knows that no line is coming."""
    run = state.pop("run", None)
    if not isinstance(run, dict) or not isinstance(run.get("text"), str):
        return []
    text, group, chunk = run["text"], run.get("g"), run.get("k")
    if not text.strip():
        return []
    time = run["t"] if isinstance(run.get("t"), int) else 0
    base = nonempty_str(run.get("id")) or f"{NAME}:{_sid(state)}:L{run.get('line')}"
    out: list[Record] = []
    if chunk == "user":
        index, _, variant = group.partition("/") if isinstance(group, str) else ("", "", "")
        role, kind = _USER_ROLES.get(variant, _USER_ROLES[""])
        if role == "user":
            _prompt_read(index, run.get("line"), base, text, time, state, out)
    else:
        role, kind = "assistant", "message" if chunk == "agent" else "meta"
    opened = run.get("line")
    for event in _events(state, [(base, role, kind, text)], time):
        event.line = opened if isinstance(opened, int) and opened > 0 else None  # its first chunk
        out.append(event)
    return out


def _parse(raw: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
    obj = load_object(raw)
    if obj is None:
        return []
    if isinstance(obj, ParseProblem):
        return [obj]
    found = obj.get("params")
    params = found if isinstance(found, dict) else obj  # legacy lines: a bare notification
    update, meta = params.get("update"), params.get("_meta")
    if not isinstance(update, dict):
        return []
    meta = meta if isinstance(meta, dict) else {}
    sid = nonempty_str(params.get("sessionId")) or _sid(state)
    event_id = nonempty_str(meta.get("eventId"))
    if event_id is not None and _copied(event_id, sid):
        return []
    state["sid"] = sid
    time = _line_time(obj, meta, state)
    base = f"{NAME}:{event_id}" if event_id else f"{NAME}:{sid}:L{lineno}"
    line = Line(sid, base, time, lineno, meta, [])
    utype = nonempty_str(update.get("sessionUpdate")) or ""
    if utype in _CHUNKS:
        line.out.extend(_chunk(_CHUNKS[utype], update, line, state))
    else:
        line.out.extend(flush(state))
        line.out.extend(_events(state, _other(utype, update, line, state), time))
    cwd = nonempty_str(state.get("cwd"))
    if cwd is not None and not state.get("cwd_sent") and line.out:
        line.out.insert(0, SessionFact(sid, NAME, cwd=cwd, time=time or None))
        state["cwd_sent"] = True
    return line.out


def _sid(state: Mapping[str, Any]) -> str:
    return nonempty_str(state.get("sid")) or "unknown"


def _copied(event_id: str, sid: str) -> bool:
    """An eventId `<session id>-NNNN` naming another session: a line a fork copied."""
    owner, dash, number = event_id.rpartition("-")
    return bool(dash) and number.isdigit() and owner != sid and _UUID.fullmatch(owner) is not None


def _line_time(obj: Mapping[str, Any], meta: Mapping[str, Any], state: dict[str, Any]) -> int:
    """`_meta.agentTimestampMs`, else the envelope's `timestamp` (seconds), else the last seen."""
    stamped = safe_time(meta.get("agentTimestampMs"))
    if stamped is None:
        stamped = safe_time(obj.get("timestamp"))
    if stamped is not None:
        state["t"] = stamped
        return stamped
    previous = state.get("t")
    return previous if isinstance(previous, int) else 0


def _chunk(
    chunk: str, update: Mapping[str, Any], line: Line, state: dict[str, Any]
) -> list[Record]:
    """Adds a chunk to the message being read, or emits that one and starts a new one. User
    chunks of one prompt share `promptIndex`; the agent's of one turn share `promptId`."""
    content = update.get("content")
    text = content_text(content)
    if isinstance(content, dict) and content.get("type") != "text" and text:
        text = "\n" + text  # a placeholder is not part of the sentence before it
    group = nonempty_str(line.meta.get("promptId"))
    if chunk == "user":
        own = update.get("_meta")
        own = own if isinstance(own, dict) else {}
        index = own.get("promptIndex")
        number = str(index) if isinstance(index, int) and not isinstance(index, bool) else ""
        variant = "host" if own.get("hostTurn") else "bash" if own.get("bashCommand") else ""
        group = f"{number}/{variant}"
    run = state.get("run")
    if (
        isinstance(run, dict)
        and (run.get("k"), run.get("g")) == (chunk, group)
        and isinstance(run.get("text"), str)
        and len(run["text"]) + len(text) <= RUN_CHARS
    ):
        run["text"] += text
        return []
    out = flush(state)
    state["run"] = {"k": chunk, "g": group, "id": line.base, "t": line.time, "line": line.number}
    state["run"]["text"] = text
    return out + flush(state) if len(text) >= RUN_CHARS else out  # too big to hold


def _prompt_read(
    index: str,
    start: object,
    base: str,
    text: str,
    time: int,
    state: dict[str, Any],
    out: list[Record],
) -> None:
    """A typed prompt: the session's prompt when it is the first, and a start a rewind may name."""
    if not state.get("prompt_sent"):
        out.append(SessionFact(_sid(state), NAME, prompt=text, time=time or None))
        state["prompt_sent"] = True
    if index.isdigit():
        prompts = state.get("prompts")
        kept = prompts if isinstance(prompts, list) else []
        state["prompts"] = [*kept, [int(index), start, base]][-PROMPTS_KEPT:]


def _other(
    utype: str, update: Mapping[str, Any], line: Line, state: dict[str, Any]
) -> list[tuple[str, str, str, str | Labelled]]:
    """(id, role, kind, text) of every update but a chunk."""
    if utype in ("tool_call", "tool_call_update"):
        call = nonempty_str(update.get("toolCallId"))
        prefix = f"{NAME}:{line.sid}:{call}" if call else line.base
        items: list[tuple[str, str, str, str | Labelled]] = []
        if utype == "tool_call":
            items.append(
                (
                    f"{prefix}:call" if call else prefix,
                    "assistant",
                    "tool_use",
                    tool_call_text(update),
                )
            )
        if update.get("status") in ("completed", "failed"):
            items.append((f"{prefix}:result", "system", "tool_result", tool_result_text(update)))
        return items
    if utype == "rewind_marker":
        text = _rewind(update.get("target_prompt_index"), line.number, state)
        return [(line.base, "system", "system", text)]
    render = RENDERERS.get(utype)  # none for telemetry, progress and UI state
    return [(line.base, *item) for item in render(update, line)] if render else []


def _rewind(target: object, lineno: int, state: dict[str, Any]) -> str | Labelled:
    """The marker's event: which lines, from which event on, the rewind abandoned."""
    if not isinstance(target, int) or isinstance(target, bool):
        return labelled("rewind: the lines before this one are an abandoned branch")
    found = state.get("prompts")
    starts = [p for p in found if isinstance(p, list) and len(p) == 3] if found else []
    abandoned = [p for p in starts if isinstance(p[0], int) and p[0] >= target]
    state["prompts"] = [p for p in starts if p not in abandoned]
    words = Words().origin("rewind to prompt ").log(str(target))
    first = min(abandoned, key=lambda p: p[1] if isinstance(p[1], int) else 0, default=None)
    if first is not None and isinstance(first[1], int):
        words.origin(f": lines {first[1]}–{lineno - 1} (from {first[2]}) are an abandoned branch")
    else:
        words.origin(": the turns from that prompt to here are an abandoned branch")
    return words.build()


def _events(
    state: Mapping[str, Any], items: list[tuple[str, str, str, str | Labelled]], time: int
) -> list[EventRecord]:
    """Each item an event of its own id, in the session and cwd of the file."""
    sid, cwd = _sid(state), nonempty_str(state.get("cwd"))
    return [
        event
        for event_id, role, kind, text in items
        for event in build_events(
            event_id,
            [(0, role, kind, text)],
            source=NAME,
            time=time,
            session=sid,
            cwd=cwd,
            state={},
        )
    ]


UPDATES = FileKind(
    name="updates",
    patterns=("sessions/*/*/updates.jsonl",),
    parse=parse,
    start=start,
    finish=flush,
)
