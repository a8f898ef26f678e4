"""A serving process's mapped archive pages, kept under a budget.

LMDB maps the whole store and tantivy every index segment. Each page a search reads stays
mapped in the process, and each fault maps up to 16 cached neighbours with it (the kernel's
fault-around), so a long-running `origin mcp` or hub over 10M events grew to ~1.7 GB of RSS
made of page-cache pages: nothing it allocated, but what `top` shows for each agent's server,
and mapped pages are the last the kernel reclaims under pressure.

Past the budget, the process unmaps its maps of files under ``ORIGIN_HOME`` (``madvise`` with
``MADV_DONTNEED``). The pages stay in the page cache and the store's shared map loses nothing
(a dirty page stays dirty in the cache); the next reads map them again with minor faults, a few
hundred microseconds for the next search. Linux only: elsewhere nothing is measured or unmapped.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_MADV_DONTNEED = 4
#: The reader table of LMDB's lock file is read by every transaction: never worth unmapping.
_KEEP = frozenset({"lock.mdb"})
#: Reading the process's page counts costs ~10 µs; at most once a second keeps it off the
#: answer of a busy hub.
CHECK_EVERY_S = 1.0


def mapped_file_bytes() -> int | None:
    """Resident pages of this process backed by files or shared memory (``statm``'s third
    number, libraries included), in bytes; None where ``/proc`` has no such file."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[2]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def archive_maps(home: Path) -> list[tuple[int, int]]:
    """(start, length) of each of this process's maps of a file under ``home``."""
    prefix = str(home.resolve()) + os.sep
    out: list[tuple[int, int]] = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split(maxsplit=5)
                if len(parts) < 6:
                    continue
                path = parts[5].rstrip("\n")
                if not path.startswith(prefix) or os.path.basename(path) in _KEEP:
                    continue
                lo, _, hi = parts[0].partition("-")
                start = int(lo, 16)
                out.append((start, int(hi, 16) - start))
    except OSError:
        return []
    return out


def unmap(maps: list[tuple[int, int]]) -> int:
    """Drop these ranges' pages from this process (not from the page cache); how many ranges
    the kernel accepted."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    madvise = libc.madvise
    madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    madvise.restype = ctypes.c_int
    return sum(1 for start, length in maps if madvise(start, length, _MADV_DONTNEED) == 0)


@dataclass(slots=True)
class Trims:
    checks: int = 0
    trims: int = 0
    last_before: int = 0  # bytes mapped before the last trim
    last_after: int = 0


class Footprint:
    """The budget of one process: :meth:`check` after each answer, cheap when not due."""

    def __init__(self, home: Path, budget_bytes: int, every_s: float = CHECK_EVERY_S) -> None:
        self.home = home
        self.budget = budget_bytes
        self.every_s = every_s
        self.stats = Trims()
        self._due = 0.0
        self._lock = threading.Lock()

    def check(self) -> bool:
        """Unmap the archive's pages when the mapped total is over budget; True when it did."""
        if self.budget <= 0:
            return False
        now = time.monotonic()
        if now < self._due or not self._lock.acquire(blocking=False):
            return False
        try:
            self._due = now + self.every_s
            self.stats.checks += 1
            before = mapped_file_bytes()
            if before is None or before <= self.budget:
                return False
            unmap(archive_maps(self.home))
            self.stats.trims += 1
            self.stats.last_before = before
            self.stats.last_after = mapped_file_bytes() or 0
            return True
        finally:
            self._lock.release()
