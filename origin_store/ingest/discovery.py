"""Finding agents' log files, and which of them changed since their cursors."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISREG

import lmdb

from .. import keys
from ..db import Store
from ..globwalk import match_many
from ..parsers.base import FileKind, Source
from ..records import Cursor
from ..settings import Settings


@dataclass(slots=True)
class LogFile:
    source: Source
    kind: FileKind
    root: Path
    path: Path

    @property
    def rel(self) -> str:
        return self.path.relative_to(self.root).as_posix()

    @property
    def key(self) -> bytes:
        """Its cursor's key in `files`."""
        return keys.text_key(str(self.path))


def discover(sources: dict[str, Source], settings: Settings) -> list[LogFile]:
    """Every log file of every known agent under its default root (moved by its env var)."""
    found: list[LogFile] = []
    seen: set[str] = set()
    for source in sources.values():
        for root in source.roots(settings.environ, settings.user_home):
            if not root.is_dir():
                continue
            # One walk for all of the agent's patterns: this runs before every search that ingests.
            kinds = [(kind, pattern) for kind in source.files for pattern in kind.patterns]
            matches = match_many(str(root), [pattern for _, pattern in kinds])
            for (kind, _), matched in zip(kinds, matches, strict=True):
                for name in sorted(matched):
                    if name in seen:
                        continue
                    if name.endswith(".zst") and os.path.exists(name[:-4]):
                        continue  # the agent decompressed it to append: the plain file wins
                    seen.add(name)
                    # Directories named like logs are left out by the stat in changed_files.
                    found.append(LogFile(source, kind, root, Path(name)))
    return found


def read_cursor(store: Store, txn: lmdb.Transaction, log: LogFile) -> Cursor | None:
    found: Cursor | None = store.get(txn, "files", log.key)
    return found


def total_pending_bytes(store: Store, files: list[LogFile]) -> int:
    """Bytes not yet ingested, for progress bars."""
    total = 0
    with store.read() as txn:
        for log in files:
            try:
                size = log.path.stat().st_size
            except OSError:
                continue
            cursor = read_cursor(store, txn, log)
            done = cursor["size"] if cursor and cursor.get("size", 0) <= size else 0
            total += max(0, size - done)
    return total


def unchanged(cursor: Cursor | None, st: os.stat_result) -> bool:
    """Whether a file's size, mtime and inode are those its cursor remembers."""
    return cursor is not None and (cursor["size"], cursor["mtime"], cursor["ino"]) == (
        st.st_size,
        st.st_mtime_ns,
        st.st_ino,
    )


def changed_files(store: Store, logs: list[LogFile]) -> list[LogFile]:
    """Files whose size, mtime or inode differ from their cursor (no locks, one read)."""
    changed = []
    with store.read() as txn:
        for log in logs:
            cursor = read_cursor(store, txn, log)
            try:
                st = os.stat(log.path)
            except OSError:
                continue
            if not S_ISREG(st.st_mode):
                continue
            if not unchanged(cursor, st):
                changed.append(log)
    return changed
