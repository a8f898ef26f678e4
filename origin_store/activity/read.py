"""The figures read back for a window of days: what the activity page and `origin activity` show.

One read transaction over the day records of the window (days × sources × projects: a few
thousand at most) and the session records (one per session), never over events.
"""

from __future__ import annotations

import heapq
import time as clock
from dataclasses import astuple, dataclass, field
from typing import Any

import lmdb

from ..core.db import Store, loads
from ..core.keys import session_key as stored_session_key
from ..core.lmdbio import pairs, prefixed, raw_get
from .build import backfill, pending
from .tally import (
    BUSY,
    DAY,
    DAY_MS,
    DAY_VALUE,
    RANK,
    SESSION,
    SESSION_HEAD,
    U32,
    unpack_session,
)

#: Rows of the busiest projects and sessions.
BUSIEST = 10
#: Answers kept, each with the feed position it was read at (a page's windows, filters).
CACHED = 16
_CACHE: dict[tuple[Any, ...], tuple[tuple[int, int], Activity]] = {}


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
        forget_answers()
    today = (now_ms if now_ms is not None else int(clock.time() * 1000)) // DAY_MS
    asked = (str(store.path), id(store), days, source, project, today)
    with store.read() as txn:
        # Every write that moves a figure appends to the feed in the same transaction (and a
        # backfill adds records): an answer made at the same feed position and count of
        # records is still true.
        version = (store.feed_last(txn), txn.stat(store.dbs["activity"])["entries"])
        cached = _CACHE.get(asked)
        if cached is not None and cached[0] == version:
            return cached[1]
        out = _read(store, txn, days, today, source, project)
    if len(_CACHE) >= CACHED:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[asked] = (version, out)
    return out


def forget_answers() -> None:
    """Drop the answers kept (for a benchmark of the figures read each time)."""
    _CACHE.clear()


def _read(
    store: Store,
    txn: lmdb.Transaction,
    days: int,
    today: int,
    source: str | None,
    project: str | None,
) -> Activity:
    """The figures of the window, read from the records (what `activity` keeps)."""
    first = today - days + 1
    out = Activity(first, days, source, project)
    cursor = txn.cursor(db=store.dbs["activity"])
    out.sources = _sources(cursor)
    cells, projects = _days(cursor, first, today, source, project)
    out.sessions = _busiest_sessions(store, txn, first * DAY_MS, source, project)
    for raw, row in sorted(cells.items()):
        src = raw.decode(errors="replace")
        out.per_day[src] = [Figures(*cell) for cell in row]
        total = out.by_source[src] = Figures()
        for cell in row:
            total.add(*cell)
        out.totals.add(*astuple(total))
    ranked = heapq.nlargest(BUSIEST, projects.items(), key=lambda p: p[1][0])
    out.projects = [(name.decode(errors="replace") or None, Figures(*f)) for name, f in ranked]
    return out


def _sources(cursor: lmdb.Cursor) -> list[str]:
    """Every source with figures: one seek per source over the session records."""
    found = cursor.set_range(SESSION)
    names = []
    while found and cursor.key()[:1] == SESSION:
        name = bytes(cursor.key()[1:]).partition(b"\0")[0]
        names.append(name.decode(errors="replace"))
        found = cursor.set_range(SESSION + name + b"\x01")
    return names


def _days(
    cursor: lmdb.Cursor, first: int, today: int, source: str | None, project: str | None
) -> tuple[dict[bytes, list[list[int]]], dict[bytes, list[int]]]:
    """Per source (its name's bytes) a row of days of [events, sessions, in, cached, out], and per project its
    sums, over the window. The hot loop of the page: day keys sort by day, so the window is
    one range, and each key is read with a slice and an unpack."""
    cells: dict[bytes, list[list[int]]] = {}
    projects: dict[bytes, list[int]] = {}
    wanted_source = source.encode() if source else None
    wanted_project = project.encode() if project else None
    last_key = DAY + U32.pack(min(today, 0xFFFFFFFF)) + b"\xff"
    unpack = DAY_VALUE.unpack
    days = today - first + 1
    if not cursor.set_range(DAY + U32.pack(max(first, 0))):
        return cells, projects
    for key, value in pairs(cursor):
        if key > last_key:
            break
        src, _, proj = key[5:].partition(b"\0")
        if (wanted_source and src != wanted_source) or (wanted_project and proj != wanted_project):
            continue
        row = cells.get(src)
        if row is None:
            row = cells[src] = [[0, 0, 0, 0, 0] for _ in range(days)]
        figures = unpack(value)
        cell = row[U32.unpack_from(key, 1)[0] - first]
        summed = projects.get(proj)
        if summed is None:
            summed = projects[proj] = [0, 0, 0, 0, 0]
        for index in range(5):
            cell[index] += figures[index]
            summed[index] += figures[index]
    return cells, projects


def _busiest_sessions(
    store: Store, txn: lmdb.Transaction, since: int, source: str | None, project: str | None
) -> list[BusySession]:
    """The sessions with most events among those active since `since`: read from the busiest
    down (`BUSY`), until BUSIEST of them are active in the window."""
    db = store.dbs["activity"]
    wanted_source = source.encode() + b"\0" if source else None
    wanted_project = project.encode() if project else None
    head = SESSION_HEAD.unpack_from
    out: list[BusySession] = []
    for key, _ in prefixed(txn.cursor(db=db), BUSY):
        name = key[1 + RANK.size :]
        if wanted_source is not None and not name.startswith(wanted_source):
            continue
        value = raw_get(txn, SESSION + name, db)
        if value is None or head(value)[1] < since:
            continue
        if wanted_project is not None and value[SESSION_HEAD.size :] != wanted_project:
            continue
        out.append(_busy(store, txn, name, value))
        if len(out) >= BUSIEST:
            break
    return out


def _busy(store: Store, txn: lmdb.Transaction, name: bytes, value: bytes) -> BusySession:
    """A busiest session's row, its title (or first prompt) from its session record."""
    kept, project = unpack_session(value)
    src, _, session = name.decode(errors="replace").partition("\0")
    raw = raw_get(txn, stored_session_key(src, session), store.dbs["sessions"])
    doc = loads(raw) if raw else {}
    title = doc.get("title") or doc.get("prompt")
    return BusySession(
        src,
        session,
        project,
        title if isinstance(title, str) else None,
        kept[0],
        kept[1],
        kept[3],
        kept[5],
    )
