"""The zcode parser over the project's sample database (built from tests/data/zcode/make_db.py
into a temporary folder), and cross-checked against the shared fixtures' database (skipped where
../shared/fixtures is absent). Each part type on its own is in test_parsers_zcode_parts.py; rows
that change between reads in test_parsers_zcode_rows.py."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path
from types import ModuleType

import orjson
import pytest
from helpers import DATA
from parse_support import events, merged, shared_root

from origin_store.ingest.rowlog import read_database
from origin_store.model import EventRecord, ParseProblem, Record
from origin_store.parsers.zcode import source as zcode
from origin_store.system.globwalk import match_many


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
    assert zcode.roots({"ZCODE_SESSION_DB_PATH": "db.sqlite"}, home) == [home / ".zcode"]


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
