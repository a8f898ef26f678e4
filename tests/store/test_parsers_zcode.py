"""The zcode parser over the project's sample database (built from tests/data/zcode/make_db.py
into a temporary folder), part by part on rows written here, and cross-checked against the
shared fixtures' database (skipped where ../shared/fixtures is absent). How rows that change
between reads are handled is in test_parsers_zcode_rows.py."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest
from helpers import DATA
from parse_support import events, merged, shared_root

from origin_store.globwalk import match_many
from origin_store.ingest.rowlog import read_database
from origin_store.model import EventRecord, ParseProblem, Record, SessionFact
from origin_store.parsers import zcode
from origin_store.parsers.base import row_line


def load_builder() -> ModuleType:
    """tests/data/zcode/make_db.py, which lives beside the samples rather than in a package."""
    spec = importlib.util.spec_from_file_location("zcode_make_db", DATA / "zcode" / "make_db.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_db = load_builder()


def parse_lines(lines: list[bytes]) -> list[Record]:
    """Row log lines through one state, as the engine feeds them."""
    state = zcode.DATABASE.start("cli/db/db.sqlite")
    records: list[Record] = []
    for number, line in enumerate(lines, start=1):
        records.extend(zcode.DATABASE.parse(line, number, state))
    assert state == {}
    return records


def read(path: Path) -> list[bytes]:
    return [line for _, line in read_database(path, zcode.TABLES)]


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample database, built once for this module's tests (which only read it)."""
    return Path(make_db.build(tmp_path_factory.mktemp("zcode")))


@pytest.fixture(scope="module")
def records(sample: Path) -> list[Record]:
    return parse_lines(read(sample))


def text_of(found: list[Record], prefix: str) -> EventRecord:
    """The one event whose rendered text starts with `prefix`."""
    matching = [e for e in events(found) if e.rendered.startswith(prefix)]
    assert len(matching) == 1, (prefix, [e.rendered for e in matching])
    return matching[0]


# --- where the database is ----------------------------------------------------------------------


def test_roots_follow_the_storage_dir_and_a_moved_database() -> None:
    home = Path("/home/someone")
    assert zcode.roots({}, home) == [home / ".zcode"]
    assert zcode.roots({"ZCODE_STORAGE_DIR": "/srv/zc"}, home) == [Path("/srv/zc")]
    moved = {"ZCODE_SESSION_DB_PATH": "/data/zcode/db.sqlite"}
    assert zcode.roots(moved, home) == [home / ".zcode", Path("/data/zcode")]
    assert zcode.roots({"ZCODE_SESSION_DB": "~/dbs/db.sqlite"}, home) == [
        home / ".zcode",
        home / "dbs",
    ]
    inside = {"ZCODE_STORAGE_DIR": "/srv/zc", "ZCODE_SESSION_DB_PATH": "/srv/zc/db.sqlite"}
    assert zcode.roots(inside, home) == [Path("/srv/zc")]


def test_patterns_find_the_database_and_nothing_beside_it(tmp_path: Path) -> None:
    storage = tmp_path / ".zcode"
    database = Path(make_db.build(storage))
    for rel in ("cli/rollout/model-io-sess_x.jsonl", "cli/log/zcode-2026-11-07.jsonl"):
        (storage / rel).parent.mkdir(parents=True, exist_ok=True)
        (storage / rel).write_text('{"type":"model_io"}\n')
    moved = tmp_path / "elsewhere" / "db.sqlite"
    moved.parent.mkdir()
    shutil.copy(database, moved)
    environ = {"ZCODE_STORAGE_DIR": str(storage), "ZCODE_SESSION_DB_PATH": str(moved)}

    found = {
        path
        for root in zcode.SOURCE.roots(environ, tmp_path)
        for kind in zcode.SOURCE.files
        for paths in match_many(str(root), list(kind.patterns))
        for path in paths
    }
    assert found == {str(database), str(moved)}
    assert zcode.SOURCE.files == (zcode.DATABASE,)
    assert zcode.DATABASE.snapshots


def test_only_the_chat_tables_are_read(sample: Path) -> None:
    lines = read(sample)
    assert {orjson.loads(line)["table"] for line in lines} == {"session", "message", "part"}
    assert not any(b"FAKE-zcode-key" in line for line in lines)
    sql = " ".join(table.sql for table in zcode.TABLES)
    assert "local_setting" not in sql and "SELECT *" not in sql.upper()


