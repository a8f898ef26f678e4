"""The Cursor source as a whole: where it looks, what each kind of file finds, what no record
ever holds (credentials, keys, drafts), what every pass gives again, and a cross-check against
the shared fixtures' documented sessions (skipped where ../shared/fixtures is absent). Each kind
of file has its own tests: test_parsers_cursor_{ide,cli,transcripts}.py.

The helpers here read a sample the way the engine does: a database through its row log (its
siblings first, then the rows), a transcript by its complete lines."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path
from types import ModuleType

import orjson
import pytest
from helpers import DATA
from hypothesis import given
from hypothesis import strategies as st
from parse_support import all_text, events, merged, read_lines, shared_root

from origin_store.ingest import rowlog
from origin_store.model import EVENT_KINDS, ROLES, EventRecord, ParseProblem, Record, SessionFact
from origin_store.parsers.base import FileKind
from origin_store.parsers.cursor import common as cursor_common
from origin_store.parsers.cursor import source as cursor

SAMPLES = DATA / "cursor"


def samples() -> ModuleType:
    """tests/data/cursor/make_db.py, which builds the sample databases."""
    spec = importlib.util.spec_from_file_location("cursor_samples", SAMPLES / "make_db.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_home(target: Path) -> Path:
    """A home directory holding the sample text files and freshly built databases."""
    home: Path = samples().sample_home(target)
    return home


def row_log(kind: FileKind, path: Path) -> list[bytes]:
    """A database's row log as a first read writes it: its siblings, then its rows."""
    return [line for _, line, _ in rowlog.read_rows(path, kind)]


def lines_of(kind: FileKind, path: Path) -> list[bytes]:
    return row_log(kind, path) if kind.tables else read_lines(path)


def found(roots: list[Path]) -> list[tuple[FileKind, Path, Path]]:
    """(kind, root, path) of every file the source's patterns find under the roots."""
    out: list[tuple[FileKind, Path, Path]] = []
    for root in roots:
        for kind in cursor.SOURCE.files:
            for pattern in kind.patterns:
                out.extend((kind, root, path) for path in sorted(root.glob(pattern)))
    return out


def feed(kind: FileKind, root: Path, path: Path, *, through_json: bool = False) -> list[Record]:
    state = kind.start(path.relative_to(root).as_posix())
    records: list[Record] = []
    for number, line in enumerate(lines_of(kind, path), start=1):
        if through_json:
            state = json.loads(json.dumps(state))
        records.extend(kind.parse(line, number, state))
    assert len(json.dumps(state)) < 1000
    return records


def everything(roots: list[Path]) -> list[Record]:
    return [record for kind, root, path in found(roots) for record in feed(kind, root, path)]


def sample_roots(home: Path) -> list[Path]:
    return cursor.SOURCE.roots({}, home)


def shared_roots() -> list[Path]:
    """The shared fixtures' IDE user folder and ~/.cursor; skips where they are absent."""
    root = shared_root("cursor")
    return [root / "Cursor" / "User", root / "cursor-home"]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_home(tmp_path_factory.mktemp("cursor") / "home")


# --- roots and patterns ------------------------------------------------------------------------


def test_roots_are_derived_from_home_and_the_platforms_variables() -> None:
    home = Path("/h")
    assert cursor.SOURCE.roots({}, home) == [
        home / ".config/Cursor/User",
        home / "Library/Application Support/Cursor/User",
        home / ".cursor",
        home / ".cursor-server",
    ]
    moved = cursor.SOURCE.roots({"XDG_CONFIG_HOME": "/x", "APPDATA": "/w"}, home)
    assert moved[0] == Path("/x/Cursor/User") and moved[2] == Path("/w/Cursor/User")
    assert cursor.SOURCE.name == "cursor"


