"""Who has the store open: every `Store` holds a shared lock on one file while it is open, and
`origin compact`, which puts a new data file in place of the old, takes it alone.

LMDB's own lock file cannot say it: its locks are POSIX record locks, which a process drops on
closing any descriptor of the file, so no second descriptor may probe them while LMDB has the
file open (`lmdb_alone` probes them only where this process has the store closed: an Origin from
before this lock still takes them).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import StoreBusy

#: In the store's directory, beside LMDB's two files.
LOCK_FILE = "users.lock"

#: Said by every refusal: what holds a store open, and what to do.
STOP_OTHERS = (
    "stop what has it open (agents' `origin mcp`, `origin hub`, `origin ui`, `origin run`, an "
    "ingest) and try again"
)


def in_use(store_dir: Path) -> StoreBusy:
    """The refusal of what needs the store to itself while another process has it open."""
    return StoreBusy(f"The store at {store_dir} is open in another process: {STOP_OTHERS}.")


def hold(store_dir: Path, *, alone: bool = False) -> int:
    """A descriptor holding the store's lock, shared (a process using the store) or `alone`
    (the one that replaces its file); StoreBusy when it cannot be had now."""
    fd = os.open(store_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if alone else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        if alone:
            raise in_use(store_dir) from None
        raise StoreBusy(
            f"The store at {store_dir} is being compacted (`origin compact`); try again when it ends."
        ) from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def release(fd: int) -> None:
    os.close(fd)  # closing drops the flock


@contextmanager
def lmdb_alone(store_dir: Path) -> Iterator[None]:
    """Holding the write lock LMDB's first opener takes on its lock file: no other process has
    the environment open (else StoreBusy), and one that opens it meanwhile waits. Only while
    this process has no environment of it open: closing the descriptor drops every record
    lock this process holds on the file."""
    try:
        fd = os.open(store_dir / "lock.mdb", os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        yield  # never opened: nobody has it
        return
    try:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
        except OSError:
            raise in_use(store_dir) from None
        yield
    finally:
        os.close(fd)
