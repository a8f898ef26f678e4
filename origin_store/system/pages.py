"""Dropping a file's pages from this process's map (not from the page cache): Linux only.

The store maps its whole data file, and every page a read touches stays mapped in the process,
with up to 16 cached neighbours per fault (the kernel's fault-around): RSS that `top` shows for
each of a user's servers, made of page-cache pages. ``madvise(MADV_DONTNEED)`` on a shared file
map unmaps them: the pages stay cached (a page a write dirtied stays dirty in the cache, so
nothing is lost) and the next read maps them again with a minor fault.

MADV_DONTNEED on private anonymous memory zeroes it, so a range is only ever one this process
maps from the named file and keeps mapped while it is released (`Store.release_pages` holds
the lock its close and remaps take).
"""

from __future__ import annotations

import os
from pathlib import Path

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_MADV_DONTNEED = 4


def mapped_file_bytes() -> int | None:
    """Resident pages of this process backed by files or shared memory (``statm``'s third
    number, libraries included), in bytes; None where ``/proc`` has no such file."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[2]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def mapped_ranges(path: Path) -> list[tuple[int, int]]:
    """(start, length) of each of this process's maps of the file at `path`."""
    wanted = str(path)
    out: list[tuple[int, int]] = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split(maxsplit=5)
                if len(parts) == 6 and parts[5].rstrip("\n") == wanted:
                    lo, _, hi = parts[0].partition("-")
                    start = int(lo, 16)
                    out.append((start, int(hi, 16) - start))
    except OSError:
        return []
    return out


def release(ranges: list[tuple[int, int]]) -> int:
    """Unmap these ranges' pages from this process; how many ranges the kernel accepted."""
    if not ranges:
        return 0
    import ctypes

    madvise = ctypes.CDLL(None, use_errno=True).madvise
    madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    madvise.restype = ctypes.c_int
    return sum(1 for start, length in ranges if madvise(start, length, _MADV_DONTNEED) == 0)
