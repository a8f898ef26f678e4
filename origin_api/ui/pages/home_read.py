"""What the home page and the browse filters read that no tool lists: counts, recent sessions,
the projects and agents that exist.

Everything here is one pass over the session records (a few thousand at a million events:
each holds its visible event count, its first and last times), never over events; entries are
counted from the roots table's own size. Memory files (`memory:<path>` sessions, one per
imported MEMORY.md or CLAUDE.md) are counted and listed apart: they are not conversations.
"""

from __future__ import annotations

import heapq
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


def is_memory(session: SessionDoc | SessionView) -> bool:
    """A memory file's session (`memory:<path>`), not a conversation."""
    return session["session"].startswith(SESSION_PREFIX)


def overview(origin: Origin, recent: int = RECENT) -> Overview:
    """Counts by agent and the `recent` conversations with the latest activity (one pass over
    the sessions, a heap for the newest)."""
    store = origin.store
    by_agent: Counter[str] = Counter()
    events_by_agent: Counter[str] = Counter()
    memory = 0
    newest: list[tuple[int, str, str]] = []
    with store.read() as txn:
        for item in iter_sessions(store, txn):
            if is_memory(item):
                memory += 1
                continue
            by_agent[item["source"]] += 1
            events_by_agent[item["source"]] += item["events"]
            if not item["events"] or item["ended"] is None:
                continue
            key = (item["ended"], item["source"], item["session"])
            if len(newest) < recent:
                heapq.heappush(newest, key)
            elif key > newest[0]:
                heapq.heapreplace(newest, key)
        shown: list[SessionView] = []
        for _, source, session in sorted(newest, reverse=True):
            found = get_session(store, txn, source, session)
            if found is not None:
                shown.append(session_view(origin, txn, found))
        events = store.event_count(txn)
        entries = store_entries.entry_count(store, txn)
    agents = [
        AgentCount(agent, by_agent[agent], events_by_agent[agent])
        for agent in sorted(by_agent, key=lambda a: (-events_by_agent[a], a))
    ]
    return Overview(
        events=events,
        sessions=sum(by_agent.values()),
        memory_files=memory,
        entries=entries,
        agents=agents,
        recent=shown,
        demo=(origin.home / DEMO_MARK).is_file(),
    )


#: The last facets read, by store and change-feed position: nothing changed, nothing is read.
_FACETS: dict[str, tuple[int, Facets]] = {}


def facets(origin: Origin) -> Facets:
    """Every project and agent with a session (memory files' too: they belong to projects).
    Kept until the change feed moves (every ingest, remember and forget moves it), so the
    search and timeline pages pay the pass over the sessions once per change, not per view."""
    store = origin.store
    with store.read() as txn:
        seq = store.feed_last(txn)
        kept = _FACETS.get(str(store.path))
        if kept is not None and kept[0] == seq:
            return kept[1]
        found = _facets(origin, txn)
    _FACETS[str(store.path)] = (seq, found)
    return found


def _facets(origin: Origin, txn: lmdb.Transaction) -> Facets:
    store = origin.store
    projects: set[str] = set()
    agents: set[str] = set()
    for item in iter_sessions(store, txn):
        agents.add(item["source"])
        if item["project"]:
            projects.add(item["project"])
    return Facets(sorted(projects, key=str.casefold), sorted(agents))


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
