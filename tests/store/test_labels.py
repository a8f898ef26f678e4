"""Origin's own words apart from the log's: what each parser puts in an event's label, and how
labels are kept, put back and cut."""

from __future__ import annotations

import io

import orjson
import pytest
import zstandard
from helpers import cut
from hypothesis import given
from hypothesis import strategies as st
from parse_support import events, fixture_root

from origin_search import tokens
from origin_store.model import EventRecord
from origin_store.parsers.base import Words
from origin_store.parsers.claude_code import transcript as claude_code
from origin_store.parsers.codex import rollout as codex
from origin_store.textclip import shown, with_label

THREAD = "019a0b1c-2d3e-7f40-8a51-6b7c8d9e0f12"


def claude(obj: dict) -> list[EventRecord]:
    base = {"sessionId": "s1", "uuid": "u1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    return events(
        claude_code.parse(
            orjson.dumps({**base, **obj}), 1, claude_code.start("projects/p/s1.jsonl")
        )
    )


def codex_line(rtype: str, payload: dict) -> list[EventRecord]:
    line = orjson.dumps(
        {"timestamp": "2026-10-20T09:00:00.000Z", "type": rtype, "payload": payload}
    )
    return events(
        codex.parse_rollout(line, 3, codex.start_rollout(f"sessions/rollout-x-{THREAD}.jsonl"))
    )


def _system(**fields: object) -> dict:
    return {"type": "system", **fields}


def _result(content: object, **fields: object) -> dict:
    block = {"type": "tool_result", "tool_use_id": "t", "content": content, **fields}
    return {"type": "user", "message": {"role": "user", "content": [block]}}


