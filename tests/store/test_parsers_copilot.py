"""The Copilot CLI parsers (events.jsonl, workspace.yaml) over the project's own samples
(tests/data/copilot, written by make_samples.py there) and synthetic lines. The fuzz test is
test_parsers_copilot_fuzz.py, the cross-check against the shared fixtures
test_parsers_copilot_fixtures.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from parse_support import events, fixture_root, merged, read_lines

from origin_store.model import EventRecord, ParseProblem, Record, SessionFact, Usage
from origin_store.parsers import registry
from origin_store.parsers.base import FileKind, file_line, split_output
from origin_store.parsers.copilot import events as copilot_events
from origin_store.parsers.copilot import source as copilot
from origin_store.parsers.copilot import workspace

A = "5b1f7e20-3c4d-4e5f-8a6b-7c8d9e0f1a2b"
B = "8c2d4e6f-0a1b-4c3d-9e5f-6a7b8c9d0e1f"
C = "3a4b5c6d-7e8f-4a0b-9c1d-2e3f4a5b6c7d"  # an earlier version's layout
AGENT = "7d6c5b4a-3f2e-4d1c-8b0a-9f8e7d6c5b4a"
SUB = f"{A}/agent-{AGENT}"  # A's sub-agent, whose lines are in A's file
DEMO = "/home/dev/queue-svc"
NOTES = "/home/dev/ノート/メモ帳"
CWDS = {A: DEMO, B: NOTES, C: DEMO, SUB: DEMO}


def home() -> Path:
    return fixture_root("copilot") / ".copilot"


def rel(session: str, name: str = "events.jsonl") -> str:
    if session == C and name == "events.jsonl":
        return f"session-state/{C}.jsonl"
    return f"session-state/{session}/{name}"


def lines_of(session: str) -> list[bytes]:
    return read_lines(home() / rel(session))


def read(session: str, lines: list[bytes] | None = None) -> list[Record]:
    """A session's complete lines through one state, as the store reads them."""
    state = copilot_events.start(rel(session))
    records: list[Record] = []
    for number, line in enumerate(lines_of(session) if lines is None else lines, start=1):
        records.extend(copilot_events.parse(line, number, state))
    return records


def yaml_of(session: str, mtime: int = 1795700000000) -> list[Record]:
    path = home() / rel(session, "workspace.yaml")
    line = file_line(str(path), path.read_bytes(), mtime)
    return workspace.parse(line, 1, workspace.start(rel(session, "workspace.yaml")))


def by_id(records: list[Record]) -> dict[str, EventRecord]:
    return {e.id: e for e in events(records)}


def eid(session: str, number: int) -> str:
    """The samples' event ids: the session's first eight characters and the line's number."""
    return f"copilot:{session[:8]}-e{number:03d}-4000-8000-{number:012d}"


# --- where the logs are -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "/home/someone/.copilot"),
        ({"COPILOT_HOME": "/srv/copilot"}, "/srv/copilot"),
        ({"COPILOT_HOME": ""}, "/home/someone/.copilot"),
    ],
)
def test_roots_follow_copilot_home(environ: dict[str, str], expected: str) -> None:
    assert copilot.roots(environ, Path("/home/someone")) == [Path(expected)]
    assert copilot.SOURCE.roots is copilot.roots


def test_patterns_find_the_events_the_workspaces_and_the_instructions() -> None:
    root = home()

    def found(kind: FileKind) -> set[str]:
        return {p.relative_to(root).as_posix() for pat in kind.patterns for p in root.glob(pat)}

    assert found(copilot.EVENTS) == {rel(A), rel(B), f"session-state/{C}.jsonl"}
    assert found(copilot.WORKSPACE) == {rel(A, "workspace.yaml"), rel(B, "workspace.yaml")}
    assert copilot.WORKSPACE.whole and not copilot.EVENTS.snapshots
    registered = registry.SOURCES["copilot"]
    assert [kind.name for kind in registered.files] == ["events", "workspace", "memory"]
    [memory] = [kind for kind in registered.files if kind.name == "memory"]
    assert memory.whole and memory.patterns == ("copilot-instructions.md",)


