"""The one list of parsers: ingestion, settings and tests all look sources up here.

Each agent's own files are its parser module's; the memory and instruction files it keeps under
its root, and those it reads in a project, are added to it from `memory`, which knows them all
(one project file read by several agents is filed under one of them).
"""

from __future__ import annotations

from dataclasses import replace

from . import claude_code, codex, cursor, grok, memory, zcode
from .base import Source


def _with_memories(source: Source) -> Source:
    projects = memory.PROJECT_KINDS.get(source.name)
    return replace(
        source,
        files=source.files + memory.MEMORY_KINDS.get(source.name, ()),
        projects=(projects,) if projects is not None and projects.patterns else (),
    )


SOURCES: dict[str, Source] = {
    source.name: _with_memories(source)
    for source in (claude_code.SOURCE, codex.SOURCE, cursor.SOURCE, zcode.SOURCE, grok.SOURCE)
}


def get(name: str) -> Source:
    """A source by name; an unknown name is a caller's mistake, so it raises KeyError."""
    try:
        return SOURCES[name]
    except KeyError:
        raise KeyError(f"unknown source {name!r}; known: {', '.join(SOURCES)}") from None
