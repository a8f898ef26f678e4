"""The timeline page's sessions: conversations by day, memory files apart, and what the window
leaves out.

The `timeline` tool lists sessions active in a window, memory files among them (a
`memory:<path>` session per imported MEMORY.md or CLAUDE.md, touched at every ingest, so they
fill the newest places), and says nothing of the sessions older than its window. A person
browsing wants the conversations, the memory files on their own, and "N older sessions" with
a way to them. This reads the same session records with the tool's own filters (its time
arguments, its source names, its order) from the catalog of sessions the home page keeps
(`home_read`), which the tool cannot answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from ...contract.timeargs import optional_time
from ...runtime import Origin
from ...service.common import now_ms, refresh
from ...service.reading import source_filter
from ...service.shapes import SessionView
from .home_read import Row, catalog, views


@dataclass(frozen=True)
class Day:
    """The conversations whose last activity fell on one day (the server's), newest first."""

    day: str  # YYYY-MM-DD
    sessions: list[SessionView]

    @property
    def label(self) -> str:
        """The day as a heading reads it: Thursday, 22 October 2026."""
        try:
            found = date.fromisoformat(self.day)
        except ValueError:
            return self.day
        return f"{found:%A}, {found.day} {found:%B %Y}"


@dataclass(frozen=True)
class Window:
    days: list[Day] = field(default_factory=list)
    shown: int = 0
    #: Conversations matching the filters in the window beyond `limit`.
    cut: int = 0
    #: Conversations matching the filters but older than the window (last active before it).
    older: int = 0
    memory: list[SessionView] = field(default_factory=list)


def sessions_in(
    origin: Origin,
    *,
    since: str | None,
    until: str | None,
    source: str | None,
    project: str | None,
    limit: int,
) -> Window:
    """Conversations active since `since` and started before `until`, of `source` and
    `project`, newest activity first, at most `limit` of them, grouped by day; the memory files
    matching the same filters; and how many conversations are older than the window. Raises
    the tools' `OriginError` for a time or source the tools refuse."""
    now = now_ms()
    since_ms = optional_time(since, "since", now)
    until_ms = optional_time(until, "until", now)
    source = source_filter(source)
    refresh(origin)
    chosen: list[Row] = []
    memory: list[Row] = []
    older = 0
    with origin.store.read() as txn:
        for row in catalog(origin, txn).rows:  # newest activity first
            if source and row.source != source or project and row.project != project:
                continue
            if until_ms is not None and row.started >= until_ms:
                continue
            if since_ms is not None and row.ended < since_ms:
                older += 0 if row.memory else 1
                continue
            (memory if row.memory else chosen).append(row)
        shown = views(origin, txn, chosen[:limit])
        memory_views = views(origin, txn, memory[:limit])
    days: list[Day] = []
    for view in shown:
        day = (view["ended"] or "")[:10]
        if not days or days[-1].day != day:
            days.append(Day(day, []))
        days[-1].sessions.append(view)
    return Window(days, len(shown), max(0, len(chosen) - limit), older, memory_views)
