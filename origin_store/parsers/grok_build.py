"""Grok Build (xAI's `grok` CLI): `sessions/<percent-encoded cwd>/<session id>/updates.jsonl`, the
session's ACP update stream (research/formats.md §5.1–5.3). The `summary.json` beside it (titles,
parent) is read in grok.py.

A line is an envelope `{timestamp, method, params: {sessionId, update, _meta}}` whose
`_meta.eventId` is the record's own id, and the event's. Four things need more than one line:

- Chunks. A message is streamed as several `user_message_chunk` / `agent_message_chunk` /
  `agent_thought_chunk` lines, joined here into one event with the first chunk's id and time.
  The message being read (its id, time and text so far) waits in the per-file state and is
  emitted when a line arrives that does not continue it. Emitting it anew as it grows would not
  do: from an append-only log the store keeps the first version of an id. So the file's last
  message waits for the next line, or for `flush`, which releases it once no line is coming (the
  engine does not call it yet). A message longer than RUN_CHARS goes out in pieces of that size,
  which bounds the state.
- Tool calls. `tool_call` is the call; the `tool_call_update` that completes or fails it is the
  result (`:call` / `:result` ids on the tool call id). An update still in progress gives nothing.
- Forks. A fork's file starts with copies of its parent's lines, the session id rewritten but
  `eventId` kept (`<parent id>-NNNN`). They are the parent's events, read from the parent's file,
  so a line whose eventId names another session is skipped.
- Rewinds. `rewind_marker {target_prompt_index}` abandons that prompt and every line after it up
  to the marker; they stay in the file and their events in the archive. Those events were stored
  before the marker was read, and an append-only log's events are never rewritten, so the marker
  becomes a system event that names the abandoned lines and the first abandoned event's id; the
  live branch goes on after it. The session's prompt is its first prompt as first read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import PurePosixPath
from typing import Any, NamedTuple
from urllib.parse import unquote

from ..model import EventRecord, ParseProblem, Record, SessionFact
from .base import (
    FileKind,
    Labelled,
    Words,
    build_events,
    compact_json,
    labelled,
    load_object,
    nonempty_str,
    safe_time,
)

NAME = "grok"

#: A title the user gave (`title_is_manual`) beats the generated one, which beats the summary.
MANUAL_TITLE_RANK = 30
GENERATED_TITLE_RANK = 20
SUMMARY_TITLE_RANK = 10
#: The `_meta` key of a rename's fan-out (true: the user's title, false: a generated one).
MANUAL_META = "x.ai/titleIsManual"

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
#: What a hook run reports, in the order it is shown.
_RUN_FIELDS = ("command", "name", "status", "exit_code", "stdout", "stderr", "output", "error")

_Item = tuple[str, str, str | Labelled]  # (role, kind, text)


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


def parse(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
    """Never raises: an update type or shape from a newer Grok Build must not stop ingestion."""
    try:
        return _parse(line, lineno, state)
    except Exception as exc:  # last line of defence; fuzz tests keep this path unused
        return [ParseProblem("parser-error", type(exc).__name__)]


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


class _Line(NamedTuple):
    """One update line as its renderers need it: whose, which id, when, its `_meta`, and where
    the session facts it tells go."""

    sid: str
    base: str  # the line's event id
    time: int
    number: int
    meta: Mapping[str, Any]
    out: list[Record]

    def title(self, title: str, update: Mapping[str, Any], unmarked: int) -> None:
        """A title fact; a rename's fan-out says whether the user chose it."""
        own = update.get("_meta")
        manual = (own if isinstance(own, dict) else {}).get(MANUAL_META, self.meta.get(MANUAL_META))
        rank = unmarked if manual is None else MANUAL_TITLE_RANK if manual else GENERATED_TITLE_RANK
        self.out.append(SessionFact(self.sid, NAME, title=title, title_rank=rank, time=self.time))


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
    line = _Line(sid, base, time, lineno, meta, [])
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
    chunk: str, update: Mapping[str, Any], line: _Line, state: dict[str, Any]
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
    utype: str, update: Mapping[str, Any], line: _Line, state: dict[str, Any]
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
    render = _RENDERERS.get(utype)  # none for telemetry, progress and UI state
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


