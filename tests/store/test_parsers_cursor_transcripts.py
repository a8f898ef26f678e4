"""Cursor's agent transcripts: the JSONL layout (with a sub-agent, the IDE's marker-only file
and a line cut short) and the legacy plain text, over the sample logs and on lines written
here. They are append-only, so they are read from tests/data/cursor in place."""

from __future__ import annotations

import orjson
import pytest
from helpers import DATA
from parse_support import events, read_lines

from origin_store.model import ParseProblem, Record, SessionFact
from origin_store.parsers.cursor import transcripts as transcripts

ROOT = DATA / "cursor" / ".cursor"
FOLDER = "projects/home-dev-tide/agent-transcripts"
MAIN = "3b5d7f9a-1c2e-4a6b-8d0f-2e4a6c8e0a2c"
SUB = "6c8e0a2c-4e6a-4b8d-9f1a-3c5e7a9b1d3f"
SHELL = "4f0c2d9e-7a1b-4c3d-9e8f-0a1b2c3d4e5f"
LEGACY = "9d1f3b5d-7f9a-4b1c-8e2f-4a6c8e0a2c4e"
TASK = "Find other commands that take dates"
FILE_MAIN = f"{FOLDER}/{MAIN}/{MAIN}.jsonl"
FILE_SUB = f"{FOLDER}/{MAIN}/subagents/{SUB}.jsonl"
FILE_SHELL = f"{FOLDER}/{SHELL}/{SHELL}.jsonl"
FILE_LEGACY = f"{FOLDER}/{LEGACY}.txt"


def feed(relpath: str) -> list[Record]:
    kind = transcripts.TEXT_TRANSCRIPTS if relpath.endswith(".txt") else transcripts.TRANSCRIPTS
    state = kind.start(relpath)
    lines = read_lines(ROOT / relpath)
    return [r for number, line in enumerate(lines, 1) for r in kind.parse(line, number, state)]


def rows(relpath: str) -> list[tuple[str, str, str, str]]:
    """(id after the session, role, kind, rendered text) of a file's events."""
    return [(e.id.split(":", 2)[2], e.role, e.kind, e.rendered) for e in events(feed(relpath))]