def test_each_kind_finds_its_files(home: Path) -> None:
    by_kind: dict[str, set[str]] = {}
    for kind, _, path in found(sample_roots(home)):
        by_kind.setdefault(kind.name, set()).add(path.relative_to(home).as_posix())
    ide, chats = ".config/Cursor/User", ".cursor/chats"
    transcripts = ".cursor/projects/home-dev-tide/agent-transcripts"
    assert by_kind == {
        "ide": {f"{ide}/globalStorage/state.vscdb"},
        "workspace": {
            f"{ide}/workspaceStorage/1c84dbee7e95b260df1497173240e210/state.vscdb",
            f"{ide}/workspaceStorage/dbef580bbaf553f9be7f22050cd3264f/state.vscdb",
        },
        "cli": {
            f"{chats}/1c84dbee7e95b260df1497173240e210/5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b/store.db",
            f"{chats}/dbef580bbaf553f9be7f22050cd3264f/8a9b0c1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d/store.db",
        },
        "transcript": {
            f"{transcripts}/3b5d7f9a-1c2e-4a6b-8d0f-2e4a6c8e0a2c/3b5d7f9a-1c2e-4a6b-8d0f-2e4a6c8e0a2c.jsonl",
            f"{transcripts}/3b5d7f9a-1c2e-4a6b-8d0f-2e4a6c8e0a2c/subagents/6c8e0a2c-4e6a-4b8d-9f1a-3c5e7a9b1d3f.jsonl",
            f"{transcripts}/4f0c2d9e-7a1b-4c3d-9e8f-0a1b2c3d4e5f/4f0c2d9e-7a1b-4c3d-9e8f-0a1b2c3d4e5f.jsonl",
        },
        "transcript_text": {f"{transcripts}/9d1f3b5d-7f9a-4b1c-8e2f-4a6c8e0a2c4e.txt"},
    }  # fmt: skip
    assert {kind.name for kind in cursor.SOURCE.files if kind.tables} == {"ide", "workspace", "cli"}


# --- what no record holds -------------------------------------------------------------------------


def record_strings(records: list[Record]) -> str:
    """Every field of every record, as text."""
    return "\n".join(
        json.dumps(dataclasses.asdict(record), default=str, ensure_ascii=False)
        for record in records
    )


def test_credentials_keys_and_drafts_never_leave_the_databases(home: Path) -> None:
    databases = [(kind, path) for kind, _, path in found(sample_roots(home)) if kind.tables]
    logs = [line for kind, path in databases for line in row_log(kind, path)]
    assert logs and not [line for line in logs if b"FAKE-" in line]  # never selected
    records = everything(sample_roots(home))
    text = record_strings(records)
    assert "FAKE-" not in text
    assert "draft: rename tide to ebb" not in text  # a composer's unsent draft
    assert "fileSelections" not in text and "not read" not in text


def test_every_pass_gives_the_same_records_and_state_survives_json(home: Path) -> None:
    for kind, root, path in found(sample_roots(home)):
        first = feed(kind, root, path)
        assert feed(kind, root, path) == first, path
        assert feed(kind, root, path, through_json=True) == first, path


def test_the_samples_parse_without_problems(home: Path) -> None:
    assert not [r for r in everything(sample_roots(home)) if isinstance(r, ParseProblem)]


def test_records_are_well_formed(home: Path) -> None:
    records = everything(sample_roots(home))
    evs = events(records)
    assert len({e.id for e in evs}) == len(evs)  # one event per record, across all files
    assert {e.source for e in evs} == {"cursor"}
    assert all(e.id.startswith(f"cursor:{e.session}:") for e in evs)
    assert all(e.role in ROLES and e.kind in EVENT_KINDS for e in evs)


# --- sessions across the stores ------------------------------------------------------------------

SESSIONS = [
    # session, title, prompt, cwd, parent
    ("4f0c2d9e-7a1b-4c3d-9e8f-0a1b2c3d4e5f", "Cache the tokenizer tables",
     "Tokenizing is slow on every search. Cache the tokenizer tables.", "/home/dev/tide", None),
    ("7d3e1f20-5b6a-4c8d-8e9f-1a2b3c4d5e6f", None,
     "为什么 wiki 的搜索结果里日文标题排在最后？", "/home/dev/笔记/wiki", None),
    ("0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b", None, None, "/home/dev/tide", None),
    ("2a4c6e8f-0b1d-4f3a-9c5e-7a9b1c3d5e7f", "Explain the ranking formula",
     "Explain how the ranking score is computed.", "/home/dev/tide", None),
    ("tab-6a1f", "Why is the index stale?", "Why does the index miss yesterday's notes?",
     "/home/dev/tide", None),
    ("5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b", "Stream search results as NDJSON",
     "Stream search results as NDJSON instead of one array.", "/home/dev/tide", None),
    ("8a9b0c1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d", None, "给 wiki 加全文搜索的高亮。",
     "/home/dev/笔记/wiki", None),
    ("3b5d7f9a-1c2e-4a6b-8d0f-2e4a6c8e0a2c", None, "Add a --since flag to the reindex command.",
     "/home/dev/tide", None),
    ("6c8e0a2c-4e6a-4b8d-9f1a-3c5e7a9b1d3f", None, "Find other commands that take dates", None,
     "3b5d7f9a-1c2e-4a6b-8d0f-2e4a6c8e0a2c"),
    ("9d1f3b5d-7f9a-4b1c-8e2f-4a6c8e0a2c4e", None,
     "导出的 JSON 里日期要用 ISO 8601。\n顺便把 created 字段改名为 createdAt。", None, None),
]  # fmt: skip


