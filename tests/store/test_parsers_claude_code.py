"""The claude-code parser: cross-checked against the shared fixtures' documented expectations
(skipped where ../shared/fixtures is absent), and on synthetic lines. What every parser promises
(re-parsing, resumable state, fuzzing) is in test_parsers_common.py."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from parse_support import all_text, events, merged, shared_root

from origin_store.model import EventRecord, ParseProblem, Record, SessionFact
from origin_store.parsers.claude_code import transcript as claude_code
from origin_store.parsers.registry import SOURCES, get

PROJECT = "projects/-home-dev-demo-app"
SESSION_A = "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10"
SESSION_B = "c41d2e8f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
SESSION_C = "0b9e8d7c-6f5a-4e3d-9c2b-1a0f9e8d7c6b"
LEGACY_PARENT = "9d8c7b6a-5f4e-4d3c-8b2a-1908171615aa"

FILE_A = f"{PROJECT}/{SESSION_A}.jsonl"
FILE_SUB = f"{PROJECT}/{SESSION_A}/subagents/agent-a3f9c2e1b7d40568.jsonl"
FILE_LEGACY = f"{PROJECT}/agent-5e1d7c90.jsonl"
FILE_C = f"{PROJECT}/{SESSION_C}.jsonl"
FILE_B = f"projects/-home-dev----notes-app/{SESSION_B}.jsonl"
ALL_FILES = (FILE_A, FILE_SUB, FILE_LEGACY, FILE_C, FILE_B)


def root() -> Path:
    """The shared fixtures' claude-code folder; the test is skipped where it is absent."""
    return shared_root("claude-code")


def complete_lines(data: bytes) -> list[bytes]:
    """Lines as the store feeds them: only those ended by a newline."""
    return data.split(b"\n")[:-1]


def feed(relpath: str, state: dict | None = None) -> list[Record]:
    """Every complete line of a fixture file through one state dict, as the store does."""
    state = claude_code.start(relpath) if state is None else state
    records: list[Record] = []
    for lineno, line in enumerate(complete_lines((root() / relpath).read_bytes()), start=1):
        records.extend(claude_code.parse(line, lineno, state))
    return records


def by_id(records: list[Record]) -> dict[str, EventRecord]:
    return {e.id: e for e in events(records)}


# --- discovery and roots ------------------------------------------------------------------------


def test_registry_holds_the_source() -> None:
    # The registry adds the agent's memory files to its own kinds.
    registered = get("claude-code")
    assert registered is SOURCES["claude-code"]
    assert registered.roots is claude_code.SOURCE.roots
    assert registered.files[: len(claude_code.SOURCE.files)] == claude_code.SOURCE.files
    assert {kind.name for kind in registered.kinds} >= {"memory", "project_memory"}
    with pytest.raises(KeyError):
        get("nope")


def test_roots_follow_claude_config_dir() -> None:
    home = Path("/home/someone")
    assert claude_code.SOURCE.roots({}, home) == [home / ".claude"]
    assert claude_code.SOURCE.roots({"CLAUDE_CONFIG_DIR": "/srv/claude"}, home) == [
        Path("/srv/claude")
    ]


def test_patterns_find_transcripts_and_tool_outputs_only() -> None:
    found: dict[str, set[str]] = {}
    for kind in claude_code.SOURCE.files:
        for pattern in kind.patterns:
            found.setdefault(kind.name, set()).update(
                p.relative_to(root()).as_posix() for p in root().glob(pattern)
            )
    # Not history.jsonl, memory files or the sub-agent .meta.json.
    assert found == {
        "transcript": set(ALL_FILES),
        "tool_output": {f"{PROJECT}/{SESSION_A}/tool-results/toolu_01BashVitestDDDDDDDDDD.txt"},
    }


# --- sessions, titles, prompts ------------------------------------------------------------------

SESSIONS = [
    # file, session, parent, title, prompt, cwd
    (
        FILE_A,
        SESSION_A,
        None,
        "rate-limiter",
        "Add a token-bucket rate limiter to src/server.ts (10 req/s, burst 20) "
        "and cover it with a vitest test.",
        "/home/dev/demo-app",
    ),
    (
        FILE_SUB,
        f"{SESSION_A}/agent-a3f9c2e1b7d40568",
        SESSION_A,
        None,
        "List every middleware under src/mw/ and summarise its signature in one line each.",
        "/home/dev/demo-app",
    ),
    (
        FILE_LEGACY,
        f"{LEGACY_PARENT}/agent-5e1d7c90",
        LEGACY_PARENT,
        None,
        "Check whether /health returns JSON.",
        "/home/dev/demo-app",
    ),
    (
        FILE_C,
        SESSION_C,
        None,
        None,
        "Plan a migration of the config loader from JSON to TOML. Don't edit anything yet.",
        "/home/dev/demo-app",
    ),
    (
        FILE_B,
        SESSION_B,
        None,
        "笔记导出：Markdown 与日文文件名测试",
        "帮我把笔记导出功能改成支持 Markdown 格式，文件名用笔记标题。",
        "/home/dev/文档/notes-app",
    ),
]