# --- sessions -----------------------------------------------------------------------------------

A, B, C, D, E = (
    make_db.SESSION_A,
    make_db.SESSION_B,
    make_db.SESSION_C,
    make_db.SESSION_D,
    make_db.SESSION_E,
)
SESSIONS = [
    # session, title, prompt, cwd, parent
    (
        A,
        "Retry failed webhook deliveries",
        "Retry failed webhook deliveries with exponential backoff.",
        make_db.CWD_A,
        None,
    ),
    (B, "同步冲突的合并策略", "同步冲突时按字段合并，不要整条覆盖。", make_db.CWD_B, None),
    (
        C,
        "Explore: existing retry helpers",
        "List any retry or backoff helpers under src/.",
        make_db.CWD_A,
        A,
    ),
    (
        D,
        "Fork of Retry failed webhook deliveries",
        "Use a jittered backoff instead.",
        make_db.CWD_A,
        A,
    ),
    (E, None, "Why is the inventory count negative?", make_db.CWD_A, None),
]


@pytest.mark.parametrize(("session", "title", "prompt", "cwd", "parent"), SESSIONS)
def test_session_facts(
    records: list[Record],
    session: str,
    title: str | None,
    prompt: str,
    cwd: str,
    parent: str | None,
) -> None:
    facts = merged(records)[session]
    assert (facts["title"], facts["prompt"], facts["cwd"], facts["parent"]) == (
        title,
        prompt,
        cwd,
        parent,
    )
    mine = [e for e in events(records) if e.session == session]
    assert mine and {e.agent_version for e in mine} == {"0.16.7"}
    assert {e.cwd for e in mine} == {cwd}


def test_a_session_marker_holds_its_title_and_parent(records: list[Record]) -> None:
    markers = {e.session: e for e in events(records) if e.id == f"zcode:{e.session}"}
    assert markers[A].rendered == (
        "session start: interactive, version 0.16.7, cwd /home/dev/inventory-api, "
        "title Retry failed webhook deliveries"
    )
    assert (
        markers[A].text
        == "interactive, 0.16.7, /home/dev/inventory-api, Retry failed webhook deliveries"
    )
    assert markers[C].rendered.startswith(
        f"session start: subagent_child, version 0.16.7, subagent of {A}"
    )
    assert "title" not in markers[E].rendered  # a placeholder is no title
    assert {(m.role, m.kind, m.time) for m in markers.values()} == {
        ("system", "meta", make_db.T0),
        ("system", "meta", make_db.T0 + 4000),
        ("system", "meta", make_db.T0 + 45000),
        ("system", "meta", make_db.T1),
        ("system", "meta", make_db.T2),
    }


# --- events of the sample -----------------------------------------------------------------------

KINDS = [
    # rendered prefix, role, kind, suffix of the id
    ("Retry failed webhook deliveries with exponential backoff.\n@src", "user", "message", ""),
    ("Called the Read tool with the following input", "system", "system", ""),
    ("file: deliver.ts (text/plain)", "user", "message", ""),
    ("Deliveries are sent once in deliver.ts", "assistant", "meta", ""),
    ("Reading the delivery code first.", "assistant", "message", ""),
    ('read {"filePath":"/home/dev/inventory-api/src/webhooks/deliver.ts"}', "assistant", "tool_use", ":call"),
    ("1\texport async function deliver(hook)", "system", "tool_result", ":result"),
    ('edit {"filePath"', "assistant", "tool_use", ":call"),
    ("[error] oldString appears 3 times; add surrounding lines", "system", "tool_result", ":result"),
    ("[error: exit code 1] FAIL test/webhooks.test.ts", "system", "tool_result", ":result"),
    ("Failed deliveries now retry up to 3 times", "assistant", "message", ""),
    ("<system-reminder>Todo:", "system", "system", ""),
    ('bash {"command":"grep -rn retry src/webhooks"', "assistant", "tool_use", ":call"),
    ("先比较两边的 updated_at", "assistant", "meta", ""),
    ("timeline: context_compaction", "system", "meta", ""),
    ("context compacted (manual, tokens 150000 → 7200)", "system", "system", ""),
    ("[摘要] 同步冲突已改为逐字段合并", "system", "system", ""),
    ("競合の通知を画面に出して。", "user", "message", ""),
    ("[error] MessageAbortedError: The operation was aborted.", "system", "system", ":error"),
    ("通知バナーを追加しています", "assistant", "message", ""),
    ("List any retry or backoff helpers under src/.", "user", "message", ""),
    ("Backoff now adds up to 20 % random jitter.", "assistant", "message", ""),
]  # fmt: skip


