"""Token usage as the parsers carry it: a model call counted once, on the first event it wrote."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from origin_store.model import EventRecord, Usage
from origin_store.parsers.claude_code import transcript
from origin_store.parsers.codex import rollout

SID = "0b9e8d7c-6f5a-4e3d-9c2b-1a0f9e8d7c6b"


def _assistant(uuid: str, mid: str, block: dict[str, Any], usage: dict[str, Any] | None):
    message: dict[str, Any] = {"id": mid, "role": "assistant", "content": [block]}
    if usage is not None:
        message["usage"] = usage
    return {
        "type": "assistant",
        "uuid": uuid,
        "sessionId": SID,
        "timestamp": "2026-10-20T09:14:03.900Z",
        "message": message,
    }


TEXT = {"type": "text", "text": "done"}
TOOL = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}
FULL = {
    "input_tokens": 3,
    "output_tokens": 80,
    "cache_read_input_tokens": 1000,
    "cache_creation_input_tokens": 200,
}

CLAUDE_CASES = [
    ("one line", [("u1", "m1", TEXT, FULL)], [Usage(1203, 1000, 80)]),
    (
        "a message's blocks repeat its usage: counted once",
        [("u1", "m1", TEXT, FULL), ("u2", "m1", TOOL, FULL)],
        [Usage(1203, 1000, 80), None],
    ),
    (
        "two messages",
        [("u1", "m1", TEXT, FULL), ("u2", "m2", TEXT, {"input_tokens": 5, "output_tokens": 6})],
        [Usage(1203, 1000, 80), Usage(5, 0, 6)],
    ),
    ("no usage", [("u1", "m1", TEXT, None)], [None]),
    (
        "counts that are not counts are zero",
        [("u1", "m1", TEXT, {"input_tokens": "many", "output_tokens": -4})],
        [None],
    ),
]


@pytest.mark.parametrize(
    ("lines", "expected"), [c[1:] for c in CLAUDE_CASES], ids=[c[0] for c in CLAUDE_CASES]
)
def test_claude_code_usage(lines: list[Any], expected: list[Usage | None]) -> None:
    state = transcript.start(f"projects/-home-dev/{SID}.jsonl")
    found = []
    for number, (uuid, mid, block, usage) in enumerate(lines, start=1):
        line = orjson.dumps(_assistant(uuid, mid, block, usage))
        events = [r for r in transcript.parse(line, number, state) if isinstance(r, EventRecord)]
        assert len(events) == 1
        found.append(events[0].usage)
    assert found == expected


CODEX_SID = "019a0b1c-2d3e-7f40-8a51-6b7c8d9e0f12"


def _codex_lines(*payloads: dict[str, Any]) -> list[bytes]:
    meta = {"type": "session_meta", "payload": {"id": CODEX_SID, "cwd": "/w/app"}}
    stamped = [{"timestamp": "2026-10-20T09:14:03.900Z", **p} for p in (meta, *payloads)]
    return [orjson.dumps(p) for p in stamped]


def _said(text: str) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text}]
    payload = {"type": "message", "role": "assistant", "content": content}
    return {"type": "response_item", "payload": payload}


def _count(last: dict[str, int] | None, total: dict[str, int] | None) -> dict[str, Any]:
    info: dict[str, Any] = {}
    if last is not None:
        info["last_token_usage"] = last
    if total is not None:
        info["total_token_usage"] = total
    return {"type": "event_msg", "payload": {"type": "token_count", "info": info}}


def _u(tin: int, cached: int, out: int) -> dict[str, int]:
    return {"input_tokens": tin, "cached_input_tokens": cached, "output_tokens": out}


CODEX_CASES = [
    (
        "a call's own tokens (last_token_usage), not the thread's total",
        [
            _said("a"),
            _count(_u(10, 4, 2), _u(10, 4, 2)),
            _said("b"),
            _count(_u(7, 0, 1), _u(17, 4, 3)),
            _said("c"),
        ],
        [None, Usage(10, 4, 2), Usage(7, 0, 1)],
    ),
    (
        "only totals (older Codex): the difference from the one before",
        [
            _said("a"),
            _count(None, _u(10, 4, 2)),
            _said("b"),
            _count(None, _u(15, 4, 9)),
            _said("c"),
        ],
        [None, Usage(10, 4, 2), Usage(5, 0, 7)],
    ),
    (
        "two counts before an event: both on it",
        [_count(_u(1, 0, 1), None), _count(_u(2, 0, 2), None), _said("a")],
        [Usage(3, 0, 3)],
    ),
    (
        "a count written again (its total unchanged) counts once",
        [_count(_u(4, 0, 1), _u(4, 0, 1)), _count(_u(4, 0, 1), _u(4, 0, 1)), _said("a")],
        [Usage(4, 0, 1)],
    ),
    ("a count without counts", [_count(None, {"total_tokens": 9000}), _said("a")], [None]),
]


@pytest.mark.parametrize(
    ("payloads", "expected"), [c[1:] for c in CODEX_CASES], ids=[c[0] for c in CODEX_CASES]
)
def test_codex_usage(payloads: list[dict[str, Any]], expected: list[Usage | None]) -> None:
    state = rollout.start_rollout(
        f"sessions/2026/10/20/rollout-2026-10-20T17-14-03-{CODEX_SID}.jsonl"
    )
    found = []
    meta, *lines = _codex_lines(*payloads)
    rollout.parse_rollout(meta, 1, state)  # the session's own meta event, never with tokens
    for number, line in enumerate(lines, start=2):
        found += [
            r.usage
            for r in rollout.parse_rollout(line, number, state)
            if isinstance(r, EventRecord)
        ]
    assert found == expected


def test_codex_usage_read_in_two_passes_is_counted_once() -> None:
    """The held tokens live in the file's state, which ingest keeps with its cursor: a line is
    parsed once, and a pass that ends after a count hands them to the next pass's event."""
    lines = _codex_lines(_said("a"), _count(_u(10, 0, 2), None), _said("b"))
    state = rollout.start_rollout(
        f"sessions/2026/10/20/rollout-2026-10-20T17-14-03-{CODEX_SID}.jsonl"
    )
    first = [rollout.parse_rollout(line, n, state) for n, line in enumerate(lines[:3], start=1)]
    kept = orjson.loads(orjson.dumps(state))  # as the cursor keeps it
    second = rollout.parse_rollout(lines[3], 4, kept)
    usages = [r.usage for rs in [*first, second] for r in rs if isinstance(r, EventRecord)]
    assert usages[1:] == [None, Usage(10, 0, 2)]  # after the session's meta event
