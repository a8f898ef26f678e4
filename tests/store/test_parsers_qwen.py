"""The Qwen Code parser over the project's own samples (tests/data/qwen, written by
make_samples.py there) and synthetic lines. The cross-check against the shared fixtures is in
test_parsers_qwen_fixtures.py, the fuzzing in test_parsers_qwen_fuzz.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from parse_support import all_text, events, fixture_root, merged, read_lines

from origin_store.model import EventRecord, ParseProblem, Record, SessionFact, Usage
from origin_store.parsers.base import split_output
from origin_store.parsers.qwen import chats
from origin_store.parsers.qwen import source as qwen
from origin_store.parsers.registry import SOURCES

S1 = "3a7c2e10-5b4d-4f6a-8c9e-1d2f3a4b5c6d"  # resumed, manual title
S2 = "7e1f9a2b-3c4d-4e5f-9a0b-1c2d3e4f5a6b"  # Chinese and Japanese, failed command, cut line
S3 = "b5d4c3e2-1f0a-4b9c-8d7e-6f5a4b3c2d1e"  # large output, failed call, compression
HARBOR = "/home/dev/harbor-map"
TRAVEL = "/home/dev/文档/旅行-notes"
FILES = {
    S1: f"projects/-home-dev-harbor-map/chats/{S1}.jsonl",
    S2: f"projects/-home-dev-------notes/chats/{S2}.jsonl",
    S3: f"projects/-home-dev-harbor-map/chats/{S3}.jsonl",
}


def home() -> Path:
    return fixture_root("qwen") / ".qwen"


def feed(session: str, lines: list[bytes] | None = None) -> tuple[list[Record], dict[str, Any]]:
    """A session's complete lines through one state, as the store reads them."""
    state = chats.start(FILES[session])
    found = read_lines(home() / FILES[session]) if lines is None else lines
    records: list[Record] = []
    for number, line in enumerate(found, start=1):
        records.extend(chats.parse(line, number, state))
        state = json.loads(json.dumps(state))  # the store keeps it as JSON between passes
    return records, state


def everything() -> list[Record]:
    return [r for session in FILES for r in feed(session)[0]]


def by_id() -> dict[str, EventRecord]:
    return {e.id: e for e in events(everything())}


def eid(session: str, number: int, block: int | None = None) -> str:
    return f"qwen:{session[:8]}-0000-4000-8000-{number:012x}" + (
        "" if block is None else f"#{block}"
    )


