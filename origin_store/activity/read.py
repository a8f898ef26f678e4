"""The figures read back for a window of days: what the activity page and `origin activity` show.

One read transaction over the day records of the window (days × sources × projects: a few
thousand at most) and the session records (one per session), never over events.
"""

from __future__ import annotations

import heapq
import time as clock
from dataclasses import dataclass, field

import lmdb

from ..core.db import Store, loads
from ..core.keys import session_key as stored_session_key
from ..core.lmdbio import pairs, prefixed, raw_get
from .build import backfill, pending
from .tally import DAY, DAY_MS, SESSION, U32, split_day_key, unpack_day, unpack_session

#: Rows of the busiest projects and sessions.
BUSIEST = 10


@dataclass(slots=True)
class Figures:
    """What was counted: events, sessions started, tokens in (of them cached) and out."""

    events: int = 0
    sessions: int = 0
    tokens_in: int = 0
    tokens_cached: int = 0
    tokens_out: int = 0

    def add(self, events: int, sessions: int, tin: int, cached: int, out: int) -> None:
        self.events += events
        self.sessions += sessions
        self.tokens_in += tin
        self.tokens_cached += cached
        self.tokens_out += out


@dataclass(slots=True)
class BusySession:
    source: str
    session: str
    project: str | None
    title: str | None
    events: int
    tokens_in: int
    tokens_out: int
    last: int  # epoch ms of its newest event


@dataclass(slots=True)
class Activity:
    """A window of `days` days ending today (UTC): per source, a Figures for each day."""

    first_day: int  # days since 1970-01-01 UTC
    days: int
    source: str | None
    project: str | None
    per_day: dict[str, list[Figures]] = field(default_factory=dict)
    totals: Figures = field(default_factory=Figures)
    by_source: dict[str, Figures] = field(default_factory=dict)
    projects: list[tuple[str | None, Figures]] = field(default_factory=list)
    sessions: list[BusySession] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # every source with figures, any day


def activity(
    store: Store,
    days: int,
    *,
    source: str | None = None,
    project: str | None = None,
    now_ms: int | None = None,
) -> Activity:
    """The figures of the last `days` days; a store's figures are built first if they wait."""
    with store.read() as txn:
        waiting = pending(store, txn)
    if waiting:
        backfill(store)
    today = (now_ms if now_ms is not None else int(clock.time() * 1000)) // DAY_MS
    first = today - days + 1
    out = Activity(first, days, source, project)
    projects: dict[str | None, Figures] = {}
    sources: set[str] = set()
    with store.read() as txn:
        db = store.dbs["activity"]
        cursor = txn.cursor(db=db)
        found = cursor.set_range(SESSION)
        while found and cursor.key()[:1] == SESSION:  # one seek per source
            name = bytes(cursor.key()[1:]).partition(b"\0")[0]
            sources.add(name.decode(errors="replace"))
            found = cursor.set_range(SESSION + name + b"\x01")
        if cursor.set_range(DAY + U32.pack(max(first, 0))):
            for key, value in pairs(cursor):
                if key[:1] != DAY:
                    break
                day, src, proj = split_day_key(key)
                if day > today or (source and src != source) or (project and proj != project):
                    continue
                figures = unpack_day(value)
                row = out.per_day.get(src)
                if row is None:
                    row = out.per_day[src] = [Figures() for _ in range(days)]
                row[day - first].add(*figures)
                out.totals.add(*figures)
                out.by_source.setdefault(src, Figures()).add(*figures)
                projects.setdefault(proj, Figures()).add(*figures)
        out.sessions = _busiest_sessions(store, txn, first * DAY_MS, source, project)
    out.sources = sorted(sources)
    out.projects = heapq.nlargest(BUSIEST, projects.items(), key=lambda p: p[1].events)
    return out


def _busiest_sessions(
    store: Store, txn: lmdb.Transaction, since: int, source: str | None, project: str | None
) -> list[BusySession]:
    """The sessions with most events among those active since `since`."""
    found: list[tuple[int, bytes, tuple[int, ...], str | None]] = []
    for key, value in prefixed(txn.cursor(db=store.dbs["activity"]), SESSION):
        figures, proj = unpack_session(value)
        if figures[5] < since or (project and proj != project):
            continue
        if source and not key.startswith(SESSION + source.encode() + b"\0"):
            continue
        found.append((figures[0], key, figures, proj))
    out = []
    for _, key, kept, proj in heapq.nlargest(BUSIEST, found, key=lambda f: f[0]):
        src, _, name = key[1:].decode(errors="replace").partition("\0")
        raw = raw_get(txn, stored_session_key(src, name), store.dbs["sessions"])
        doc = loads(raw) if raw else {}
        title = doc.get("title") or doc.get("prompt")
        out.append(
            BusySession(
                src,
                name,
                proj,
                title if isinstance(title, str) else None,
                kept[0],
                kept[1],
                kept[3],
                kept[5],
            )
        )
    return out
