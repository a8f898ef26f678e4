"""ZCode's message parts as events: one part row (with what it carries of its message and
session, zcode.PARTS_SQL) gives the events of that part, by the part's type.

A part may be read while it is still being written. Nothing is emitted that a later read would
have to take back: a tool call only once its input is known (the part is running), its result
only once it is completed or failed, an assistant's text and reasoning only once the part or its
message is finished. Each later read of the row gives the same ids, so what is emitted twice is
stored once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ...model import EventRecord, ParseProblem, Record, SessionFact
from ..base import (
    Labelled,
    Words,
    build_events,
    compact_json,
    labelled,
    load_object,
    nonempty_str,
    safe_time,
)

NAME = "zcode"

#: The columns of a failed message's row, the same in both databases of this family (ZCode's and
#: OpenCode's): what failed and why; each source's query adds what it needs of the session.
MESSAGE_ERROR = """
SELECT m.id, m.session_id AS session, m.time_created AS created, m.valid,
       json_extract(m.data, '$.time.completed') AS completed,
       json_extract(m.data, '$.error.name') AS error,
       coalesce(json_extract(m.data, '$.error.data.message'),
                json_extract(m.data, '$.error.message'),
                CASE WHEN json_type(m.data, '$.error') = 'text'
                     THEN json_extract(m.data, '$.error') END) AS detail,"""

#: The title the app shows is the only title ZCode keeps; it ranks with the other agents' chosen
#: titles (a rename, an index entry), above titles an agent infers.
TITLE_RANK = 30
#: opencode's placeholders until a title is made; the store falls back to the prompt instead.
_PLACEHOLDER = re.compile(r"(?:New|Child) session - \d{4}-\d{2}-\d{2}T")

#: User messages a person (or, for a sub-agent, its parent agent) wrote; the others
#: (compact_summary, todo_reminder, local_setting, …) are the harness's. Older rows have none.
_TYPED: tuple[str | None, ...] = (None, "real_user", "subagent_task")
#: A subtask's fields in the order shown, each with what stands before it.
_SUBTASK = ((": ", "agent"), (": ", "description"), ("\n", "prompt"))


@dataclass(frozen=True, slots=True)
class _Part:
    """What a part row says about where its events go."""

    source: str
    id: str
    session: str
    time: int
    updated: int
    cwd: str | None
    version: str | None
    role: str | None
    semantics: str | None
    summary: bool
    done: bool
    intent: str | None

    def event(
        self, suffix: str, role: str, kind: str, text: str | Labelled, time: int | None = None
    ) -> list[EventRecord]:
        return build_events(
            f"{self.source}:{self.id}{suffix}",
            [(0, role, kind, text)],
            source=self.source,
            time=self.time if time is None else time,
            session=self.session,
            cwd=self.cwd,
            state={"version": self.version},
        )


def row_time(value: object) -> int:
    """A row's epoch-ms time, 0 when it has none."""
    return safe_time(value) or 0


def copied(row: dict[str, Any], created: str = "created") -> bool:
    """Whether a row is one of the messages a fork copied from its parent: they keep their
    times, which come before the fork was made, and are the parent's events, already stored."""
    if row.get("task_type") != "fork":
        return False
    own, forked = safe_time(row.get(created)), safe_time(row.get("session_created"))
    return own is not None and forked is not None and own < forked


def part_data(row: dict[str, Any], source: str = NAME) -> dict[str, Any] | ParseProblem:
    """A part row's `data`, its JSON loaded."""
    value = row.get("data")
    if not isinstance(value, str):
        return ParseProblem("bad-field", f"a {source} part row without its data text")
    loaded = load_object(value.encode("utf-8", "replace"))
    if loaded is None:
        return ParseProblem("bad-field", f"a {source} part row with empty data")
    return loaded


