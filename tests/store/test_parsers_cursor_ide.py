"""The Cursor IDE's databases: the global `state.vscdb` (composers and bubbles) and a
workspace's `state.vscdb` with its `workspace.json`, over the sample databases and on row lines
written here. What the whole source promises is in test_parsers_cursor.py."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest
from parse_support import events
from test_parsers_cursor import build_home, row_log

from origin_store.ingest.rowlog import read_database
from origin_store.model import EventRecord, ParseProblem, Record, SessionFact
from origin_store.parsers.base import FileKind, file_line, parse_time, row_line
from origin_store.parsers.cursor import ide as cursor_ide
from origin_store.parsers.cursor import workspace as cursor_workspace

COMPOSER = "4f0c2d9e-7a1b-4c3d-9e8f-0a1b2c3d4e5f"
UNNAMED = "7d3e1f20-5b6a-4c8d-8e9f-1a2b3c4d5e6f"
DRAFT = "0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b"
INLINE = "2a4c6e8f-0b1d-4f3a-9c5e-7a9b1c3d5e7f"
GLOBAL = ".config/Cursor/User/globalStorage/state.vscdb"
WORKSPACES = ".config/Cursor/User/workspaceStorage"
STARTED = 1793001600000
TIDE_WS = f"{WORKSPACES}/1c84dbee7e95b260df1497173240e210/state.vscdb"
WIKI_WS = f"{WORKSPACES}/dbef580bbaf553f9be7f22050cd3264f/state.vscdb"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_home(tmp_path_factory.mktemp("cursor-ide") / "home")


def parse_all(kind: FileKind, lines: list[bytes]) -> list[Record]:
    state = kind.start("")
    return [record for number, line in enumerate(lines, 1) for record in kind.parse(line, number, state)]  # fmt: skip


def global_records(home: Path) -> list[Record]:
    return parse_all(cursor_ide.GLOBAL_DB, row_log(cursor_ide.GLOBAL_DB, home / GLOBAL))


def by_id(records: list[Record]) -> dict[str, EventRecord]:
    return {e.id: e for e in events(records)}


# --- bubbles -------------------------------------------------------------------------------------

BUBBLES = [
    # id after cursor:<composer>:, role, kind, rendered text starts with, time on 2026-10-27
    ("f1c2-user", "user", "message", "Tokenizing is slow on every search.", "10:00:01.000"),
    ("20d4-think:thinking", "assistant", "meta", "The tables are rebuilt per query", "10:00:02.500"),
    ("31e6-read:call", "assistant", "tool_use", 'read_file {"target_file":"src/tokenize.ts"}', "10:00:03.000"),
    ("31e6-read:result", "system", "tool_result", "export function tables()", "10:00:03.000"),
    ("42f8-test:call", "assistant", "tool_use", 'run_terminal_cmd {"command":"npm test -- tokenize"}', "10:00:09.000"),
    ("42f8-test:result", "system", "tool_result", "[error: exit code 1] FAIL test/tokenize.test.ts", "10:00:09.000"),
    ("53a0-edit:call", "assistant", "tool_use", 'edit_file {"target_file":"src/tokenize.ts"}', "10:00:12.000"),
    ("53a0-edit:result", "system", "tool_result", "[error] ", "10:00:12.000"),
    ("64b2-answer", "assistant", "message", "The tables are now memoised", "10:00:20.000"),
    ("64b2-answer:thinking", "assistant", "meta", "Memoise and clear the cache", "10:00:20.000"),
    ("a7c4-user", "user", "message", "Run the benchmark too.", "10:04:00.000"),
    ("b8d6-bench:call", "assistant", "tool_use", 'run_terminal_cmd {"command":"npm run bench"}', "10:04:03.000"),
]  # fmt: skip


@pytest.mark.parametrize(("suffix", "role", "kind", "prefix", "time"), BUBBLES)
def test_bubble_events(
    home: Path, suffix: str, role: str, kind: str, prefix: str, time: str
) -> None:
    event = by_id(global_records(home))[f"cursor:{COMPOSER}:{suffix}"]
    assert (event.role, event.kind, event.session) == (role, kind, COMPOSER)
    assert event.rendered.startswith(prefix)
    assert event.time == parse_time(f"2026-10-27T{time}Z")
    assert event.cwd == "/home/dev/tide"  # the composer's workspaceIdentifier


def test_a_composer_gives_only_those_events(home: Path) -> None:
    ids = {i for i in by_id(global_records(home)) if i.startswith(f"cursor:{COMPOSER}:")}
    # The running call has no result yet; the JSON null row gives nothing.
    assert ids == {f"cursor:{COMPOSER}:{suffix}" for suffix, *_ in BUBBLES}


def test_a_null_row_gives_nothing_and_other_key_families_are_not_read(home: Path) -> None:
    lines = {
        orjson.loads(line)["key"]: line for line in row_log(cursor_ide.GLOBAL_DB, home / GLOBAL)
    }
    assert cursor_ide.parse(lines[f"bubbleId:{COMPOSER}:9e0f-null"], 1, {}) == []
    assert not [key for key in lines if key.startswith(("checkpointId:", "messageRequest"))]


def test_a_damaged_row_is_a_problem_and_the_others_are_still_read(tmp_path: Path) -> None:
    path = build_home(tmp_path / "home") / GLOBAL
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO cursorDiskKV VALUES (?, ?)",
            (f"bubbleId:{COMPOSER}:af10-cut", '{"_v":3,"type":2,"text":"cut sh'),
        )
        db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"composerData:{DRAFT}x", b"\xff{"))
    db.close()
    records = parse_all(cursor_ide.GLOBAL_DB, row_log(cursor_ide.GLOBAL_DB, path))
    assert [r.reason for r in records if isinstance(r, ParseProblem)] == ["invalid-json"] * 2
    assert len([e for e in events(records) if e.session == COMPOSER]) == len(BUBBLES)


def test_times_in_milliseconds_and_no_workspace(home: Path) -> None:
    evs = [e for e in events(global_records(home)) if e.session == UNNAMED]
    assert [(e.id.rsplit(":", 1)[1], e.time, e.cwd) for e in evs] == [
        ("c1-user", 1793005200000, None),
        ("c2-answer", 1793005206000, None),
    ]


# --- composers -----------------------------------------------------------------------------------

COMPOSERS = [
    # composer, title, prompt, cwd, time
    (COMPOSER, "Cache the tokenizer tables",
     "Tokenizing is slow on every search. Cache the tokenizer tables.", "/home/dev/tide", 1793001600000),
    (UNNAMED, None, "为什么 wiki 的搜索结果里日文标题排在最后？", None, 1793005200000),
    (DRAFT, None, None, None, 1793008800000),
    (INLINE, "Explain the ranking formula", "Explain how the ranking score is computed.", None, 1767312000000),
]  # fmt: skip


@pytest.mark.parametrize(("composer", "title", "prompt", "cwd", "time"), COMPOSERS)
def test_composer_facts(
    home: Path, composer: str, title: str | None, prompt: str | None, cwd: str | None, time: int
) -> None:
    facts = [
        r for r in global_records(home) if isinstance(r, SessionFact) and r.session == composer
    ]
    assert [(f.title, f.title_rank, f.prompt, f.cwd, f.time) for f in facts] == [
        (title, 20, prompt, cwd, time)
    ]


def test_the_prompt_is_the_first_user_bubble_in_conversation_order(home: Path) -> None:
    # Rows come in key order, where the second user bubble (a7c4) sorts before the first (f1c2).
    keys = [orjson.loads(line)["key"] for line in row_log(cursor_ide.GLOBAL_DB, home / GLOBAL)]
    assert keys.index(f"bubbleId:{COMPOSER}:a7c4-user") < keys.index(
        f"bubbleId:{COMPOSER}:f1c2-user"
    )
    fact = next(
        r for r in global_records(home) if isinstance(r, SessionFact) and r.session == COMPOSER
    )
    assert fact.prompt is not None and fact.prompt.startswith("Tokenizing is slow")


def test_an_inline_conversation_gives_its_bubbles(home: Path) -> None:
    evs = [e for e in events(global_records(home)) if e.session == INLINE]
    assert [(e.id, e.role, e.text, e.time) for e in evs] == [
        (f"cursor:{INLINE}:i1-user", "user", "Explain how the ranking score is computed.", 1767312000000),
        (f"cursor:{INLINE}:i2-answer", "assistant", "BM25 over title and body, title weighted 2x.", 1767312000000),
    ]  # fmt: skip


# --- rows rewritten in place -----------------------------------------------------------------------


def changed_lines(path: Path, before: dict[str, bytes]) -> dict[str, bytes]:
    """The row log lines an engine appends on a second read: rows new or changed since."""
    after = dict(read_database(path, cursor_ide.GLOBAL_DB.tables))
    return {identity: line for identity, line in after.items() if before.get(identity) != line}


def rewrite(path: Path, key: str, **fields: object) -> None:
    with sqlite3.connect(path) as db:
        (value,) = db.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)).fetchone()
        db.execute(
            "UPDATE cursorDiskKV SET value = ? WHERE key = ?",
            (orjson.dumps({**orjson.loads(value), **fields}).decode(), key),
        )
    db.close()


def test_a_bubble_rewritten_in_place_replaces_its_events_under_the_same_ids(tmp_path: Path) -> None:
    path = build_home(tmp_path / "home") / GLOBAL
    before = dict(read_database(path, cursor_ide.GLOBAL_DB.tables))
    answer, bench = f"bubbleId:{COMPOSER}:64b2-answer", f"bubbleId:{COMPOSER}:b8d6-bench"
    rewrite(
        path,
        answer,
        text="Memoised, with the cache cleared on reload.",
        tokenCount={"inputTokens": 1},
    )
    running = orjson.loads(orjson.loads(before[f"bubbles/{bench}"])["row"]["value"])[
        "toolFormerData"
    ]
    done = {
        **running,
        "status": "completed",
        "result": orjson.dumps({"output": "12 ms/op"}).decode(),
    }
    rewrite(path, bench, toolFormerData=done)
    changed = changed_lines(path, before)
    assert set(changed) == {f"bubbles/{answer}", f"bubbles/{bench}"}
    evs = by_id(parse_all(cursor_ide.GLOBAL_DB, list(changed.values())))
    assert (
        evs[f"cursor:{COMPOSER}:64b2-answer"].text == "Memoised, with the cache cleared on reload."
    )
    assert evs[f"cursor:{COMPOSER}:b8d6-bench:result"].text == "12 ms/op"  # the call is over
    assert f"cursor:{COMPOSER}:b8d6-bench:call" in evs


def test_a_composer_written_again_for_a_new_turn_is_not_read_again(tmp_path: Path) -> None:
    path = build_home(tmp_path / "home") / GLOBAL
    before = dict(read_database(path, cursor_ide.GLOBAL_DB.tables))
    rewrite(path, f"composerData:{COMPOSER}", lastUpdatedAt=1793009999999, contextTokensUsed=5)
    rewrite(path, f"bubbleId:{COMPOSER}:f1c2-user", richText="{}", tokenCount={"inputTokens": 7})
    assert changed_lines(path, before) == {}
    rewrite(path, f"composerData:{COMPOSER}", name="Memoise the tokenizer tables")
    [line] = changed_lines(path, before).values()
    [fact] = cursor_ide.parse(line, 1, {})
    assert isinstance(fact, SessionFact) and fact.title == "Memoise the tokenizer tables"


# --- rows written here -----------------------------------------------------------------------------


def bubble(value: object, key: str = "bubbleId:c:b") -> bytes:
    text = value if isinstance(value, str) else orjson.dumps(value).decode()
    return row_line(
        "bubbles", key, {"key": key, "value": text, "started": STARTED, "workspace": None}
    )


FILES = '{"files":[{"n":"a"},{"n":"b"}]}'
ROWS: list[tuple[str, bytes, list[tuple[str, str, str]] | str]] = [
    ("a key without a bubble id", bubble({"type": 1, "text": "x"}, "bubbleId:c"), "bad-field"),
    ("a value that is not an object", bubble("[1, 2]"), "not-an-object"),
    ("base64 that is not JSON", row_line("bubbles", "bubbleId:c:b", {"value": b"\xff\xfe"}), "invalid-json"),
    ("an unknown bubble type", bubble({"type": 3, "text": "x"}), []),
    ("a table of another kind", row_line("blobs", "bubbleId:c:b", {"value": "{}"}), []),
    ("a thinking string", bubble({"type": 2, "thinking": "plan"}), [("cursor:c:b:thinking", "meta", "plan")]),
    ("no time: the composer's", bubble({"type": 1, "text": "hi"}), [("cursor:c:b", "message", "hi")]),
    ("a cancelled call", bubble({"type": 2, "toolFormerData": {"name": "x", "status": "cancelled"}}),
     [("cursor:c:b:call", "tool_use", "x"), ("cursor:c:b:result", "tool_result", "[cancelled] ")]),
    ("a call without a name", bubble({"type": 2, "toolFormerData": {"tool": 7, "params": {"a": 1}}}),
     [("cursor:c:b:call", "tool_use", 'tool 7 {"a":1}')]),
    ("an output of strings", bubble({"type": 2, "toolFormerData": {"name": "ls", "result": FILES}}),
     [("cursor:c:b:call", "tool_use", "ls"), ("cursor:c:b:result", "tool_result", "a\nb")]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("line", "expected"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS]
)
def test_bubble_rows(line: bytes, expected: list[tuple[str, str, str]] | str) -> None:
    records = cursor_ide.parse(line, 1, {})
    if isinstance(expected, str):
        assert [r.reason for r in records if isinstance(r, ParseProblem)] == [expected]
    else:
        assert [(e.id, e.kind, e.rendered) for e in events(records)] == expected
        assert all(e.time == STARTED for e in events(records))


# --- workspaces ------------------------------------------------------------------------------------


def test_a_workspace_gives_its_folder_to_the_composers_it_lists(home: Path) -> None:
    tide = parse_all(
        cursor_workspace.WORKSPACE_DB, row_log(cursor_workspace.WORKSPACE_DB, home / TIDE_WS)
    )
    wiki = parse_all(
        cursor_workspace.WORKSPACE_DB, row_log(cursor_workspace.WORKSPACE_DB, home / WIKI_WS)
    )
    cwds = [
        (r.session, r.cwd) for r in tide + wiki if isinstance(r, SessionFact) and r.title is None
    ]
    assert cwds == [(COMPOSER, "/home/dev/tide"), (DRAFT, "/home/dev/tide"), (INLINE, "/home/dev/tide"),
                    (UNNAMED, "/home/dev/笔记/wiki")]  # fmt: skip


def test_a_legacy_chat_is_a_session_of_its_own(home: Path) -> None:
    records = parse_all(
        cursor_workspace.WORKSPACE_DB, row_log(cursor_workspace.WORKSPACE_DB, home / TIDE_WS)
    )
    [fact] = [r for r in records if isinstance(r, SessionFact) and r.title]
    assert (fact.session, fact.title, fact.prompt, fact.cwd, fact.time) == (
        "tab-6a1f", "Why is the index stale?", "Why does the index miss yesterday's notes?",
        "/home/dev/tide", 1767225600000,
    )  # fmt: skip
    assert [(e.id, e.role, e.text) for e in events(records)] == [
        ("cursor:tab-6a1f:lq-1", "user", "Why does the index miss yesterday's notes?"),
        ("cursor:tab-6a1f:lq-2", "assistant", "The watcher ignores files renamed while it sleeps."),
    ]


def workspace_lines(text: str, composers: list[str]) -> list[bytes]:
    """workspace.json, then the composer index, as a workspace database's row log has them."""
    index = {"key": "composer.composerData", "valid": 1, "composers": orjson.dumps(composers)}
    return [
        file_line("/ws/1/workspace.json", text.encode(), 5),
        row_line("composer_index", "composer.composerData", index),
    ]