# (what, id, role, kind, the event as the tools show it starts with)
CASES = [
    ("prompt", eid(S1, 1), "user", "message", "Count the tide stations in stations.csv"),
    ("reasoning is meta", eid(S1, 4, 0), "assistant", "meta", "**Counting lines** The csv"),
    ("answer beside it", eid(S1, 4, 1), "assistant", "message", "Let me count them."),
    ("shell call", eid(S1, 4, 2), "assistant", "tool_use",
     'run_shell_command {"command":"wc -l stations.csv  # cmdtidewrack"'),
    ("shell result, the model's copy", eid(S1, 5), "system", "tool_result",
     "Command: wc -l stations.csv  # cmdtidewrack\nDirectory: (root)\nOutput: 43 stations.csv"),
    ("answer", eid(S1, 7), "assistant", "message", "There are 42 tide stations. answerbarnacle"),
    ("resumed prompt", eid(S1, 8), "user", "message", "Rename the column to station_id"),
    ("edit call", eid(S1, 10), "assistant", "tool_use", 'edit {"file_path":"/home/dev/harbor-map'),
    ("edit result", eid(S1, 11), "system", "tool_result", "The file: /home/dev/harbor-map/"),
    ("title, once", eid(S1, 12), "system", "meta", "custom_title: Tide stations 潮汐"),
    ("background agent launched", eid(S1, 15), "assistant", "tool_use",
     'agent {"description":"survey piers","prompt":"Survey the pier lengths'),
    ("its launch", eid(S1, 16), "system", "tool_result", "Background agent launched successfully."),
    ("the harness's notice of its end", eid(S1, 17), "system", "system",
     "notification: <task-notification>\n<task-id>surveyor-call_a3</task-id>"),
    ("chinese prompt", eid(S2, 1), "user", "message", "请把京都旅行的笔记写进文件"),
    ("chinese reasoning", eid(S2, 3, 0), "assistant", "meta", "先写文件。ファイルを書きます。"),
    ("write call", eid(S2, 3, 1), "assistant", "tool_use",
     'write_file {"file_path":"/home/dev/文档/旅行-notes/kyoto.md","content":"金阁寺 清水寺'),
    ("write result", eid(S2, 4), "system", "tool_result", "Successfully created and wrote"),
    ("failed command: exit 1 with status success", eid(S2, 6), "system", "tool_result",
     "[error] Command: grep -c 銀閣寺 kyoto.md"),
    ("auto title", eid(S2, 7), "system", "meta", "custom_title: 京都旅行メモ"),
    ("japanese answer", eid(S2, 8), "assistant", "message", "笔记已写好；銀閣寺はまだありません"),
    ("large output, first part", eid(S3, 4, 0), "system", "tool_result",
     "[part 1 of 3] bigstartgrouper\nbuoy 0001"),
    ("large output, last part", eid(S3, 4, 2), "system", "tool_result", "[part 3 of 3] buoy "),
    ("failed call", eid(S3, 6), "system", "tool_result",
     "[error] File not found: /home/dev/harbor-map/missing-lagoon.txt errcuttlefish"),
    ("slash command", eid(S3, 7), "system", "meta", "slash command: /compress"),
    ("compression summary", eid(S3, 8), "system", "system",
     "chat compressed (5200 → 900 tokens): <state_snapshot>buoy log dumped summaryseahorse"),
    ("its output", eid(S3, 9), "system", "meta",
     "/compress output: Chat history compressed slashmanatee"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("event_id", "role", "kind", "starts"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_events(event_id: str, role: str, kind: str, starts: str) -> None:
    event = by_id()[event_id]
    assert (event.role, event.kind) == (role, kind)
    assert event.rendered.startswith(starts), event.rendered[:200]


def test_every_line_is_read_or_left_out_on_purpose() -> None:
    """Only telemetry and attribution records give nothing; no line is a problem."""
    records = everything()
    assert not [r for r in records if isinstance(r, ParseProblem)]
    found = {e.id.split("#")[0] for e in events(records)}
    for relpath in FILES.values():
        for line in read_lines(home() / relpath):
            record = orjson.loads(line)
            if f"qwen:{record['uuid']}" not in found:
                assert record["type"] == "system", record
                assert record["subtype"] in ("ui_telemetry", "attribution_snapshot") or (
                    record["subtype"] == "custom_title"  # the same title again
                ), record


@pytest.mark.parametrize(
    "word",
    ["answerbarnacle", "answermarten", "answerdugong", "bigstartgrouper", "bigendhalibut",
     "buoy 0650 reading", "quillonharbor", "fathomkrill", "errlamprey", "Tide stations 潮汐",
     "京都旅行メモ", "noticebuoy"],
)  # fmt: skip
def test_every_word_once(word: str) -> None:
    """Telemetry's copy of an answer, a large output's head and tail beside the whole of it, a
    title written again on leaving: each gives its words once."""
    texts = [e.text for e in events(everything())]
    assert sum(text.count(word) for text in texts) == 1, word


def test_a_large_output_is_its_display_whole_in_parts() -> None:
    line = read_lines(home() / FILES[S3])[3]
    display = orjson.loads(line)["toolCallResult"]["resultDisplay"]
    parts = [e for e in events(feed(S3)[0]) if e.id.startswith(eid(S3, 4) + "#")]
    assert [e.text for e in parts] == split_output(display)
    assert "".join(e.text for e in parts) == display
    saved = next((home() / "tmp").glob("*/run_shell_command_*.output")).read_text()
    assert display.split("\nOutput too long")[0] in saved  # the saved file adds nothing to it


def test_sessions_titles_prompts_cwds() -> None:
    facts = merged(everything())
    assert facts[S1]["title"] == "Tide stations 潮汐"  # the user's
    assert facts[S2]["title"] == "京都旅行メモ"  # the fast model's
    assert facts[S3]["title"] is None  # none written: the prompt stands in for it
    assert facts[S1]["prompt"].startswith("Count the tide stations")
    assert facts[S2]["prompt"].startswith("请把京都旅行的笔记")
    assert (facts[S1]["cwd"], facts[S2]["cwd"], facts[S3]["cwd"]) == (HARBOR, TRAVEL, HARBOR)
    prompts = [r for r in everything() if isinstance(r, SessionFact) and r.prompt]
    assert len(prompts) == 3  # the resumed session's second prompt is not its prompt


def test_resume_keeps_ids_and_versions() -> None:
    """The resumed half of S1, read after the first in another pass, gives the same events, and
    its lines carry the newer version and branch."""
    lines = read_lines(home() / FILES[S1])
    whole = [e.id for e in events(feed(S1)[0])]
    first, state = feed(S1, lines[:7])
    rest: list[Record] = []
    for number, line in enumerate(lines[7:], start=8):
        rest.extend(chats.parse(line, number, state))
    assert [e.id for e in events(first + rest)] == whole
    evs = by_id()
    assert (evs[eid(S1, 1)].agent_version, evs[eid(S1, 1)].git_branch) == ("0.15.9", "main")
    assert (evs[eid(S1, 8)].agent_version, evs[eid(S1, 8)].git_branch) == ("0.15.10", "feat/tides")
    assert evs[eid(S1, 8)].time - evs[eid(S1, 1)].time >= 86_400_000


def test_the_half_written_last_line_waits() -> None:
    data = (home() / FILES[S2]).read_bytes()
    assert not data.endswith(b"\n")
    assert len(read_lines(home() / FILES[S2])) == data.count(b"\n") == 8
    cut = data.rsplit(b"\n", 1)[1]
    [problem] = chats.parse(cut, 9, chats.start(FILES[S2]))  # were it ever read as a line
    assert isinstance(problem, ParseProblem) and problem.reason == "invalid-json"
    assert "cutwhelk" not in all_text(everything())


def test_usage_once_per_model_call() -> None:
    """Each assistant record is a model call: its tokens on its first event, reasoning counted
    as output, cached input inside the input."""
    evs = by_id()
    assert evs[eid(S1, 4, 0)].usage == Usage(1200, 1000, 42)
    assert evs[eid(S1, 4, 1)].usage is None and evs[eid(S1, 4, 2)].usage is None
    calls = [e.usage for e in events(everything()) if e.usage is not None]
    assert len(calls) == 11  # the assistant records; telemetry's copies are not counted
    assert all(e.usage is None for e in events(everything()) if e.role != "assistant")


# Synthetic lines: (what, record, (role, kind, rendered) of each event).
BASE = {
    "sessionId": S1,
    "timestamp": "2026-11-22T10:00:00.000Z",
    "cwd": HARBOR,
    "version": "0.15.10",
    "parentUuid": None,
}
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def _result(response: dict[str, Any], **outcome: Any) -> dict[str, Any]:
    part = {"functionResponse": {"id": "c", "name": "run_shell_command", "response": response}}
    return {"type": "tool_result", "message": {"role": "user", "parts": [part]},
            "toolCallResult": {"callId": "c", **outcome}}  # fmt: skip


_SHELL = "Command: x\nOutput: Exit Code: 7\nError: (none)\nExit Code: 0\nSignal: (none)"
SYNTHETIC = [
    ("exit code inside the output is not the command's",
     _result({"output": _SHELL}, status="success"),
     [("system", "tool_result", _SHELL)]),
    ("a command killed by a signal",
     _result({"output": "Command: x\nOutput: (empty)\nError: (none)\nExit Code: (none)\nSignal: 9"},
             status="success"),
     [("system", "tool_result",
       "[error] Command: x\nOutput: (empty)\nError: (none)\nExit Code: (none)\nSignal: 9")]),
    ("a large output that failed: its display, marked",
     _result({"output": "Tool output was too large and has been truncated.\n…\nExit Code: 2\nSignal: (none)"},
             status="success", resultDisplay="lots of output\nOutput too long and was saved to: /t/x.output"),
     [("system", "tool_result", "[error] lots of output\nOutput too long and was saved to: /t/x.output")]),
    ("a cancelled call", _result({"error": "Command cancelled by user."}, status="cancelled"),
     [("system", "tool_result", "[cancelled] Command cancelled by user.")]),
    ("an error with no text", _result({}, status="error", error={}),
     [("system", "tool_result", "[error] ")]),
    ("an image in a result",
     {"type": "tool_result", "message": {"role": "user", "parts": [
         {"functionResponse": {"id": "c", "name": "read_file", "response": {"output": "Read image."}}},
         {"inlineData": {"mimeType": "image/png", "data": PIXEL}}]},
      "toolCallResult": {"callId": "c", "status": "success"}},
     [("system", "tool_result", "Read image.\n[image image/png 72 bytes]")]),
    ("a cron prompt is the harness's",
     {"type": "user", "subtype": "cron", "message": {"role": "user", "parts": [{"text": "check buoys"}]}},
     [("system", "system", "cron: check buoys")]),
    ("telemetry", {"type": "system", "subtype": "ui_telemetry",
                   "systemPayload": {"uiEvent": {"response_text": "dup"}}}, []),
    ("a subtype with words",
     {"type": "system", "subtype": "session_notes", "systemPayload": {"notes": "tidy up"}},
     [("system", "meta", "session_notes: tidy up")]),
    ("an at command names the files",
     {"type": "system", "subtype": "at_command",
      "systemPayload": {"filesRead": ["a.py", "b.md"], "userText": "@a.py"}},
     [("system", "meta", "read files: a.py, b.md")]),
    ("an empty assistant turn", {"type": "assistant", "message": {"role": "model", "parts": []},
                                 "usageMetadata": {"promptTokenCount": 5}}, []),
    ("an unknown type", {"type": "future_thing", "message": {"parts": [{"text": "x"}]}}, []),
]  # fmt: skip


@pytest.mark.parametrize(
    ("record", "expected"), [c[1:] for c in SYNTHETIC], ids=[c[0] for c in SYNTHETIC]
)
def test_synthetic_lines(record: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    line = orjson.dumps({**BASE, "uuid": "u-1", **record})
    records = chats.parse(line, 1, chats.start(FILES[S1]))
    assert not [r for r in records if isinstance(r, ParseProblem)]
    assert [(e.role, e.kind, e.rendered) for e in events(records)] == expected


def test_an_unknown_version_is_none() -> None:
    line = orjson.dumps({**BASE, "uuid": "u-2", "version": "unknown", "type": "user",
                         "message": {"parts": [{"text": "hi"}]}})  # fmt: skip
    [event] = events(chats.parse(line, 1, chats.start(FILES[S1])))
    assert event.agent_version is None


def test_a_line_without_uuid_has_a_stable_digest_id() -> None:
    line = orjson.dumps({**BASE, "type": "user", "message": {"parts": [{"text": "hi"}]}})
    first = events(chats.parse(line, 1, chats.start(FILES[S1])))
    again = events(chats.parse(line, 5, chats.start(FILES[S1])))
    assert [e.id for e in first] == [e.id for e in again]
    assert first[0].id.startswith(f"qwen:{S1}:user:")


ROOTS = [
    ("default", {}, [".qwen"]),
    ("QWEN_HOME", {"QWEN_HOME": "/data/qw"}, ["/data/qw"]),
    ("a leading tilde", {"QWEN_HOME": "~/conf/qwen"}, ["conf/qwen"]),
    ("runtime dir first", {"QWEN_RUNTIME_DIR": "/fast/qwen"}, ["/fast/qwen", ".qwen"]),
    ("both", {"QWEN_HOME": "/a", "QWEN_RUNTIME_DIR": "/b"}, ["/b", "/a"]),
    ("the same folder once", {"QWEN_HOME": "/a", "QWEN_RUNTIME_DIR": "/a"}, ["/a"]),
]


@pytest.mark.parametrize(("environ", "expected"), [c[1:] for c in ROOTS], ids=[c[0] for c in ROOTS])
def test_roots(environ: dict[str, str], expected: list[str]) -> None:
    user = Path("/home/u")
    assert qwen.roots(environ, user) == [user / p for p in expected]


def test_registered_with_its_memory_files() -> None:
    source = SOURCES["qwen"]
    kinds = {kind.name: kind for kind in source.kinds}
    assert kinds["chat"].patterns == (
        "projects/*/chats/*.jsonl",
        "projects/*/subagents/*/agent-*.jsonl",
    )
    assert "QWEN.md" in kinds["memory"].patterns
    assert "QWEN.md" in kinds["project_memory"].patterns
    assert {
        p.relative_to(home()).as_posix() for p in home().glob("projects/*/chats/*.jsonl")
    } == set(FILES.values())


AGENT = "surveyor-call_a3"
AGENT_FILE = f"projects/-home-dev-harbor-map/subagents/{S1}/agent-{AGENT}.jsonl"


def test_a_background_agent_is_a_session_under_its_parent() -> None:
    state = chats.start(AGENT_FILE)
    records = [
        r
        for number, line in enumerate(read_lines(home() / AGENT_FILE), start=1)
        for r in chats.parse(line, number, state)
    ]
    assert not [r for r in records if isinstance(r, ParseProblem)]
    session = f"{S1}/agent-{AGENT}"
    facts = merged(records)
    assert set(facts) == {session}
    assert (facts[session]["parent"], facts[session]["cwd"]) == (S1, HARBOR)
    assert facts[session]["prompt"].startswith("Survey the pier lengths")
    found = events(records)
    assert {e.session for e in found} == {session}
    assert not {e.id for e in found} & set(by_id())  # its own ids, none of its parent's
    assert [(e.kind, e.rendered) for e in found] == [
        ("message", "Survey the pier lengths, keyword agentsextant."),
        ("tool_use", 'glob {"pattern":"piers/*.csv"}'),
        ("tool_result", "piers/east.csv agentcompass"),
        ("tool_result", "[error] EACCES agentbollard"),
        ("message", "The east pier is 240 m. agentplumb"),
    ]  # the fork's copy of its parent's history (agent_bootstrap) gives nothing
