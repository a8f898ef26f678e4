"""The shape every agent's parser module fills in, and small pure helpers they share.

A parser is pure: it gets the raw bytes of one complete line (without the newline), the line's
number (1-based) and a per-file ``state`` dict that it may read and update, and returns records.
The store keeps ``state`` with the file's cursor (it must stay JSON-serialisable and small), so
parsing resumes exactly where it stopped, across passes and processes. No I/O, no LMDB here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..model import Record

LineParser = Callable[[bytes, int, dict], list[Record]]
StateFactory = Callable[[str], dict]


@dataclass(frozen=True, slots=True)
class FileKind:
    """One kind of file an agent writes, found by glob under the agent's root."""

    name: str
    patterns: tuple[str, ...]  # globs relative to the source root, e.g. "projects/**/*.jsonl"
    parse: LineParser
    start: StateFactory  # initial state from the path relative to the root (posix form)


@dataclass(frozen=True, slots=True)
class Source:
    """An agent: where its logs live and how each of its files is read."""

    name: str
    roots: Callable[[Mapping[str, str], Path], list[Path]]  # (environ, home) -> candidate roots
    files: tuple[FileKind, ...]


def parse_time(value: object) -> int | None:
    """ISO 8601 strings, epoch seconds or epoch milliseconds (a number > 1e11) → UTC epoch ms."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value) if value > 1e11 else int(value * 1000)
    if isinstance(value, str) and value:
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            return None
        if parsed.tzinfo is None:
            from datetime import UTC

            parsed = parsed.replace(tzinfo=UTC)
        return int(parsed.timestamp() * 1000)
    return None


def image_placeholder(media_type: str | None, data_length: int) -> str:
    """What stands in the text for an inline base64 image: its type and decoded size."""
    return f"[image {media_type or 'unknown'} {data_length * 3 // 4} bytes]"