def test_start_names_the_session_by_its_directory() -> None:
    assert copilot_events.start(rel(A)) == {"sid": A, "t": 0}
    assert copilot_events.start("x") == {"sid": "x", "t": 0}
    assert copilot_events.start("events.jsonl") == {"sid": "unknown", "t": 0}
    assert copilot_events.start("") == {"sid": "unknown", "t": 0}
    # Earlier versions: a session's events in a file of its own at the top of session-state.
    assert copilot_events.start(f"session-state/{A}.jsonl") == {"sid": A, "t": 0}
    assert workspace.start(rel(B, "workspace.yaml")) == {"sid": B}


# --- what each line becomes ---------------------------------------------------------------------

EVENTS = [
    # id, role, kind, the text as shown
    (eid(A, 1), "system", "meta",
     f"session started, Copilot CLI 1.0.98, model claude-sonnet-4.6, cwd {DEMO}, branch main"),
    (eid(A, 2), "user", "message",
     "Why does the retry budget in src/queue/backoff.ts run out so fast? (wordgrail)"),
    (eid(A, 3) + "#0", "system", "system", "You are the GitHub Copilot CLI"),
    (eid(A, 3) + "#1", "system", "system", "* Guideline"),
    (eid(A, 6), "assistant", "meta", "The budget is probably reset per attempt"),
    (eid(A, 6) + ":call:toolu_a1", "assistant", "tool_use",
     'bash {"command":"grep -n budget src/queue/backoff.ts  # cmdlattice"}'),
    (eid(A, 6) + ":call:toolu_a2", "assistant", "tool_use", 'view {"path":"src/queue/missing.ts"}'),
    (eid(A, 8) + ":result:toolu_a1", "system", "tool_result",
     "12:  let budget = 3; // outgrebe\n<shellId: 0 completed with exit code 0>"),
    (eid(A, 10) + ":result:toolu_a2", "system", "tool_result",
     "[error] Path does not exist: src/queue/missing.ts (viewfumble)"),
    (eid(A, 15), "assistant", "message", "The budget is reset inside the loop on line 12."),
    (eid(A, 17), "system", "meta",
     "session ended (routine), +0 -0 lines; model claude-sonnet-4.6 2 requests"),
    (eid(A, 18), "system", "meta",
     f"session resumed, model claude-sonnet-4.6, cwd {DEMO}, branch fix/retry-budget"),
    (eid(A, 19), "user", "message", "Move the budget out of the loop (resumewren)."),
    (eid(A, 22), "assistant", "message", "Moving it above the loop."),
    (eid(A, 22) + ":call:toolu_a3", "assistant", "tool_use",
     f'edit {{"path":"{DEMO}/src/queue/backoff.ts","old_str":"  let budget = 3;"'),
    (eid(A, 24) + ":result:toolu_a3", "system", "tool_result",
     f"File {DEMO}/src/queue/backoff.ts updated with changes.\n@@ -12 +12 @@\n-  let budget = 3;"),
    (eid(A, 27), "system", "system", "context truncated: 6 messages, 41000 tokens removed"),
    (eid(A, 28), "system", "system",
     "compaction summary:\nBudget hoisted out of the retry loop; tests pending (sumcobble)."),
    (eid(A, 30) + ":call:toolu_a4", "assistant", "tool_use", 'task {"agent_type":"explore"'),
    (eid(A, 32), "system", "meta", "sub-agent explore started: find the callers"),
    (eid(A, 33), "user", "message", "Which modules call backoff()? (subtaskmoss)"),
    (eid(A, 35), "assistant", "message", "Two callers: worker.ts and cron.ts (subkelpie)."),
    (eid(A, 36) + ":result:toolu_a4", "system", "tool_result", "Two callers: worker.ts and cron.ts"),
    (eid(A, 37), "system", "meta", "sub-agent explore completed: 0 tool calls, 800 ms"),
    (eid(A, 38), "system", "meta",
     f"session ended (routine), +1 -0 lines in {DEMO}/src/queue/backoff.ts; model"),
    (eid(B, 1), "system", "meta",
     f"session started, Copilot CLI 1.0.102, model claude-sonnet-4.6, cwd {NOTES}, branch 主线"),
    (eid(B, 2), "user", "message", "把メモ帳的同步脚本跑一下，看看为什么失败（墨鱼同步）"),
    (eid(B, 5), "assistant", "meta", "先运行同步脚本，再查看输出（思考海葵）。"),
    (eid(B, 5) + ":call:toolu_b1", "assistant", "tool_use", 'bash {"command":"./sync.sh --dry-run"}'),
    (eid(B, 5) + ":call:toolu_b2", "assistant", "tool_use", 'bash {"command":"cat 同期ログ.txt"}'),
    (eid(B, 7) + ":result:toolu_b1", "system", "tool_result",
     "[error] 同期に失敗しました: 権限がありません (errkombu)"),
    (eid(B, 9) + ":result:toolu_b2", "system", "tool_result",
     "Output too large to read at once (61.2 KB). Saved to: /tmp/"),
    (eid(B, 13), "assistant", "message", "同期スクリプトは権限エラーで失败しました。"),
    (eid(C, 1), "system", "meta", f"session started, Copilot CLI 0.0.340, model claude-sonnet-4.6, cwd {DEMO}"),
    (eid(C, 2), "user", "message", "List the queues that have no consumer (oldlayoutfern)."),
    (eid(C, 4), "assistant", "message", "Two queues have none: audit and mailer (ansfernleaf)."),
]  # fmt: skip