# (what, events of one line, the log's words, rendered as the tools show it)
CASES = [
    (
        "claude ai-title",
        lambda: claude({"type": "ai-title", "aiTitle": "Rate limiter"}),
        "Rate limiter",
        "ai-title: Rate limiter",
    ),
    (
        "claude custom-title",
        lambda: claude({"type": "custom-title", "customTitle": "limiter"}),
        "limiter",
        "custom-title: limiter",
    ),
    ("claude mode", lambda: claude({"type": "mode", "mode": "plan"}), "plan", "mode: plan"),
    (
        "claude permission-mode",
        lambda: claude({"type": "permission-mode", "permissionMode": "acceptEdits"}),
        "acceptEdits",
        "permission-mode: acceptEdits",
    ),
    (
        "claude agent-name",
        lambda: claude({"type": "agent-name", "agentName": "reviewer"}),
        "reviewer",
        "agent-name: reviewer",
    ),
    (
        "claude queue",
        lambda: claude(
            {"type": "queue-operation", "operation": "remove", "content": "also fix docs"}
        ),
        "also fix docs",
        "queue remove: also fix docs",
    ),
    (
        "claude queue without operation",
        lambda: claude({"type": "queue-operation", "content": "also fix docs"}),
        "also fix docs",
        "queue queue: also fix docs",
    ),
    (
        "claude compact boundary",
        lambda: claude(
            _system(
                subtype="compact_boundary", compactMetadata={"trigger": "auto", "preTokens": 155000}
            )
        ),
        "auto, 155000",
        "Conversation compacted (trigger auto, preTokens 155000)",
    ),
    (
        "claude compact boundary with content",
        lambda: claude(
            _system(
                subtype="compact_boundary", content="Squashed", compactMetadata={"preTokens": 900}
            )
        ),
        "Squashed 900",
        "Squashed (preTokens 900)",
    ),
    (
        "claude bare compact boundary",
        lambda: claude(_system(subtype="compact_boundary")),
        "",
        "Conversation compacted",
    ),
    (
        "claude stop hooks",
        lambda: claude(
            _system(
                subtype="stop_hook_summary",
                hookInfos=[{"command": "a.sh"}, {"command": "b.sh"}],
                hookErrors=["boom"],
                preventedContinuation=True,
                stopReason="tests fail",
            )
        ),
        'a.sh, b.sh\n["boom"]\ntests fail',
        'stop hooks: a.sh, b.sh\nerrors: ["boom"]\nprevented continuation: tests fail',
    ),
    (
        "claude no stop hooks",
        lambda: claude(
            _system(subtype="stop_hook_summary", hookInfos=[], preventedContinuation=True)
        ),
        "",
        "stop hooks: none\nprevented continuation",
    ),
    (
        "claude api error",
        lambda: claude(_system(subtype="api_error", error={"status": 529})),
        '{"status":529}',
        'api_error: {"status":529}',
    ),
    (
        "claude hook attachment",
        lambda: claude(
            {
                "type": "attachment",
                "attachment": {
                    "type": "hook_success",
                    "hookName": "SessionStart:startup",
                    "stdout": "ok",
                },
            }
        ),
        "SessionStart:startup: ok",
        "SessionStart:startup: ok",
    ),
    (
        "claude unnamed hook attachment",
        lambda: claude(
            {"type": "attachment", "attachment": {"type": "hook_success", "stdout": "ok"}}
        ),
        "ok",
        "hook_success: ok",
    ),
    (
        "claude failed tool",
        lambda: claude(_result("No such file", is_error=True)),
        "No such file",
        "[error] No such file",
    ),
    ("claude failed tool, no output", lambda: claude(_result("", is_error=True)), "", "[error] "),
    ("claude tool result", lambda: claude(_result("fine")), "fine", "fine"),
    (
        "claude tool call",
        lambda: claude(
            {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "ls"}}
                    ],
                },
            }
        ),
        'Bash {"command":"ls"}',
        'Bash {"command":"ls"}',
    ),
    (
        "claude prompt",
        lambda: claude({"type": "user", "message": {"role": "user", "content": "thread name: x"}}),
        "thread name: x",
        "thread name: x",
    ),
    (
        "codex session start",
        lambda: codex_line(
            "session_meta",
            {
                "id": THREAD,
                "originator": "codex_cli_rs",
                "cli_version": "0.131.0",
                "source": "cli",
                "cwd": "/home/dev/app",
            },
        ),
        "codex_cli_rs, 0.131.0, cli, /home/dev/app",
        "session start: codex_cli_rs, 0.131.0, source cli, cwd /home/dev/app",
    ),
    (
        "codex sub-agent start",
        lambda: codex_line(
            "session_meta",
            {
                "id": THREAD,
                "cli_version": "0.131.0",
                "source": {
                    "subagent": {
                        "thread_spawn": {
                            "parent_thread_id": "p-1",
                            "agent_nickname": "Curie",
                            "agent_role": "worker",
                        }
                    }
                },
            },
        ),
        "0.131.0, p-1 (Curie, worker)",
        "session start: 0.131.0, subagent of p-1 (Curie, worker)",
    ),
    (
        "codex orphan sub-agent start",
        lambda: codex_line(
            "session_meta",
            {"id": THREAD, "source": {"subagent": {"thread_spawn": {"agent_nickname": "Curie"}}}},
        ),
        "Curie)",
        "session start: subagent (Curie)",
    ),
    (
        "codex bare session start",
        lambda: codex_line("session_meta", {"id": THREAD}),
        "",
        "session start: ",
    ),
    (
        "codex turn",
        lambda: codex_line(
            "turn_context",
            {
                "model": "gpt-5.5",
                "effort": "high",
                "approval_policy": "never",
                "sandbox_policy": {"type": "read-only"},
                "cwd": "/w",
            },
        ),
        "gpt-5.5 (high), never, read-only, /w",
        "turn: model gpt-5.5 (high), approval never, sandbox read-only, cwd /w",
    ),
    (
        "codex turn, approval only",
        lambda: codex_line("turn_context", {"approval_policy": "on-request"}),
        "on-request",
        "turn: approval on-request",
    ),
    (
        "codex thread name",
        lambda: codex_line(
            "event_msg", {"type": "thread_name_updated", "thread_name": "Puppeteer flake"}
        ),
        "Puppeteer flake",
        "thread name: Puppeteer flake",
    ),
    (
        "codex turn aborted",
        lambda: codex_line("event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
        "interrupted",
        "turn aborted: interrupted",
    ),
    (
        "codex turn aborted, no reason",
        lambda: codex_line("event_msg", {"type": "turn_aborted"}),
        "",
        "turn aborted: unknown reason",
    ),
    (
        "codex error",
        lambda: codex_line("event_msg", {"type": "error", "message": "boom"}),
        "boom",
        "error: boom",
    ),
    (
        "codex warning",
        lambda: codex_line("event_msg", {"type": "warning", "message": "slow"}),
        "slow",
        "warning: slow",
    ),
    (
        "codex stream error",
        lambda: codex_line("event_msg", {"type": "stream_error", "message": "reset"}),
        "reset",
        "stream_error: reset",
    ),
    (
        "codex context compacted",
        lambda: codex_line("event_msg", {"type": "context_compacted"}),
        "",
        "context compacted",
    ),
    (
        "codex compacted",
        lambda: codex_line("compacted", {"message": "Summary so far"}),
        "Summary so far",
        "Summary so far",
    ),
    ("codex bare compacted", lambda: codex_line("compacted", {}), "", "context compacted"),
    (
        "codex rollback",
        lambda: codex_line("event_msg", {"type": "thread_rolled_back", "num_turns": 2}),
        "2",
        "rolled back 2 turn(s)",
    ),
    (
        "codex rollback, no count",
        lambda: codex_line("event_msg", {"type": "thread_rolled_back"}),
        "",
        "rolled back ? turn(s)",
    ),
    (
        "codex review mode",
        lambda: codex_line("event_msg", {"type": "entered_review_mode"}),
        "",
        "entered review mode",
    ),
    (
        "codex exit code",
        lambda: codex_line(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c",
                "output": '{"output":"FAIL x","metadata":{"exit_code":1}}',
            },
        ),
        "FAIL x",
        "[error: exit code 1] FAIL x",
    ),
    (
        "codex failure",
        lambda: codex_line(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c",
                "output": {"content": "nope", "success": False},
            },
        ),
        "nope",
        "[error] nope",
    ),
    (
        "codex failure, no output",
        lambda: codex_line(
            "response_item",
            {"type": "function_call_output", "call_id": "c", "output": {"success": False}},
        ),
        "",
        "[error] ",
    ),
    (
        "codex tool output",
        lambda: codex_line(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c",
                "output": '{"output":"ok","metadata":{"exit_code":0}}',
            },
        ),
        "ok",
        "ok",
    ),
    (
        "codex tool call",
        lambda: codex_line(
            "response_item",
            {"type": "function_call", "name": "exec_command", "arguments": '{"cmd":"ls"}'},
        ),
        'exec_command {"cmd":"ls"}',
        'exec_command {"cmd":"ls"}',
    ),
]


