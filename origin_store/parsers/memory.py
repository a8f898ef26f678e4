"""Agents' own memory and instruction files (CLAUDE.md, AGENTS.md, MEMORY.md, rules) as events.

An agent rewrites these files in place, so the engine reads each one whole (`FileKind.whole`) and
appends a row log line each time its text changes: every line here is a version of one file. Its
event's id holds a digest of the text, so the same text read again is the same event, and each
file is a session of its own (`memory:<path>`), titled with its path under its agent's home or
its project, so `timeline` shows a file's versions in order. Which files each agent reads:
research/formats.md §1.6, §2.6, §3.5, §4.5, §5.4, §8.5, §9.4, §10.4, §11.4; how they become entries: docs/memory.md.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from ..model import EventRecord, ParseProblem, Record, SessionFact
from .base import FILE_TABLE, FileKind, StateFactory, build_events, row_parser, safe_time

#: A memory file's session is named by the file alone; its title is the only one it ever has.
TITLE_RANK = 30
SESSION_PREFIX = "memory:"

#: Files each agent keeps under its own root (globs relative to the source's roots). Cursor keeps
#: its user rules and memories in its settings and cloud, not in files (§3.5).
USER_FILES: dict[str, tuple[str, ...]] = {
    "claude-code": ("CLAUDE.md", "rules/**/*.md", "projects/*/memory/**/*.md"),
    "codex": ("AGENTS.md", "AGENTS.override.md", "memories/**/*.md"),
    "cursor": (),
    "zcode": ("skills/*/SKILL.md",),
    "grok": ("AGENTS.md", "AGENTS.override.md", "memory/**/*.md"),
    "gemini": ("GEMINI.md",),
    # OpenCode's roots include its config directory, where its global instructions live.
    "opencode": ("AGENTS.md", "AGENTS.local.md"),
    "copilot": ("copilot-instructions.md",),
    "qwen": ("QWEN.md", "projects/*/memory/**/*.md"),
}

#: Files each agent reads in a project directory (globs relative to each of `project_dirs`).
PROJECT_FILES: dict[str, tuple[str, ...]] = {
    "claude-code": ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", ".claude/rules/**/*.md"),
    "codex": ("AGENTS.md", "AGENTS.override.md"),
    "cursor": (".cursor/rules/**/*.mdc", ".cursorrules", "AGENTS.md"),
    "zcode": ("CLAUDE.md",),
    "grok": (
        "AGENTS.md",
        "Agents.md",
        "AGENT.md",
        "AGENTS.override.md",
        "CLAUDE.md",
        "Claude.md",
        "CLAUDE.local.md",
        ".grok/rules/**/*.md",
        ".claude/rules/**/*.md",
        ".cursor/rules/**/*.md",
    ),
    "gemini": ("GEMINI.md",),
    "opencode": (
        "AGENTS.md",
        "AGENTS.local.md",
        "CLAUDE.md",
        "CLAUDE.local.md",
        "CONTEXT.md",
    ),
    "copilot": (
        ".github/copilot-instructions.md",
        ".github/instructions/**/*.instructions.md",
        "AGENTS.md",
    ),
    "qwen": ("QWEN.md", "AGENTS.md"),
}

#: Several agents read one project file (CLAUDE.md: Claude Code, ZCode, Grok Build); it is filed
#: under the first of these that reads it, the agent whose convention it is, so that it gives
#: one stream of events whichever agent's session led to it.
OWNER_ORDER: tuple[str, ...] = (
    "claude-code",
    "codex",
    "cursor",
    "grok",
    "zcode",
    "gemini",
    "opencode",
    "copilot",
    "qwen",
)


def project_owner(rel: str) -> str | None:
    """The source a project file (its path relative to the project directory) is filed under,
    or None when no agent reads it."""
    for source in OWNER_ORDER:
        if any(_glob_matches(pattern, rel) for pattern in PROJECT_FILES[source]):
            return source
    return None


def _glob_matches(pattern: str, rel: str) -> bool:
    """Discovery's glob semantics on a relative path: `**` is zero or more whole components."""

    def match(parts: list[str], names: list[str]) -> bool:
        if not parts:
            return not names
        if parts[0] == "**":
            return any(match(parts[1:], names[skip:]) for skip in range(len(names) + 1))
        return bool(names) and fnmatchcase(names[0], parts[0]) and match(parts[1:], names[1:])

    return match(pattern.split("/"), rel.split("/"))


def _pure(path: str) -> PurePosixPath | PureWindowsPath:
    windows = ":\\" in path[:3] or path.startswith("\\\\")
    return PureWindowsPath(path) if windows else PurePosixPath(path)