@pytest.mark.parametrize(("prefix", "role", "kind", "suffix"), KINDS)
def test_role_and_kind(
    records: list[Record], prefix: str, role: str, kind: str, suffix: str
) -> None:
    event = text_of(records, prefix)
    assert (event.role, event.kind) == (role, kind)
    assert re.fullmatch(rf"zcode:(part|msg)_[0-9a-z]+_[0-9a-f-]{{36}}{suffix}", event.id)


def test_what_is_not_yet_final_or_not_new_gives_no_events(records: list[Record]) -> None:
    found = {e.id for e in events(records)}
    running = f"zcode:{make_db.RUNNING_TOOL}"
    assert f"{running}:call" in found and f"{running}:result" not in found
    assert not any(make_db.PENDING_TOOL in i for i in found)
    assert f"zcode:{make_db.RUNNING_REASONING}" not in found
    assert f"zcode:{make_db.RUNNING_TEXT}" not in found
    texts = [e.text for e in events(records)]
    # The fork's copies of its parent's messages are the parent's, stored once.
    assert (
        texts.count(
            "Retry failed webhook deliveries with exponential backoff.\n@src/webhooks/deliver.ts"
        )
        == 1
    )
    assert not [e for e in events(records) if e.session == D and "exponential" in e.text]
    assert not any("lastSummarizedMessageId" in t or "step" in t for t in texts)


def test_ids_are_the_rows_own_and_stable(sample: Path, records: list[Record]) -> None:
    ids = [e.id for e in events(records)]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"zcode:(sess|part|msg)_[\w-]+(:call|:result|:error)?", i) for i in ids)
    assert parse_lines(read(sample)) == records
    assert not [r for r in records if isinstance(r, ParseProblem)]


# --- one part at a time -------------------------------------------------------------------------

