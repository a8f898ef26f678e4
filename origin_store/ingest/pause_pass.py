"""Between the ingest engine and ephemeral mode's end marks (`pause_marks`): a log's mark from a
stat, a log again from its mark, and how far a mark reaches in the log's content."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..core.db import Store
from ..parsers.base import Source
from ..pause.marks import Mark, grow
from .discovery import LogFile


def mark(store: Store, logs: Iterable[LogFile], since: int) -> int:
    """Note each log's current size as its end mark for the pause that began at `since` (a
    stat each, nothing read); returns how many marks grew."""
    seen: list[Mark] = []
    for log in logs:
        try:
            size = os.stat(log.original).st_size
        except OSError:
            continue  # gone: nothing of it can be recorded
        index = next(i for i, kind in enumerate(log.source.kinds) if kind is log.kind)
        seen.append(Mark(str(log.original), size, since, log.source.name, index, str(log.root)))
    return grow(store, seen)


def marked_log(sources: dict[str, Source], found: Mark) -> LogFile | None:
    """The log a mark is about, as discovery would have found it; None when its agent (or a
    recorded source's journal) is no longer known."""
    source = next((s for s in sources.values() if s.name == found.source), None)
    if source is None or not 0 <= found.kind < len(source.kinds):
        return None
    return LogFile(source, source.kinds[found.kind], Path(found.root), Path(found.path))


def end_of(log: LogFile, found: Mark) -> int | None:
    """Where leaving out stops in the log's content: its mark; for a compressed log (its
    mark is a compressed size, its cursor counts decompressed bytes) every complete line."""
    return None if log.path.name.endswith(".zst") else found.size
