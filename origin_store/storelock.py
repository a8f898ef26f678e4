"""Who has the store open: every `Store` holds a shared lock on one file while it is open, and
`origin compact`, which puts a new data file in place of the old, takes it alone.

LMDB's own lock file cannot say it: its locks are POSIX record locks, which a process drops on
closing any descriptor of the file, so no second descriptor may probe them while LMDB has the
file open (`lmdb_users` probes them only where this process has the store closed: an Origin from
before this lock still takes them).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from .errors import StoreBusy

#: In the store's directory, beside LMDB's two files.
LOCK_FILE = "users.lock"

#: Said by every refusal: what holds a store open, and what to do.
STOP_OTHERS = (
    "stop what has it open (agents' `origin mcp`, `origin hub`, `origin ui`, `origin run`, an "
    "ingest) and try again"
)


def hold(store_dir: Path, *, alone: bool = False) -> int:
    """A descriptor holding the store's lock, shared (a process using the store) or `alone`
    (the one that replaces its file); StoreBusy when it cannot be had now."""
    fd = os.open(store_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if alone else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        if alone:
            raise StoreBusy(
                f"The store at {store_dir} is open in another process: {STOP_OTHERS}."
            ) from None
        raise StoreBusy(
            f"The store at {store_dir} is being compacted (`origin compact`); try again when it ends."
        ) from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def release(fd: int) -> None:
    os.close(fd)  # closing drops the flock


def refuse_lmdb_users(store_dir: Path) -> None:
    """StoreBusy where another process has LMDB's environment open (an Origin from before the
    store's lock holds LMDB's lock alone)."""
    fd = lmdb_users(store_dir)
    if fd is None:
        raise StoreBusy(f"The store at {store_dir} is open in another process: {STOP_OTHERS}.")
    if fd >= 0:
        os.close(fd)


def lmdb_users(store_dir: Path) -> int | None:
    """A descriptor of LMDB's lock file holding the write lock LMDB's first opener takes (so no
    other process has the environment open, and one that opens it now waits), or None when
    another process has it open. Call only while this process has no environment of it open:
    closing the descriptor drops every record lock this process holds on the file."""
    path = store_dir / "lock.mdb"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return -1  # never opened: nobody has it
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
    except OSError:
        os.close(fd)
        return None
    return fd
