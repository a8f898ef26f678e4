"""Secrets masked in what an archive already holds (`origin redact --rescan`), and the table of
what ingest masks (`origin redact`): the CLI renders these, the store's `redaction_scan` works.

The index is rebuilt from the store when any event changed. Replacing a document in tantivy
only marks the old one deleted; its words stay in the segment files until a merge, and a
secret must not stay findable there.
"""

from __future__ import annotations

from collections.abc import Callable

from origin_store.care.rescan import RescanReport
from origin_store.care.rescan import rescan as rescan_store
from origin_store.redaction import mask as redact

from ..runtime import Origin

__all__ = ["RescanReport", "patterns", "rescan"]


def patterns() -> list[dict[str, str]]:
    """Each kind of secret ingest masks, and why it is one."""
    return [{"kind": p.kind, "why": p.why} for p in redact.PATTERNS]


def rescan(origin: Origin, progress: Callable[[str], None] | None = None) -> RescanReport:
    """Apply the current patterns to the stored events, sessions, problems, mirrors and row
    logs, then rebuild the index if an event changed."""
    report = rescan_store(origin.store, origin.home, progress)
    if report.events:
        if progress:
            progress("the search index, from the store")
        origin.searcher.rebuild()
    return report
