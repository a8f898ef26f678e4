"""The OpenCode parser over the project's sample database (built from tests/data/opencode/make_db.py
into a temporary folder): where it is found, what is read of it, its sessions, and each kind of
part as an event. What its part readers share with ZCode's is in test_parsers_zcode_parts.py;
the shared fixtures' database in test_parsers_opencode_fixtures.py; the store's view of rows
that change in test_opencode_ingest.py."""

from __future__ import annotations

import importlib.util
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

import orjson
import pytest
from helpers import DATA
from parse_support import events, kind_lines, merged

from origin_store.model import EventRecord, ParseProblem, Record, Usage
from origin_store.parsers.base import FILE_TABLE, file_line, row_line
from origin_store.parsers.memory import USER_FILES
from origin_store.parsers.opencode import source as opencode
from origin_store.system.globwalk import match_many


def load_builder() -> ModuleType:
    """tests/data/opencode/make_db.py, which lives beside the samples rather than in a package."""
    spec = importlib.util.spec_from_file_location(
        "opencode_make_db", DATA / "opencode" / "make_db.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_db = load_builder()


def parse_lines(lines: list[bytes]) -> list[Record]:
    """Row log lines through one state, as the engine feeds them."""
    state = opencode.DATABASE.start("opencode.db")
    records: list[Record] = []
    for number, line in enumerate(lines, start=1):
        records.extend(opencode.DATABASE.parse(line, number, state))
    return records


def read(path: Path) -> list[bytes]:
    """What a first read of the database writes to its row log (files named by rows included)."""
    return kind_lines(opencode.DATABASE, path)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(make_db.build(tmp_path_factory.mktemp("opencode")))


@pytest.fixture(scope="module")
def records(sample: Path) -> list[Record]:
    return parse_lines(read(sample))


def text_of(found: list[Record], prefix: str) -> EventRecord:
    matching = [e for e in events(found) if e.rendered.startswith(prefix)]
    assert len(matching) == 1, (prefix, [e.rendered for e in matching])
    return matching[0]


# --- where the database is ----------------------------------------------------------------------

HOME = Path("/home/someone")
ROOTS = [
    ({}, [".local/share/opencode", ".config/opencode"]),
    ({"XDG_DATA_HOME": "/srv/data"}, ["/srv/data/opencode", ".config/opencode"]),
    (
        {"OPENCODE_DB": "/data/oc/opencode.db"},
        [".local/share/opencode", "/data/oc", ".config/opencode"],
    ),
    ({"OPENCODE_DB": "~/dbs/opencode.db"}, [".local/share/opencode", "dbs", ".config/opencode"]),
    ({"OPENCODE_DB": "opencode.db"}, [".local/share/opencode", ".config/opencode"]),
    ({"XDG_DATA_HOME": "data"}, [".local/share/opencode", ".config/opencode"]),
    ({"XDG_DATA_HOME": "~/d"}, ["d/opencode", ".config/opencode"]),
    (
        {"XDG_DATA_HOME": "/srv", "OPENCODE_DB": "/srv/opencode/opencode.db"},
        ["/srv/opencode", ".config/opencode"],
    ),
    ({"XDG_CONFIG_HOME": "/etc/xdg"}, [".local/share/opencode", "/etc/xdg/opencode"]),
    (
        {"OPENCODE_CONFIG_DIR": "/cfg/oc", "XDG_CONFIG_HOME": "/etc/xdg"},
        [".local/share/opencode", "/cfg/oc"],
    ),
]


@pytest.mark.parametrize(("environ", "expected"), ROOTS)
def test_roots(environ: dict[str, str], expected: list[str]) -> None:
    assert opencode.roots(environ, HOME) == [HOME / p for p in expected]


def test_patterns_find_the_databases_and_nothing_beside_them(tmp_path: Path) -> None:
    database = Path(make_db.build(tmp_path))
    data = database.parent
    shutil.copy(database, data / "opencode-beta.db")
    (data / "storage" / "session").mkdir(parents=True)
    (data / "log").mkdir()
    (data / "log" / "opencode.log").write_text("INFO started\n")
    config = tmp_path / ".config" / "opencode"
    config.mkdir(parents=True)
    (config / "opencode.json").write_text('{"provider": {"x": {"options": {"apiKey": "k"}}}}')
    environ = {"XDG_DATA_HOME": str(tmp_path / ".local/share")}
    found = {
        path
        for root in opencode.SOURCE.roots(environ, tmp_path)
        for kind in opencode.SOURCE.files
        for paths in match_many(str(root), list(kind.patterns))
        for path in paths
    }
    assert found == {str(database), str(data / "opencode-beta.db")}
    assert opencode.SOURCE.files == (opencode.DATABASE,) and opencode.DATABASE.snapshots
    # Its global instructions are looked for under its roots, the config directory among them.
    assert set(USER_FILES["opencode"]) == {"AGENTS.md", "AGENTS.local.md"}
    assert config in opencode.SOURCE.roots(environ, tmp_path)


def test_only_the_chat_tables_and_the_named_outputs_are_read(sample: Path) -> None:
    lines = read(sample)
    tables = [orjson.loads(line)["table"] for line in lines]
    assert set(tables) == {"session", "message", "part", FILE_TABLE}
    [output] = [orjson.loads(line) for line in lines if orjson.loads(line)["table"] == FILE_TABLE]
    assert output["key"] == str(sample.parent / "tool-output" / make_db.OUTPUT_NAME)
    # The output's line follows the row that names it.
    named = tables.index(FILE_TABLE) - 1
    assert orjson.loads(lines[named])["key"] == make_db.LARGE_TOOL
    joined = b"\n".join(lines)
    assert b"FAKE-opencode" not in joined
    assert b"evt_" not in joined  # the event log repeats the rows: not read
    sql = " ".join(table.sql for table in opencode.TABLES).lower()
    for never in ("account", "credential", "session_share", " event", "select *"):
        assert never not in sql


def test_a_row_naming_a_file_elsewhere_reads_only_its_name_beside_the_database(
    sample: Path, tmp_path: Path
) -> None:
    """Only the file's name is taken from the row: a path outside tool-output/ is not read."""
    secret = tmp_path / "opencode.json"
    secret.write_text("FAKE-opencode-config-DO-NOT-INGEST")
    import sqlite3

    copy = tmp_path / "db" / "opencode.db"
    copy.parent.mkdir()
    shutil.copy(sample, copy)
    connection = sqlite3.connect(copy)
    connection.execute(
        "UPDATE part SET data = json_set(data, '$.state.metadata.outputPath', ?) WHERE id = ?",
        (str(secret), make_db.LARGE_TOOL),
    )
    connection.commit()
    connection.close()
    lines = read(copy)
    assert not any(b"FAKE-opencode-config" in line for line in lines)
    assert FILE_TABLE not in {orjson.loads(line)["table"] for line in lines}


# --- sessions -----------------------------------------------------------------------------------

A, B, C, D = make_db.SESSION_A, make_db.SESSION_B, make_db.SESSION_C, make_db.SESSION_D
E = make_db.SESSION_E
SESSIONS = [
    # session, title, prompt, cwd, parent
    (
        A,
        "Throttle the beacon endpoint",
        'Throttle POST /beacon to 5 per second per "device" (glimmerword).',
        make_db.CWD_A,
        None,
    ),
    (B, "灯台のアニメーション", "灯台的光束动画太快了，请放慢到四秒一圈。", make_db.CWD_B, None),
    (
        C,
        "Find throttle helpers (@general subagent)",
        "Look for throttles in src/.",
        make_db.CWD_A,
        A,
    ),
    (D, None, "Why does the beacon queue grow?", make_db.CWD_A, None),
    (
        E,
        "Throttle the beacon endpoint (fork #1)",
        "Throttle per IP instead.",
        make_db.CWD_A,
        None,
    ),
]


@pytest.mark.parametrize(("session", "title", "prompt", "cwd", "parent"), SESSIONS)
def test_session_facts(
    records: list[Record], session: str, title: str | None, prompt: str, cwd: str, parent: str
) -> None:
    facts = merged(records)[session]
    assert (facts["title"], facts["prompt"], facts["cwd"], facts["parent"]) == (
        title,
        prompt,
        cwd,
        parent,
    )
    mine = [e for e in events(records) if e.session == session]
    assert mine and {e.agent_version for e in mine} == {make_db.VERSION}
    assert {e.cwd for e in mine} == {cwd}
    assert all(e.source == "opencode" for e in mine)


def test_a_session_marker_holds_its_title_parent_and_model(records: list[Record]) -> None:
    markers = {e.session: e for e in events(records) if e.id == f"opencode:{e.session}"}
    assert markers[A].rendered == (
        "session start: version 1.18.40, model lumen/lumen-coder-2, "
        "cwd /home/dev/lighthouse-api, title Throttle the beacon endpoint"
    )
    assert markers[C].rendered.startswith(f"session start: version 1.18.40, subagent of {A}")
    assert "title" not in markers[D].rendered  # a placeholder is no title
    assert markers[A].time == make_db.T0 and markers[A].kind == "meta"


# --- events of the sample -----------------------------------------------------------------------

KINDS = [
    # rendered prefix, role, kind, suffix of the id
    ('Throttle POST /beacon to 5 per second per "device"', "user", "message", ""),
    ("A leaky counter per device id fits", "assistant", "meta", ""),
    ('read {"filePath":"/home/dev/lighthouse-api/src/beacon.ts"}', "assistant", "tool_use", ":call"),
    ("<file>\n00001| export function beacon", "system", "tool_result", ":result"),
    ("[error: exit code 2] FAIL test/beacon.test.ts", "system", "tool_result", ":result"),
    ("[error] Error: oldString found multiple times (mossmatch)", "system", "tool_result", ":result"),
    ('bash {"command":"ls -l assets/ | cat"', "assistant", "tool_use", ":call"),
    ("...output truncated...", "system", "tool_result", ":result"),
    ('task {"description":"Find throttle helpers"', "assistant", "tool_use", ":call"),
    ("Added a per-device throttle (5/s)", "assistant", "message", ""),
    ("Also log every rejected beacon.", "user", "message", ""),
    ('bash {"command":"grep -rn reject src"', "assistant", "tool_use", ":call"),
    ("灯台的光束动画太快了", "user", "message", ""),
    ("先找到 keyframes", "assistant", "meta", ""),
    ('write {"filePath":"/home/dev/灯台/harbor-ui/src/beam.css"', "assistant", "tool_use", ":call"),
    ("光束现在四秒转一圈。アニメーション", "assistant", "message", ""),
    ("context compacted (auto)", "system", "system", ""),
    ("[要約] 光束は四秒で一周。", "system", "system", ""),
    ("[error] APIError: Quota exceeded (kelpstall)", "system", "system", ":error"),
    ("夜間モードの配色を", "assistant", "message", ""),
    ("Look for throttles in src/.", "user", "message", ""),
    ("No throttle helper exists; beacon.ts stores directly. (sprucefind)", "assistant", "message", ""),
]  # fmt: skip


@pytest.mark.parametrize(("prefix", "role", "kind", "suffix"), KINDS)
def test_role_and_kind(
    records: list[Record], prefix: str, role: str, kind: str, suffix: str
) -> None:
    event = text_of(records, prefix)
    assert (event.role, event.kind) == (role, kind)
    assert re.fullmatch(rf"opencode:(prt|msg)_[0-9a-f]{{12}}[0-9A-Za-z]{{14}}{suffix}", event.id)


def test_a_failed_command_is_marked_in_the_label_only(records: list[Record]) -> None:
    failed = text_of(records, "[error: exit code 2]")
    assert failed.text.startswith("FAIL test/beacon.test.ts")
    assert failed.label == ((0, "[error: exit code 2] "),)


def test_a_large_output_is_found_whole_once(records: list[Record]) -> None:
    """The head exists only in tool-output/; its parts are the result's, in its session."""
    base = f"opencode:{make_db.LARGE_TOOL}"
    parts = sorted(
        (e for e in events(records) if e.id.startswith(f"{base}:output#")),
        key=lambda e: int(e.id.rsplit("#", 1)[1]),
    )
    assert len(parts) > 1
    assert "".join(e.text for e in parts) == make_db.large_output()
    assert parts[0].text.startswith("lanternhead77\n")
    assert parts[0].rendered.startswith(f"[part 1 of {len(parts)}, tool-output/tool_")
    assert {(e.session, e.role, e.kind, e.cwd) for e in parts} == {
        (A, "system", "tool_result", make_db.CWD_A)
    }
    everything = [e.text for e in events(records)]
    assert sum("lanternhead77" in t for t in everything) == 1
    result = text_of(records, "...output truncated...")
    assert result.id == f"{base}:result" and "lanterntail77" in result.text


USAGE = [
    # the first event of an assistant message carries its tokens (input + cache read + write,
    # cache read, output + reasoning); its other events none
    ("A leaky counter per device id fits", Usage(9500, 8000, 130)),
    ('read {"filePath"', None),
    ('bash {"command":"ls -l assets/ | cat"', Usage(11100, 9000, 60)),
    ("Added a per-device throttle", None),
    ("先找到 keyframes", Usage(800, 0, 70)),
    ("[要約] 光束は四秒で一周。", Usage(5000, 0, 400)),
    ('grep {"pattern":"throttle"', Usage(400, 0, 30)),
    ("Look for throttles in src/.", None),
    ('bash {"command":"grep -rn reject src"', None),  # a message still running: no tokens yet
]


@pytest.mark.parametrize(("prefix", "usage"), USAGE)
def test_usage(records: list[Record], prefix: str, usage: Usage | None) -> None:
    assert text_of(records, prefix).usage == usage


def test_what_is_not_yet_final_gives_no_events(records: list[Record]) -> None:
    found = {e.id for e in events(records)}
    running = f"opencode:{make_db.RUNNING_TOOL}"
    assert f"{running}:call" in found and f"{running}:result" not in found
    assert not any(make_db.PENDING_TOOL in i for i in found)
    assert f"opencode:{make_db.RUNNING_TEXT}" not in found
    assert not any(t in e.text for e in events(records) for t in ("snapshot", "step-"))


def test_ids_are_the_rows_own_and_stable(sample: Path, records: list[Record]) -> None:
    ids = [e.id for e in events(records)]
    assert len(ids) == len(set(ids))
    assert all(
        re.fullmatch(r"opencode:(ses|prt|msg)_\w+(:call|:result|:error|:output#\d+)?", i)
        for i in ids
    )
    assert parse_lines(read(sample)) == records
    assert not [r for r in records if isinstance(r, ParseProblem)]


UNQUOTED = [
    ('"Fix the build"', "Fix the build"),
    ('"Say \\"hi\\" twice"', 'Say "hi" twice'),
    ('"one"', '"one"'),  # no space: `opencode run` adds no quotes, so these are the user's
    ('"a b" c', '"a b" c'),  # several arguments: left as sent
    ('"a "b" c"', '"a "b" c"'),  # an unescaped quote inside: not one wrapped argument
    ("plain words", "plain words"),
    ('"多行\n文本"', "多行\n文本"),
]


@pytest.mark.parametrize(("stored", "prompt"), UNQUOTED)
def test_run_quotes_are_taken_off(stored: str, prompt: str) -> None:
    assert opencode.unquoted(stored) == prompt


def part_row(data: Mapping[str, object], **extra: object) -> bytes:
    row = {
        "id": "prt_1",
        "session": "ses_1",
        "message": "msg_1",
        "created": 1_796_300_000_000,
        "updated": 1_796_300_000_500,
        "data": orjson.dumps(data).decode(),
        "role": "assistant",
        "done": 1,
        **extra,
    }
    return row_line("part", "prt_1", row)


def test_synthetic_user_text_keeps_its_quotes_and_is_the_harness() -> None:
    data = {"type": "text", "synthetic": True, "text": '"quoted context"'}
    [event] = events(parse_lines([part_row(data, role="user")]))
    assert (event.role, event.kind, event.text) == ("system", "system", '"quoted context"')


def test_an_output_file_with_no_row_naming_it_is_a_problem() -> None:
    line = file_line("/d/tool-output/tool_x", b"orphan output\n", 1)
    [problem] = parse_lines([line])
    assert isinstance(problem, ParseProblem) and problem.reason == "bad-field"
    # A row naming another file, then this one: still nobody's.
    named = part_row(
        {
            "type": "tool",
            "tool": "bash",
            "state": {"status": "completed", "input": {}, "output": "tail"},
        },
        output="/x/tool-output/tool_other",
    )
    found = parse_lines([named, line])
    assert [r.reason for r in found if isinstance(r, ParseProblem)] == ["bad-field"]


@pytest.mark.parametrize(
    "tokens",
    [
        None,
        "not json",
        "[1, 2]",
        '{"input": "many", "output": -3}',
        '{"input": 0, "output": 0, "cache": 5}',
    ],
)
def test_tokens_that_are_not_counts_give_no_usage(tokens: str | None) -> None:
    data = {"type": "text", "text": "answer", "time": {"start": 1, "end": 2}}
    [event] = events(parse_lines([part_row(data, tokens=tokens)]))
    assert event.usage is None


def test_a_forks_copies_are_the_forked_sessions_words_stored_once(records: list[Record]) -> None:
    prompts = [e for e in events(records) if "glimmerword" in e.text]
    assert [e.session for e in prompts] == [A]
    assert [e.text for e in events(records) if e.session == E and e.role == "user"] == [
        "Throttle per IP instead."
    ]


RETRIES = [
    (
        {
            "attempt": 2,
            "error": {"name": "APIError", "data": {"message": "Overloaded (reefpause)"}},
        },
        "[error] retry 2, APIError: Overloaded (reefpause)",
    ),
    ({"error": {"message": "socket hang up"}}, "[error] retry: socket hang up"),
    ({"attempt": "2", "error": "text"}, "[error] retry: "),
]


@pytest.mark.parametrize(("fields", "rendered"), RETRIES)
def test_a_retried_call_says_its_error(fields: dict[str, object], rendered: str) -> None:
    [event] = events(parse_lines([part_row({"type": "retry", **fields})]))
    assert (event.rendered, event.role, event.kind, event.id) == (
        rendered,
        "system",
        "system",
        "opencode:prt_1",
    )