BASE_ROW: dict[str, Any] = {
    "id": "part_x",
    "session": "sess_x",
    "message": "msg_x",
    "created": 1794000000000,
    "updated": 1794000000500,
    "role": "assistant",
    "semantics": None,
    "summary": 0,
    "done": 1,
    "intent": None,
    "cwd": "/w",
    "message_created": 1794000000000,
    "directory": "/d",
    "version": "0.16.7",
    "task_type": "interactive",
    "session_created": 1793999990000,
}
TOOL_TIME = {"start": 1794000000100, "end": 1794000000200}
PARTS: list[tuple[str, dict[str, Any], dict[str, Any], list[tuple[str, str, str, str]]]] = [
    # case, row fields, part data, events as (id suffix, role, kind, rendered)
    ("answer", {}, {"type": "text", "text": "hi"}, [("", "assistant", "message", "hi")]),
    ("answer streaming", {"done": 0}, {"type": "text", "text": "h"}, []),
    ("answer part ended", {"done": 0}, {"type": "text", "text": "hi", "time": {"start": 1, "end": 1794000000001}},
     [("", "assistant", "message", "hi")]),
    ("blank answer", {}, {"type": "text", "text": "  "}, []),
    ("typed", {"role": "user", "semantics": "real_user"}, {"type": "text", "text": "do it"},
     [("", "user", "message", "do it")]),
    ("typed, older rows", {"role": "user", "done": 0}, {"type": "text", "text": "do it"},
     [("", "user", "message", "do it")]),
    ("synthetic", {"role": "user"}, {"type": "text", "text": "ctx", "synthetic": True},
     [("", "system", "system", "ctx")]),
    ("compact summary", {"role": "user", "semantics": "compact_summary", "summary": 1},
     {"type": "text", "text": "sum"}, [("", "system", "system", "sum")]),
    ("reminder", {"role": "user", "semantics": "todo_reminder"}, {"type": "text", "text": "todo"},
     [("", "system", "system", "todo")]),
    ("summary answer", {"summary": 1}, {"type": "text", "text": "sum"}, [("", "system", "system", "sum")]),
    ("timeline text", {"semantics": "timeline_event"}, {"type": "text", "text": "t"}, [("", "system", "system", "t")]),
    ("reasoning", {}, {"type": "reasoning", "text": "think"}, [("", "assistant", "meta", "think")]),
    ("reasoning streaming", {"done": 0}, {"type": "reasoning", "text": "thi"}, []),
    ("tool pending", {"done": 0}, {"type": "tool", "tool": "read", "state": {"status": "pending", "input": {}}}, []),
    ("tool running", {"done": 0}, {"type": "tool", "tool": "read", "state": {"status": "running", "input": {"p": 1}}},
     [(":call", "assistant", "tool_use", 'read {"p":1}')]),
    ("tool completed", {}, {"type": "tool", "tool": "read",
     "state": {"status": "completed", "input": {"p": 1}, "output": "ok", "time": TOOL_TIME}},
     [(":call", "assistant", "tool_use", 'read {"p":1}'), (":result", "system", "tool_result", "ok")]),
    ("tool exit code", {}, {"type": "tool", "tool": "bash",
     "state": {"status": "completed", "input": {}, "output": "no", "metadata": {"exit": 2}}},
     [(":call", "assistant", "tool_use", "bash {}"), (":result", "system", "tool_result", "[error: exit code 2] no")]),
    ("tool no output", {},
     {"type": "tool", "tool": "bash", "state": {"status": "completed", "input": {}, "output": ""}},
     [(":call", "assistant", "tool_use", "bash {}")]),
    ("tool structured output", {},
     {"type": "tool", "tool": "x", "state": {"status": "completed", "output": {"a": [1]}}},
     [(":call", "assistant", "tool_use", "x"), (":result", "system", "tool_result", '{"a":[1]}')]),
    ("tool error", {}, {"type": "tool", "tool": "edit", "state": {"status": "error", "input": {}, "error": "nope"}},
     [(":call", "assistant", "tool_use", "edit {}"), (":result", "system", "tool_result", "[error] nope")]),
    ("tool without state", {}, {"type": "tool", "tool": "edit"}, []),
    ("compaction", {}, {"type": "compaction", "auto": True, "preCompactTokenCount": 10, "truePostCompactTokenCount": 2},
     [("", "system", "system", "context compacted (auto, tokens 10 → 2)")]),
    ("compaction running", {}, {"type": "compaction", "timelineStatus": "running"},
     [("", "system", "system", "context compacted (running)")]),
    ("compaction boundary", {"role": "user"}, {"type": "compaction", "compactBoundary": True}, []),
    ("timeline", {}, {"type": "timeline", "kind": "model_change"}, [("", "system", "meta", "timeline: model_change")]),
    ("file", {"role": "user"}, {"type": "file", "mime": "image/png", "url": "data:image/png;base64," + "A" * 64},
     [("", "user", "message", "file (image/png)")]),
    ("subtask", {"role": "user"}, {"type": "subtask", "agent": "explore", "description": "find", "prompt": "Look."},
     [("", "system", "meta", "subtask: explore: find\nLook.")]),
    ("model change", {}, {"type": "model_change", "modelId": "GLM-5.2"},
     [("", "system", "meta", 'model change: {"modelId":"GLM-5.2"}')]),
    ("step", {}, {"type": "step-finish", "tokens": {"input": 1}}, []),
    ("unknown", {}, {"type": "hologram", "text": "x"}, []),
    ("copied by a fork", {"task_type": "fork", "message_created": 1793999980000}, {"type": "text", "text": "old"}, []),
]  # fmt: skip


@pytest.mark.parametrize(
    ("row", "data", "expected"), [case[1:] for case in PARTS], ids=[case[0] for case in PARTS]
)
def test_part_types(
    row: dict[str, Any], data: dict[str, Any], expected: list[tuple[str, str, str, str]]
) -> None:
    line = row_line("part", "part_x", {**BASE_ROW, **row, "data": orjson.dumps(data).decode()})
    out = parse_lines([line])
    found = [(e.id.removeprefix("zcode:part_x"), e.role, e.kind, e.rendered) for e in events(out)]
    assert found == expected
    assert all(
        (e.session, e.cwd, e.agent_version) == ("sess_x", "/w", "0.16.7") for e in events(out)
    )
    assert not [r for r in out if isinstance(r, ParseProblem)]


