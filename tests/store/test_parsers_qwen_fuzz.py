"""The Qwen Code parser fuzzed with lines shaped like its `ChatRecord`s with hostile values
inside: never an exception, never a record out of shape, a state that stays JSON."""

from __future__ import annotations

import json
from typing import Any

import orjson
from fuzz_support import INT as _INT
from fuzz_support import JSON as _JSON
from fuzz_support import check_records
from hypothesis import given
from hypothesis import strategies as st

from origin_store.parsers.qwen import chats

_SESSION = "3a7c2e10-5b4d-4f6a-8c9e-1d2f3a4b5c6d"
_PART = st.fixed_dictionaries(
    {},
    optional={
        "text": st.text() | _JSON,
        "thought": st.booleans() | _JSON,
        "functionCall": st.fixed_dictionaries({}, optional={
            "id": _JSON, "name": st.text() | _JSON, "args": _JSON}) | _JSON,
        "functionResponse": st.fixed_dictionaries({}, optional={
            "id": _JSON, "name": _JSON,
            "response": st.fixed_dictionaries({}, optional={
                "output": st.text() | st.just("Tool output was too large and has been truncated.")
                | st.just("Output: x\nExit Code: 2\nSignal: (none)") | _JSON,
                "error": _JSON, "success": _JSON}) | _JSON}) | _JSON,
        "inlineData": st.fixed_dictionaries({}, optional={"mimeType": _JSON, "data": _JSON}) | _JSON,
        "fileData": _JSON,
    },
)  # fmt: skip
_PAYLOAD = st.fixed_dictionaries(
    {},
    optional={
        "customTitle": _JSON, "titleSource": st.sampled_from(["auto", "manual"]) | _JSON,
        "info": _JSON, "compressedHistory": st.lists(st.fixed_dictionaries(
            {"role": st.sampled_from(["user", "model"]) | _JSON},
            optional={"parts": st.lists(_PART, max_size=2) | _JSON}), max_size=3) | _JSON,
        "phase": st.sampled_from(["invocation", "result"]) | _JSON, "rawCommand": _JSON,
        "outputHistoryItems": _JSON, "filesRead": _JSON, "notes": _JSON, "uiEvent": _JSON,
    },
)  # fmt: skip
RECORD_LINE = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "tool_result", "system", "other"]) | _JSON},
    optional={
        "uuid": st.sampled_from(["u-1", "u-2"]) | _JSON,
        "parentUuid": _JSON,
        "sessionId": st.just(_SESSION) | _JSON,
        "timestamp": st.just("2026-11-20T08:00:00.000Z") | _INT | _JSON,
        "cwd": st.just("/home/dev/x") | _JSON,
        "version": _JSON,
        "gitBranch": _JSON,
        "subtype": st.sampled_from(["custom_title", "chat_compression", "slash_command",
                                    "at_command", "ui_telemetry", "cron", "agent_bootstrap", "x"]) | _JSON,
        "message": st.fixed_dictionaries({}, optional={
            "role": _JSON, "parts": st.lists(_PART, max_size=4) | _JSON}) | _JSON,
        "model": _JSON,
        "usageMetadata": st.fixed_dictionaries({}, optional={
            name: _INT | _JSON for name in ("promptTokenCount", "candidatesTokenCount",
                                           "thoughtsTokenCount", "cachedContentTokenCount")}) | _JSON,
        "toolCallResult": st.fixed_dictionaries({}, optional={
            "status": st.sampled_from(["success", "error", "cancelled"]) | _JSON,
            "resultDisplay": st.text() | _JSON, "error": _JSON}) | _JSON,
        "systemPayload": _PAYLOAD | _JSON,
    },
)  # fmt: skip


def check(records: object) -> None:
    check_records(records, "qwen")


_FILES = [
    f"projects/-home-dev-x/chats/{_SESSION}.jsonl",
    f"projects/-home-dev-x/subagents/{_SESSION}/agent-a1.jsonl",
]


@given(lines=st.lists(RECORD_LINE, min_size=1, max_size=8), relpath=st.sampled_from(_FILES))
def test_record_lines(lines: list[dict[str, Any]], relpath: str) -> None:
    state = chats.start(relpath)
    for number, obj in enumerate(lines, start=1):
        check(chats.parse(orjson.dumps(obj), number, state))
        state = json.loads(json.dumps(state))


@given(line=st.binary(max_size=300))
def test_any_bytes(line: bytes) -> None:
    state = chats.start("projects/a/chats/b.jsonl")
    check(chats.parse(line, 1, state))
    json.dumps(state)