# --- what a line says -----------------------------------------------------------------------


def content_text(block: object) -> str:
    """An ACP content block's words; a stand-in for media (`[image image/png 68 bytes]`)."""
    if not isinstance(block, dict):
        return block if isinstance(block, str) else ""
    btype, data, resource = block.get("type"), block.get("data"), block.get("resource")
    if btype == "text":
        return block["text"] if isinstance(block.get("text"), str) else ""
    if btype in ("image", "audio") and isinstance(data, str) and data:
        mime = nonempty_str(block.get("mimeType")) or "unknown"
        return f"[{btype} {mime} {len(data) * 3 // 4} bytes]"
    if btype == "resource" and isinstance(resource, dict) and isinstance(resource.get("text"), str):
        return str(resource["text"])
    name = nonempty_str(block.get("name")) or nonempty_str(block.get("uri"))
    if name is None and isinstance(resource, dict):
        name = nonempty_str(resource.get("uri"))
    shown = f" {name}" if name and not name.startswith("data:") else ""  # never a payload
    return f"[{btype}{shown}]" if isinstance(btype, str) else ""


def tool_call_text(update: Mapping[str, Any]) -> str:
    """The tool (the call's title, else its kind) and its input as one searchable line."""
    name = nonempty_str(update.get("title")) or nonempty_str(update.get("kind")) or "tool"
    raw = update.get("rawInput")
    return name if raw is None else f"{name} {compact_json(raw)}"


def tool_result_text(update: Mapping[str, Any]) -> str | Labelled:
    """What a finished call returned: text, diffs (path, old and new text) and terminals; a
    failure says so (with its exit code when given) even without output."""
    words = Words()
    raw, content = update.get("rawOutput"), update.get("content")
    if update.get("status") == "failed":
        code = raw.get("exit_code") if isinstance(raw, dict) else None
        known = isinstance(code, int) and not isinstance(code, bool)
        words.origin(f"[error: exit code {code}] " if known else "[error] ")
    shown = 0
    for item in content if isinstance(content, list) else []:
        if not isinstance(item, dict):
            continue
        if shown:
            words.sep("\n")
        shown += 1
        if item.get("type") == "content":
            words.log(content_text(item.get("content")))
        elif item.get("type") == "diff":
            words.origin("diff ").log(nonempty_str(item.get("path")) or "")
            for mark, field in (("- ", "oldText"), ("+ ", "newText")):
                if isinstance(item.get(field), str) and item[field]:
                    words.sep("\n").origin(mark).log(item[field])
        elif item.get("type") == "terminal":
            words.origin(f"[terminal {item.get('terminalId') or ''}]")
    if not content and raw is not None:
        words.log(raw if isinstance(raw, str) else compact_json(raw))
    return words.build()


def _text(update: Mapping[str, Any], *fields: str) -> str | None:
    return next((v for f in fields if (v := nonempty_str(update.get(f))) is not None), None)


def _plan(update: Mapping[str, Any], _: _Line) -> list[_Item]:
    entries = update.get("entries")
    words = Words().origin("plan:")
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and nonempty_str(entry.get("content")):
            status = nonempty_str(entry.get("status"))
            words.sep("\n").origin(f"[{status}] " if status else "").log(entry["content"])
    return [("system", "meta", words.build())]


def _hook(update: Mapping[str, Any], _: _Line) -> list[_Item]:
    """A hook that ran, with what it printed; an event with no hook configured says nothing."""
    runs = update.get("runs")
    if not isinstance(runs, list) or not runs:
        return []
    words = Words().origin("hook ").log(_text(update, "event_name") or "?")
    if tool := _text(update, "tool_name"):
        words.sep(" ").origin("for ").log(tool)
    words.sep(":")
    for run in runs:
        said = (
            [run.get(key) for key in _RUN_FIELDS] if isinstance(run, dict) else [compact_json(run)]
        )
        shown = [str(v) for v in said if isinstance(v, str | int) and not isinstance(v, bool)]
        words.sep("\n").log(" ".join(value for value in shown if value))
    return [("system", "system", words.build())]