def part_records(
    key: str, row: dict[str, Any], source: str = NAME, data: dict[str, Any] | None = None
) -> list[Record]:
    """The events of one part row, by the part's type; unknown types give none. OpenCode's
    rows, whose ZCode descendant kept their shapes, are read here too (`source`), with their
    `data` loaded and adjusted beforehand where OpenCode differs."""
    if copied(row, "message_created"):
        return []
    if data is None:
        loaded = part_data(row, source)
        if isinstance(loaded, ParseProblem):
            return [loaded]
        data = loaded
    created = row_time(row.get("created")) or row_time(row.get("message_created"))
    part = _Part(
        source=source,
        id=nonempty_str(row.get("id")) or key,
        session=nonempty_str(row.get("session")) or "unknown",
        time=created,
        updated=row_time(row.get("updated")) or created,
        cwd=nonempty_str(row.get("cwd")) or nonempty_str(row.get("directory")),
        version=nonempty_str(row.get("version")),
        role=nonempty_str(row.get("role")),
        semantics=nonempty_str(row.get("semantics")),
        summary=row.get("summary") in (1, True),
        done=row.get("done") in (1, True),
        intent=nonempty_str(row.get("intent")),
    )
    ptype = data.get("type")
    if ptype in ("text", "reasoning"):
        return _text(part, data, ptype)
    if ptype == "tool":
        return _tool(part, data)
    if ptype == "compaction":
        return _compaction(part, data)
    if ptype == "timeline":
        return _timeline(part, data)
    if ptype == "file":
        return _file(part, data)
    if ptype == "subtask":
        return _subtask(part, data)
    if ptype == "model_change":
        rest = {name: value for name, value in data.items() if name != "type"}
        return list(
            part.event("", "system", "meta", labelled("model change: ", compact_json(rest)))
        )
    return []


def _text(part: _Part, data: dict[str, Any], ptype: str) -> list[Record]:
    """Typed words, the harness's words in a user message, an assistant's answer or reasoning."""
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        return []
    if part.role == "user":
        harness = data.get("synthetic") is True or part.summary or part.semantics not in _TYPED
        if harness or ptype == "reasoning":
            return list(part.event("", "system", "system", text))
        prompt = SessionFact(
            part.session, part.source, prompt=part.intent or text, time=part.time or None
        )
        return [prompt, *part.event("", "user", "message", text)]
    if not (part.done or _finished(data.get("time"))):
        return []  # still streaming: its row is read again when the message completes
    if ptype == "reasoning":
        return list(part.event("", "assistant", "meta", text))
    if part.summary or part.semantics == "timeline_event":
        return list(part.event("", "system", "system", text))
    return list(part.event("", "assistant", "message", text))


def _finished(time: object) -> bool:
    return isinstance(time, dict) and safe_time(time.get("end")) is not None


def _tool(part: _Part, data: dict[str, Any]) -> list[Record]:
    """The call once its input is known (running or later), the result once it is final."""
    found = data.get("state")
    state: dict[str, Any] = found if isinstance(found, dict) else {}
    status = nonempty_str(state.get("status"))
    if status is None or status == "pending":
        return []
    tool = nonempty_str(data.get("tool")) or "tool"
    call = f"{tool} {compact_json(state['input'])}" if "input" in state else tool
    found = state.get("time")
    times: dict[str, Any] = found if isinstance(found, dict) else {}
    started = safe_time(times.get("start")) or part.time
    out: list[Record] = [*part.event(":call", "assistant", "tool_use", call, started)]
    ended = safe_time(times.get("end")) or part.updated
    if status == "error":
        error = state.get("error")
        text = error if isinstance(error, str) else "" if error is None else compact_json(error)
        out.extend(
            part.event(":result", "system", "tool_result", labelled("[error] ", text), ended)
        )
    elif status == "completed":
        result = _output(state)
        if result is not None:
            out.extend(part.event(":result", "system", "tool_result", result, ended))
    return out


def _output(state: dict[str, Any]) -> str | Labelled | None:
    """A completed tool's output, marked when a command exited non-zero; None when empty."""
    output = state.get("output")
    text = output if isinstance(output, str) else "" if output is None else compact_json(output)
    metadata = state.get("metadata")
    code = metadata.get("exit") if isinstance(metadata, dict) else None
    if isinstance(code, int) and not isinstance(code, bool) and code != 0:
        return labelled(f"[error: exit code {code}] ", text)
    return text if text.strip() else None


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _compaction(part: _Part, data: dict[str, Any]) -> list[Record]:
    """The compaction itself, on its timeline message; the summary message's boundary part
    gives nothing, since the summary's text is its event."""
    if data.get("compactBoundary") is True:
        return []
    words = Words().origin("context compacted")
    details = 0

    def item() -> Words:
        nonlocal details
        details += 1
        return words.sep(", ") if details > 1 else words.origin(" (")

    auto = data.get("auto")
    if isinstance(auto, bool):
        item().origin("auto" if auto else "manual")
    before = _count(data.get("preCompactTokenCount"))
    after = _count(data.get("truePostCompactTokenCount"))
    if before is not None:
        item().origin("tokens ").log(str(before))
        if after is not None:
            words.sep(" → ").log(str(after))
    status = nonempty_str(data.get("timelineStatus"))
    if status is not None and status != "completed":
        item().log(status)
    if details:
        words.sep(")")
    return list(part.event("", "system", "system", words.build()))


