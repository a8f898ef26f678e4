"""What ingest asks of the operating system: file locks, syncfs, holes, dying with the parent."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
from pathlib import Path

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


def syncfs(path: Path) -> bool:
    """Flush the whole filesystem holding `path` (Linux syncfs); False where that is unavailable."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(path, os.O_RDONLY)
    except (OSError, AttributeError):
        return False
    try:
        return bool(libc.syncfs(fd) == 0)
    except AttributeError:
        return False
    finally:
        os.close(fd)


#: fallocate(2) modes: give the blocks of a range back, the file's size unchanged.
_FALLOC_FL_KEEP_SIZE = 0x01
_FALLOC_FL_PUNCH_HOLE = 0x02


def punch_hole(fd: int, offset: int, length: int) -> bool:
    """Give the file system back the blocks of a byte range, which then reads as zeros while
    the file keeps its size and every other byte its offset (Linux fallocate(2)). False where
    the system or the file system cannot: the bytes then simply stay."""
    if length <= 0:
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fallocate = libc.fallocate
    except (OSError, AttributeError):
        return False
    fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    fallocate.restype = ctypes.c_int
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
