"""What ingest asks of the operating system: file locks, syncfs, holes, dying with the parent."""

from __future__ import annotations

import errno
import fcntl
import functools
import hashlib
import os
from pathlib import Path
from typing import Any

#: Per-file ingest locks are striped over this many lock files.
LOCK_STRIPES = 1024


class FileLock:
    """An exclusive advisory lock; the OS drops it when its holder dies, even by SIGKILL."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = -1

    def __enter__(self) -> FileLock:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def stripe_lock(lock_root: Path, key: bytes) -> FileLock:
    """The lock of the stripe a file hashes to: a fixed set of lock files, because creating
    one per log file cost ~0.5 ms each on a busy disk; two files sharing a stripe only wait."""
    stripe = int.from_bytes(hashlib.blake2b(key, digest_size=4).digest(), "big") % LOCK_STRIPES
    return FileLock(lock_root / f"{stripe:03x}.lock")


@functools.cache
def _libc() -> Any:
    """The C library's functions, loaded once per process (None where it cannot be): each
    row log a pass reads punches a hole, and loading the library cost a dlopen each time."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True)
    except (OSError, AttributeError):
        return None


@functools.cache
def _fallocate() -> Any:
    import ctypes

    fallocate = getattr(_libc(), "fallocate", None)
    if fallocate is not None:
        fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
        fallocate.restype = ctypes.c_int
    return fallocate


def syncfs(path: Path) -> bool:
    """Flush the whole filesystem holding `path` (Linux syncfs); False where that is unavailable."""
    call = getattr(_libc(), "syncfs", None)
    if call is None:
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return bool(call(fd) == 0)
    finally:
        os.close(fd)


#: fallocate(2) modes: give the blocks of a range back, the file's size unchanged.
_FALLOC_FL_KEEP_SIZE = 0x01
_FALLOC_FL_PUNCH_HOLE = 0x02


def punch_hole(fd: int, offset: int, length: int) -> bool:
    """Give the file system back the blocks of a byte range, which then reads as zeros while
    the file keeps its size and every other byte its offset (Linux fallocate(2)). False where
    the system or the file system cannot: the bytes then simply stay."""
    fallocate = _fallocate()
    if length <= 0 or fallocate is None:
        return False
    mode = _FALLOC_FL_PUNCH_HOLE | _FALLOC_FL_KEEP_SIZE
    return bool(fallocate(fd, mode, offset, length) == 0)


def next_hole(fd: int, start: int) -> int:
    """Where the first hole at or after `start` begins: the file's size when there is none
    (the end counts as one), and also where the system cannot tell holes from data."""
    size = os.fstat(fd).st_size
    if start >= size:
        return size
    try:
        return os.lseek(fd, start, os.SEEK_HOLE)
    except (OSError, AttributeError):  # no SEEK_HOLE here: holes are never punched either
        return size


def next_data(fd: int, start: int) -> int:
    """Where the first data at or after `start` begins: the file's size when only a hole
    follows; `start` itself where the system cannot tell holes from data."""
    try:
        return os.lseek(fd, start, os.SEEK_DATA)
    except OSError as error:
        if error.errno == errno.ENXIO:
            return max(start, os.fstat(fd).st_size)
        return start
    except AttributeError:
        return start


def die_with_parent(parent: int) -> None:
    """Linux: end this process when the parent ends, however it ends (also if it already did)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)