#: The sub-agent's own lines (its start and end, and its result, are its parent's).
IN_SUBAGENT = {eid(A, 33), eid(A, 35)}


def session_of(event_id: str) -> str:
    if event_id in IN_SUBAGENT:
        return SUB
    return next(s for s in (A, B, C) if event_id.startswith(f"copilot:{s[:8]}"))


@pytest.mark.parametrize(("event_id", "role", "kind", "shown"), EVENTS)
def test_events(event_id: str, role: str, kind: str, shown: str) -> None:
    session = session_of(event_id)
    event = by_id(read(session.split("/agent-")[0]))[event_id]
    assert (event.session, event.role, event.kind, event.source) == (session, role, kind, "copilot")
    assert event.rendered.startswith(shown), event.rendered
    assert event.cwd == CWDS[session]


def test_every_event_is_listed_once_and_bookkeeping_gives_none() -> None:
    """Turn markers, a call's start (its request says it) and usage lines give no event."""
    for session in (A, B, C):
        ids = [e.id for e in events(read(session))]
        assert len(ids) == len(set(ids))
        listed = {
            event_id for event_id, *_ in EVENTS if event_id.startswith(f"copilot:{session[:8]}")
        }
        assert listed <= set(ids)
    ids_a = {e.id for e in events(read(A))}
    assert ids_a == {event_id for event_id, *_ in EVENTS if A[:8] in event_id}
    for number in (4, 5, 7, 9, 11, 12, 13, 14, 16, 26, 29, 31, 34):  # turns, usage, tool starts
        assert not [i for i in ids_a if i.startswith(eid(A, number))]


def test_origins_words_never_glue_the_logs_together() -> None:
    """A label between two of the log's words must leave them apart in the text, which is what
    is indexed (`session started, Copilot CLI 1.0.98, model …`: `1.0.98, claude…`)."""
    for event in events(read(A) + read(B)):
        text = event.text
        glued = [
            words
            for offset, words in event.label or ()
            if 0 < offset < len(text) and text[offset - 1].isalnum() and text[offset].isalnum()
        ]
        assert glued == [], (event.id, text)
    started = by_id(read(A))[eid(A, 1)]
    assert started.text == f"1.0.98, claude-sonnet-4.6, {DEMO}, main"


