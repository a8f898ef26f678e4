"""What the home page and the browse filters read that no tool lists: counts, recent sessions,
the projects and agents that exist, search hits' session titles.

All of it comes from a catalog of the session records (a few thousand at a million events:
each holds its visible event count, its first and last times), never from events, read in one
pass, kept until the store's change feed moves (every ingest, remember, forget and restore
moves it), and then brought up to date from the feed: a page in between reads none of it again,
and one after an ingest reads only the sessions it touched. Entries are counted from the roots
table's own size. Memory files (`memory:<path>` sessions, one per imported MEMORY.md or
CLAUDE.md) are counted and listed apart: they are not conversations.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field

import lmdb

from origin_store.entries import versions as store_entries
from origin_store.parsers.memory import SESSION_PREFIX
from origin_store.reader import get_session, iter_sessions
from origin_store.records import SessionDoc

from ...runtime import Origin
from ...service.shapes import SessionView
from ...service.views import session_view
from ...settings import DEMO_MARK

#: Sessions the home page lists.
RECENT = 10


@dataclass(frozen=True)
class AgentCount:
    agent: str
    sessions: int
    events: int


@dataclass(frozen=True)
class Overview:
    """The home page's figures: what the archive holds, and its latest sessions."""

    events: int
    sessions: int  # conversations, memory files left out
    memory_files: int
    entries: int  # entries (lineages), forgotten ones included: the roots table's size
    agents: list[AgentCount]
    recent: list[SessionView]
    demo: bool


@dataclass(frozen=True)
class Facets:
    """The projects and agents that have sessions, for filters a person clicks on."""

    projects: list[str] = field(default_factory=list)
    agents: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Row:
    """A session with events and times, as the timeline's filters need it."""

    ended: int
    started: int
    source: str
    session: str
    project: str | None
    memory: bool


@dataclass(frozen=True)
class Catalog:
    """The session records in short: rows newest activity first, counts by agent."""

    rows: list[Row]
    agents: list[AgentCount]
    memory_files: int
    facets: Facets


def is_memory(session_id: str) -> bool:
    """A memory file's session (`memory:<path>`), not a conversation."""
    return session_id.startswith(SESSION_PREFIX)


#: Changes past which a catalog is read again whole rather than brought up to date.
CATCH_UP_MAX = 5_000
#: A session in short, as the catalog needs it: (source, session) → its record's few facts.
Key = tuple[str, str]


@dataclass
class _Kept:
    """The last catalog of a store, the change-feed position it is of, and its sessions."""

    seq: int
    items: dict[Key, Item]
    catalog: Catalog


#: The last catalog read, by store.
_KEPT: dict[str, _Kept] = {}
_LOCK = threading.Lock()


def catalog(origin: Origin, txn: lmdb.Transaction) -> Catalog:
    """The catalog as of `txn`: the kept one while the change feed has not moved; brought up
    to date from the feed when only sessions' events and titles changed (re-reading just
    those sessions: reading all 8,332 records of the 1M bench takes ~70 ms); read whole
    otherwise (a forget, a restore, a replaced row, or many changes)."""
    store = origin.store
    seq = store.feed_last(txn)
    key = str(store.path)
    kept = _KEPT.get(key)
    if kept is not None and kept.seq == seq:
        return kept.catalog
    changed = _changed(origin, txn, kept.seq) if kept is not None and kept.seq < seq else None
    if kept is not None and changed is not None:
        items = dict(kept.items)
        for source, session in changed:
            doc = get_session(store, txn, source, session)
            if doc is None:
                items.pop((source, session), None)
            else:
                items[(source, session)] = _item(doc)
    else:
        items = {(doc["source"], doc["session"]): _item(doc) for doc in iter_sessions(store, txn)}
    found = _catalog(items)
    with _LOCK:
        _KEPT[key] = _Kept(seq, items, found)
    return found


