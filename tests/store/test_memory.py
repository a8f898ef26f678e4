"""The memory parser: which files each agent keeps and reads, and each version of a file as one
`memory` event in a session of its own. Samples: tests/data/memory/ (laid out as the agents'
homes and a project); cross-checked against ../shared/fixtures where it exists."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import DATA, SHARED_FIXTURES
from parse_support import events

from origin_store.model import EventRecord, ParseProblem, Record, SessionFact
from origin_store.parsers import memory
from origin_store.parsers.base import FileKind, file_line, row_line
from origin_store.project import git_root
from origin_store.system.globwalk import match_many

SAMPLES = DATA / "memory"
#: Where each agent's samples go in a test's home, named as the agents name their folders.
HOMES = {"claude-code": ".claude", "codex": ".codex", "grok": ".grok", "zcode": ".zcode"}
MTIME = 1_793_000_000_000


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The samples as a home: each agent's folder, and a git project `shop-api`."""
    for source, folder in HOMES.items():
        shutil.copytree(SAMPLES / source, tmp_path / folder)
    shutil.copytree(SAMPLES / "project", tmp_path / "shop-api")
    (tmp_path / "shop-api" / ".git").mkdir()
    return tmp_path


def found(root: Path, patterns: tuple[str, ...]) -> set[str]:
    """What discovery's glob finds under `root`, relative to it."""
    return {
        Path(path).relative_to(root).as_posix()
        for paths in match_many(str(root), list(patterns))
        for path in paths
    }


def read(kind: FileKind, root: Path, rel: str, mtime: int = MTIME) -> list[Record]:
    """A file as the engine hands it over: its row log line, parsed with a fresh state."""
    path = root / rel
    return kind.parse(file_line(str(path), path.read_bytes(), mtime), 1, kind.start(rel))


def the_event(records: list[Record]) -> EventRecord:
    [event] = events(records)
    return event


def the_fact(records: list[Record]) -> SessionFact:
    [fact] = [r for r in records if isinstance(r, SessionFact)]
    return fact


# --- which files ----------------------------------------------------------------------------

USER_FILES = {
    "claude-code": {
        "CLAUDE.md",
        "rules/commits.md",
        "projects/-home-dev-shop-api/memory/MEMORY.md",
        "projects/-home-dev-shop-api/memory/project_migrations.md",
        "projects/-home-dev-shop-api/memory/feedback_reviews.md",
    },
    "codex": {
        "AGENTS.md",
        "memories/MEMORY.md",
        "memories/memory_summary.md",
        "memories/rollout_summaries/2026-11-02-checkout-rounding.md",
    },
    "grok": {"AGENTS.md", "memory/MEMORY.md", "memory/shop-api-5e6f7a8b/MEMORY.md"},
    "zcode": {"skills/api-errors/SKILL.md"},
    "qwen": {"QWEN.md", "projects/-home-dev-harbor-map/memory/MEMORY.md"},
    "opencode": {"AGENTS.md"},
    "copilot": {"copilot-instructions.md"},
}


@pytest.mark.parametrize("source", sorted(USER_FILES))
def test_user_files_each_agent_keeps(source: str) -> None:
    [kind] = memory.MEMORY_KINDS[source]
    assert kind.whole and kind.name == "memory"
    assert found(SAMPLES / source, kind.patterns) == USER_FILES[source]


def test_cursor_keeps_no_memory_file_of_its_own() -> None:
    assert memory.MEMORY_KINDS["cursor"] == ()
    assert set(memory.MEMORY_KINDS) == set(memory.PROJECT_FILES) == set(memory.OWNER_ORDER)


PROJECT_FILES = {
    "claude-code": {"CLAUDE.md", "CLAUDE.local.md", ".claude/rules/sql.md"},
    "codex": {"AGENTS.md"},
    "cursor": {"AGENTS.md", ".cursorrules", ".cursor/rules/handlers.mdc"},
    "zcode": {"CLAUDE.md"},
    "grok": {
        "AGENTS.md",
        "CLAUDE.md",
        "CLAUDE.local.md",
        ".grok/rules/api.md",
        ".claude/rules/sql.md",
    },
}


