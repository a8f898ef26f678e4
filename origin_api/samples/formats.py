"""A corpus per source: Cursor, ZCode, Grok, Gemini CLI, OpenCode, Copilot CLI and Qwen Code
(and, on request, Claude Code and Codex alone).

``home/`` is laid out as a user's home directory (``.config/Cursor/User``, ``.cursor``,
``.zcode``, ``.grok``, ``.gemini``, ``.local/share/opencode``, ``.copilot``, ``.qwen``), so
Origin finds every file with HOME pointing at it; Claude Code's and
Codex's logs, written by their own writers one source at a time, go to ``home/claude`` and
``home/codex`` (CLAUDE_CONFIG_DIR, CODEX_HOME). Each source gets ``events_per_source`` events in
sessions of the lognormal sizes of the Claude Code and Codex corpus (corpus.session_size), with
its projects, languages and text. The events Origin's parsers make of them are written to
``events.jsonl.zst`` in the corpus's table format (texts as the tools show them, Origin's labels
included; corpus.iter_events reads it), and what was written per source to ``formats.json``.
Databases are filled with executemany in one transaction each, so 100k events of a source take
seconds.

Output depends only on the arguments: sessions are planned from seeded rngs and written in plan
order. Changing what is written changes FORMATS_VERSION, which keys the benchmark's cache.
"""

from __future__ import annotations

import hashlib
import os
import random
import sqlite3
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import BinaryIO

import orjson
import zstandard

from . import opencode
from .claude_code import ClaudeSession
from .codex import CodexSession
from .common import BASE_MS, END_MS, EVENTS_FILE
from .context import Context, build_context
from .copilot import CopilotSession
from .corpus import LANG_DECK, SESSION_MAX, SESSION_MIN, session_size
from .cursor import CLI_SCHEMA, KV_SCHEMA, CursorCliSession, CursorIdeSession, file_uri
from .gemini import GeminiSession, short_id
from .grok import CLI_SCHEMA as GROK_DB_SCHEMA
from .grok import GrokBuildSession, GrokCliSession, workspace_id
from .opencode import OpencodeSession
from .qwen import QwenSession
from .session import Plan, Session
from .zcode import MESSAGE_SQL, PART_SQL, SCHEMA, SESSION_SQL, ZcodeSession

#: Part of the benchmark's cache key: bump it whenever the same arguments write other bytes.
FORMATS_VERSION = "2"
FORMATS = ("cursor", "zcode", "grok", "gemini", "opencode", "copilot", "qwen")
#: Every source Origin reads: Claude Code and Codex written with their own writers, one source
#: at a time (the corpus module deals both into one corpus by a fixed share).
ALL_SOURCES = ("claude-code", "codex", *FORMATS)
INFO_FILE = "formats.json"
HOME = "home"

#: Each source's writers and the share of its sessions each takes (the rest: the first).
VARIANTS: dict[str, tuple[tuple[type[Session], float], ...]] = {
    "claude-code": ((ClaudeSession, 1.0),),
    "codex": ((CodexSession, 1.0),),
    "cursor": ((CursorIdeSession, 0.75), (CursorCliSession, 0.25)),
    "zcode": ((ZcodeSession, 1.0),),
    "grok": ((GrokBuildSession, 0.8), (GrokCliSession, 0.2)),
    "gemini": ((GeminiSession, 1.0),),
    "opencode": ((OpencodeSession, 1.0),),
    "copilot": ((CopilotSession, 1.0),),
    "qwen": ((QwenSession, 1.0),),
}
OPENCODE_DATA = ".local/share/opencode"
#: Where each source's files are under the home: what its files and bytes count.
PLACES = {
    "claude-code": ("claude",),
    "codex": ("codex",),
    "cursor": (".config/Cursor", ".cursor"),
    "zcode": (".zcode",),
    "grok": (".grok",),
    "gemini": (".gemini",),
    "opencode": (OPENCODE_DATA,),
    "copilot": (".copilot",),
    "qwen": (".qwen",),
}
CURSOR_USER = ".config/Cursor/User"


