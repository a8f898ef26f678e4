"""GitHub Copilot CLI: where its logs live and how each of its files is read (research/formats.md
§11). A session is a directory `session-state/<sessionId>/`: its `events.jsonl` (events.py) is
the session, its `workspace.yaml` (workspace.py) names it. Nothing else there is read: the
checkpoints, rewind snapshots and `session-store.db` restate what the events say, and the
settings and config files are never opened.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..base import FileKind, Source
from . import events, workspace
from .events import NAME

__all__ = ["EVENTS", "NAME", "SOURCE", "WORKSPACE", "roots"]


def roots(environ: Mapping[str, str], home: Path) -> list[Path]:
    """COPILOT_HOME moves the whole of `~/.copilot` (`copilot help environment`)."""
    configured = environ.get("COPILOT_HOME")
    return [Path(configured)] if configured else [home / ".copilot"]


EVENTS = FileKind(
    name="events",
    patterns=("session-state/*/events.jsonl", "session-state/*.jsonl"),
    parse=events.parse,
    start=events.start,
)

WORKSPACE = FileKind(
    name="workspace",
    patterns=("session-state/*/workspace.yaml",),
    parse=workspace.parse,
    start=workspace.start,
    whole=True,
)

SOURCE = Source(name=NAME, roots=roots, files=(EVENTS, WORKSPACE))