@pytest.mark.parametrize("source", sorted(PROJECT_FILES))
def test_project_files_each_agent_reads(source: str) -> None:
    assert found(SAMPLES / "project", memory.PROJECT_FILES[source]) == PROJECT_FILES[source]


OWNERS = [
    ("CLAUDE.md", "claude-code"),  # ZCode and Grok read it too: Claude Code's convention
    ("CLAUDE.local.md", "claude-code"),
    (".claude/CLAUDE.md", "claude-code"),
    (".claude/rules/sql.md", "claude-code"),
    (".claude/rules/db/indexes.md", "claude-code"),
    ("AGENTS.md", "codex"),  # Cursor and Grok read it too
    ("AGENTS.override.md", "codex"),
    (".cursorrules", "cursor"),
    (".cursor/rules/handlers.mdc", "cursor"),
    (".cursor/rules/notes.md", "grok"),  # only Grok reads .md there
    (".grok/rules/api.md", "grok"),
    ("Agents.md", "grok"),
    ("AGENT.md", "grok"),
    ("README.md", None),
    (".claude/settings.json", None),
]


@pytest.mark.parametrize(("rel", "owner"), OWNERS)
def test_a_project_file_is_filed_under_one_agent(rel: str, owner: str | None) -> None:
    assert memory.project_owner(rel) == owner


def test_project_kinds_read_the_files_their_agent_owns() -> None:
    kinds = memory.PROJECT_KINDS
    assert kinds["codex"].patterns == ("AGENTS.md", "AGENTS.override.md")
    assert kinds["zcode"].patterns == ()  # its CLAUDE.md is filed under claude-code
    assert ".cursor/rules/**/*.md" in kinds["grok"].patterns
    assert all(k.whole and k.name == "project_memory" for k in kinds.values())


DIRS = [
    # cwd, top (its git root), directories read, top first
    ("/home/dev/shop-api", "/home/dev/shop-api", ["/home/dev/shop-api"]),
    (
        "/home/dev/shop-api/services/billing",
        "/home/dev/shop-api",
        [
            "/home/dev/shop-api",
            "/home/dev/shop-api/services",
            "/home/dev/shop-api/services/billing",
        ],
    ),
    ("/home/dev/scratch", None, ["/home/dev/scratch"]),
    ("/home/dev/scratch", "/srv/other", ["/home/dev/scratch"]),  # not a parent: cwd alone
    ("/home/dev/shop-api-old", "/home/dev/shop-api", ["/home/dev/shop-api-old"]),
    ("/repo/a/", "/", ["/", "/repo", "/repo/a"]),
    ("C:\\work\\shop\\web", "C:\\work\\shop", ["C:\\work\\shop", "C:\\work\\shop\\web"]),
]


@pytest.mark.parametrize(("cwd", "top", "dirs"), DIRS)
def test_project_dirs(cwd: str, top: str | None, dirs: list[str]) -> None:
    assert memory.project_dirs(cwd, top) == dirs


def test_git_root_is_the_nearest_directory_holding_git(home: Path) -> None:
    project = home / "shop-api"
    nested = project / "services" / "billing"
    assert git_root(str(nested)) == str(project)
    assert git_root(str(project)) == str(project)
    assert git_root(str(home / ".codex")) is None
    (nested / ".git").write_text("gitdir: ../../.git/worktrees/billing\n")  # a worktree's file
    assert git_root(str(nested)) == str(nested)


def test_a_nested_override_is_found_from_a_cwd_below_the_git_root(home: Path) -> None:
    cwd = home / "shop-api" / "services" / "billing"
    top = git_root(str(cwd))
    seen = {
        (Path(directory).relative_to(home).as_posix(), rel)
        for directory in memory.project_dirs(str(cwd), top)
        for rel in sorted(found(Path(directory), memory.PROJECT_FILES["codex"]))
    }
    assert seen == {("shop-api", "AGENTS.md"), ("shop-api/services/billing", "AGENTS.override.md")}


