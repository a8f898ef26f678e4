"""The parsers on the project's samples of what today's CLIs write (Claude Code 2.1.197 in `-p`
mode, Codex 0.171 `exec`): every word of a tool's output, failures marked alike, MCP tools named
alike, the prompt once, injected context as system events. Table-driven over the sample lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from parse_support import events, fixture_root, kind_lines

from origin_store.model import EventRecord, ParseProblem, Record
from origin_store.parsers.base import FileKind, file_line, split_output
from origin_store.parsers.claude_code import (
    outputs as claude_code_outputs,
)
from origin_store.parsers.claude_code import (
    transcript as claude_code,
)
from origin_store.parsers.codex import rollout as codex
from origin_store.textclip import STORED_CHARS

CLAUDE_SESSION = "5d2e8a41-7c3b-4f60-9e1d-3a4b5c6d7e8f"
CLAUDE_FILE = f"projects/-home-dev-demo-app/{CLAUDE_SESSION}.jsonl"
OUTPUT_FILE = f"projects/-home-dev-demo-app/{CLAUDE_SESSION}/tool-results/b7q2k9x4m.txt"
CODEX_SESSION = "019a1c2d-3e4f-7a50-8b61-7c8d9e0fa1b2"
CODEX_FILE = f"sessions/2026/10/23/rollout-2026-10-23T09-00-00-{CODEX_SESSION}.jsonl"


def feed(agent: str, relpath: str, kind: FileKind) -> list[Record]:
    """A sample file through its kind's parser, line by line with one state, as the store does."""
    state = kind.start(relpath)
    records: list[Record] = []
    for lineno, line in enumerate(kind_lines(kind, fixture_root(agent) / relpath), start=1):
        records.extend(kind.parse(line, lineno, state))
    return records


def claude_events() -> dict[str, EventRecord]:
    return {e.id: e for e in events(feed("claude-code", CLAUDE_FILE, claude_code.TRANSCRIPTS))}


def output_events() -> list[EventRecord]:
    return events(feed("claude-code", OUTPUT_FILE, claude_code_outputs.OUTPUTS))


def codex_events() -> dict[str, EventRecord]:
    return {e.id: e for e in events(feed("codex", CODEX_FILE, codex.ROLLOUTS))}


def uid(n: int) -> str:
    return f"claude-code:f{n:07x}-0000-4000-8000-{n:012x}"


