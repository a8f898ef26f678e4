"""A large command's fuller output (codex/fuller.py), on lines in the shape Codex 0.171.0 wrote
for `seq 1 30000` (169 KB): the `item_completed` CommandExecution keeps the first and last 32 KiB,
the `function_call_output` after it the first and last 5 KB. Table-driven over line orders."""

from __future__ import annotations

from dataclasses import dataclass

import orjson
import pytest
from parse_support import events

from origin_store.model import EventRecord
from origin_store.parsers.codex import rollout as codex

SID = "01a235ef-a7f0-7290-9810-245f35ea2feb"
RELPATH = f"sessions/2026/12/02/rollout-2026-12-02T08-47-08-{SID}.jsonl"
WHOLE = "".join(f"{n}\n" for n in range(1, 30001)).replace("\n3000\n", "\ntamarisk\n", 1)
WHOLE = WHOLE.replace("\n29990\n", "\nmarigold\n")
#: What Codex 0.171.0 kept of WHOLE in each line (sizes as in the real rollout).
PERSISTED = WHOLE[:32744] + "\n... command output truncated for persistence ...\n" + WHOLE[-32743:]
SHOWN = WHOLE[:5197] + f"…{len(WHOLE) - 10213}  chars truncated…" + WHOLE[-5016:]
HEADER = (
    "Chunk ID: 933aed\nWall time: 0.0000 seconds\nProcess exited with code {code}\n"
    "Original token count: 42225\nOutput:\nWarning: truncated output (original token count: "
    "42225)\nTotal output lines: 30000\n\n"
)


def meta() -> bytes:
    payload: dict[str, object] = {
        "id": SID,
        "cwd": "/tmp/home/dev/demo-app",
        "cli_version": "0.171.0",
    }
    return line("session_meta", payload)


def line(rtype: str, payload: dict[str, object]) -> bytes:
    return orjson.dumps(
        {"timestamp": "2026-12-02T08:47:09.100Z", "type": rtype, "payload": payload}
    )


def item(output: str, code: int = 0, call: str = "call_script01") -> bytes:
    return line(
        "event_msg",
        {
            "type": "item_completed",
            "thread_id": SID,
            "turn_id": "01a235ef-a80c-7a31-b3a1-0d2c1e3f4a5b",
            "item": {
                "type": "CommandExecution",
                "id": call,
                "process_id": "51132",
                "command": ["/bin/bash", "-lc", "seq 1 30000"],
                "cwd": "file:///tmp/home/dev/demo-app",
                "parsed_cmd": [{"type": "unknown", "cmd": "seq 1 30000"}],
                "source": "unified_exec_startup",
                "status": "failed" if code else "completed",
                "aggregated_output": output,
                "exit_code": code,
                "duration": {"secs": 0, "nanos": 7031},
            },
            "started_at_ms": 1796195212737,
            "completed_at_ms": 1796195212737,
        },
    )


def result(shown: str, code: int = 0, call: str = "call_script01") -> bytes:
    return line(
        "response_item",
        {
            "type": "function_call_output",
            "id": "fco_01a23593-ddc9-7c63-94e1-67d203533380",
            "call_id": call,
            "output": HEADER.format(code=code) + shown,
        },
    )


SMALL_ITEM = item("glacier\n", 3)
SMALL_RESULT = line(
    "response_item",
    {
        "type": "function_call_output",
        "call_id": "call_script01",
        "output": "Chunk ID: 276372\nWall time: 0.0000 seconds\nProcess exited with code 3\n"
        "Original token count: 2\nOutput:\nglacier\n",
    },
)


def parse(lines: list[bytes]) -> list[EventRecord]:
    state = codex.ROLLOUTS.start(RELPATH)
    out = []
    for number, raw in enumerate([meta(), *lines], start=1):
        out.extend(codex.ROLLOUTS.parse(raw, number, state))
    return [e for e in events(out) if e.kind == "tool_result"]


@dataclass(frozen=True)
class Case:
    name: str
    lines: list[bytes]
    #: Each word searched for, and the ids of the events holding it (once each).
    holders: dict[str, list[str]]
    #: The ids of the tool results, in order.
    ids: list[str]
    failed: bool = False


def parts(line_number: int, count: int) -> list[str]:
    return [f"codex:{SID}:L{line_number}#{n}" for n in range(count)]


L2, L3 = f"codex:{SID}:L2", f"codex:{SID}:L3"
CASES = [
    Case(
        "item then result: the item's 64 KiB, the result's header",
        [item(PERSISTED), result(SHOWN)],
        {"tamarisk": [f"{L2}#0"], "marigold": [f"{L2}#4"], "Chunk": [L3]},
        [*parts(2, 5), L3],
    ),
    Case(
        "a failed command's parts are marked",
        [item(PERSISTED, 2), result(SHOWN, 2)],
        {"tamarisk": [f"{L2}#0"], "marigold": [f"{L2}#4"]},
        [*parts(2, 5), L3],
        failed=True,
    ),
    Case(
        "result before item: the result whole, the item nothing",
        [result(SHOWN), item(PERSISTED)],
        {"tamarisk": [], "marigold": [L2], "Chunk": [L2]},
        [L2],
    ),
    Case(
        "a small output: only the result",
        [SMALL_ITEM, SMALL_RESULT],
        {"glacier": [L3]},
        [L3],
        failed=True,
    ),
    Case(
        "the same item twice: filed once",
        [item(PERSISTED), item(PERSISTED), result(SHOWN)],
        {"tamarisk": [f"{L2}#0"], "marigold": [f"{L2}#4"]},
        [*parts(2, 5), f"codex:{SID}:L4"],
    ),
    Case(
        "another call's result keeps its words",
        [item(PERSISTED), result(SHOWN, call="call_other")],
        {"tamarisk": [f"{L2}#0"], "marigold": [f"{L2}#4", L3]},
        [*parts(2, 5), L3],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_word_once(case: Case) -> None:
    found = parse(case.lines)
    assert [e.id for e in found] == case.ids
    for word, holders in case.holders.items():
        assert [e.id for e in found if f"\n{word}" in f"\n{e.text}"] == holders, word
    assert all(bool(e.label) == case.failed for e in found if e.id.startswith(L2))


def test_parts_give_back_the_item_output_and_fit_the_store() -> None:
    found = parse([item(PERSISTED), result(SHOWN)])
    assert "".join(e.text for e in found[:-1]) == PERSISTED
    assert all(len(e.text) <= 16_000 for e in found)
    assert found[-1].text == HEADER.format(code=0)
