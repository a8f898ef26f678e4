"""Gemini CLI: where its logs live and how each of its files is read (research/formats.md §8).

Its home is `~/.gemini`, or `$GEMINI_CLI_HOME/.gemini`: the variable replaces the home directory
in every path Gemini CLI builds (`homedir()` in packages/core/src/utils/paths.ts). Sessions are
under `tmp/<project>/chats/`, read by chat.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..base import FileKind, Source
from .chat import NAME, parse, start

__all__ = ["CHATS", "NAME", "SOURCE", "roots"]


def roots(environ: Mapping[str, str], home: Path) -> list[Path]:
    """`$GEMINI_CLI_HOME/.gemini` when the variable is set, and `~/.gemini`, where sessions
    written before it was set stay."""
    default = home / ".gemini"
    configured = environ.get("GEMINI_CLI_HOME")
    if not configured or Path(configured) / ".gemini" == default:
        return [default]
    return [Path(configured) / ".gemini", default]


#: The session files and the sub-agents' (one folder per parent session). A file restates its
#: messages (a message written again when it changes, the history copied on each resume), so
#: its batches upsert.
CHATS = FileKind(
    name="chat",
    patterns=("tmp/*/chats/session-*.jsonl", "tmp/*/chats/*/*.jsonl"),
    parse=parse,
    start=start,
    rewrites=True,
)

SOURCE = Source(name=NAME, roots=roots, files=(CHATS,))