WORKSPACE_ROWS: list[tuple[str, str, list[tuple[str, str]] | str]] = [
    ("a multi-root workspace file", '{"workspace": "file:///srv/mono/all.code-workspace"}', [("a", "/srv/mono")]),
    ("a remote folder", '{"folder": "vscode-remote://ssh-remote%2Bbox/srv/app"}', [("a", "/srv/app")]),
    ("a Windows folder", '{"folder": "file:///c%3A/Users/dev/app"}', [("a", "c:/Users/dev/app")]),
    ("no folder", "{}", []),
    ("a damaged workspace.json", "{", "invalid-json"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"),
    [row[1:] for row in WORKSPACE_ROWS],
    ids=[row[0] for row in WORKSPACE_ROWS],
)
def test_workspace_rows(text: str, expected: list[tuple[str, str]] | str) -> None:
    records = parse_all(cursor_workspace.WORKSPACE_DB, workspace_lines(text, ["a", "a"]))
    if isinstance(expected, str):
        assert [r.reason for r in records if isinstance(r, ParseProblem)] == [expected]
    else:
        assert [(r.session, r.cwd) for r in records if isinstance(r, SessionFact)] == expected


def test_an_index_before_its_folder_or_damaged_gives_no_cwd() -> None:
    late = workspace_lines('{"folder": "file:///x"}', ["a"])[::-1]
    assert parse_all(cursor_workspace.WORKSPACE_DB, late) == []
    damaged = row_line("composer_index", "composer.composerData", {"valid": 0})
    [problem] = cursor_workspace.parse(damaged, 1, {})
    assert isinstance(problem, ParseProblem) and problem.reason == "invalid-json"
