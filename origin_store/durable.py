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
