"""The codex parsers (rollouts and session_index): cross-checked against the shared fixtures'
documented expectations (skipped where ../shared/fixtures is absent), and on synthetic lines.
What every parser promises (re-parsing, resumable state, fuzzing) is in test_parsers_common.py."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from parse_support import all_text, events, merged, read_lines, shared_root

from origin_store.model import EventRecord, ParseProblem, Record, SessionFact
from origin_store.parsers.codex import rollout as codex
from origin_store.parsers.registry import SOURCES, get

CI = "019a0b1c-2d3e-7f40-8a51-6b7c8d9e0f12"
WEB = "019a0f2e-5b6c-7d81-9e02-a3b4c5d6e7f8"
SUB = "019a0f31-0a0b-7c0d-8e0f-101112131415"
COLD = "0199f8a0-1111-7222-8333-444455556666"

FILE_CI = f"sessions/2026/10/20/rollout-2026-10-20T17-14-03-{CI}.jsonl"
FILE_WEB = f"sessions/2026/10/21/rollout-2026-10-21T11-05-11-{WEB}.jsonl"
FILE_SUB = f"sessions/2026/10/21/rollout-2026-10-21T11-20-40-{SUB}.jsonl"
FILE_COLD = f"sessions/2026/10/19/rollout-2026-10-19T21-00-00-{COLD}.jsonl.zst"
ROLLOUTS = (FILE_CI, FILE_WEB, FILE_SUB, FILE_COLD)


def root() -> Path:
    """The shared fixtures' codex folder; the test is skipped where it is absent."""
    return shared_root("codex")


def complete_lines(relpath: str) -> list[bytes]:
    """Lines as the store feeds them: decompressed, and only those ended by a newline."""
    return read_lines(root() / relpath)


def feed(relpath: str, kind: codex.FileKind = codex.ROLLOUTS) -> list[Record]:
    state = kind.start(relpath)
    records: list[Record] = []
    for lineno, line in enumerate(complete_lines(relpath), start=1):
        records.extend(kind.parse(line, lineno, state))
    return records


def by_line(records: list[Record]) -> dict[int, EventRecord]:
    return {int(e.id.rsplit(":L", 1)[1]): e for e in events(records)}


def everything() -> list[Record]:
    records: list[Record] = []
    for relpath in ROLLOUTS:
        records.extend(feed(relpath))
    records.extend(feed("session_index.jsonl", codex.SESSION_INDEX))
    return records


# --- discovery and roots ------------------------------------------------------------------------


def test_registry_holds_the_source() -> None:
    # The registry adds the agent's memory files to its own kinds.
    registered = get("codex")
    assert registered is SOURCES["codex"]
    assert registered.roots is codex.SOURCE.roots
    assert registered.files[: len(codex.SOURCE.files)] == codex.SOURCE.files
    assert {kind.name for kind in registered.kinds} >= {"memory", "project_memory"}
    assert {"claude-code", "codex"} <= set(SOURCES)


def test_roots_follow_codex_home() -> None:
    home = Path("/home/someone")
    assert codex.SOURCE.roots({}, home) == [home / ".codex"]
    assert codex.SOURCE.roots({"CODEX_HOME": "/srv/codex"}, home) == [Path("/srv/codex")]


def test_patterns() -> None:
    def found(kind: codex.FileKind) -> set[str]:
        return {
            p.relative_to(root()).as_posix()
            for pattern in kind.patterns
            for p in root().glob(pattern)
        }

    assert found(codex.ROLLOUTS) == set(ROLLOUTS)
    assert found(codex.SESSION_INDEX) == {"session_index.jsonl"}
    assert codex.SOURCE.files == (codex.ROLLOUTS, codex.SESSION_INDEX)


def test_thread_id_from_file_name_until_session_meta() -> None:
    assert codex.start_rollout(FILE_COLD)["sid"] == COLD
    assert codex.start_rollout(f"archived_sessions/rollout-2026-10-20T17-14-03-{CI}.jsonl") == {
        "sid": CI,
        "t": 0,
    }
    state = codex.start_rollout(FILE_CI)
    line = b'{"timestamp":"2026-10-20T09:00:00Z","type":"compacted","payload":{"message":"m"}}'
    assert events(codex.parse_rollout(line, 7, state))[0].id == f"codex:{CI}:L7"


# --- sessions, titles, prompts ------------------------------------------------------------------

