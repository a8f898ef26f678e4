"""The Grok parsers fuzzed with lines shaped like their records (update envelopes, summary.json
versions, grok.db rows) with hostile values inside: never an exception, never a record out of
shape, a state that stays JSON (and empty for the database). `UPDATE_LINE`, the shape of an
updates.jsonl line, is what the shared parser checks' RECORD_LINES would hold for grok."""

from __future__ import annotations

import json
from typing import Any

import orjson
from fuzz_support import INT as _INT
from fuzz_support import JSON as _JSON
from fuzz_support import check_records
from hypothesis import given
from hypothesis import strategies as st

from origin_store.model import Record
from origin_store.parsers.base import file_line, row_line
from origin_store.parsers.grok import build as grok_build
from origin_store.parsers.grok import cli as grok_cli
from origin_store.parsers.grok import source as grok

_SESSION = "019b4c10-2e3f-7a41-8b52-c3d4e5f6a7b8"
_OTHER = "019b4c11-5a6b-7c7d-8e8f-909192939495"
_TYPES = [
    "user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call",
    "tool_call_update", "plan", "current_mode_update", "session_info_update", "hook_execution",
    "subagent_spawned", "subagent_finished", "session_summary_generated", "last_turn_summary",
    "session_recap", "retry_state", "compaction_checkpoint", "auto_compact_completed",
    "auto_compact_failed", "rewind_marker", "available_commands_update", "other",
]  # fmt: skip
_CONTENT = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "audio", "resource", "resource_link"]) | _JSON},
    optional={"text": _JSON, "data": _JSON, "mimeType": _JSON, "uri": _JSON, "resource": _JSON},
)
_UPDATE = st.fixed_dictionaries(
    {"sessionUpdate": st.sampled_from(_TYPES) | _JSON},
    optional={
        "content": _CONTENT | st.lists(st.fixed_dictionaries({"type": _JSON}, optional={
            "content": _CONTENT, "path": _JSON, "oldText": _JSON, "newText": _JSON}), max_size=3) | _JSON,
        "_meta": st.fixed_dictionaries({}, optional={
            "promptIndex": _INT | _JSON, "hostTurn": _JSON, "bashCommand": _JSON,
            "x.ai/titleIsManual": _JSON}) | _JSON,
        "toolCallId": st.sampled_from(["c1", "c2"]) | _JSON,
        "status": st.sampled_from(["pending", "in_progress", "completed", "failed"]) | _JSON,
        "title": _JSON, "kind": _JSON, "rawInput": _JSON, "rawOutput": _JSON,
        "entries": st.lists(st.fixed_dictionaries({"content": _JSON, "status": _JSON}), max_size=3) | _JSON,
        "runs": st.lists(_JSON, max_size=2) | _JSON,
        "target_prompt_index": st.integers(min_value=-1, max_value=3) | _JSON,
        "child_session_id": _JSON, "session_summary": _JSON, "summary": _JSON, "message": _JSON,
        "tool_calls": _JSON, "output": _JSON, "error": _JSON,
    },
)  # fmt: skip
#: An updates.jsonl line: an envelope (or a legacy bare notification) around an update.
UPDATE_LINE = st.fixed_dictionaries(
    {
        "params": st.fixed_dictionaries(
            {"update": _UPDATE | _JSON},
            optional={
                "sessionId": st.just(_SESSION) | _JSON,
                "_meta": st.fixed_dictionaries(
                    {},
                    optional={
                        "eventId": st.sampled_from([f"{_SESSION}-0001", f"{_OTHER}-0002", "e-1"])
                        | _JSON,
                        "agentTimestampMs": _INT | _JSON,
                        "promptId": st.sampled_from(["p0", "p1"]) | _JSON,
                    },
                )
                | _JSON,
            },
        )
        | _JSON
    },
    optional={"timestamp": _INT | _JSON, "method": _JSON},
)
_SUMMARY = st.fixed_dictionaries(
    {},
    optional={
        "info": st.fixed_dictionaries({}, optional={"id": _JSON, "cwd": _JSON}) | _JSON,
        "generated_title": _JSON,
        "title": _JSON,
        "title_is_manual": _JSON,
        "session_summary": _JSON,
        "parent_session_id": _JSON,
        "updated_at": _JSON,
    },
)
_TEXT_OR_JSON = _JSON | _JSON.map(lambda value: orjson.dumps(value).decode())
_ROW = st.fixed_dictionaries(
    {"table": st.sampled_from(["sessions", "messages", "compactions", "file", "x"])},
    optional={
        name: _TEXT_OR_JSON
        for name in (
            "id", "session_id", "seq", "role", "message_json", "created_at", "cwd",
            "first_prompt", "title", "recap_text", "recap_updated_at", "tokens_before",
            "first_kept_seq",
        )
    },
)  # fmt: skip


def check(records: object) -> None:
    check_records(records, "grok")


@given(lines=st.lists(UPDATE_LINE, min_size=1, max_size=8))
def test_update_lines(lines: list[dict[str, Any]]) -> None:
    state = grok_build.start(f"sessions/%2Fhome%2Fdev/{_SESSION}/updates.jsonl")
    for number, obj in enumerate(lines, start=1):
        check(grok_build.parse(orjson.dumps(obj), number, state))
        state = json.loads(json.dumps(state))
    check(grok_build.flush(state))
    assert "run" not in state


@given(summary=_SUMMARY | _JSON, mtime=_INT | st.none())
def test_summary_versions(summary: object, mtime: int | None) -> None:
    line = file_line("/x/summary.json", orjson.dumps(summary), mtime)
    check(grok.parse_summary(line, 1, grok.start_summary("sessions/x/y/summary.json")))


@given(rows=st.lists(_ROW, min_size=1, max_size=6))
def test_database_rows(rows: list[dict[str, Any]]) -> None:
    state = grok_cli.start("grok.db")
    for number, row in enumerate(rows, start=1):
        table = row.pop("table")
        out: list[Record] = grok_cli.parse(row_line(table, "k", row), number, state)
        check(out)
        assert state == {}


@given(line=st.binary(max_size=300))
def test_any_bytes(line: bytes) -> None:
    for kind in grok.SOURCE.files:
        state = kind.start("sessions/a/b/updates.jsonl")
        check(kind.parse(line, 1, state))
        json.dumps(state)