# (what, events of, id, role, kind, the event as the tools show it starts with)
CASES = [
    ("claude prompt, once", claude_events, uid(1), "user", "message", "Run the limiter tests"),
    ("claude agents attached", claude_events, uid(2), "system", "system",
     "agent_listing_delta: - Explore: Fast read-only search agent"),
    ("claude skills attached", claude_events, uid(3), "system", "system",
     "skill_listing: - verify: Run the project's checks"),
    ("claude persisted preview", claude_events, uid(5), "system", "tool_result",
     "<persisted-output>\nOutput too large (96.9KB)."),
    ("claude failed command", claude_events, uid(7), "system", "tool_result",
     "[error] Exit code 3\nsrc/mw/quokkaguard.ts"),
    ("codex developer context", codex_events, f"codex:{CODEX_SESSION}:L3", "system", "system",
     "<skills_instructions>"),
    ("codex environment context", codex_events, f"codex:{CODEX_SESSION}:L4", "system", "system",
     "<environment_context>"),
    ("codex prompt", codex_events, f"codex:{CODEX_SESSION}:L7", "user", "message",
     "Ask Origin what we decided about lint"),
    ("codex MCP call keeps its namespace", codex_events, f"codex:{CODEX_SESSION}:L9", "assistant",
     "tool_use", 'mcp__origin__search {"query":"lint decision"}'),
    ("codex MCP result", codex_events, f"codex:{CODEX_SESSION}:L11", "system", "tool_result",
     'Wall time: 0.5453 seconds\nOutput:\n{"entries":[]'),
    ("codex failed command", codex_events, f"codex:{CODEX_SESSION}:L14", "system", "tool_result",
     "[error] Chunk ID: 7c31d0\nWall time: 0.0100 seconds\nProcess exited with code 3"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("what", "source", "event_id", "role", "kind", "shown"), CASES, ids=[c[0] for c in CASES]
)
def test_sample_events(what, source, event_id, role, kind, shown) -> None:
    event = source()[event_id]
    assert (event.role, event.kind) == (role, kind)
    assert event.rendered.startswith(shown)


def test_failures_are_marked_alike_and_only_failures() -> None:
    """Claude Code's `is_error` and Codex's `Process exited with code N` (N ≠ 0) get the same
    mark, which is Origin's label and not the log's words; a command that exits 0 gets none."""
    failed = [e for e in (*claude_events().values(), *codex_events().values()) if e.label]
    marked = {e.id: e.label for e in failed if e.kind == "tool_result"}
    assert marked == {
        uid(7): ((0, "[error] "),),
        f"codex:{CODEX_SESSION}:L14": ((0, "[error] "),),
    }
    passed = codex.parse_rollout(
        b'{"timestamp":"2026-10-23T09:00:02.550Z","ordinal":12,"type":"response_item","payload":'
        b'{"type":"function_call_output","call_id":"c","output":"Chunk ID: 1\\nProcess exited with'
        b' code 0\\nOutput:\\nok\\n"}}',
        1,
        codex.start_rollout(CODEX_FILE),
    )
    assert [(e.kind, e.label) for e in events(passed)] == [("tool_result", None)]


def test_what_repeats_or_is_bookkeeping_gives_no_event() -> None:
    """The `-p` prompt's enqueue line, its dequeue, last-prompt; Codex's world_state, telemetry and
    `item_completed` (which repeats the items): the same words once, or none."""
    claude = claude_events()
    prompt = [e for e in claude.values() if "Run the limiter tests verbosely" in e.text]
    assert [e.id for e in prompt] == [uid(1)]
    assert all(e.id.count(":") == 1 for e in claude.values())  # no id-less line gave an event
    lines = {int(e.id.rsplit(":L", 1)[1].split("#")[0]) for e in codex_events().values()}
    assert lines == {1, 3, 4, 6, 7, 9, 11, 12, 14, 15}


def test_every_word_of_a_persisted_output_is_in_its_parts() -> None:
    """The side file's parts give its text back whole, each kept whole by the store, each cut
    at a line's end; the word on its last lines is in the last part."""
    text = (fixture_root("claude-code") / OUTPUT_FILE).read_text()
    parts = output_events()
    assert len(text) > 90_000 and len(parts) == 7
    assert "".join(e.text for e in parts) == text
    assert all(len(e.rendered) <= STORED_CHARS for e in parts)
    assert all(e.text.endswith("\n") for e in parts)
    base = f"claude-code:{CLAUDE_SESSION}:tool-results/b7q2k9x4m"
    assert [e.id for e in parts] == [f"{base}#{n}" for n in range(7)]
    assert {(e.session, e.role, e.kind, e.cwd) for e in parts} == {
        (CLAUDE_SESSION, "system", "tool_result", None)
    }
    assert "quokkaguard" in parts[-1].text
    assert parts[-1].rendered.startswith("[part 7 of 7, tool-results/b7q2k9x4m.txt]  ✓ test/")
    assert parts[0].rendered.startswith("[part 1 of 7, tool-results/b7q2k9x4m.txt]  RUN  v3.2.4")
    # Only the transcript's preview and the side file hold the output; the preview is 2 KB.
    assert "quokkaguard middleware" not in claude_events()[uid(5)].text


SPLITS = [
    ("empty", "", [""]),
    ("short", "one line\n", ["one line\n"]),
    ("at a line end", "a" * 9_000 + "\n" + "b" * 9_000, ["a" * 9_000 + "\n", "b" * 9_000]),
    ("at a space", "a" * 9_000 + " " + "b" * 9_000, ["a" * 9_000 + " ", "b" * 9_000]),
    ("no break at all", "x" * 20_000, ["x" * 16_000, "x" * 4_000]),
    ("break too early is not taken", "a\n" + "x" * 20_000, ["a\n" + "x" * 15_998, "x" * 4_002]),
]  # fmt: skip


@pytest.mark.parametrize(("what", "text", "parts"), SPLITS, ids=[c[0] for c in SPLITS])
def test_split(what: str, text: str, parts: list[str]) -> None:
    assert split_output(text) == parts


def test_output_file_versions_and_bad_rows() -> None:
    """A rewritten file gives the same ids again (its kind upserts); a blank or unreadable row
    gives nothing or a problem, never an exception."""
    state = claude_code_outputs.start(OUTPUT_FILE)
    path = str(Path("/home/dev/.claude") / OUTPUT_FILE)
    written = 1_792_746_006_300  # the file's mtime, in ms: the only time it carries
    first = claude_code_outputs.parse(file_line(path, b"first words\n", written), 1, dict(state))
    again = claude_code_outputs.parse(file_line(path, b"second words\n", written), 2, dict(state))
    assert [(e.id, e.text, e.time) for e in events(first)] == [
        (f"claude-code:{CLAUDE_SESSION}:tool-results/b7q2k9x4m#0", "first words\n", written)
    ]
    assert [e.id for e in events(again)] == [e.id for e in events(first)]
    assert claude_code_outputs.OUTPUTS.upserts
    assert claude_code_outputs.parse(file_line(path, b"  \n"), 1, dict(state)) == []
    [problem] = claude_code_outputs.parse(b"{not json", 1, dict(state))
    assert isinstance(problem, ParseProblem)
    assert claude_code_outputs.start("projects/x/stray.txt") == {"sid": "unknown", "name": "stray"}
