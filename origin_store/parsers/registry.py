"""The one list of parsers: ingestion, settings and tests all look sources up here.

Each agent's own files are its parser module's; the memory and instruction files it keeps under
its root, and those it reads in a project, are added to it from `memory`, which knows them all
(one project file read by several agents is filed under one of them).

Beside the agents, the sources recorded with the `ingest` tool: each is a journal under
ORIGIN_HOME read by `journal` (`recorded`), named by its client rather than listed here, so
`SOURCES` stays the agents whose logs Origin reads and `with_recorded` adds a home's journals.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from . import journal, memory
from .agents import AGENTS
from .base import Source
from .claude_code import transcript as claude_code
from .codex import rollout as codex
from .copilot import source as copilot
from .cursor import source as cursor
from .gemini import source as gemini
from .grok import source as grok
from .opencode import source as opencode
from .qwen import source as qwen
from .zcode import source as zcode


def _with_memories(source: Source) -> Source:
    projects = memory.PROJECT_KINDS.get(source.name)
    return replace(
        source,
        files=source.files + memory.MEMORY_KINDS.get(source.name, ()),
        projects=(projects,) if projects is not None and projects.patterns else (),
    )


SOURCES: dict[str, Source] = {
    source.name: _with_memories(source)
    for source in (
        claude_code.SOURCE,
        codex.SOURCE,
        cursor.SOURCE,
        zcode.SOURCE,
        grok.SOURCE,
        gemini.SOURCE,
        opencode.SOURCE,
        copilot.SOURCE,
        qwen.SOURCE,
    )
}
if tuple(SOURCES) != AGENTS:  # the names alone, for who needs no parser, are kept there
    raise RuntimeError(f"agents.AGENTS must be {tuple(SOURCES)}, in this order")


def get(name: str) -> Source:
    """A source by name; an unknown name is a caller's mistake, so it raises KeyError."""
    try:
        return SOURCES[name]
    except KeyError:
        raise KeyError(f"unknown source {name!r}; known: {', '.join(SOURCES)}") from None


def recorded_id(name: str) -> str:
    """The source id a client's `source` name records under (`journal.recorded_id`): never the
    name of an agent above, so recorded events never share an id or a session with theirs."""
    return journal.recorded_id(name, SOURCES)


@lru_cache(maxsize=1024)
def recorded(name: str) -> Source:
    """The source of a recorded source id (its journal); an agent's name or a name that is not
    a source id is a caller's mistake."""
    if name in SOURCES or not journal.is_recorded_id(name):
        raise KeyError(f"{name!r} is not a recorded source id")
    return journal.source(name)


def recorded_in(home: Path) -> list[str]:
    """The recorded sources whose journals are under `home`, by name."""
    try:
        names = sorted(entry.name[:-6] for entry in (home / journal.JOURNAL_DIR).glob("*.jsonl"))
    except OSError:
        return []
    return [name for name in names if journal.is_recorded_id(name) and name not in SOURCES]


def with_recorded(home: Path) -> dict[str, Source]:
    """The agents, then every source recorded under `home`: what a pass over everything reads."""
    return {**SOURCES, **{name: recorded(name) for name in recorded_in(home)}}