def test_the_typed_prompt_not_the_transformed_one() -> None:
    prompt = by_id(read(A))[eid(A, 2)]
    assert "<current_datetime>" not in prompt.text


def test_a_failure_is_marked_like_claude_codes_and_a_success_is_not() -> None:
    records = by_id(read(A) + read(B))
    failed = [e for e in records.values() if e.rendered.startswith("[error] ")]
    assert {e.id for e in failed} == {
        eid(A, 10) + ":result:toolu_a2",  # success: false
        eid(B, 7) + ":result:toolu_b1",  # success: true, exit code 2
    }
    for event in failed:
        assert event.label == ((0, "[error] "),) and not event.text.startswith("[error]")
    assert records[eid(A, 8) + ":result:toolu_a1"].label is None  # exit code 0


def test_a_large_output_keeps_only_the_preview_copilot_kept() -> None:
    result = by_id(read(B))[eid(B, 9) + ":result:toolu_b2"]
    assert "Preview (first 500 chars):\nbannerstart-zephyr" in result.text
    assert "row 0011" not in result.text  # past the 500 characters: only in the temp file
    assert result.label is None


def test_the_system_prompt_is_kept_whole_in_parts() -> None:
    line = orjson.loads(lines_of(A)[2])
    prompt = line["data"]["content"]
    parts = [e for e in events(read(A)) if e.id.startswith(eid(A, 3))]
    assert len(prompt) > 20_000 and len(parts) == len(split_output(prompt)) == 2
    assert "".join(e.text for e in parts) == prompt
    assert "quillmarrow" in parts[-1].text  # the instructions, at the end, stay searchable


def test_branch_and_version_follow_each_run() -> None:
    evs = by_id(read(A))
    assert (evs[eid(A, 2)].git_branch, evs[eid(A, 2)].agent_version) == ("main", "1.0.98")
    assert evs[eid(A, 19)].git_branch == "fix/retry-budget"
    assert by_id(read(B))[eid(B, 2)].git_branch == "主线"


def test_times_are_the_lines_timestamps() -> None:
    evs = by_id(read(A))
    assert evs[eid(A, 1)].time == 1795600000000
    assert evs[eid(A, 19)].time == 1795686401000


# --- sessions -----------------------------------------------------------------------------------


def test_session_facts_from_the_events_and_the_workspace() -> None:
    facts = merged(read(A) + yaml_of(A) + read(B) + yaml_of(B))
    assert facts[A]["prompt"].startswith("Why does the retry budget")
    assert facts[A]["title"] == (
        "Why does the retry budget in src/queue/backoff.ts run out so fast? (wordgrail)"
    )
    assert facts[B]["title"] == "メモ帳の同期エラー調査"  # user_named
    assert (facts[A]["cwd"], facts[B]["cwd"]) == (DEMO, NOTES)
    assert (facts[SUB]["parent"], facts[SUB]["cwd"]) == (A, DEMO)
    assert facts[SUB]["prompt"] == "Which modules call backoff()? (subtaskmoss)"
    assert facts[A]["parent"] is None
    ranks = {
        f.session: f.title_rank
        for f in yaml_of(A) + yaml_of(B)
        if isinstance(f, SessionFact) and f.title
    }
    assert ranks == {A: workspace.NAME_RANK, B: workspace.USER_NAMED_RANK}


def test_a_workspace_version_is_timed_by_its_file() -> None:
    facts = [f for f in yaml_of(A, 1795700000123) if isinstance(f, SessionFact)]
    assert facts and {f.time for f in facts} == {1795700000123}


# --- growth ---------------------------------------------------------------------------------------


