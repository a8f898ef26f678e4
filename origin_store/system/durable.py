"""Making a file's creation or rename survive a power loss: the file's own fsync is not enough,
its directory's entry must reach the disk too. Small files written whole (the pause flag) and
files made on first use (a source's journal) both need it."""

from __future__ import annotations

import os
from pathlib import Path


def sync_dir(directory: Path) -> None:
    """fsync `directory`; a file system that cannot (or a directory gone) is left as it is: the
    write itself succeeded, and only its durability across a power loss is at stake."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_whole(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Replace `path` with `data`, whole or not at all, on disk before this returns, with
    exactly `mode` (0600: never readable by others, not even while it is written): a temporary
    file beside it, fsynced, renamed over it, and the directory synced. A failure leaves the old
    file as it was and no temporary behind, and raises the OSError."""
    import threading

    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        try:
            os.write(fd, data)
            os.fchmod(fd, mode)  # the umask may have taken bits a reader needs, or left some
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    sync_dir(path.parent)