def project_dirs(cwd: str, top: str | None = None) -> list[str]:
    """The directories whose project files a session in `cwd` reads: from `top` (its git root)
    down to `cwd`; `cwd` alone when `top` is None or is not `cwd` or one of its parents."""
    here = _pure(cwd)
    if top is not None:
        root = _pure(top)
        if root == here or root in here.parents:
            chain = [here, *(p for p in here.parents if p == root or root in p.parents)]
            return [str(p) for p in reversed(chain)]
    return [str(here)]


# --- the parser -----------------------------------------------------------------------------

_DIGEST = re.compile(r"[0-9a-f]{16}")


def memory_id(source: str, path: str, text: str) -> str:
    """A version's event id: the file and a digest of its text, so that the same text read again
    (a touched file, a reverted one, another pass) is the same event and never a second one."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{source}:memory:{path}@{digest}"


def memory_file(event: EventRecord) -> tuple[str, str] | None:
    """(the file's path, the digest of this version's text) of a memory event, else None."""
    if event.kind != "memory":
        return None
    head, found, rest = event.id.partition(":memory:")
    path, at, digest = rest.rpartition("@")
    if not (head and found and at and path and _DIGEST.fullmatch(digest)):
        return None
    return path, digest


@dataclass(frozen=True, slots=True)
class _Start:
    """A memory file's first state: the path under the root says where the file sits; the line
    names the file. A class, not a closure: a large ingest sends its files' kinds to worker
    processes, which must be able to unpickle them."""

    source: str
    scope: str

    def __call__(self, rel: str) -> dict[str, Any]:
        return {"source": self.source, "scope": self.scope, "rel": rel}


def _starter(source: str, scope: str) -> StateFactory:
    return _Start(source, scope)


def _place(path: str, rel: str) -> tuple[str, str]:
    """(the directory the file was found under, the path under it), from the path the line names
    and the one `start` was given: the state stays a few fields, and a path that does not end as
    expected (a link resolved differently) still gets its folder and name."""
    posix = path.replace("\\", "/") if isinstance(_pure(path), PureWindowsPath) else path
    if rel and posix.endswith("/" + rel):
        base = path[: len(posix) - len(rel) - 1]
        return base or path[:1], rel
    pure = _pure(path)
    return str(pure.parent), pure.name


@row_parser
def parse(table: str, path: str, values: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """One version of a memory file: its event and its session's title (and cwd)."""
    text = values.get("text")
    source = state.get("source")
    if table != FILE_TABLE or not path or not isinstance(text, str):
        return [ParseProblem("bad-field", "a memory file's line needs table file, a path, a text")]
    if not isinstance(source, str) or not source:
        return [ParseProblem("bad-state", "a memory file's state names no source")]
    out: list[Record] = []
    mtime = values.get("mtime_ms", 0)
    if type(mtime) is not int or safe_time(mtime) is None:  # negative, or past year 3000
        out.append(ParseProblem("bad-field", f"mtime_ms {str(mtime)[:40]}"))
        mtime = 0
    rel = state.get("rel")
    base, under = _place(path, rel if isinstance(rel, str) else "")
    cwd = base if state.get("scope") == "project" else None
    session = SESSION_PREFIX + path
    name = _pure(base).name
    title = f"{name}/{under}" if name else under
    fact = SessionFact(session, source, title=title, title_rank=TITLE_RANK, cwd=cwd, time=mtime)
    out.append(fact)
    out.extend(
        build_events(
            memory_id(source, path, text),
            [(0, "system", "memory", text)],
            source=source,
            time=mtime,
            session=session,
            cwd=cwd,
            state=state,
        )
    )
    return out


def _kind(name: str, patterns: tuple[str, ...], start: StateFactory) -> FileKind:
    return FileKind(name=name, patterns=patterns, parse=parse, start=start, whole=True)


#: Each agent's files under its own root, to add to its Source's files (none for Cursor).
MEMORY_KINDS: dict[str, tuple[FileKind, ...]] = {
    source: (_kind("memory", patterns, _starter(source, "user")),) if patterns else ()
    for source, patterns in USER_FILES.items()
}

#: How a project file is read once found, by the source it is filed under (`project_owner`):
#: a whole file whose path relative to its project directory is given to `start`.
PROJECT_KINDS: dict[str, FileKind] = {
    source: _kind(
        "project_memory",
        tuple(p for p in PROJECT_FILES[source] if project_owner(p) == source),
        _starter(source, "project"),
    )
    for source in OWNER_ORDER
}