def _changed(origin: Origin, txn: lmdb.Transaction, since: int) -> set[Key] | None:
    """The sessions the feed's changes after `since` touched; None where a change may touch
    any (a hide, an unhide, a replaced row) or there are more than CATCH_UP_MAX."""
    touched: set[Key] = set()
    for n, (_, item, record) in enumerate(origin.store.feed_since_events(txn, since)):
        if n >= CATCH_UP_MAX:
            return None
        kind = item["t"]
        if kind == "event" and record is not None:
            touched.add((record["source"], record["session"]))
        elif kind == "session" and ":" in item.get("id", ""):
            source, _, session = item["id"].partition(":")
            touched.add((source, session))
        elif kind != "entry":  # an entry names no session's facts
            return None
    return touched


@dataclass(frozen=True, slots=True)
class Item:
    """What the catalog keeps of a session record."""

    source: str
    session: str
    project: str | None
    events: int
    started: int | None
    ended: int | None


def _item(doc: SessionDoc) -> Item:
    return Item(
        doc["source"], doc["session"], doc["project"], doc["events"], doc["started"], doc["ended"]
    )


def _catalog(items: dict[Key, Item]) -> Catalog:
    sessions: Counter[str] = Counter()
    events: Counter[str] = Counter()
    memory = 0
    rows: list[Row] = []
    projects: set[str] = set()
    agents: set[str] = set()
    for item in items.values():
        agents.add(item.source)
        if item.project:
            projects.add(item.project)
        memo = is_memory(item.session)
        if memo:
            memory += 1
        else:
            sessions[item.source] += 1
            events[item.source] += item.events
        if item.events and item.ended is not None and item.started is not None:
            rows.append(
                Row(item.ended, item.started, item.source, item.session, item.project, memo)
            )
    rows.sort(key=lambda r: (r.ended, r.session), reverse=True)
    counted = [
        AgentCount(agent, sessions[agent], events[agent])
        for agent in sorted(sessions, key=lambda a: (-events[a], a))
    ]
    listed = Facets(sorted(projects, key=str.casefold), sorted(agents))
    return Catalog(rows, counted, memory, listed)


def views(origin: Origin, txn: lmdb.Transaction, rows: list[Row]) -> list[SessionView]:
    """The sessions of `rows` as the tools show them (read now: a title may have changed)."""
    shown: list[SessionView] = []
    for row in rows:
        found = get_session(origin.store, txn, row.source, row.session)
        if found is not None:
            shown.append(session_view(origin, txn, found))
    return shown


def overview(origin: Origin, recent: int = RECENT) -> Overview:
    """Counts by agent and the `recent` conversations with the latest activity."""
    store = origin.store
    with store.read() as txn:
        found = catalog(origin, txn)
        newest = [row for row in found.rows if not row.memory][:recent]
        shown = views(origin, txn, newest)
        events = store.event_count(txn)
        entries = store_entries.entry_count(store, txn)
    return Overview(
        events=events,
        sessions=sum(a.sessions for a in found.agents),
        memory_files=found.memory_files,
        entries=entries,
        agents=found.agents,
        recent=shown,
        demo=(origin.home / DEMO_MARK).is_file(),
    )


def facets(origin: Origin) -> Facets:
    """Every project and agent with a session (memory files' too: they belong to projects)."""
    with origin.store.read() as txn:
        return catalog(origin, txn).facets


def session_titles(origin: Origin, keys: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """The title (or first prompt) of each session named by (source, session id), for search
    hits: point reads of the sessions named, none for a session this store does not have (a
    hub's, on a device)."""
    store = origin.store
    found: dict[tuple[str, str], str] = {}
    with store.read() as txn:
        for source, session in dict.fromkeys(keys):
            item = get_session(store, txn, source, session)
            if item is None:
                continue
            view = session_view(origin, txn, item)
            if shown := view["title"] or view["prompt"]:
                found[(source, session)] = shown
    return found