@pytest.mark.parametrize(("relpath", "session", "parent", "title", "prompt", "cwd"), SESSIONS)
def test_session_facts(
    relpath: str, session: str, parent: str | None, title: str | None, prompt: str, cwd: str
) -> None:
    records = feed(relpath)
    assert {e.session for e in events(records)} == {session}
    facts = merged(records)
    assert set(facts) == {session}
    assert facts[session]["title"] == title
    assert facts[session]["prompt"] == prompt
    assert facts[session]["cwd"] == cwd
    assert facts[session]["parent"] == parent
    prompts = [r for r in records if isinstance(r, SessionFact) and r.prompt is not None]
    assert len(prompts) == 1  # emitted once
    assert not [r for r in records if isinstance(r, ParseProblem)]


def test_title_ranks() -> None:
    titles = [
        (r.title, r.title_rank)
        for r in feed(FILE_A)
        if isinstance(r, SessionFact) and r.title is not None
    ]
    # The leading legacy summary belongs to another session and gives no title.
    assert titles == [("Add token-bucket rate limiter", 20), ("rate-limiter", 30)]
    b_titles = [r.title for r in feed(FILE_B) if isinstance(r, SessionFact) and r.title]
    assert b_titles[-1] == "笔记导出：Markdown 与日文文件名测试"


# --- roles and kinds ----------------------------------------------------------------------------

KINDS = [
    # file, uuid, role, kind, text prefix
    (FILE_A, "a0000001-0000-4000-8000-000000000001", "user", "message", "Add a token-bucket"),
    (FILE_A, "a0000002-0000-4000-8000-000000000002", "assistant", "meta", "The user wants"),
    (FILE_A, "a0000003-0000-4000-8000-000000000003", "assistant", "message", "I'll check"),
    (FILE_A, "a0000004-0000-4000-8000-000000000004", "assistant", "tool_use", "Bash {"),
    (FILE_A, "a0000005-0000-4000-8000-000000000005", "system", "tool_result", "src/server.ts:12"),
    (FILE_A, "a0000006-0000-4000-8000-000000000006", "assistant", "tool_use", "Task {"),
    (FILE_A, "a0000007-0000-4000-8000-000000000007", "system", "tool_result", "src/mw/logger.ts"),
    (FILE_A, "a000000b-0000-4000-8000-00000000000b", "system", "tool_result", "Output too large"),
    (FILE_A, "a000000e-0000-4000-8000-00000000000e", "system", "system", "stop hooks:"),
    (FILE_A, "a000000f-0000-4000-8000-00000000000f", "user", "message", "[image image/png "),
    (FILE_A, "a0000011-0000-4000-8000-000000000011", "system", "system", "Conversation compacted"),
    (FILE_A, "a0000012-0000-4000-8000-000000000012", "system", "system", "This session is being"),
    (FILE_A, "a0000013-0000-4000-8000-000000000013", "system", "meta", "<command-name>/compact"),
    (FILE_A, "a0000014-0000-4000-8000-000000000014", "system", "meta", "<local-command-stdout>"),
    (FILE_A, "a0000017-0000-4000-8000-000000000017", "system", "tool_result", "[error] <tool_use"),
    (FILE_SUB, "b0000002-0000-4000-8000-000000000002", "assistant", "tool_use", "Glob {"),
    (FILE_C, "e0000002-0000-4000-8000-000000000002", "assistant", "meta", "Plan mode"),
    (FILE_B, "d0000002-0000-4000-8000-000000000002", "assistant", "meta", "用户要把导出"),
    (FILE_B, "d000000b-0000-4000-8000-00000000000b", "system", "system", "API Error (529"),
]


@pytest.mark.parametrize(("relpath", "uuid", "role", "kind", "prefix"), KINDS)
def test_role_and_kind(relpath: str, uuid: str, role: str, kind: str, prefix: str) -> None:
    event = by_id(feed(relpath))[f"claude-code:{uuid}"]
    assert (event.role, event.kind) == (role, kind)
    assert event.rendered.startswith(prefix)


def test_bookkeeping_lines() -> None:
    records = feed(FILE_A)
    texts = [e.rendered for e in events(records)]
    assert "permission-mode: default" in texts
    # An enqueued prompt is the user's message that follows it: the same words, one event.
    assert not any(text.startswith("queue enqueue: ") for text in texts)
    repeated = [e for e in events(records) if "also mention the limiter in README" in e.text]
    assert [(e.role, e.kind) for e in repeated] == [("user", "message")]
    assert "ai-title: Add token-bucket rate limiter" in texts
    assert "custom-title: rate-limiter" in texts
    # summary (other session), file-history-snapshot, dequeue and last-prompt give no event.
    assert "Demo-app server scaffolding" not in all_text(records)
    kinds_by_type = {e.id.split(":")[2] for e in events(records) if e.id.count(":") == 3}
    assert kinds_by_type == {"permission-mode", "ai-title", "custom-title"}
    # The tool result text comes from the block, not from toolUseResult as well.
    result = by_id(records)["claude-code:a000000b-0000-4000-8000-00000000000b"]
    assert "[truncated in fixture]" not in result.text