@dataclass(slots=True)
class FormatInfo:
    """What was written for one source; ``events`` is what Origin's parser makes of it."""

    source: str
    events: int
    sessions: int
    files: int
    bytes: int
    cjk: int
    seconds: float = 0.0


_Planned = tuple[Plan, type[Session]]


def plan(source: str, events: int, seed: int, ctx: Context) -> list[_Planned]:
    """Sessions of lognormal sizes until ``events`` are used up, each with its writer."""
    rng = random.Random(f"plan:{seed}:{source}")
    upper = min(SESSION_MAX, max(60, events // 20))
    lower = min(SESSION_MIN, upper)
    out: list[_Planned] = []
    deck: list[str] = []
    remaining = events
    while remaining > 0:
        size = session_size(rng, lower, upper)
        if remaining - size < lower:
            size = remaining
        if not deck:
            deck = list(LANG_DECK)
            rng.shuffle(deck)
        project = rng.choices(range(len(ctx.projects)), weights=ctx.project_weights)[0]
        start = BASE_MS + rng.randrange(END_MS - BASE_MS - 3 * 86_400_000)
        draw, writer = rng.random(), VARIANTS[source][0][0]
        for candidate, share in VARIANTS[source]:
            if draw < share:
                writer = candidate
                break
            draw -= share
        out.append((Plan(source, len(out), size, project, deck.pop(), start), writer))
        remaining -= size
    return out


def generate_formats(
    out: Path, events_per_source: int, seed: int = 42, sources: tuple[str, ...] = FORMATS
) -> dict[str, FormatInfo]:
    """Write ``sources`` under ``out`` (which must be empty or absent); their infos by name."""
    out.mkdir(parents=True, exist_ok=True)
    if any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty")
    ctx = build_context(seed)
    home = out / HOME
    infos: dict[str, FormatInfo] = {}
    with open(out / EVENTS_FILE, "wb") as table:
        for source in sources:
            started = time.perf_counter()
            planned = plan(source, events_per_source, seed, ctx)
            sessions = [writer(ctx, p, seed) for p, writer in planned]
            events, cjk = WRITE[source](home, _generated(sessions, table))
            files, size = _measure(home, PLACES[source])
            seconds = round(time.perf_counter() - started, 2)
            infos[source] = FormatInfo(source, events, len(sessions), files, size, cjk, seconds)
    info = {name: asdict(found) for name, found in infos.items()}
    (out / INFO_FILE).write_bytes(orjson.dumps(info, option=orjson.OPT_INDENT_2))
    return infos


def load_formats(out: Path) -> dict[str, FormatInfo]:
    found = orjson.loads((out / INFO_FILE).read_bytes())
    return {name: FormatInfo(**fields) for name, fields in found.items()}


def _generated(sessions: list[Session], table: BinaryIO) -> Iterator[Session]:
    """Each session generated, its events appended to the table as one zstd frame."""
    compressor = zstandard.ZstdCompressor(level=3)
    for session in sessions:
        session.generate()
        if session.rows:
            table.write(compressor.compress(b"\n".join(session.rows) + b"\n"))
        yield session


def _measure(home: Path, places: tuple[str, ...]) -> tuple[int, int]:
    """(files, bytes) under a source's folders: what Origin reads of it."""
    files = size = 0
    for place in places:
        for path in (home / place).rglob("*"):
            if path.is_file():
                files += 1
                size += path.stat().st_size
    return files, size


@contextmanager
def _database(path: Path, schema: str) -> Iterator[sqlite3.Connection]:
    """A new database filled in one transaction, its mtime its newest row's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode = MEMORY")
        db.execute("PRAGMA synchronous = OFF")
        db.executescript(schema)
        db.execute("BEGIN")
        yield db
        db.execute("COMMIT")
    finally:
        db.close()


def _touch(path: Path, ms: int) -> None:
    os.utime(path, (ms / 1000, ms / 1000))


def _count(session: Session, totals: list[int]) -> None:
    totals[0] += len(session.rows)
    totals[1] += session.cjk
    totals[2] = max(totals[2], session.now)


def _write_cursor(home: Path, sessions: Iterator[Session]) -> tuple[int, int]:
    """The IDE's global database and a workspace database per folder; a store per CLI chat. A
    database is made once a chat goes into it, as the agent makes it (a small corpus may have
    no IDE chat, hence no IDE database)."""
    user = home / CURSOR_USER
    path = user / "globalStorage/state.vscdb"
    totals = [0, 0, BASE_MS]
    folders: dict[str, list[str]] = {}
    with ExitStack() as stack:
        db: sqlite3.Connection | None = None
        for s in sessions:
            _count(s, totals)
            if isinstance(s, CursorCliSession):
                _write_cursor_cli(home, s)
                continue
            assert isinstance(s, CursorIdeSession)
            if db is None:
                db = stack.enter_context(_database(path, KV_SCHEMA))
                theme = ("workbench.colorTheme", "Cursor Dark")
                db.execute("INSERT INTO ItemTable VALUES (?, ?)", theme)
            db.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", s.kv)
            folders.setdefault(s.project.cwd, []).append(s.session_id)
    if db is not None:
        _touch(path, totals[2])
    for folder, composers in folders.items():
        place = user / "workspaceStorage" / hashlib.md5(folder.encode()).hexdigest()
        index = {
            "allComposers": [{"type": "head", "composerId": c, "name": ""} for c in composers],
            "selectedComposerIds": composers[-1:],
        }
        with _database(place / "state.vscdb", KV_SCHEMA) as db:
            value = orjson.dumps(index).decode()
            db.execute("INSERT INTO ItemTable VALUES (?, ?)", ("composer.composerData", value))
        (place / "workspace.json").write_bytes(orjson.dumps({"folder": file_uri(folder)}))
    return totals[0], totals[1]


def _write_cursor_cli(home: Path, s: CursorCliSession) -> None:
    path = home / s.relpath()
    with _database(path, CLI_SCHEMA) as db:
        db.executemany("INSERT INTO blobs VALUES (?, ?)", s.blobs)
        db.execute("INSERT INTO meta VALUES ('0', ?)", (s.meta,))
    if s.meta_json is not None:
        (path.parent / "meta.json").write_bytes(s.meta_json)
    _touch(path, s.now)


def _write_zcode(home: Path, sessions: Iterator[Session]) -> tuple[int, int]:
    """Every session in one ``.zcode/cli/db/db.sqlite``."""
    path = home / ".zcode/cli/db/db.sqlite"
    totals = [0, 0, BASE_MS]
    with _database(path, SCHEMA) as db:
        for s in sessions:
            assert isinstance(s, ZcodeSession)
            _count(s, totals)
            db.execute(SESSION_SQL, s.session)
            db.executemany(MESSAGE_SQL, s.messages)
            db.executemany(PART_SQL, s.parts)
        db.execute("PRAGMA user_version = 22")
    _touch(path, totals[2])
    return totals[0], totals[1]


def _write_grok(home: Path, sessions: Iterator[Session]) -> tuple[int, int]:
    """Grok Build's session folders and grok-cli's ``.grok/grok.db``, made once a grok-cli
    session goes into it."""
    path = home / ".grok/grok.db"
    totals = [0, 0, BASE_MS]
    workspaces: dict[str, str] = {}
    tool_id = 0
    with ExitStack() as stack:
        db: sqlite3.Connection | None = None
        for s in sessions:
            _count(s, totals)
            if isinstance(s, GrokBuildSession):
                folder = home / s.relpath()
                folder.mkdir(parents=True, exist_ok=True)
                (folder / "updates.jsonl").write_bytes(b"\n".join(s.lines) + b"\n")
                (folder / "summary.json").write_bytes(s.summary)
                _touch(folder / "updates.jsonl", s.now)
                continue
            assert isinstance(s, GrokCliSession)
            db = db or stack.enter_context(_database(path, GROK_DB_SCHEMA))
            workspaces.setdefault(s.project.cwd, s.session[-1])
            db.execute("INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", s.session)
            db.executemany("INSERT INTO messages VALUES (?, ?, ?, ?, ?)", s.messages)
            calls = [(tool_id + i + 1, *call) for i, (call, _) in enumerate(s.tools)]
            results = [(tool_id + i + 1, *result) for i, (_, result) in enumerate(s.tools)]
            tool_id += len(s.tools)
            db.executemany("INSERT INTO tool_calls VALUES (?,?,?,?,?,?,?,?,?)", calls)
            db.executemany(
                "INSERT INTO tool_results (tool_call_row_id, output_kind, output_json, success,"
                " created_at) VALUES (?, ?, ?, ?, ?)",
                results,
            )
        if db is not None:
            rows = [
                (workspace_id(cwd), cwd, cwd, cwd, cwd.rsplit("/", 1)[-1], seen)
                for cwd, seen in workspaces.items()
            ]
            db.executemany("INSERT INTO workspaces VALUES (?, ?, ?, ?, ?, ?)", rows)
            db.execute("PRAGMA user_version = 3")
    if db is not None:
        _touch(path, totals[2])
    return totals[0], totals[1]


def _write_gemini(home: Path, sessions: Iterator[Session]) -> tuple[int, int]:
    """A JSONL file per session, and the project registry and root markers Gemini CLI keeps
    beside them."""
    totals = [0, 0, BASE_MS]
    projects: dict[str, str] = {}
    for s in sessions:
        _count(s, totals)
        projects.setdefault(s.project.cwd, short_id(s.project.cwd))
        _write_lines(home / s.relpath(), s.lines, s.now)
    for cwd, name in projects.items():
        for place in ("tmp", "history"):
            marker = home / ".gemini" / place / name / ".project_root"
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(cwd, encoding="utf-8")
    if projects:
        registry = {"projects": dict(sorted(projects.items()))}
        data = orjson.dumps(registry, option=orjson.OPT_INDENT_2)
        (home / ".gemini/projects.json").write_bytes(data)
    return totals[0], totals[1]


def _write_copilot(home: Path, sessions: Iterator[Session]) -> tuple[int, int]:
    """A folder per session: its ``events.jsonl`` and ``workspace.yaml``."""
    totals = [0, 0, BASE_MS]
    for s in sessions:
        assert isinstance(s, CopilotSession)
        _count(s, totals)
        folder = home / s.relpath()
        _write_lines(folder / "events.jsonl", s.lines, s.now)
        (folder / "workspace.yaml").write_bytes(s.workspace)
        _touch(folder / "workspace.yaml", s.now)
    return totals[0], totals[1]


def _write_opencode(home: Path, sessions: Iterator[Session]) -> tuple[int, int]:
    """Every session, its project, messages and parts in one ``opencode.db``."""
    path = home / OPENCODE_DATA / "opencode.db"
    totals = [0, 0, BASE_MS]
    projects: dict[str, list[int]] = {}
    with _database(path, opencode.SCHEMA) as db:
        for s in sessions:
            assert isinstance(s, OpencodeSession)
            _count(s, totals)
            seen = projects.setdefault(s.project.cwd, [s.plan.start_ms, s.ended])
            seen[:] = [min(seen[0], s.plan.start_ms), max(seen[1], s.ended)]
            db.execute(opencode.SESSION_SQL, s.session)
            db.executemany(opencode.MESSAGE_SQL, s.messages)
            db.executemany(opencode.PART_SQL, s.parts)
        rows = [(opencode.project_id(cwd), cwd, *times) for cwd, times in projects.items()]
        db.executemany(opencode.PROJECT_SQL, rows)
    _touch(path, totals[2])
    return totals[0], totals[1]


def _write_lines(path: Path, lines: list[bytes], ms: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\n".join(lines) + b"\n")
    _touch(path, ms)


def _write_logs(home: Path, sessions: Iterator[Session]) -> tuple[int, int]:
    """Claude Code's or Codex's JSONL logs, a file per session, as the corpus module writes them."""
    totals = [0, 0, BASE_MS]
    for s in sessions:
        _count(s, totals)
        path = home / s.relpath()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\n".join(s.lines) + b"\n")
        _touch(path, s.now)
    return totals[0], totals[1]


WRITE = {
    "claude-code": _write_logs,
    "codex": _write_logs,
    "cursor": _write_cursor,
    "zcode": _write_zcode,
    "grok": _write_grok,
    "gemini": _write_gemini,
    "opencode": _write_opencode,
    "copilot": _write_copilot,
    "qwen": _write_logs,
}
