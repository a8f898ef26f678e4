"""The Copilot CLI parsers fuzzed with lines shaped like their records (events.jsonl lines,
workspace.yaml versions) with hostile values inside: never an exception, never a record out of
shape, a state that stays JSON and small. `EVENT_LINE`, the shape of an events.jsonl line, is
what the shared parser checks' RECORD_LINES hold for copilot."""

from __future__ import annotations

import json
from typing import Any

import orjson
from fuzz_support import INT as _INT
from fuzz_support import JSON as _JSON
from fuzz_support import check_records
from hypothesis import given
from hypothesis import strategies as st

from origin_store.parsers.base import file_line
from origin_store.parsers.copilot import events as copilot_events
from origin_store.parsers.copilot import source as copilot
from origin_store.parsers.copilot import workspace

_TYPES = [
    "session.start", "session.resume", "session.shutdown", "session.usage_record",
    "assistant.usage", "user.message", "system.message", "assistant.message",
    "assistant.turn_start", "tool.execution_start", "tool.execution_complete",
    "session.model_change", "session.title_changed", "session.error", "session.info", "abort",
    "session.context_changed", "session.compaction_complete", "subagent.started", "other",
    "session.truncation", "session.warning",
]  # fmt: skip
_CALL = st.sampled_from(["call_1", "call_2"]) | _JSON
_USAGE = st.fixed_dictionaries(
    {},
    optional={
        name: _INT | _JSON
        for name in ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")
    }
    | {"apiCallId": _CALL},
)
_DATA = st.fixed_dictionaries(
    {},
    optional={
        "content": st.text() | _JSON, "reasoningText": st.text() | _JSON,
        "toolRequests": st.lists(st.fixed_dictionaries({}, optional={
            "toolCallId": _CALL, "name": st.text() | _JSON, "arguments": _JSON}), max_size=3) | _JSON,
        "toolCallId": _CALL, "success": st.booleans() | _JSON,
        "result": st.fixed_dictionaries({}, optional={"content": _JSON, "detailedContent": _JSON}) | _JSON,
        "shellExecution": st.fixed_dictionaries({}, optional={"exitCode": _INT | _JSON}) | _JSON,
        "error": _JSON, "usage": _USAGE | _JSON, "apiCallId": _CALL,
        "inputTokens": _INT | _JSON, "outputTokens": _INT | _JSON,
        "copilotVersion": _JSON, "selectedModel": _JSON, "newModel": _JSON, "title": _JSON,
        "context": st.fixed_dictionaries({}, optional={"cwd": _JSON, "branch": _JSON}) | _JSON,
        "cwd": _JSON, "shutdownType": _JSON, "message": _JSON, "reason": _JSON,
        "summaryContent": _JSON, "agentName": _JSON, "outcome": _JSON,
        "compactionTokensUsed": _USAGE | _JSON, "messagesRemovedDuringTruncation": _INT | _JSON,
        "codeChanges": st.fixed_dictionaries({}, optional={
            "linesAdded": _INT | _JSON, "linesRemoved": _INT | _JSON,
            "filesModified": st.lists(_JSON, max_size=3) | _JSON}) | _JSON,
        "modelMetrics": st.dictionaries(st.text(), st.fixed_dictionaries({}, optional={
            "requests": st.fixed_dictionaries({}, optional={"count": _INT | _JSON}) | _JSON}) | _JSON,
            max_size=2) | _JSON,
    },
)  # fmt: skip
#: An events.jsonl line: `{type, data, id, timestamp, parentId}`, each part possibly hostile.
EVENT_LINE = st.fixed_dictionaries(
    {"type": st.sampled_from(_TYPES) | _JSON, "data": _DATA | _JSON},
    optional={
        "id": st.sampled_from(["e-1", "e-2"]) | _JSON,
        "timestamp": st.just("2026-11-25T07:06:41.000Z") | _INT | _JSON,
        "parentId": _JSON,
        "agentId": st.sampled_from(["ag-1", "ag-2"]) | _JSON,
    },
)
_SCALAR = st.text() | st.sampled_from(["'a''b'", '"x\\ty"', "|", ">-", "true", "''", '"\\u12'])
_YAML = st.lists(
    st.tuples(
        st.sampled_from(["id", "cwd", "git_root", "name", "summary", "user_named", "updated_at"])
        | st.text(max_size=5),
        _SCALAR,
        st.lists(st.sampled_from(["  more", "", "  - item", "\tx", "  'q"]), max_size=2),
    ),
    max_size=6,
).map(lambda rows: "".join(f"{k}: {v}\n" + "".join(m + "\n" for m in more) for k, v, more in rows))


def check(records: object) -> None:
    check_records(records, "copilot")


@given(lines=st.lists(EVENT_LINE, min_size=1, max_size=8))
def test_event_lines(lines: list[dict[str, Any]]) -> None:
    state = copilot_events.start("session-state/5b1f7e20-3c4d-4e5f-8a6b-7c8d9e0f1a2b/events.jsonl")
    for number, obj in enumerate(lines, start=1):
        check(copilot_events.parse(orjson.dumps(obj), number, state))
        state = json.loads(json.dumps(state))
        assert len(json.dumps(state)) < 1000


@given(text=_YAML | st.text(), mtime=_INT | st.none())
def test_workspace_versions(text: str, mtime: int | None) -> None:
    line = file_line("/x/workspace.yaml", text.encode("utf-8", "surrogatepass"), mtime)
    check(workspace.parse(line, 1, workspace.start("session-state/x/workspace.yaml")))


@given(line=st.binary(max_size=300))
def test_any_bytes(line: bytes) -> None:
    for kind in copilot.SOURCE.files:
        state = kind.start("session-state/a/events.jsonl")
        check(kind.parse(line, 1, state))
        json.dumps(state)