def test_a_typed_part_gives_the_prompt_the_user_typed() -> None:
    row = {**BASE_ROW, "role": "user", "semantics": "real_user", "intent": "fix it"}
    line = row_line(
        "part", "part_x", {**row, "data": '{"type":"text","text":"fix it\\n<file>…</file>"}'}
    )
    facts = [r for r in parse_lines([line]) if isinstance(r, SessionFact)]
    assert [(f.session, f.prompt, f.time) for f in facts] == [("sess_x", "fix it", 1794000000000)]


def test_tool_times_are_its_own() -> None:
    data = {
        "type": "tool",
        "tool": "read",
        "state": {"status": "completed", "output": "ok", "time": TOOL_TIME},
    }
    line = row_line("part", "part_x", {**BASE_ROW, "data": orjson.dumps(data).decode()})
    assert [e.time for e in events(parse_lines([line]))] == [TOOL_TIME["start"], TOOL_TIME["end"]]


def reasons(found: list[Record]) -> list[str]:
    return [r.reason for r in found if isinstance(r, ParseProblem)]


def test_bad_rows_are_problems_not_exceptions() -> None:
    def part(data: object) -> list[Record]:
        return parse_lines([row_line("part", "part_x", {**BASE_ROW, "data": data})])

    assert reasons(part("{not json")) == ["invalid-json"]
    assert reasons(part("[1]")) == ["not-an-object"]
    assert reasons(part(None)) == ["bad-field"]
    assert reasons(part({"base64": "/w=="})) == ["bad-field"]
    assert reasons(parse_lines([b"{oops"])) == ["invalid-json"]
    assert reasons(parse_lines([b'{"table":"part"}'])) == ["bad-field"]
    assert parse_lines([row_line("todo", "t", {"content": "x"}), b""]) == []
    odd = parse_lines([row_line("session", "s", {"id": 5, "title": ["x"], "created": "?"})])
    assert [(e.id, e.time) for e in events(odd)] == [("zcode:s", 0)]


# --- the shared fixtures ------------------------------------------------------------------------

FIXTURE_SESSIONS = [
    # session, title, prompt, parent
    (
        "sess_68f56030-f068-5332-96ec-4d04f1845ce9",
        "Add pagination to GET /notes",
        "Add cursor-based pagination to GET /notes (limit, cursor).",
        None,
    ),
    (
        "sess_56cddbe6-7d81-5b60-aeee-8227902221b5",
        "为笔记加标签功能",
        "给笔记加标签功能：数据表、接口和前端筛选。",
        None,
    ),
    (
        "sess_subagent_agent_51c91c87-ebdf-5d56-a653-4c81f6e3a8c5",
        "Explore: existing pagination helpers",
        "Find any existing pagination or cursor helpers under src/.",
        "sess_68f56030-f068-5332-96ec-4d04f1845ce9",
    ),
]


def test_shared_fixture_sessions_and_titles() -> None:
    database = shared_root("zcode") / "cli" / "db" / "db.sqlite"
    found = parse_lines(read(database))
    facts = merged(found)
    assert {
        session: (facts[session]["title"], facts[session]["prompt"], facts[session]["parent"])
        for session in facts
    } == {session: (title, prompt, parent) for session, title, prompt, parent in FIXTURE_SESSIONS}
    assert not [r for r in found if isinstance(r, ParseProblem)]
    # The turn still running: its tool's call, not its result; no answer yet.
    running = [
        e for e in events(found) if e.session == FIXTURE_SESSIONS[0][0] and e.time >= 1793000091000
    ]
    assert [(e.kind, e.rendered) for e in running] == [
        ("tool_use", 'read {"filePath":"/home/dev/demo-app/README.md"}')
    ]
    assert len([e for e in events(found) if e.kind == "tool_result"]) == 6
    compaction = text_of(found, "context compacted")
    assert compaction.rendered == "context compacted (auto, tokens 182000 → 9100)"