# --- each version an event --------------------------------------------------------------------

USER_VERSIONS = [
    # source, path under its root, session title
    ("claude-code", "CLAUDE.md", ".claude/CLAUDE.md"),
    ("claude-code", "rules/commits.md", ".claude/rules/commits.md"),
    (
        "claude-code",
        "projects/-home-dev-shop-api/memory/MEMORY.md",
        ".claude/projects/-home-dev-shop-api/memory/MEMORY.md",
    ),
    ("codex", "memories/memory_summary.md", ".codex/memories/memory_summary.md"),
    ("grok", "memory/shop-api-5e6f7a8b/MEMORY.md", ".grok/memory/shop-api-5e6f7a8b/MEMORY.md"),
    ("zcode", "skills/api-errors/SKILL.md", ".zcode/skills/api-errors/SKILL.md"),
]


@pytest.mark.parametrize(("source", "rel", "title"), USER_VERSIONS)
def test_a_user_file_version_is_one_memory_event(
    home: Path, source: str, rel: str, title: str
) -> None:
    root = home / HOMES[source]
    path = str(root / rel)
    records = read(memory.MEMORY_KINDS[source][0], root, rel)
    event, fact = the_event(records), the_fact(records)
    text = (root / rel).read_text()
    assert event.id == memory.memory_id(source, path, text)
    assert event.id.startswith(f"{source}:memory:{path}@") and len(event.id.rsplit("@")[1]) == 16
    assert (event.source, event.kind, event.role, event.text) == (source, "memory", "system", text)
    assert (event.time, event.session, event.cwd) == (MTIME, f"memory:{path}", None)
    assert (fact.session, fact.title, fact.cwd) == (event.session, title, None)
    assert fact.title_rank == memory.TITLE_RANK
    assert not [r for r in records if isinstance(r, ParseProblem)]


PROJECT_VERSIONS = [
    # path in the project, the directory it was found in (under shop-api), owner, title
    ("CLAUDE.md", "", "claude-code", "shop-api/CLAUDE.md"),
    (".claude/rules/sql.md", "", "claude-code", "shop-api/.claude/rules/sql.md"),
    ("AGENTS.md", "", "codex", "shop-api/AGENTS.md"),
    ("AGENTS.override.md", "services/billing", "codex", "billing/AGENTS.override.md"),
    (".cursor/rules/handlers.mdc", "", "cursor", "shop-api/.cursor/rules/handlers.mdc"),
    (".cursorrules", "", "cursor", "shop-api/.cursorrules"),
    (".grok/rules/api.md", "", "grok", "shop-api/.grok/rules/api.md"),
]


@pytest.mark.parametrize(("rel", "under", "owner", "title"), PROJECT_VERSIONS)
def test_a_project_file_version_is_one_memory_event_in_its_directory(
    home: Path, rel: str, under: str, owner: str, title: str
) -> None:
    directory = home / "shop-api" / under
    assert memory.project_owner(rel) == owner
    records = read(memory.PROJECT_KINDS[owner], directory, rel)
    event, fact = the_event(records), the_fact(records)
    path = str(directory / rel)
    assert event.id == memory.memory_id(owner, path, (directory / rel).read_text())
    assert (event.source, event.kind, event.role) == (owner, "memory", "system")
    assert event.cwd == fact.cwd == str(directory).rstrip("/")
    assert (fact.title, fact.session) == (title, f"memory:{path}")


def test_the_same_text_is_the_same_event_and_a_new_text_a_new_one(home: Path) -> None:
    root = home / ".claude"
    kind = memory.MEMORY_KINDS["claude-code"][0]
    first = the_event(read(kind, root, "CLAUDE.md"))
    again = the_event(read(kind, root, "CLAUDE.md", mtime=MTIME + 60_000))
    assert again.id == first.id and again.time == MTIME + 60_000
    (root / "CLAUDE.md").write_text("# How I work\n\n- Keep pull requests small.\n")
    changed = the_event(read(kind, root, "CLAUDE.md"))
    assert changed.id != first.id and changed.session == first.session
    assert memory.memory_file(changed) == (str(root / "CLAUDE.md"), changed.id.rsplit("@")[1])


