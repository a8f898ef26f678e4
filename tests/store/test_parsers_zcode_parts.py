"""The zcode parser part by part, on part rows written here the way zcode.PARTS_SQL reads them
(one row per case, table-driven), broken rows, and rows of any shape (fuzzing): whatever a row
holds, the parser returns records, never an exception."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from parse_support import events
from test_parsers_zcode import parse_lines

from origin_store.model import EVENT_KINDS, ROLES, EventRecord, ParseProblem, Record, SessionFact
from origin_store.parsers.base import row_line

BASE_ROW: dict[str, Any] = {
    "id": "part_x",
    "session": "sess_x",
    "message": "msg_x",
    "created": 1794000000000,
    "updated": 1794000000500,
    "role": "assistant",
    "semantics": None,
    "summary": 0,
    "done": 1,
    "intent": None,
    "cwd": "/w",
    "message_created": 1794000000000,
    "directory": "/d",
    "version": "0.16.7",
    "task_type": "interactive",
    "session_created": 1793999990000,
}
TOOL_TIME = {"start": 1794000000100, "end": 1794000000200}
PARTS: list[tuple[str, dict[str, Any], dict[str, Any], list[tuple[str, str, str, str]]]] = [
    # case, row fields, part data, events as (id suffix, role, kind, rendered)
    ("answer", {}, {"type": "text", "text": "hi"}, [("", "assistant", "message", "hi")]),
    ("answer streaming", {"done": 0}, {"type": "text", "text": "h"}, []),
    ("answer part ended", {"done": 0}, {"type": "text", "text": "hi", "time": {"start": 1, "end": 1794000000001}},
     [("", "assistant", "message", "hi")]),
    ("blank answer", {}, {"type": "text", "text": "  "}, []),
    ("typed", {"role": "user", "semantics": "real_user"}, {"type": "text", "text": "do it"},
     [("", "user", "message", "do it")]),
    ("typed, older rows", {"role": "user", "done": 0}, {"type": "text", "text": "do it"},
     [("", "user", "message", "do it")]),
    ("synthetic", {"role": "user"}, {"type": "text", "text": "ctx", "synthetic": True},
     [("", "system", "system", "ctx")]),
    ("compact summary", {"role": "user", "semantics": "compact_summary", "summary": 1},
     {"type": "text", "text": "sum"}, [("", "system", "system", "sum")]),
    ("reminder", {"role": "user", "semantics": "todo_reminder"}, {"type": "text", "text": "todo"},
     [("", "system", "system", "todo")]),
    ("summary answer", {"summary": 1}, {"type": "text", "text": "sum"}, [("", "system", "system", "sum")]),
    ("timeline text", {"semantics": "timeline_event"}, {"type": "text", "text": "t"}, [("", "system", "system", "t")]),
    ("reasoning", {}, {"type": "reasoning", "text": "think"}, [("", "assistant", "meta", "think")]),
    ("reasoning streaming", {"done": 0}, {"type": "reasoning", "text": "thi"}, []),
    ("tool pending", {"done": 0}, {"type": "tool", "tool": "read", "state": {"status": "pending", "input": {}}}, []),
    ("tool running", {"done": 0}, {"type": "tool", "tool": "read", "state": {"status": "running", "input": {"p": 1}}},
     [(":call", "assistant", "tool_use", 'read {"p":1}')]),
    ("tool completed", {}, {"type": "tool", "tool": "read",
     "state": {"status": "completed", "input": {"p": 1}, "output": "ok", "time": TOOL_TIME}},
     [(":call", "assistant", "tool_use", 'read {"p":1}'), (":result", "system", "tool_result", "ok")]),
    ("tool exit code", {}, {"type": "tool", "tool": "bash",
     "state": {"status": "completed", "input": {}, "output": "no", "metadata": {"exit": 2}}},
     [(":call", "assistant", "tool_use", "bash {}"), (":result", "system", "tool_result", "[error: exit code 2] no")]),
    ("tool no output", {},
     {"type": "tool", "tool": "bash", "state": {"status": "completed", "input": {}, "output": ""}},
     [(":call", "assistant", "tool_use", "bash {}")]),
    ("tool structured output", {},
     {"type": "tool", "tool": "x", "state": {"status": "completed", "output": {"a": [1]}}},
     [(":call", "assistant", "tool_use", "x"), (":result", "system", "tool_result", '{"a":[1]}')]),
    ("tool error", {}, {"type": "tool", "tool": "edit", "state": {"status": "error", "input": {}, "error": "nope"}},
     [(":call", "assistant", "tool_use", "edit {}"), (":result", "system", "tool_result", "[error] nope")]),
    ("tool without state", {}, {"type": "tool", "tool": "edit"}, []),
    ("compaction", {}, {"type": "compaction", "auto": True, "preCompactTokenCount": 10, "truePostCompactTokenCount": 2},
     [("", "system", "system", "context compacted (auto, tokens 10 → 2)")]),
    ("compaction running", {}, {"type": "compaction", "timelineStatus": "running"},
     [("", "system", "system", "context compacted (running)")]),
    ("compaction boundary", {"role": "user"}, {"type": "compaction", "compactBoundary": True}, []),
    ("timeline", {}, {"type": "timeline", "kind": "model_change"}, [("", "system", "meta", "timeline: model_change")]),
    ("file", {"role": "user"}, {"type": "file", "mime": "image/png", "url": "data:image/png;base64," + "A" * 64},
     [("", "user", "message", "file (image/png)")]),
    ("subtask", {"role": "user"}, {"type": "subtask", "agent": "explore", "description": "find", "prompt": "Look."},
     [("", "system", "meta", "subtask: explore: find\nLook.")]),
    ("model change", {}, {"type": "model_change", "modelId": "GLM-5.2"},
     [("", "system", "meta", 'model change: {"modelId":"GLM-5.2"}')]),
    ("step", {}, {"type": "step-finish", "tokens": {"input": 1}}, []),
    ("unknown", {}, {"type": "hologram", "text": "x"}, []),
    ("copied by a fork", {"task_type": "fork", "message_created": 1793999980000}, {"type": "text", "text": "old"}, []),
]  # fmt: skip


@pytest.mark.parametrize(
    ("row", "data", "expected"), [case[1:] for case in PARTS], ids=[case[0] for case in PARTS]
)
def test_part_types(
    row: dict[str, Any], data: dict[str, Any], expected: list[tuple[str, str, str, str]]
) -> None:
    line = row_line("part", "part_x", {**BASE_ROW, **row, "data": orjson.dumps(data).decode()})
    out = parse_lines([line])
    found = [(e.id.removeprefix("zcode:part_x"), e.role, e.kind, e.rendered) for e in events(out)]
    assert found == expected
    assert all(
        (e.session, e.cwd, e.agent_version) == ("sess_x", "/w", "0.16.7") for e in events(out)
    )
    assert not [r for r in out if isinstance(r, ParseProblem)]


def test_a_typed_part_gives_the_prompt_the_user_typed() -> None:
    row = {**BASE_ROW, "role": "user", "semantics": "real_user", "intent": "fix it"}
    line = row_line(
        "part", "part_x", {**row, "data": '{"type":"text","text":"fix it\\n<file>…</file>"}'}
    )
    facts = [r for r in parse_lines([line]) if isinstance(r, SessionFact)]
    assert [(f.session, f.prompt, f.time) for f in facts] == [("sess_x", "fix it", 1794000000000)]


def test_tool_times_are_its_own() -> None:
    data = {
        "type": "tool",
        "tool": "read",
        "state": {"status": "completed", "output": "ok", "time": TOOL_TIME},
    }
    line = row_line("part", "part_x", {**BASE_ROW, "data": orjson.dumps(data).decode()})
    assert [e.time for e in events(parse_lines([line]))] == [TOOL_TIME["start"], TOOL_TIME["end"]]


def reasons(found: list[Record]) -> list[str]:
    return [r.reason for r in found if isinstance(r, ParseProblem)]


def test_bad_rows_are_problems_not_exceptions() -> None:
    def part(data: object) -> list[Record]:
        return parse_lines([row_line("part", "part_x", {**BASE_ROW, "data": data})])

    assert reasons(part("{not json")) == ["invalid-json"]
    assert reasons(part("[1]")) == ["not-an-object"]
    assert reasons(part(None)) == ["bad-field"]
    assert reasons(part({"base64": "/w=="})) == ["bad-field"]
    assert reasons(parse_lines([b"{oops"])) == ["invalid-json"]
    assert reasons(parse_lines([b'{"table":"part"}'])) == ["bad-field"]
    assert parse_lines([row_line("todo", "t", {"content": "x"}), b""]) == []
    odd = parse_lines([row_line("session", "s", {"id": 5, "title": ["x"], "created": "?"})])
    assert [(e.id, e.time) for e in events(odd)] == [("zcode:s", 0)]


# --- rows of any shape --------------------------------------------------------------------------

_SCALAR = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats() | st.text()
_JSON = st.recursive(
    _SCALAR.filter(lambda v: v == v),  # NaN is no JSON value
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(), children, max_size=3)
    ),
    max_leaves=12,
)
_STATE = st.fixed_dictionaries(
    {},
    optional={
        "status": st.sampled_from(["pending", "running", "completed", "error", "x"]) | _JSON,
        "input": _JSON,
        "output": _JSON,
        "error": _JSON,
        "metadata": st.fixed_dictionaries({}, optional={"exit": _JSON}) | _JSON,
        "time": st.fixed_dictionaries({}, optional={"start": _JSON, "end": _JSON}) | _JSON,
    },
)
_PART = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["text", "reasoning", "tool", "compaction", "timeline", "file", "subtask",
             "model_change", "step-start", "x"]
        )
        | _JSON
    },
    optional={
        "text": _JSON, "synthetic": _JSON, "time": _JSON, "tool": _JSON, "state": _STATE | _JSON,
        "compactBoundary": _JSON, "auto": _JSON, "preCompactTokenCount": _JSON,
        "truePostCompactTokenCount": _JSON, "timelineStatus": _JSON, "kind": _JSON, "url": _JSON,
        "filename": _JSON, "mime": _JSON, "agent": _JSON, "description": _JSON, "prompt": _JSON,
    },
)  # fmt: skip
_ROW = st.fixed_dictionaries(
    {},
    optional={
        name: _JSON
        for name in (*BASE_ROW, "parent", "title", "task_type", "completed", "error", "detail")
    }
    | {"data": _PART.map(lambda d: orjson.dumps(d).decode()) | _JSON, "valid": _JSON},
)


def check(records: list[Record]) -> None:
    for record in records:
        assert isinstance(record, EventRecord | SessionFact | ParseProblem)
        if isinstance(record, ParseProblem):
            assert record.reason != "parser-error", record
        if isinstance(record, EventRecord):
            assert record.role in ROLES and record.kind in EVENT_KINDS
            assert record.id.startswith("zcode:") and record.time >= 0
            assert isinstance(record.text, str) and isinstance(record.session, str)


@given(
    table=st.sampled_from(["session", "message", "part", "file"]) | st.text(max_size=5),
    key=st.text(max_size=8),
    row=_ROW,
)
def test_rows_of_any_shape_give_records(table: str, key: str, row: dict[str, Any]) -> None:
    check(parse_lines([row_line(table, key, row)]))


@given(line=st.binary(max_size=200) | _JSON.map(orjson.dumps))
def test_lines_of_any_bytes_give_records(line: bytes) -> None:
    check(parse_lines([line]))