SESSIONS = [
    # session, parent, title, prompt, cwd, branch, version
    (
        CI,
        None,
        "Fix CI build (tsconfig.build.json)",
        "Why does `npm run build` fail on CI but not locally?",
        "/home/dev/demo-app",
        "main",
        "0.131.0",
    ),
    (
        WEB,
        None,
        "web_ui 日本語化",
        "ログイン画面の文言をすべて日本語にして。ボタンは「ログイン」と「キャンセル」で。",
        "/home/dev/プロジェクト/web_ui",
        "i18n/ja",
        "0.131.0",
    ),
    (
        SUB,
        WEB,
        None,
        "List every user-visible English string left under src/ (file:line).",
        "/home/dev/プロジェクト/web_ui",
        None,
        "0.131.0",
    ),
    (
        COLD,
        None,
        None,
        "Summarize what src/server.ts does in two sentences.",
        "/home/dev/demo-app",
        None,
        "0.129.2",
    ),
]


@pytest.mark.parametrize(
    ("session", "parent", "title", "prompt", "cwd", "branch", "version"), SESSIONS
)
def test_session_facts(
    session: str,
    parent: str | None,
    title: str | None,
    prompt: str,
    cwd: str,
    branch: str | None,
    version: str,
) -> None:
    facts = merged(everything())
    assert facts[session]["title"] == title
    assert facts[session]["prompt"] == prompt
    assert facts[session]["cwd"] == cwd
    assert facts[session]["parent"] == parent
    relpath = next(r for r in ROLLOUTS if session in r)
    records = feed(relpath)
    assert {e.session for e in events(records)} == {session}
    assert {(e.cwd, e.git_branch, e.agent_version) for e in events(records)} == {
        (cwd, branch, version)
    }
    assert len([r for r in records if isinstance(r, SessionFact) and r.prompt]) == 1
    assert not [r for r in records if isinstance(r, ParseProblem)]


def test_session_index_facts() -> None:
    facts = feed("session_index.jsonl", codex.SESSION_INDEX)
    assert [(f.session, f.title, f.title_rank, f.time) for f in facts] == [
        (CI, "CI build fix", 30, 1792487658020),
        (WEB, "web_ui 日本語化", 30, 1792548330120),
        (CI, "Fix CI build (tsconfig.build.json)", 30, 1792490531900),
    ]
    bad = codex.parse_index(b'{"id": 5}', 1, {})
    assert [p.reason for p in bad] == ["bad-field"]


def test_thread_name_updated_is_a_lower_ranked_title() -> None:
    titles = [
        (r.title, r.title_rank) for r in feed(FILE_CI) if isinstance(r, SessionFact) and r.title
    ]
    assert titles == [("CI build fix", 20)]


# --- roles and kinds ----------------------------------------------------------------------------

KINDS = [
    # file, line, role, kind, text prefix
    (FILE_CI, 1, "system", "meta", "session start: codex_cli_rs, 0.131.0, source cli"),
    (FILE_CI, 2, "system", "system", "<permissions instructions>"),
    (FILE_CI, 3, "system", "system", "# AGENTS.md instructions for /home/dev/demo-app"),
    (FILE_CI, 4, "system", "system", "<environment_context>"),
    (FILE_CI, 5, "system", "meta", "turn: model gpt-5.5 (high)"),
    (FILE_CI, 7, "user", "message", "Why does `npm run build` fail"),
    (FILE_CI, 10, "assistant", "meta", "**Checking build configuration**"),
    (FILE_CI, 12, "assistant", "tool_use", 'exec_command {"cmd":"cat package.json tsconfig.json"'),
    (FILE_CI, 14, "system", "tool_result", "Chunk ID: 3f2a1b"),
    (FILE_CI, 17, "assistant", "tool_use", "apply_patch *** Begin Patch"),
    (FILE_CI, 19, "system", "tool_result", "Success. Updated the following files:"),
    (FILE_CI, 20, "assistant", "message", "CI type-checks `test/` too"),
    (FILE_CI, 24, "system", "meta", "thread name: CI build fix"),
    (FILE_CI, 29, "assistant", "tool_use", 'shell {"command":["bash","-lc","npm test"]'),
    (FILE_CI, 30, "system", "tool_result", "[error: exit code 1] FAIL test/rateLimit.test.ts"),
    (FILE_CI, 34, "system", "system", "Summary of the conversation so far"),
    (FILE_CI, 35, "system", "system", "context compacted"),
    (FILE_WEB, 20, "system", "system", "turn aborted: interrupted"),
    (FILE_WEB, 21, "system", "system", "<environment_context>"),
    (FILE_WEB, 22, "system", "meta", "turn: model gpt-5.5-codex (high)"),
    (FILE_WEB, 24, "user", "message", "继续：把错误提示也翻成日文"),
    (FILE_SUB, 1, "system", "meta", f"session start: codex_cli_rs, 0.131.0, subagent of {WEB}"),
    (FILE_SUB, 6, "user", "message", "List every user-visible English string"),
    (FILE_COLD, 4, "user", "message", "Summarize what src/server.ts does"),
    (FILE_COLD, 8, "assistant", "message", "It starts an Express app"),
]


