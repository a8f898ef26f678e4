"""A serving process's mapped store and index pages, kept under a budget.

LMDB maps the whole store and tantivy every index segment, and each page a search reads stays
mapped in the process with up to 16 cached neighbours per fault (the kernel's fault-around): at
10M events an `origin mcp` that had answered 240 searches held 1.7 GB of RSS, ~0.7 GB of it the
store's pages and ~0.8 GB the index's (its own memory: 48 MiB). That is what `top` shows for
each agent's server, and mapped pages are the last the kernel reclaims.

So after each answer, at most every 20 ms, the process reads its file-backed RSS
(`pages.mapped_file_bytes`), and past the budget, having grown by a quarter of it since the
last time, it releases them on a thread of its own (`Origin._release_pages`): the store unmaps
its pages (`Store.release_pages`), and the index is let go of and opened again, so that tantivy
unmaps its files itself once no search uses them. (Unmapping tantivy's ranges from outside would
race with tantivy unmapping a merged segment, whose range may then become heap, which
MADV_DONTNEED zeroes.) The pages stay cached and are mapped again by the next reads. Linux
only: elsewhere nothing is measured or released.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from origin_store.system.pages import mapped_file_bytes

#: Reading the process's page counts costs ~10 µs, so at most 50 reads a second (0.5 ms of a
#: busy hub's second). Once a second was too rare: at 10M events a search takes ~5 ms and maps
#: tens of MB of postings it had not read before (70-95 MB for one heavy query in a new
#: process), so a second of searches mapped up to a GB before the check saw it (peaks of
#: 1,074-1,423 MiB with a 400 MiB budget).
CHECK_EVERY_S = 0.02


@dataclass(slots=True)
class Trims:
    checks: int = 0
    trims: int = 0
    last_before: int = 0  # bytes mapped before the last unmapping
    last_after: int = 0


class Footprint:
    """The budget of one process: :meth:`check` after each answer, cheap when not due.

    The unmapping (a walk of the page tables: ~10 ms for 500 MB mapped) runs on a thread of its
    own, so that it never lands in the answer that found the process over budget."""

    def __init__(
        self, budget_bytes: int, release: Callable[[], object], every_s: float = CHECK_EVERY_S
    ) -> None:
        self.budget = budget_bytes
        self.every_s = every_s
        self.stats = Trims()
        self._release = release
        self._due = 0.0
        self._lock = threading.Lock()  # held from a check that starts an unmapping to its end

    def check(self) -> bool:
        """Start unmapping when the mapped total is over budget and has grown by a quarter of
        it since the last unmapping; True when it did (:meth:`wait` for it to end)."""
        if self.budget <= 0:
            return False
        now = time.monotonic()
        if now < self._due or not self._lock.acquire(blocking=False):
            return False
        trimming = False
        try:
            self._due = now + self.every_s
            self.stats.checks += 1
            before = mapped_file_bytes()
            if before is None or before <= self.budget:
                return False
            if self.stats.trims and before - self.stats.last_after < self.budget // 4:
                return False  # what stays mapped is not the store's: unmapping again frees little
            threading.Thread(
                target=self._trim, args=(before,), name="origin-unmap", daemon=True
            ).start()
            trimming = True
            return True
        finally:
            if not trimming:
                self._lock.release()

    def wait(self, timeout: float = 10.0) -> bool:
        """Wait for an unmapping in progress; False if it did not end within `timeout`."""
        if not self._lock.acquire(timeout=timeout):
            return False
        self._lock.release()
        return True

    def _trim(self, before: int) -> None:
        try:
            self._release()
            self.stats.trims += 1
            self.stats.last_before = before
            self.stats.last_after = mapped_file_bytes() or 0
        finally:
            self._lock.release()