def test_the_half_written_last_line_waits() -> None:
    data = (home() / rel(B)).read_bytes()
    assert not data.endswith(b"\n")
    assert "halfwritten" not in " ".join(e.text for e in events(read(B)))
    complete = data + b'"}, "id":"x"}'  # what the store does not read until a newline comes
    assert complete.split(b"\n")[-1]
    whole = data.rsplit(b"\n", 1)[0] + b"\n" + json.dumps(
        {"type": "user.message", "data": {"content": "写到一半的消息 halfwritten"}, "id": "late-1",
         "timestamp": "2026-11-25T07:16:44.000Z"}, ensure_ascii=False).encode() + b"\n"  # fmt: skip
    records = read(B, whole.split(b"\n")[:-1])
    assert by_id(records)["copilot:late-1"].text == "写到一半的消息 halfwritten"


@pytest.mark.parametrize("cut", [1, 3, 6, 10, 17, 18, 22, 26])
def test_a_resumed_file_gives_the_same_records(cut: int) -> None:
    """Read up to `cut` (17: the first run's shutdown), the state kept as the store keeps it
    (JSON), then the rest: the same records, the same ids, nothing twice."""
    lines = lines_of(A)
    state = copilot_events.start(rel(A))
    first: list[Record] = []
    for number, line in enumerate(lines[:cut], start=1):
        first.extend(copilot_events.parse(line, number, state))
    state = json.loads(json.dumps(state))
    rest: list[Record] = []
    for number, line in enumerate(lines[cut:], start=cut + 1):
        rest.extend(copilot_events.parse(line, number, state))
    assert first + rest == read(A)


# --- usage ----------------------------------------------------------------------------------------


def usage_line(etype: str, call: str | None, **counts: int) -> dict[str, Any]:
    usage: dict[str, Any] = dict(counts)
    if call is not None:
        usage["apiCallId"] = call
    data = {"usage": usage} if etype == "session.usage_record" else usage
    return {
        "type": etype,
        "data": data,
        "id": f"u-{etype}-{call}",
        "timestamp": "2026-11-25T07:06:41.000Z",
    }


def answer_line(number: int) -> dict[str, Any]:
    return {"type": "assistant.message", "data": {"content": f"answer {number}"}, "id": f"m{number}",
            "timestamp": "2026-11-25T07:06:42.000Z"}  # fmt: skip