@pytest.mark.parametrize(("session", "title", "prompt", "cwd", "parent"), SESSIONS)
def test_sample_sessions(
    home: Path,
    session: str,
    title: str | None,
    prompt: str | None,
    cwd: str | None,
    parent: str | None,
) -> None:
    got = merged(everything(sample_roots(home)))[session]
    assert (got["title"], got["prompt"], got["cwd"], got["parent"]) == (title, prompt, cwd, parent)


def test_the_ide_shell_transcript_joins_its_composer(home: Path) -> None:
    session = "4f0c2d9e-7a1b-4c3d-9e8f-0a1b2c3d4e5f"
    by_kind: dict[str, set[str]] = {"ide": set(), "transcript": set()}
    for kind, root, path in found(sample_roots(home)):
        if kind.name in by_kind:
            ids = {e.id for e in events(feed(kind, root, path)) if e.session == session}
            by_kind[kind.name] |= ids
    assert len(by_kind["ide"]) == 12
    assert by_kind["transcript"] == {f"cursor:{session}:L1", f"cursor:{session}:L2"}


# --- the shared fixtures -------------------------------------------------------------------------

SHARED = [
    # session, title, prompt, cwd, parent, has events
    ("3c1e5a7b-9d2f-4e6a-8b0c-1d2e3f4a5b6c", "Fix flaky rate limit test",
     "The rate limit test is flaky on CI. Make it deterministic.", "/home/dev/demo-app", None, True),
    ("8e2f4a6c-1b3d-4f5e-9a7c-2d4f6a8c0e1b", None, "这个导出函数为什么会把中文文件名变成乱码？",
     "/home/dev/文档/notes-app", None, True),
    ("5b7d9f1a-3c5e-4a7c-9e1b-3d5f7a9c1e3f", None, None, "/home/dev/demo-app", None, False),
    ("d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6", "Add request id middleware",
     "Add a middleware that sets an X-Request-Id header.", "/home/dev/demo-app", None, True),
    ("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", None, "给 notes 表加一个 tags 字段，迁移脚本用中文注释。",
     "/home/dev/文档/notes-app", None, True),
    ("6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d", None,
     "Make GET /health also return the current git sha.", None, None, True),
    ("2f3e4d5c-6b7a-4988-9a0b-1c2d3e4f5a6b", None, "Check other routes for hardcoded versions",
     None, "6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d", True),
    ("1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5a", None, "把日志里的时间改成 ISO 8601，带时区。", None, None, True),
    ("9c8b7a6f-5e4d-4c3b-8a29-1807f6e5d4c3", None,
     "Rename the package to @example/demo-app and update imports.", None, None, True),
    ("legacy-tab-1", "Explain express middleware order",
     "In what order does express run app.use middleware?", "/home/dev/demo-app", None, True),
]  # fmt: skip


def test_shared_fixture_sessions() -> None:
    records = everything(shared_roots())
    facts = merged(records)
    with_events = {e.session for e in events(records)}
    assert set(facts) == {row[0] for row in SHARED}
    for session, title, prompt, cwd, parent, has_events in SHARED:
        got = facts[session]
        assert (got["title"], got["prompt"], got["cwd"], got["parent"]) == (
            title,
            prompt,
            cwd,
            parent,
        )
        assert (session in with_events) is has_events, session
    assert not [r for r in records if isinstance(r, ParseProblem)]
    assert "FAKE-" not in record_strings(records)
    assert "draft: add request ids to logs" not in all_text(records)


def test_shared_fixture_ide_and_shell_transcript_share_a_session_not_events() -> None:
    session = "3c1e5a7b-9d2f-4e6a-8b0c-1d2e3f4a5b6c"
    evs = [e for e in events(everything(shared_roots())) if e.session == session]
    assert len(evs) == len({e.id for e in evs}) == 13  # 11 of the IDE's, 2 of the transcript's
    assert sum(e.id.endswith((":L1", ":L2")) for e in evs) == 2


# --- what the kinds share -----------------------------------------------------------------------

FOLDERS = [
    ("file:///home/dev/tide", "/home/dev/tide"),
    ("file:///home/dev/%E7%AC%94%E8%AE%B0/wiki", "/home/dev/笔记/wiki"),
    ("file:///c%3A/Users/dev/app", "c:/Users/dev/app"),
    ("vscode-remote://ssh-remote%2Bbox/srv/app", "/srv/app"),
    ("/plain/path", "/plain/path"),
    ("C:\\Users\\dev", "C:\\Users\\dev"),
    ("https://example.invalid/x", None),
    ("relative/path", None),
    ("", None),
    (5, None),
]