def test_an_emptied_file_is_a_version_too(home: Path) -> None:
    root = home / ".codex"
    (root / "AGENTS.md").write_text("")
    event = the_event(read(memory.MEMORY_KINDS["codex"][0], root, "AGENTS.md"))
    assert event.text == "" and event.id.endswith("@" + "e3b0c44298fc1c14")  # sha256 of nothing


def test_state_is_small_and_unchanged_by_lines(home: Path) -> None:
    kind = memory.MEMORY_KINDS["grok"][0]
    state = kind.start("memory/MEMORY.md")
    before = json.loads(json.dumps(state))
    path = home / ".grok" / "memory" / "MEMORY.md"
    kind.parse(file_line(str(path), path.read_bytes(), MTIME), 1, state)
    assert state == before and len(json.dumps(state)) < 200


def test_a_windows_path_keeps_its_separators() -> None:
    kind = memory.PROJECT_KINDS["cursor"]
    path = "C:\\work\\shop\\.cursor\\rules\\style.mdc"
    records = kind.parse(
        file_line(path, b"- no default exports\n", MTIME), 1, kind.start(".cursor/rules/style.mdc")
    )
    assert the_event(records).cwd == "C:\\work\\shop"
    assert the_fact(records).title == "shop/.cursor/rules/style.mdc"


def test_a_file_whose_path_does_not_end_in_its_relative_path_is_titled_by_its_folder() -> None:
    kind = memory.MEMORY_KINDS["codex"][0]
    records = kind.parse(file_line("/srv/codex/AGENTS.md", b"x", MTIME), 1, kind.start("a/b.md"))
    assert the_fact(records).title == "codex/AGENTS.md"


# --- what is not a version ------------------------------------------------------------------

KIND = memory.MEMORY_KINDS["codex"][0]
BAD_LINES: list[tuple[bytes, list[str], int | None]] = [
    # line, problems' reasons, the event's time (None: no event)
    (b"", [], None),
    (b"not json", ["invalid-json"], None),
    (b"[1, 2]", ["not-an-object"], None),
    (b'{"table": "file", "key": "/h/.codex/AGENTS.md"}', ["bad-field"], None),
    (row_line("sessions", "/h/.codex/AGENTS.md", {"text": "x"}), ["bad-field"], None),
    (row_line("file", "", {"text": "x"}), ["bad-field"], None),
    (row_line("file", "/h/.codex/AGENTS.md", {"text": 7}), ["bad-field"], None),
    (row_line("file", "/h/.codex/AGENTS.md", {"text": "x"}), [], 0),  # hand-made: no mtime
    (row_line("file", "/h/.codex/AGENTS.md", {"text": "x", "mtime_ms": "soon"}), ["bad-field"], 0),
    (row_line("file", "/h/.codex/AGENTS.md", {"text": "x", "mtime_ms": -5}), ["bad-field"], 0),
    (row_line("file", "/h/.codex/AGENTS.md", {"text": "x", "mtime_ms": True}), ["bad-field"], 0),
    (row_line("file", "/h/.codex/AGENTS.md", {"text": "x", "mtime_ms": 2**62}), ["bad-field"], 0),
    (row_line("file", "/h/.codex/AGENTS.md", {"text": "x", "mtime_ms": 1.5e12}), ["bad-field"], 0),
    (file_line("/h/.codex/AGENTS.md", b"\xff\xfe rules", 5), [], 5),  # bytes replaced, kept
]