RECORD = "session.usage_record"
USAGE_CASES = [
    ("one call", [usage_line(RECORD, "c1", inputTokens=100, outputTokens=7, cacheReadTokens=60), answer_line(1)],
     [Usage(100, 60, 7)]),
    ("written twice, counted once",
     [usage_line(RECORD, "c1", inputTokens=100, outputTokens=7),
      usage_line("assistant.usage", "c1", inputTokens=100, outputTokens=7), answer_line(1)],
     [Usage(100, 0, 7)]),
    ("the same call again after its answer is not counted again",
     [usage_line(RECORD, "c1", inputTokens=100, outputTokens=7), answer_line(1),
      usage_line("assistant.usage", "c1", inputTokens=100, outputTokens=7), answer_line(2)],
     [Usage(100, 0, 7), None]),
    ("two records of one id are two calls (a server that gives every call one id)",
     [usage_line(RECORD, "same", inputTokens=10, outputTokens=1), answer_line(1),
      usage_line(RECORD, "same", inputTokens=20, outputTokens=2), answer_line(2)],
     [Usage(10, 0, 1), Usage(20, 0, 2)]),
    ("two calls before one answer (one wrote nothing)",
     [usage_line(RECORD, "c1", inputTokens=10, outputTokens=1),
      usage_line(RECORD, "c2", inputTokens=20, outputTokens=2), answer_line(1)],
     [Usage(30, 0, 3)]),
    ("cached tokens left out of the input are added to it",
     [usage_line("assistant.usage", "c1", inputTokens=5, outputTokens=9, cacheReadTokens=900,
                 cacheWriteTokens=100), answer_line(1)],
     [Usage(1005, 900, 9)]),
    ("no call id: counted with its answer",
     [usage_line("assistant.usage", None, inputTokens=4, outputTokens=2), answer_line(1)],
     [Usage(4, 0, 2)]),
    ("counts that are not counts", [usage_line(RECORD, "c1", inputTokens=-3, outputTokens="x"),  # type: ignore[arg-type]
                                    answer_line(1)], [None]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("lines", "expected"), [case[1:] for case in USAGE_CASES], ids=[c[0] for c in USAGE_CASES]
)
def test_usage_is_counted_once_on_the_answer(
    lines: list[dict[str, Any]], expected: list[Usage | None]
) -> None:
    state = copilot_events.start(rel(A))
    out: list[Record] = []
    for number, line in enumerate(lines, start=1):
        out.extend(copilot_events.parse(orjson.dumps(line), number, state))
        state = json.loads(json.dumps(state))
    assert [e.usage for e in events(out)] == expected


def test_the_samples_usage() -> None:
    usages = [e.usage for e in events(read(A)) if e.usage is not None]
    assert usages == [
        Usage(5200, 4800, 90),
        Usage(5400, 5300, 40),  # written twice, counted once
        Usage(5600, 0, 120),
        Usage(60000, 58000, 300),  # the compaction's own call, on its summary
        Usage(7000, 6900, 30),
        Usage(900, 0, 12),  # the sub-agent's call, on its answer
    ]


# --- other lines ----------------------------------------------------------------------------------


def line(etype: str, data: object, **extra: object) -> bytes:
    return orjson.dumps(
        {"type": etype, "data": data, "id": "e1", "timestamp": "2026-11-25T07:06:41.000Z", **extra}
    )


OTHER_LINES = [
    ("session.model_change", {"previousModel": "a", "newModel": "gpt-5.2"}, "meta", "model: gpt-5.2"),
    ("session.title_changed", {"title": "Retry budget fix"}, "meta", "title: Retry budget fix"),
    ("session.error", {"errorType": "api", "message": "rate limited"}, "system", "error: rate limited"),
    ("session.info", {"infoType": "x", "message": "Model switched"}, "meta", "info: Model switched"),
    ("abort", {"reason": "user cancelled"}, "system", "abort: user cancelled"),
    ("session.compaction_complete", {"success": True, "summaryContent": "We fixed it."}, "system",
     "compaction summary:\nWe fixed it."),
    ("session.compaction_complete", {"success": True}, "system", "context compacted"),
    ("session.compaction_complete", {"success": False, "error": "Compaction Cancelled", "outcome": "cancelled"},
     "meta", "compaction cancelled: Compaction Cancelled"),
    ("session.warning", {"warningType": "x", "message": "Static context too large"}, "system",
     "warning: Static context too large"),
    ("subagent.started", {"agentName": "explore"}, "meta", "sub-agent explore started"),
    ("subagent.failed", {"agentName": "explore", "error": "timed out"}, "meta", "sub-agent explore failed: timed out"),
]  # fmt: skip


@pytest.mark.parametrize(("etype", "data", "kind", "shown"), OTHER_LINES)
def test_other_line_types(etype: str, data: dict[str, Any], kind: str, shown: str) -> None:
    [event] = events(copilot_events.parse(line(etype, data), 1, copilot_events.start(rel(A))))
    assert (event.id, event.kind, event.role, event.rendered) == (
        "copilot:e1",
        kind,
        "system",
        shown,
    )


def test_a_title_in_the_log_is_a_title_below_the_users_name() -> None:
    out = copilot_events.parse(
        line("session.title_changed", {"title": "T"}), 1, copilot_events.start(rel(A))
    )
    [fact] = [r for r in out if isinstance(r, SessionFact)]
    assert (fact.session, fact.title, fact.title_rank) == (
        A,
        "T",
        copilot_events.TITLE_CHANGED_RANK,
    )
    assert workspace.NAME_RANK < fact.title_rank < workspace.USER_NAMED_RANK


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"", []),
        (b"not json", ["invalid-json"]),
        (b"[1]", ["not-an-object"]),
        (b'{"type":"assistant.message","data":"x"}', []),
        (b'{"type":"assistant.message","data":{"toolRequests":[1,{"name":7}]}}', ["tool_use"]),
        (b'{"type":"tool.execution_complete","data":{"success":false}}', ["tool_result"]),
        (b'{"type":"tool.execution_complete","data":{"success":true}}', []),
        (b'{"type":"something.new","data":{}}', []),
    ],
)
def test_odd_lines(raw: bytes, expected: list[str]) -> None:
    out = copilot_events.parse(raw, 4, copilot_events.start(rel(A)))
    found = [
        r.reason if isinstance(r, ParseProblem) else r.kind
        for r in out
        if not isinstance(r, SessionFact)
    ]
    assert found == expected


