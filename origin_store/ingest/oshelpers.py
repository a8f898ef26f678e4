"""What ingest asks of the operating system: file locks, syncfs, dying with the parent."""

from __future__ import annotations

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