def _spawned(update: Mapping[str, Any], line: _Line) -> list[_Item]:
    """A sub-agent started: its session's parent is this one (its summary.json says so too)."""
    child = _text(update, "child_session_id")
    if child:
        parent = _text(update, "parent_session_id") or line.sid
        line.out.append(SessionFact(child, NAME, parent=parent, time=line.time or None))
    words = Words().origin("sub-agent ").log(_text(update, "subagent_type") or "")
    words.sep(": ").log(_text(update, "description") or "")
    opened = False
    for label, field in (("session ", "child_session_id"), ("model ", "model")):
        if value := _text(update, field):
            words.sep(", " if opened else " (").origin(label).log(value)
            opened = True
    return [("system", "meta", words.sep(")" if opened else "").build())]


def _finished(update: Mapping[str, Any], _: _Line) -> list[_Item]:
    words = Words().origin("sub-agent finished: ").log(_text(update, "status") or "?")
    for field, unit in (("tool_calls", "tool calls"), ("turns", "turns"), ("duration_ms", "ms")):
        value = update.get(field)
        if isinstance(value, int) and not isinstance(value, bool):
            words.sep(", ").log(str(value)).sep(" ").origin(unit)
    for label, field in (("error: ", "error"), ("", "output")):
        if value := _text(update, field):
            words.sep("\n").origin(label).log(value)
    return [("system", "meta", words.build())]


def _titled(field: str, label: str, unmarked: int) -> _Renderer:
    """A renderer of an update that names the session (a summary, a rename)."""

    def render(update: Mapping[str, Any], line: _Line) -> list[_Item]:
        title = _text(update, field)
        if title is None:
            return []
        line.title(title, update, unmarked)
        return [("system", "meta", labelled(label, title))]

    return render


def _said(label: str, *fields: str, kind: str = "meta") -> _Renderer:
    """A renderer of an update that is one labelled text; a marker (`system`) says what it
    marks even without details."""

    def render(update: Mapping[str, Any], _: _Line) -> list[_Item]:
        text = _text(update, *fields)
        if text is not None:
            return [("system", kind, labelled(label, text))]
        return [("system", kind, labelled(label.removesuffix(": ")))] if kind == "system" else []

    return render


_Renderer = Callable[[Mapping[str, Any], _Line], list[_Item]]

#: Renderers of the updates that are neither chunks, tool calls nor rewinds (formats.md §0:
#: bookkeeping is meta; what the harness says to or about the model is system).
_RENDERERS: dict[str, _Renderer] = {
    "plan": _plan,
    "hook_execution": _hook,
    "subagent_spawned": _spawned,
    "subagent_finished": _finished,
    "session_summary_generated": _titled(
        "session_summary", "session summary: ", SUMMARY_TITLE_RANK
    ),
    "session_info_update": _titled("title", "title: ", GENERATED_TITLE_RANK),
    "current_mode_update": _said("mode: ", "currentModeId", "modeId"),
    "last_turn_summary": _said("turn summary: ", "summary"),
    "session_recap": _said("recap: ", "summary"),
    "retry_state": _said("retry: ", "message", "error_type", kind="system"),
    "compaction_checkpoint": _said("context compacted: ", "summary", kind="system"),
    "auto_compact_completed": _said("auto compact completed: ", "summary", kind="system"),
    "auto_compact_failed": _said("auto compact failed: ", "error", "message", kind="system"),
}


UPDATES = FileKind(
    name="updates",
    patterns=("sessions/*/*/updates.jsonl",),
    parse=parse,
    start=start,
    finish=flush,
)
