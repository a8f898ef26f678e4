"""What a pass did, summed over files and over worker processes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import lmdb

    from ..core.db import Store

Progress = Callable[[int], None]  # bytes just processed

_COUNTS = (
    "files",
    "files_changed",
    "rewritten",
    "lines",
    "bytes",
    "events",
    "duplicates",
    "unrecorded_lines",
    "unrecorded_rows",
    "marked",
)


@dataclass(slots=True)
class IngestReport:
    files: int = 0
    files_changed: int = 0
    rewritten: int = 0
    lines: int = 0
    bytes: int = 0
    events: int = 0
    duplicates: int = 0
    problems: Counter[str] = field(default_factory=Counter)
    #: Secrets masked before anything was stored, by kind (`redact`).
    redacted: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    #: Recording was paused: nothing was read, changed logs were only marked (`pause_marks`).
    paused: bool = False
    #: Lines and rows written during a pause and left out of the archive (ephemeral mode).
    unrecorded_lines: int = 0
    unrecorded_rows: int = 0
    #: End marks this pass wrote or grew while recording was paused.
    marked: int = 0

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IngestReport:
        report = cls()
        for name in _COUNTS:
            setattr(report, name, data.get(name, 0))
        report.problems = Counter(data.get("skipped_lines", {}))
        report.redacted = Counter(data.get("redacted", {}))
        report.errors = list(data.get("errors", []))
        report.paused = bool(data.get("paused", False))
        return report

    def merge(self, other: IngestReport) -> None:
        self.files += other.files
        self.files_changed += other.files_changed
        self.rewritten += other.rewritten
        self.lines += other.lines
        self.bytes += other.bytes
        self.events += other.events
        self.duplicates += other.duplicates
        self.problems.update(other.problems)
        self.redacted.update(other.redacted)
        self.errors.extend(other.errors)
        self.paused = self.paused or other.paused
        self.unrecorded_lines += other.unrecorded_lines
        self.unrecorded_rows += other.unrecorded_rows
        self.marked += other.marked

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "files_changed": self.files_changed,
            "rewritten": self.rewritten,
            "lines": self.lines,
            "bytes": self.bytes,
            "events": self.events,
            "duplicates": self.duplicates,
            "skipped_lines": dict(self.problems),
            "redacted": dict(self.redacted),
            "seconds": round(self.seconds, 3),
            "errors": self.errors,
            "paused": self.paused,
            "unrecorded_lines": self.unrecorded_lines,
            "unrecorded_rows": self.unrecorded_rows,
            "marked": self.marked,
        }


#: The store's `meta` record of every secret ingest (or `origin redact --rescan`) masked, by kind.
REDACTED_META = "redacted"


def add_redacted(store: Store, txn: lmdb.Transaction, counts: Counter[str]) -> None:
    """Add `counts` to the store's total of masked secrets (`origin status` shows it)."""
    total = Counter(store.meta_get(txn, REDACTED_META) or {})
    total.update(counts)
    store.meta_put(txn, REDACTED_META, dict(sorted(total.items())))


def anonymous_memory() -> int | None:
    """This process's anonymous resident memory in bytes (Linux `RssAnon`), None elsewhere.

    What a pass must keep flat: RSS also counts the LMDB map's file pages (it is mapped with
    writemap), which the kernel can drop or write back, so RSS grows with the store.
    """
    try:
        with open("/proc/self/status", "rb") as status:
            for row in status:
                if row.startswith(b"RssAnon:"):
                    return int(row.split()[1]) * 1024  # reported in kB
    except (OSError, ValueError, IndexError):
        pass
    return None