JSONL = [
    (FILE_MAIN, [
        ("L1", "user", "message", "Add a --since flag to the reindex command."),
        ("L2#0", "assistant", "meta", "The command parses flags in cli/reindex.ts."),
        ("L2#1", "assistant", "message", "I'll look at the flag parser first."),
        ("L3", "assistant", "tool_use", 'Read {"path":"/home/dev/tide/cli/reindex.ts"}'),
        ("L4", "system", "tool_result", "export function reindex(args: string[]) {}"),
        ("L5", "assistant", "tool_use", f'Task {{"description":"{TASK}","subagent_type":"explore"}}'),
        ("L6", "assistant", "message", "`reindex --since 2026-10-01` now skips older notes."),
        ("L7", "system", "meta", "turn ended: success"),
        ("L8", "user", "message", "Accept relative dates like 3d as well."),
        ("L9", "system", "tool_result", "[error] permission denied: cli/dates.ts"),
        ("L10", "system", "meta", "turn ended: aborted: User aborted/interrupted manually."),
    ]),
    (FILE_SUB, [
        ("L1", "user", "message", "Find other commands that take dates"),
        ("L2", "assistant", "tool_use", 'Grep {"pattern":"Date\\\\.parse","path":"cli"}'),
        ("L3", "assistant", "message", "Only cli/export.ts parses dates."),
        ("L4", "system", "meta", "turn ended: success"),
    ]),
    (FILE_SHELL, [("L1", "system", "meta", "turn ended: success"), ("L2", "system", "meta", "turn ended: success")]),
    (FILE_LEGACY, [
        ("L6", "user", "message", "导出的 JSON 里日期要用 ISO 8601。\n顺便把 created 字段改名为 createdAt。"),
        ("L12", "assistant", "meta", "导出逻辑在 src/export.ts，日期现在是时间戳。"),
        ("L13", "assistant", "tool_use", "read_file"),
        ("L14", "assistant", "tool_use", "target_file: src/export.ts"),
        ("L15", "assistant", "tool_use", "should_read_entire_file: true"),
        ("L16", "system", "tool_result", "read_file"),
        ("L17", "system", "tool_result", "export const toJson = (n) => ({ created: n.created })"),
        ("L20", "assistant", "message", "已改为 `new Date(n.createdAt).toISOString()`，字段名也改成了 createdAt。"),
        ("L21", "assistant", "message", "导出测试全部通过。"),
    ]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("relpath", "expected"), JSONL, ids=[r[0].rsplit("/", 1)[1] for r in JSONL]
)
def test_events_by_line(relpath: str, expected: list[tuple[str, str, str, str]]) -> None:
    assert rows(relpath) == expected
    evs = events(feed(relpath))
    assert {e.session for e in evs} == {relpath.rsplit("/", 1)[1].rsplit(".", 1)[0]}
    assert {e.time for e in evs} == {0}  # transcripts carry no times
    assert not [r for r in feed(relpath) if isinstance(r, ParseProblem)]


FACTS = [
    # file, prompt, cwd, parent
    (FILE_MAIN, "Add a --since flag to the reindex command.", "/home/dev/tide", None),
    (FILE_SUB, "Find other commands that take dates", None, MAIN),
    (FILE_SHELL, None, None, None),
    (FILE_LEGACY, "导出的 JSON 里日期要用 ISO 8601。\n顺便把 created 字段改名为 createdAt。", None, None),
]  # fmt: skip


@pytest.mark.parametrize(("relpath", "prompt", "cwd", "parent"), FACTS)
def test_session_facts(
    relpath: str, prompt: str | None, cwd: str | None, parent: str | None
) -> None:
    facts = [r for r in feed(relpath) if isinstance(r, SessionFact)]
    assert [f.prompt for f in facts if f.prompt] == ([prompt] if prompt else [])
    assert [f.cwd for f in facts if f.cwd] == ([cwd] if cwd else [])
    assert [f.parent for f in facts if f.parent] == ([parent] if parent else [])
    assert not [f for f in facts if f.title]  # transcripts have no titles


def test_events_after_the_workspace_note_carry_its_cwd() -> None:
    assert {e.cwd for e in events(feed(FILE_MAIN))} == {"/home/dev/tide"}


def test_the_line_cut_short_is_not_read_and_would_be_a_problem() -> None:
    data = (ROOT / FILE_MAIN).read_bytes()
    cut = data.rsplit(b"\n", 1)[1]
    assert cut.startswith(b'{"role":"assistant"') and cut not in read_lines(ROOT / FILE_MAIN)
    [problem] = transcripts.parse(cut, 11, transcripts.start(FILE_MAIN))
    assert isinstance(problem, ParseProblem) and problem.reason == "invalid-json"


# --- lines written here ----------------------------------------------------------------------------


def line(obj: object) -> bytes:
    return orjson.dumps(obj)


IMAGE = {"type": "image", "source": {"data": "QUJD", "media_type": "image/png"}}
NOTE = "<user_info>\nWorkspace Path: /w\n</user_info>"
ODD = [
    ("a turn without a status", line({"type": "turn_ended"}), [("system", "meta", "turn ended: unknown")]),
    ("a role it does not know", line({"role": "critic", "message": {"content": "x"}}), []),
    ("content without a message", line({"role": "assistant", "content": "plain"}), [("assistant", "message", "plain")]),
    ("an image block", line({"role": "user", "message": {"content": [IMAGE]}}),
     [("user", "message", "[image image/png 3 bytes]")]),
    ("only a workspace note", line({"role": "user", "message": {"content": NOTE}}), []),
    ("not an object", b"[1]", "not-an-object"),
]  # fmt: skip


@pytest.mark.parametrize(("data", "expected"), [r[1:] for r in ODD], ids=[r[0] for r in ODD])
def test_odd_lines(data: bytes, expected: list[tuple[str, str, str]] | str) -> None:
    records = transcripts.parse(data, 1, transcripts.start("x/y.jsonl"))
    if isinstance(expected, str):
        assert [r.reason for r in records if isinstance(r, ParseProblem)] == [expected]
    else:
        assert [(e.role, e.kind, e.rendered) for e in events(records)] == expected


def text_rows(text: str) -> list[tuple[str, str, str, str]]:
    state = transcripts.start_text("p/agent-transcripts/t.txt")
    out = []
    for number, raw in enumerate(text.split("\n"), 1):
        for e in events(transcripts.parse_text(raw.encode(), number, state)):
            out.append((e.id.rsplit(":", 1)[1], e.role, e.kind, e.text))
    return out


TEXT = [
    ("a query closed on its own line", "user:\n<user_query>hi</user_query>", [("L2", "user", "message", "hi")]),
    ("words outside a query", "user:\nplain words\n\nmore", [("L2", "user", "message", "plain words"),
                                                          ("L4", "user", "message", "more")]),
    ("a query cut by the next block", "user:\n<user_query>\nhalf\nA:\nok",
     [("L2", "user", "message", "half"), ("L5", "assistant", "message", "ok")]),
    ("lines before any block", "stray", [("L1", "system", "meta", "stray")]),
    ("a call's unindented line is text", "A:\n[Tool call] ls\n  path: .\ndone",
     [("L2", "assistant", "tool_use", "ls"), ("L3", "assistant", "tool_use", "path: ."),
      ("L4", "assistant", "message", "done")]),
    ("thinking ends at a blank line", "A:\n[Thinking] hmm\nstill\n\nsaid",
     [("L2", "assistant", "meta", "hmm"), ("L3", "assistant", "meta", "still"),
      ("L5", "assistant", "message", "said")]),
    ("a bare marker", "A:\n[Tool result]\nout", [("L3", "system", "tool_result", "out")]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), [r[1:] for r in TEXT], ids=[r[0] for r in TEXT])
def test_legacy_text(text: str, expected: list[tuple[str, str, str, str]]) -> None:
    assert text_rows(text) == expected


def test_a_long_query_is_let_out_in_pieces_and_the_state_stays_small() -> None:
    state = transcripts.start_text("t.txt")
    body = ["user:", "<user_query>"] + ["x" * 1000] * 20 + ["</user_query>"]
    pieces = []
    for number, raw in enumerate(body, 1):
        pieces += events(transcripts.parse_text(raw.encode(), number, state))
        assert len(orjson.dumps(state)) < 10_000
    assert [e.id.rsplit(":", 1)[1] for e in pieces] == ["L2", "L11", "L19"]
    assert sum(len(e.text) for e in pieces) == 20 * 1000 + 19 - 2  # the lines, minus two joins