def _pieces(event: EventRecord) -> list[str]:
    """The log's words between the places where Origin's stand."""
    cuts = [0, *(offset for offset, _ in event.label or ()), len(event.text)]
    return [event.text[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]


@pytest.mark.parametrize(("what", "parse", "text", "rendered"), CASES, ids=[c[0] for c in CASES])
def test_labels_are_split_from_the_logs_words(what, parse, text, rendered) -> None:
    [event] = parse()
    assert (event.text, event.rendered) == (text, rendered)
    assert (event.label is None) == (text == rendered)
    label_words = {t for _, words in event.label or () for t in tokens(words)}
    # Origin's words are never searchable through the label (the cases' values avoid them).
    assert label_words.isdisjoint(tokens(event.text))
    # Two of the log's words never run together where a label stood between them.
    assert tokens(event.text) == [t for piece in _pieces(event) for t in tokens(piece)]


def _fixture_events() -> list[EventRecord]:
    out: list[EventRecord] = []
    for source, kinds in (("claude-code", claude_code.SOURCE.files), ("codex", codex.SOURCE.files)):
        root = fixture_root(source)
        for kind in kinds:
            for pattern in kind.patterns:
                for path in sorted(root.glob(pattern)):
                    rel = path.relative_to(root).as_posix()
                    data = path.read_bytes()
                    if rel.endswith(".zst"):
                        data = (
                            zstandard.ZstdDecompressor()
                            .stream_reader(io.BytesIO(data), read_across_frames=True)
                            .read()
                        )
                    state = kind.start(rel)
                    for number, line in enumerate(data.split(b"\n")[:-1], start=1):
                        out.extend(events(kind.parse(line, number, state)))
    return out


def test_fixture_labels_keep_words_apart() -> None:
    labelled = [e for e in _fixture_events() if e.label]
    assert len(labelled) >= 20
    for event in labelled:
        assert tokens(event.text) == [t for piece in _pieces(event) for t in tokens(piece)], event
    words = {t for e in labelled for t in tokens(e.text)}
    # Words only Origin wrote in the fixtures' events are searchable no more.
    assert {
        "thread",
        "session",
        "start",
        "turn",
        "approval",
        "sandbox",
        "source",
        "aborted",
    }.isdisjoint(words)
    shown_words = {t for e in labelled for t in tokens(e.rendered)}
    assert {"thread", "session", "start", "turn", "approval", "sandbox"} <= shown_words


# --- the builder and the rendering ------------------------------------------------------------

_STEP = st.tuples(
    st.sampled_from(["log", "origin", "sep"]), st.text(alphabet="ab c,(数", max_size=5)
)


@given(st.lists(_STEP, max_size=12))
def test_words_render_what_was_added_in_order(steps) -> None:
    words = Words()
    expected = []
    for how, piece in steps:
        getattr(words, how)(piece)
        expected.append(piece)
    built = words.build()
    text, label = (built, ()) if isinstance(built, str) else built
    assert with_label(text, label) == "".join(expected)
    logged, last_log = [], False  # the log's words, and punctuation that follows some
    for how, piece in steps:
        if piece and (how == "log" or (how == "sep" and last_log)):
            logged.append(piece)
            last_log = True
        elif piece:
            last_log = False
    assert text == "".join(logged)
    offsets = [offset for offset, _ in label]
    assert offsets == sorted(set(offsets)) and all(0 <= o <= len(text) for o in offsets)
    assert all(words for _, words in label)


_TEXT = st.text(alphabet="ab 数\n", max_size=120)


@st.composite
def _labelled(draw) -> tuple[str, tuple]:
    text = draw(_TEXT)
    offsets = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=4))))
    return text, tuple((o, draw(st.text(alphabet="LX: ", min_size=1, max_size=6))) for o in offsets)


@given(_labelled(), st.integers(0, 60), st.integers(1, 60))
def test_a_kept_beginning_and_the_length_cut_as_the_whole_text(labelled, kept, limit) -> None:
    """What the store keeps (the first characters, the original length) gives the cut of the
    whole labelled text exactly, for any cut no longer than what is kept."""
    text, label = labelled
    kept = max(kept, limit)
    record = {"text": text[:kept], "label": [list(pair) for pair in label] or None}
    if len(text) > kept:
        record["text_chars"] = len(text)
    assert shown(record, limit) == cut(with_label(text, label), limit)


def test_records_from_before_labels_read_as_before() -> None:
    old = {"text": "thread name: CI build fix"}
    assert shown(old, 400) == "thread name: CI build fix"
    clipped = {"text": "a" * 16_000 + "\n… [10,000 characters cut]\n" + "z" * 4_000}
    assert shown(clipped, 20_000) == cut(clipped["text"], 20_000)
