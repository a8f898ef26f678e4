"""The index directory: its version file, the lock serialising opens, and wiping it for a rebuild.

Only files that look like a search index are ever deleted, and never while another process
holds tantivy's writer lock.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from origin_store.system.durable import sync_dir, write_whole

from .errors import IndexBusy, IndexUnavailable

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, opens are not serialised
    fcntl = None  # type: ignore[assignment]

VERSION_FILE = "origin-search.version"
#: Present from an index's recreation until the first commit after it: the index may be empty
#: while the store's mark says everything is indexed, so whoever writes next must start over.
REBUILD_FILE = "origin-search.rebuild"
#: Serialises open/create/wipe between processes; it survives wipes.
OPEN_LOCK_FILE = "origin-search.lock"
_TANTIVY_WRITER_LOCK = ".tantivy-writer.lock"


@contextmanager
def locked(path: Path) -> Iterator[None]:
    if fcntl is None:
        yield
        return
    with open(path, "a+b") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _writer_lock_held(path: Path) -> bool:
    """Whether a process holds tantivy's writer lock of the index or of any partition in it
    (an index of schema 5 and before had one, at its root)."""
    if fcntl is None:
        return False
    locks = [path / _TANTIVY_WRITER_LOCK, *path.glob(f"*/{_TANTIVY_WRITER_LOCK}")]
    for lock in locks:
        if not lock.exists():
            continue
        with open(lock, "a+b") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(f, fcntl.LOCK_UN)
    return False


def _looks_like_ours(path: Path) -> bool:
    names = {e.name for e in path.iterdir()} - {OPEN_LOCK_FILE}
    return not names or bool(names & {VERSION_FILE, REBUILD_FILE, "meta.json"})


def wipe(path: Path) -> None:
    if not _looks_like_ours(path):
        raise IndexUnavailable(
            f"{path} holds files that are not a search index; refusing to delete them."
        )
    if _writer_lock_held(path):
        raise IndexBusy(
            f"The search index at {path} must be rebuilt, but another process is writing to it."
        )
    for entry in path.iterdir():
        if entry.name == OPEN_LOCK_FILE:
            continue
        if entry.is_dir() and not entry.is_symlink():
            import shutil  # only a rebuild needs it; a fresh process's first search does not

            shutil.rmtree(entry)
        else:
            entry.unlink()


def read_version(path: Path) -> str | None:
    try:
        return (path / VERSION_FILE).read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return None


def write_version(path: Path, version: str) -> None:
    write_whole(path / VERSION_FILE, version.encode(), mode=0o644)


def mark_rebuild(path: Path) -> None:
    """Say, durably, that the index must be emptied and fed again before it is trusted."""
    write_whole(path / REBUILD_FILE, b"", mode=0o644)


def rebuild_marked(path: Path) -> bool:
    return (path / REBUILD_FILE).exists()


def clear_rebuild(path: Path) -> None:
    """The index holds what the store's mark says again (a commit after the rebuild began)."""
    try:
        os.unlink(path / REBUILD_FILE)
    except FileNotFoundError:
        return
    sync_dir(path)