@pytest.mark.parametrize(("relpath", "lineno", "role", "kind", "prefix"), KINDS)
def test_role_and_kind(relpath: str, lineno: int, role: str, kind: str, prefix: str) -> None:
    event = by_line(feed(relpath))[lineno]
    assert (event.role, event.kind) == (role, kind)
    assert event.rendered.startswith(prefix)


def test_mirrors_telemetry_and_copies_give_no_events() -> None:
    # 8 user_message, 9 token_count, 11 agent_reasoning, 13 exec_command_end, 16 encrypted-only
    # reasoning, 18 patch_apply_end, 21 agent_message, 23 task_complete, 6 task_started.
    assert set(by_line(feed(FILE_CI))) == {
        1, 2, 3, 4, 5, 7, 10, 12, 14, 17, 19, 20, 24, 25, 27, 29, 30, 31, 34, 35
    }  # fmt: skip
    # The sub-agent's copies of its parent's items (lines 2, 3) belong to the parent.
    assert set(by_line(feed(FILE_SUB))) == {1, 4, 6, 7, 8}


def test_ids_are_positional_and_stable() -> None:
    for relpath in ROLLOUTS:
        records = feed(relpath)
        evs = events(records)
        session = evs[0].session
        assert all(re.fullmatch(rf"codex:{session}:L\d+", e.id) for e in evs)
        assert len({e.id for e in evs}) == len(evs)
        assert feed(relpath) == records


def test_times_are_utc_ms() -> None:
    evs = by_line(feed(FILE_CI))
    assert evs[1].time == 1792487643310  # 2026-10-20T09:14:03.310Z, file name says 17-14-03
    facts = [r for r in feed(FILE_CI) if isinstance(r, SessionFact) and r.cwd]
    assert facts[0].time == 1792487643281  # session_meta.payload.timestamp


def test_never_indexed() -> None:
    text = all_text(everything())
    assert "FAKEencrypted" not in text  # encrypted reasoning
    assert "You are Codex" not in text  # base_instructions
    assert "one flaky test remains." not in text  # compacted.replacement_history only
    assert not re.search(r"[A-Za-z0-9+/]{80,}", text)


# --- synthetic lines ----------------------------------------------------------------------------


def _item(payload: dict, kind: str = "response_item") -> bytes:
    return orjson.dumps({"timestamp": "2026-10-20T09:00:00.000Z", "type": kind, "payload": payload})


def test_images_become_placeholders() -> None:
    data = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    line = _item(
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "what is this?"},
                {"type": "input_image", "image_url": f"data:image/png;base64,{data}"},
            ],
        }
    )
    out = codex.parse_rollout(line, 3, codex.start_rollout(FILE_CI))
    assert events(out)[0].text == "what is this?\n[image image/png 72 bytes]"
    prompt = [r.prompt for r in out if isinstance(r, SessionFact) and r.prompt]
    assert prompt == ["what is this?\n[image image/png 72 bytes]"]
    output = _item(
        {
            "type": "function_call_output",
            "call_id": "c",
            "output": f"see data:image/jpeg;base64,{data}",
        }
    )
    assert "iVBOR" not in events(codex.parse_rollout(output, 4, {}))[0].text


def test_unknown_wrapped_context_is_system_not_prompt() -> None:
    state = codex.start_rollout(FILE_CI)
    line = _item(
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "<turn_aborted>\nx\n</turn_aborted>"}],
        }
    )
    out = codex.parse_rollout(line, 2, state)
    assert [(e.role, e.kind) for e in events(out)] == [("system", "system")]
    assert not [r for r in out if isinstance(r, SessionFact) and r.prompt]


def test_user_message_mirror_is_a_prompt_source() -> None:
    state = codex.start_rollout(FILE_CI)
    out = codex.parse_rollout(
        _item({"type": "user_message", "message": "hi"}, "event_msg"), 1, state
    )
    assert events(out) == []
    assert [r.prompt for r in out if isinstance(r, SessionFact)] == ["hi"]


def test_bad_lines_are_problems_not_exceptions() -> None:
    state = codex.start_rollout(FILE_CI)
    assert codex.parse_rollout(b"{not json", 1, state)[0].reason == "invalid-json"
    assert codex.parse_rollout(b'"text"', 2, state)[0].reason == "not-an-object"
    assert codex.parse_index(b"\xff", 1, {})[0].reason == "invalid-json"
    assert codex.parse_rollout(b'{"type":"response_item","payload":5}', 3, state) == []
    assert codex.parse_rollout(b'{"type":"event_msg","payload":{"type":[]}}', 4, state) == []