# --- ids, time, context -------------------------------------------------------------------------


def test_ids() -> None:
    for relpath in ALL_FILES:
        lines = complete_lines((root() / relpath).read_bytes())
        state = claude_code.start(relpath)
        for lineno, line in enumerate(lines, start=1):
            out = events(claude_code.parse(line, lineno, state))
            obj = orjson.loads(line)
            if "uuid" in obj:
                assert [e.id for e in out] == [f"claude-code:{obj['uuid']}"] * len(out)
            else:
                session = out[0].session if out else ""
                for e in out:
                    assert re.fullmatch(
                        rf"claude-code:{re.escape(session)}:{obj['type']}:[0-9a-f]{{16}}", e.id
                    )
    # Byte-identical lines re-emitted on resume collapse to one id.
    b = events(feed(FILE_B))
    title_ids = [e.id for e in b if e.rendered == "ai-title: 笔记导出支持 Markdown"]
    assert len(title_ids) == 2 and title_ids[0] == title_ids[1]


def test_version_and_branch_change_within_resumed_session() -> None:
    evs = by_id(feed(FILE_B))
    first = evs["claude-code:d0000001-0000-4000-8000-000000000001"]
    later = evs["claude-code:d0000008-0000-4000-8000-000000000008"]
    assert (first.agent_version, first.git_branch) == ("2.1.230", "main")
    assert (later.agent_version, later.git_branch) == ("2.1.241", "fix/导出-文件名")
    assert {e.cwd for e in evs.values() if e.cwd} == {"/home/dev/文档/notes-app"}


def test_time_is_utc_ms_and_inherited() -> None:
    b = events(feed(FILE_B))
    first = next(e for e in b if e.id.endswith("d0000001-0000-4000-8000-000000000001"))
    assert first.time == 1792548311500  # 2026-10-21T02:05:11.500Z
    last_answer = next(e for e in b if e.id.endswith("d000000c-0000-4000-8000-00000000000c"))
    final_title = next(
        e for e in b if e.rendered == "ai-title: 笔记导出：Markdown 与日文文件名测试"
    )
    assert final_title.time == last_answer.time
    # Nothing timestamped before the first line: 0, as agreed with the store.
    assert b[0].rendered == "mode: default" and b[0].time == 0


def test_no_base64_or_signatures_in_text() -> None:
    text = "\n".join(all_text(feed(relpath)) for relpath in ALL_FILES)
    assert "iVBOR" not in text
    assert not re.search(r"[A-Za-z0-9+/]{80,}", text)
    assert "FakeSignature" not in text and "FakeSig" not in text
    image = by_id(feed(FILE_A))["claude-code:a000000f-0000-4000-8000-00000000000f"]
    assert image.text == (
        "[image image/png 72 bytes]\n"
        "CI shows this screenshot — why would rateLimit.test.ts time out there?"
    )


# --- synthetic lines: block suffixes and bad input ----------------------------------------------


def _line(obj: dict) -> bytes:
    base = {"sessionId": "s1", "uuid": "u1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    return orjson.dumps({**base, **obj})


def test_block_index_suffix_when_a_line_splits() -> None:
    line = _line(
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "x"},
                    {"type": "text", "text": "answer"},
                    {"type": "redacted_thinking", "data": "opaque"},
                    {"type": "tool_use", "id": "t", "name": "Read", "input": {"file_path": "a"}},
                ],
            },
        }
    )
    out = events(claude_code.parse(line, 1, claude_code.start("projects/p/s1.jsonl")))
    assert [(e.id, e.kind) for e in out] == [
        ("claude-code:u1#0", "meta"),
        ("claude-code:u1#1", "message"),
        ("claude-code:u1#3", "tool_use"),
    ]
    assert out[2].text == 'Read {"file_path":"a"}'

    results = _line(
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "a", "content": "one"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "b",
                        "content": [{"type": "text", "text": "two"}],
                        "is_error": True,
                    },
                ],
            },
        }
    )
    out = events(claude_code.parse(results, 2, claude_code.start("projects/p/s1.jsonl")))
    assert [(e.id, e.text, e.rendered) for e in out] == [
        ("claude-code:u1#0", "one", "one"),
        ("claude-code:u1#1", "two", "[error] two"),
    ]


def test_bad_lines_are_problems_not_exceptions() -> None:
    state = claude_code.start("projects/p/s1.jsonl")
    assert claude_code.parse(b"{not json", 1, state)[0].reason == "invalid-json"
    assert claude_code.parse(b"\xff\xfe\x00", 2, state)[0].reason == "invalid-json"
    assert claude_code.parse(b"[1, 2]", 3, state)[0].reason == "not-an-object"
    assert claude_code.parse(b"", 4, state) == []
    assert claude_code.parse(b'{"type":"user","message":{"content":5}}', 5, state) == []
    # A stray invalid byte inside a string does not lose the line.
    salvaged = claude_code.parse(
        b'{"type":"user","uuid":"u","sessionId":"s","message":{"content":"caf\xe9"}}', 6, state
    )
    assert [e.text for e in events(salvaged)] == ["caf\ufffd"]
