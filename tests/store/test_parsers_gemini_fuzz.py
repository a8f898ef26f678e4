"""The Gemini CLI parser fuzzed with lines shaped like its records (metadata, messages with
their parts and tool calls, `$set` with history checkpoints, `$rewindTo`) with hostile values
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

from origin_store.parsers.gemini import chat
from origin_store.parsers.gemini import source as gemini

_TIME = st.sampled_from(["2026-11-20T10:00:00.000Z", "2026-11-20T10:00:01.5Z"]) | _JSON
_ID = st.sampled_from(["m1", "m2", "c1"]) | _JSON
_OUTPUT = st.sampled_from(
    ["Output: ok\nExit Code: 3", "Output too large. Showing first 8,000 and last 32,000 "
     "characters. For full output see: /x\nab\n\n... [9 characters omitted] ...\n\ncd", ""]
) | _JSON  # fmt: skip
_BODY = st.fixed_dictionaries({}, optional={"output": _OUTPUT, "error": _JSON}) | _JSON
_RESPONSE = st.fixed_dictionaries(
    {"functionResponse": st.fixed_dictionaries(
        {}, optional={"id": _ID, "name": _JSON, "response": _BODY}) | _JSON}
)  # fmt: skip
_FUNCTION_CALL = st.fixed_dictionaries({}, optional={"id": _ID, "name": _JSON, "args": _JSON})
_THOUGHT = st.fixed_dictionaries({}, optional={"subject": _JSON, "description": _JSON})
_TOKENS = st.fixed_dictionaries(
    {}, optional={k: _INT | _JSON for k in ("input", "output", "cached", "thoughts", "tool")}
)
_PART = (
    st.fixed_dictionaries({"text": _JSON}, optional={"thought": _JSON})
    | st.fixed_dictionaries({"functionCall": _FUNCTION_CALL | _JSON})
    | _RESPONSE
    | st.fixed_dictionaries({"inlineData": _JSON})
    | st.fixed_dictionaries({"fileData": _JSON})
    | _JSON
)  # fmt: skip
_CONTENT = st.lists(_PART, max_size=3) | _PART | st.text()
_CALL = st.fixed_dictionaries(
    {},
    optional={
        "id": _ID, "name": st.sampled_from(["run_shell_command", "write_file"]) | _JSON, "args": _JSON,
        "result": st.lists(_RESPONSE, max_size=2) | _JSON,
        "status": st.sampled_from(["success", "error", "cancelled", "executing"]) | _JSON,
        "timestamp": _TIME, "resultDisplay": st.text() | _JSON,
    },
)  # fmt: skip
_MESSAGE = st.fixed_dictionaries(
    {"id": _ID, "type": st.sampled_from(["user", "gemini", "info", "error", "warning", "x"]) | _JSON},
    optional={
        "timestamp": _TIME, "content": _CONTENT, "displayContent": _CONTENT,
        "thoughts": st.lists(_THOUGHT, max_size=2) | _JSON, "tokens": _TOKENS | _JSON,
        "model": _JSON, "toolCalls": st.lists(_CALL, max_size=2) | _JSON,
    },
)  # fmt: skip
_METADATA = st.fixed_dictionaries(
    {"sessionId": st.just("6f1c2d3e-4a5b-4c6d-8e7f-a1b2c3d4e5f6") | _JSON},
    optional={"projectHash": _JSON, "startTime": _TIME, "lastUpdated": _TIME, "kind": _JSON,
              "summary": _JSON, "directories": st.lists(_JSON, max_size=2) | _JSON},
)  # fmt: skip
#: A session file's line: metadata, a message, a `$set` (a checkpoint among them), a rewind.
RECORD_LINE = (
    _METADATA
    | _MESSAGE
    | st.fixed_dictionaries(
        {"$set": st.fixed_dictionaries(
            {}, optional={"messages": st.lists(_MESSAGE, max_size=3) | _JSON, "summary": _JSON,
                          "sessionId": _JSON, "lastUpdated": _TIME, "directories": _JSON}) | _JSON}
    )
    | st.fixed_dictionaries({"$rewindTo": _ID})
)  # fmt: skip


def check(records: object) -> None:
    check_records(records, "gemini")


@given(lines=st.lists(RECORD_LINE, min_size=1, max_size=8))
def test_record_lines(lines: list[Any]) -> None:
    state = chat.start("tmp/p/chats/6f1c2d3e-4a5b-4c6d-8e7f-a1b2c3d4e5f6/9c4d5e6f.jsonl")
    for number, obj in enumerate(lines, start=1):
        check(chat.parse(orjson.dumps(obj), number, state))
        state = json.loads(json.dumps(state))


@given(line=st.binary(max_size=300))
def test_any_bytes(line: bytes) -> None:
    for kind in gemini.SOURCE.files:
        state = kind.start("tmp/p/chats/session-2026-11-20T10-00-6f1c2d3e.jsonl")
        check(kind.parse(line, 1, state))
        json.dumps(state)
