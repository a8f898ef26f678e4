"""The one list of parsers: ingestion, settings and tests all look sources up here."""

from __future__ import annotations

from . import claude_code, codex
from .base import Source

SOURCES: dict[str, Source] = {source.name: source for source in (claude_code.SOURCE, codex.SOURCE)}


def get(name: str) -> Source:
    """A source by name; an unknown name is a caller's mistake, so it raises KeyError."""
    try:
        return SOURCES[name]
    except KeyError:
        raise KeyError(f"unknown source {name!r}; known: {', '.join(SOURCES)}") from None