def test_an_id_less_line_gets_a_positional_id() -> None:
    raw = b'{"type":"user.message","data":{"content":"hi"}}'
    [event] = events(copilot_events.parse(raw, 7, copilot_events.start(rel(A))))
    assert event.id == f"copilot:{A}:L7" and event.time == 0


# --- workspace.yaml -------------------------------------------------------------------------------

YAML = [
    ("plain", "name: Fix the build\n", "Fix the build"),
    ("single quoted", "name: 'It''s: fine'\n", "It's: fine"),
    ("as Copilot writes a prompt of two lines", 'name: "First line\\nsecond: \\"q\\"\\t日本語"\n',
     'First line\nsecond: "q"\t日本語'),
    ("double quoted", 'name: "tab\\there \\u00e9 \\"q\\""\n', 'tab\there é "q"'),
    ("plain folded", "name: a long\n  name that goes\n  on\nuser_named: false\n", "a long name that goes on"),
    ("single quoted folded", "name: 'first\n  second'\n", "first second"),
    ("double quoted folded", 'name: "first\n  second\\\n  third"\n', "first secondthird"),
    ("folded block", "name: >-\n  one\n  two\n\n  three\n", "one two\nthree"),
    ("literal block", "name: |\n  one\n  two\n", "one\ntwo\n"),
    ("comment after a plain value", "name: value # note\n", "value"),
    ("a nested mapping is skipped", "extra:\n  a: 1\nname: n\n", "n"),
    ("CJK", "name: メモ帳の同期\n", "メモ帳の同期"),
    ("CRLF", "id: x\r\nname: windows\r\n", "windows"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in YAML], ids=[c[0] for c in YAML])
def test_yaml_scalars(text: str, expected: str) -> None:
    values = workspace.read_mapping(text)
    assert values is not None and values["name"] == expected


@pytest.mark.parametrize("text", ["", "- a\n- b\n", "just words\n", "# only a comment\n"])
def test_yaml_that_is_not_a_mapping(text: str) -> None:
    assert workspace.read_mapping(text) is None
    out = workspace.parse(file_line("/w.yaml", text.encode(), 1), 1, {"sid": A})
    assert [type(r) for r in out] == [ParseProblem]


@pytest.mark.parametrize(
    ("text", "title", "rank"),
    [
        ("name: Mine\nuser_named: true\n", "Mine", workspace.USER_NAMED_RANK),
        ("name: First prompt\nuser_named: false\n", "First prompt", workspace.NAME_RANK),
        ("name: First prompt\n", "First prompt", workspace.NAME_RANK),
        ("summary: A generated summary\n", "A generated summary", workspace.SUMMARY_RANK),
        ("name: '  '\ncwd: /x\n", None, None),
        ("name: a\n  b\n", "a b", workspace.NAME_RANK),
        ('name: "two\\nlines"\n', "two lines", workspace.NAME_RANK),  # a title is one line
    ],
)
def test_workspace_titles(text: str, title: str | None, rank: int | None) -> None:
    out = workspace.parse(file_line("/w.yaml", text.encode(), 1795700000000), 1, {"sid": A})
    titled = [(f.title, f.title_rank) for f in out if isinstance(f, SessionFact) and f.title]
    assert titled == ([] if title is None else [(title, rank)])
    assert all(isinstance(f, SessionFact) and f.session == A for f in out)