@pytest.mark.parametrize(("line", "reasons", "time"), BAD_LINES)
def test_lines_that_are_not_a_clean_version(
    line: bytes, reasons: list[str], time: int | None
) -> None:
    records = KIND.parse(line, 1, KIND.start("AGENTS.md"))
    assert [r.reason for r in records if isinstance(r, ParseProblem)] == reasons
    assert [e.time for e in events(records)] == ([] if time is None else [time])


def test_a_state_without_a_source_is_a_problem_not_an_event() -> None:
    records = memory.parse(file_line("/h/AGENTS.md", b"x", 1), 1, {})
    assert [type(r) for r in records] == [ParseProblem]


def test_memory_file_reads_only_memory_ids() -> None:
    def event(event_id: str, kind: str = "memory") -> EventRecord:
        return EventRecord(event_id, 0, "codex", "s", "system", kind, "")

    digest = "0123456789abcdef"
    assert memory.memory_file(event(f"codex:memory:/a@b/AGENTS.md@{digest}")) == (
        "/a@b/AGENTS.md",
        digest,
    )
    assert memory.memory_file(event(f"codex:memory:/a/AGENTS.md@{digest}", "message")) is None
    assert memory.memory_file(event("codex:memory:/a/AGENTS.md@short")) is None
    assert memory.memory_file(event(f"codex:s1:L3@{digest}")) is None


# --- the shared fixtures --------------------------------------------------------------------

needs_shared = pytest.mark.skipif(
    not SHARED_FIXTURES.is_dir(), reason=f"no shared fixtures at {SHARED_FIXTURES}"
)

SHARED_USER_FILES = {
    "claude-code": {
        "projects/-home-dev-demo-app/memory/MEMORY.md",
        "projects/-home-dev-demo-app/memory/feedback_testing.md",
        "projects/-home-dev-demo-app/memory/project_layout.md",
    },
    "codex": {
        "AGENTS.md",
        "memories/memory_summary.md",
        "memories/MEMORY.md",
        "memories/rollout_summaries/2026-10-20-ci-build-fix.md",
    },
    "grok": {
        "AGENTS.md",
        "memory/MEMORY.md",
        "memory/demo-app-1a2b3c4d/MEMORY.md",
        "memory/demo-app-1a2b3c4d/sessions/2026-10-27-019a2b3c-4d5e-7f60-8a71-b2c3d4e5f601.md",
    },
    "zcode": {"skills/notes-style/SKILL.md"},
}
#: The fixtures' stand-ins for a project directory (memory/project/, grok's project/).
SHARED_PROJECTS = {
    "claude-code": ("memory/project", {"CLAUDE.md", "CLAUDE.local.md", ".claude/rules/testing.md"}),
    "codex": ("memory/project", {"AGENTS.md"}),
    "cursor": (
        "memory/project",
        {".cursorrules", "AGENTS.md", ".cursor/rules/testing.mdc", ".cursor/rules/style.mdc"},
    ),
    "zcode": ("memory/project", {"CLAUDE.md"}),
    "grok": ("project", {"AGENTS.md", ".grok/rules/api.md"}),
}


@needs_shared
@pytest.mark.parametrize("source", sorted(SHARED_USER_FILES))
def test_shared_fixtures_user_files(source: str) -> None:
    root = SHARED_FIXTURES / source
    [kind] = memory.MEMORY_KINDS[source]
    assert found(root, kind.patterns) == SHARED_USER_FILES[source]
    for rel in SHARED_USER_FILES[source]:
        event = the_event(read(kind, root, rel))
        assert event.text == (root / rel).read_text() and event.source == source


@needs_shared
@pytest.mark.parametrize("source", sorted(SHARED_PROJECTS))
def test_shared_fixtures_project_files(source: str) -> None:
    under, expected = SHARED_PROJECTS[source]
    directory = SHARED_FIXTURES / source / under
    assert found(directory, memory.PROJECT_FILES[source]) == expected
    for rel in expected:
        owner = memory.project_owner(rel)
        assert owner is not None
        event = the_event(read(memory.PROJECT_KINDS[owner], directory, rel))
        assert event.cwd == str(directory) and event.source == owner