def _timeline(part: _Part, data: dict[str, Any]) -> list[Record]:
    """A timeline entry (a compaction, a model change) marks the conversation: bookkeeping."""
    kind = nonempty_str(data.get("kind"))
    words = Words().origin("timeline: " if kind else "timeline").log(kind or "")
    status = nonempty_str(data.get("timelineStatus"))
    if status is not None and status != "completed":
        words.sep(" (").log(status).sep(")")
    return list(part.event("", "system", "meta", words.build()))


def _file(part: _Part, data: dict[str, Any]) -> list[Record]:
    """An attached file: its name and type, never its inline data."""
    url = nonempty_str(data.get("url"))
    name = nonempty_str(data.get("filename")) or (
        url if url is not None and not url.startswith("data:") and len(url) <= 500 else None
    )
    mime = nonempty_str(data.get("mime"))
    words = Words().origin("file: " if name else "file").log(name or "")
    if mime is not None:
        words.sep(" (").log(mime).sep(")")
    role = "user" if part.role == "user" else "assistant"
    return list(part.event("", role, "message", words.build()))


def _subtask(part: _Part, data: dict[str, Any]) -> list[Record]:
    """A request to run a sub-agent: which one, and the task it is given."""
    words = Words().origin("subtask: ")
    values = [(sep, nonempty_str(data.get(field))) for sep, field in _SUBTASK]
    for number, (sep, value) in enumerate(item for item in values if item[1]):
        (words.sep(sep) if number else words).log(value or "")
    return list(part.event("", "system", "meta", words.build()))


def session_records(key: str, row: dict[str, Any], source: str = NAME) -> list[Record]:
    """The session's facts, and a marker event of how it started that also holds its title, so
    the title is found by search; a changed title reads the row again and replaces the marker.
    OpenCode's rows say a sub-agent by `subagent` (it has no task types) and name the model."""
    session = nonempty_str(row.get("id")) or key
    time = row_time(row.get("created"))
    title = nonempty_str(row.get("title"))
    if title is not None and _PLACEHOLDER.match(title):
        title = None
    directory = nonempty_str(row.get("directory"))
    parent = nonempty_str(row.get("parent"))
    fact = SessionFact(
        session,
        source,
        title=title,
        title_rank=TITLE_RANK if title else 0,
        cwd=directory,
        parent=parent,
        time=time or None,
    )
    words = Words().origin("session start: ")
    values = [
        ("", nonempty_str(row.get("task_type"))),
        ("version ", nonempty_str(row.get("version"))),
        ("subagent of " if _subagent(row) else "from ", parent),
        ("model ", nonempty_str(row.get("model"))),
        ("cwd ", directory),
        ("title ", title),
    ]
    for number, (name, value) in enumerate(item for item in values if item[1]):
        (words.sep(", ") if number else words).origin(name).log(value or "")
    marker = build_events(
        f"{source}:{session}",
        [(0, "system", "meta", words.build())],
        source=source,
        time=time,
        session=session,
        cwd=directory,
        state={"version": row.get("version")},
    )
    return [fact, *marker]


def _subagent(row: dict[str, Any]) -> bool:
    return row.get("task_type") == "subagent_child" or row.get("subagent") in (1, True)


def error_records(key: str, row: dict[str, Any], source: str = NAME) -> list[Record]:
    """A message that failed (an API error, an abort) says so; its parts say the rest."""
    if row.get("valid") == 0:
        return [ParseProblem("invalid-json", f"the data of {source} message {key}")]
    if copied(row):
        return []
    session = nonempty_str(row.get("session")) or "unknown"
    name = nonempty_str(row.get("error"))
    detail = row.get("detail")
    text = detail if isinstance(detail, str) else ""
    marks = f"[error] {name}: " if name else "[error] "
    return list(
        build_events(
            f"{source}:{nonempty_str(row.get('id')) or key}:error",
            [(0, "system", "system", labelled(marks, text))],
            source=source,
            time=row_time(row.get("completed")) or row_time(row.get("created")),
            session=session,
            cwd=nonempty_str(row.get("directory")),
            state={"version": row.get("version")},
        )
    )