@pytest.mark.parametrize(("uri", "path"), FOLDERS)
def test_folder_path(uri: object, path: str | None) -> None:
    assert cursor_common.folder_path(uri) == path


USER_WORDS = [
    ("plain words", ("plain words", None)),
    ("<user_info>\nOS Version: linux\nWorkspace Path: /w/x y\n</user_info>\n<user_query>\nhi\n</user_query>",
     ("hi", "/w/x y")),
    ("<user_info>\nWorkspace: /w\n</user_info>\nleft over", ("left over", "/w")),
    ("<user_query>a</user_query> and <user_query>b", ("a\n\nb", None)),
    ("<user_query>\n\n</user_query>", ("", None)),
    ("Workspace Path: /not/in/a/note", ("Workspace Path: /not/in/a/note", None)),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), USER_WORDS)
def test_user_words(text: str, expected: tuple[str, str | None]) -> None:
    assert cursor_common.user_words(text) == expected


OUTPUTS = [
    ("plain", "plain"),
    ('{"output": "ok", "exitCode": 0}', "ok"),
    ('{"diff": {"chunks": [{"diffString": "-a"}, {"diffString": "+b"}]}}', "-a\n+b"),
    ('{"ok": true, "count": 3}', '{"ok":true,"count":3}'),
    ('{"cut', '{"cut'),
    (None, ""),
    ([1, 2], "[1,2]"),
]


@pytest.mark.parametrize(("value", "text"), OUTPUTS)
def test_output_text(value: object, text: str) -> None:
    assert cursor_common.output_text(value) == text


# --- fuzzing -------------------------------------------------------------------------------------

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(), children, max_size=3)
    ),
    max_leaves=12,
)
_KEYS = st.sampled_from(
    ["composerData:c", "bubbleId:c:b", "bubbleId:c", "bubbleId::", "composer.composerData",
     "workbench.panel.aichat.view.aichat.chatdata", "0", "latest", "/x/workspace.json", "/x/meta.json"]
) | st.text()  # fmt: skip
_VALUES = _JSON | _JSON.map(lambda v: orjson.dumps(v).decode()) | st.just({"base64": "e30="})
ROW_LINES = st.fixed_dictionaries(
    {
        "table": st.sampled_from(["composers", "bubbles", "composer_index", "aichat", "meta",
                                  "root", "blobs", "file"]) | st.text(),
        "key": _KEYS,
        "row": st.dictionaries(
            st.sampled_from(["key", "value", "started", "workspace", "valid", "composers", "tabs",
                             "data", "n", "text", "mtime_ms", "id"]),
            _VALUES,
            max_size=5,
        ),
    }
)  # fmt: skip
TRANSCRIPT_LINES = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["turn_ended", "x"]) | _JSON,
        "role": st.sampled_from(["user", "assistant", "tool", "system"]) | _JSON,
        "message": st.fixed_dictionaries({}, optional={"content": _JSON}) | _JSON,
        "status": _JSON,
        "error": _JSON,
    },
)
#: Lines shaped like Cursor's: row log lines of its tables and files, and transcript lines
#: (what test_parsers_common.RECORD_LINES takes for the source).
CURSOR_LINES = ROW_LINES | TRANSCRIPT_LINES
_PATHS = st.sampled_from(["", "x", "a/subagents/b.jsonl", "chats/m/a/store.db", "p/t/x.txt"])


def check(records: object) -> None:
    assert isinstance(records, list)
    for r in records:
        assert isinstance(r, EventRecord | SessionFact | ParseProblem)
        if isinstance(r, ParseProblem):
            assert r.reason != "parser-error", r
        if isinstance(r, EventRecord):
            assert r.role in ROLES and r.kind in EVENT_KINDS and r.time >= 0
            assert r.id.startswith("cursor:") and isinstance(r.text, str)


@given(
    kind=st.sampled_from(cursor.SOURCE.files),
    relpath=_PATHS,
    lines=st.lists(
        st.binary(max_size=200)
        | CURSOR_LINES.map(orjson.dumps)
        | st.text(max_size=80).map(str.encode),
        max_size=6,
    ),
)
def test_fuzzed_lines_never_raise(kind: FileKind, relpath: str, lines: list[bytes]) -> None:
    state = kind.start(relpath)
    for number, line in enumerate(lines, start=1):
        check(kind.parse(line, number, state))
        json.dumps(state)
