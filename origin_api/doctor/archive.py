"""The doctor's checks of this machine's side: the agents' logs, the archive and its index.

The archive is opened only where one exists already (a doctor creates nothing), and the index is
not opened at all (opening may rebuild it): its version file and the store say how it stands.

This is also where the archive's counts are taken as a reader sees them (`counts`, `status`): a
forget hides events but keeps them stored, so totals taken from the store disagreed with the
per-source lines taken from the sessions' counts of visible events.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from origin_search.catchup import indexed_seq
from origin_search.index import reusable
from origin_search.indexdir import VERSION_FILE
from origin_store import SCHEMA_VERSION, StoreError, reader
from origin_store.care import damage
from origin_store.care.compact import room
from origin_store.entries import versions as store_entries
from origin_store.ingest import LogFile, discover, total_pending_bytes
from origin_store.parsers.base import Source
from origin_store.parsers.registry import SOURCES
from origin_store.reader import (
    SourceCounts,
    StoreStatus,
    disk_usage,
    iter_sessions,
    session_event_ids,
)
from origin_store.reader import status as store_status

from ..contract.timeargs import render
from ..runtime import STORE_FILE, Origin, unusable
from ..settings import Settings
from .findings import Finding, Watched

# -- the archive ----------------------------------------------------------------------------


def open_archive(settings: Settings) -> tuple[Origin | None, list[Finding]]:
    """The archive, opened only where one exists (a doctor creates nothing), with its finding."""
    home = settings.home
    if not (home / STORE_FILE).is_file():
        problem = unusable(home)
        if problem is not None:
            return None, [
                Finding("archive", "store", "attention", str(problem), {"home": str(home)})
            ]
        return None, [
            Finding(
                "archive",
                "store",
                "note",
                f"No archive at {home} yet: `origin ingest` (or `make run`) makes one.",
                {"home": str(home), "exists": home.exists()},
            )
        ]
    try:
        origin = Origin.open(settings)
    except StoreError as error:  # a home it cannot use, a store from a newer Origin
        return None, [Finding("archive", "store", "attention", str(error), {"home": str(home)})]
    return origin, [archive(origin), *space(origin)]


@dataclass(frozen=True, slots=True)
class Counts:
    """The archive's events and sessions as a reader sees them: forgotten events are stored but
    counted apart, and a session whose every event is forgotten is not counted."""

    by_source: dict[str, SourceCounts]
    by_project: dict[str, int]
    events: int
    sessions: int
    forgotten_events: int
    stored_events: int
    newest: dict[str, int]  # per source, its newest session's last activity (ms)


def counts(origin: Origin) -> Counts:
    store = origin.store
    events: Counter[str] = Counter()
    sessions: Counter[str] = Counter()
    projects: Counter[str] = Counter()
    newest: dict[str, int] = {}
    with store.read() as txn:
        for session in iter_sessions(store, txn):
            source = session["source"]
            if session["events"] <= 0 and _any(
                session_event_ids(store, txn, source, session["session"])
            ):
                continue  # every event of it forgotten (a session of no events still counts)
            events[source] += session["events"]
            sessions[source] += 1
            projects[session["project"] or "(none)"] += session["events"]
            last = session.get("ended") or session.get("started")
            if isinstance(last, int) and last > newest.get(source, 0):
                newest[source] = last
        stored = store.event_count(txn)
        hidden = store_entries.hidden_event_count(store, txn)
    return Counts(
        by_source={s: {"events": events[s], "sessions": sessions[s]} for s in sorted(sessions)},
        by_project=dict(projects.most_common()),
        events=sum(events.values()),
        sessions=sum(sessions.values()),
        forgotten_events=hidden,
        stored_events=stored,
        newest=newest,
    )


def _any(ids: Iterator[str]) -> bool:
    return next(ids, None) is not None


class Status(StoreStatus):
    """`origin status`'s figures: the store's, with its totals recounted and what was
    forgotten counted apart."""

    forgotten_events: int


def status(origin: Origin) -> Status:
    """`origin status`'s figures with totals that are the sums of its per-source lines, and the
    forgotten events counted apart (`forgotten_events`); the store's own status otherwise."""
    info = store_status(origin.store, origin.home)
    found = counts(origin)
    # The recounted totals keep their places; forgotten_events comes last.
    return {
        **info,
        "events": found.events,
        "sessions": found.sessions,
        "by_source": found.by_source,
        "by_project": found.by_project,
        "forgotten_events": found.forgotten_events,
    }


def archive(origin: Origin) -> Finding:
    """Verify-lite: the schema, and whether the counts kept per session agree with the events
    stored (what a full `origin verify` reads every mirror for is left to it)."""
    found = counts(origin)
    with origin.store.read() as txn:
        schema = reader.schema(origin.store, txn)
        files = reader.file_count(origin.store, txn)
        last = reader.last_ingest(origin.store, txn)
        damaged = damage.noted_in(origin.store, txn)
    details = {
        "home": str(origin.home),
        "schema": schema,
        "events": found.events,
        "sessions": found.sessions,
        "forgotten_events": found.forgotten_events,
        "stored_events": found.stored_events,
        "files": files,
        "last_ingest": render(last["time"]) if isinstance(last, dict) else None,
    }
    text = f"{found.events:,} events in {found.sessions:,} sessions from {files:,} files" + (
        f", {found.forgotten_events:,} forgotten" if found.forgotten_events else ""
    )
    if schema != SCHEMA_VERSION:
        return Finding(
            "archive",
            "store",
            "attention",
            f"The store is at schema {schema}, this Origin at {SCHEMA_VERSION}: run any `origin` "
            "command once to upgrade it.",
            details,
        )
    if damaged is not None:
        details["damaged_records"] = damaged
        return Finding(
            "archive",
            "store",
            "attention",
            f"{text}, but {damaged['count']:,} stored records cannot be read (first: "
            f"{', '.join(damaged['ids'][:3])}): searches pass over them; `origin verify` names "
            "every one.",
            details,
        )
    if found.events + found.forgotten_events != found.stored_events:
        return Finding(
            "archive",
            "store",
            "attention",
            f"{text}, but {found.stored_events:,} events are stored: the sessions' counts "
            "disagree with the events; `origin verify` checks everything.",
            details,
        )
    return Finding("archive", "store", "ok", f"{text}; schema {schema}.", details)


#: Room worth a note: this much, and this share of the data file (a compaction takes the
#: store from every process for seconds to minutes).
WORTH_BYTES = 64 << 20
WORTH_SHARE = 0.1


def space(origin: Origin) -> list[Finding]:
    """A note where `origin compact` would give much back: pages LMDB keeps free (after an
    upgrade, forgets, rescans), or a layout of events from before schema 7."""
    found = room(origin.store)
    size = disk_usage(origin.store.path)
    if found.bytes < WORTH_BYTES or found.bytes < size * WORTH_SHARE:
        return []
    why = "pages LMDB keeps free" + (
        " and events named as Origin named them before schema 7" if found.older else ""
    )
    return [
        Finding(
            "archive",
            "space",
            "note",
            f"The store takes {size >> 20:,} MB, of which at least {found.bytes >> 20:,} MB are "
            f"{why}: `origin compact` gives them back (stop agents' `origin mcp`, the hub and "
            "the UI first).",
            {
                "store_bytes": size,
                "free_bytes": found.free,
                "older_layout_bytes": found.older_layout,
            },
        )
    ]


def index(origin: Origin) -> Finding:
    """Whether the search index is there, of this version, and caught up with the store's
    change feed, read from its version file and the store, without opening it."""
    path = origin.home / "index"
    with origin.store.read() as txn:
        feed = origin.store.feed_last(txn)
    done = indexed_seq(origin.store)
    try:
        version = (path / VERSION_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        version = None
    details = {"path": str(path), "feed": feed, "indexed": done, "behind": max(0, feed - done)}
    if path.exists() and not path.is_dir():
        return Finding("index", "index", "attention", f"{path} is a file: move it away.", details)
    if version is None:
        return Finding(
            "index",
            "index",
            "note",
            "No search index yet: the first search builds it (or `origin reindex`).",
            details,
        )
    if not reusable(version):
        return Finding(
            "index",
            "index",
            "note",
            "The index is from another version of Origin: the next search rebuilds it.",
            details,
        )
    if done > feed:
        return Finding(
            "index",
            "index",
            "attention",
            "The index is ahead of the store (the store was replaced?): run `origin reindex`.",
            details,
        )
    if done < feed:
        return Finding(
            "index",
            "index",
            "note",
            f"The index is {feed - done:,} changes behind the store: the next search catches up.",
            details,
        )
    return Finding("index", "index", "ok", "The index is up to date with the store.", details)


def demo_archive(home: Path) -> Finding:
    """The demo archive of generated samples, kept apart from this one: there to be removed."""
    size = disk_usage(home)
    return Finding(
        "archive",
        "demo",
        "note",
        f"A demo archive of generated samples is at {home} ({size / (1 << 20):,.1f} MB), apart "
        "from yours: `origin demo remove` deletes it.",
        {"home": str(home), "bytes": size},
    )


# -- the agents -----------------------------------------------------------------------------


def agents(settings: Settings, origin: Origin | None, watched: Watched) -> list[Finding]:
    """Per agent: the directories looked at (and the variables that moved them), the files found
    there and in its sessions' projects, and what the archive holds of it."""
    files = origin.ingester.discover() if origin is not None else discover(SOURCES, settings)
    by_source: dict[str, list[LogFile]] = {name: [] for name in SOURCES}
    for log in files:
        by_source.setdefault(log.source.name, []).append(log)
    found = counts(origin) if origin is not None else None
    return [
        _agent(source, settings, watched, by_source[source.name], origin, found)
        for source in SOURCES.values()
    ]


def _agent(
    source: Source,
    settings: Settings,
    watched: Watched,
    files: list[LogFile],
    origin: Origin | None,
    found: Counts | None,
) -> Finding:
    own = Watched(settings.environ)
    roots = source.roots(own, settings.user_home)
    source.roots(watched, settings.user_home)
    none: SourceCounts = {"events": 0, "sessions": 0}
    held = found.by_source.get(source.name, none) if found is not None else none
    newest = found.newest.get(source.name) if found is not None else None
    pending = total_pending_bytes(origin.store, files) if origin is not None and files else 0
    details: dict[str, Any] = {
        "roots": [{"path": str(root), "exists": root.is_dir()} for root in roots],
        "environment": {name: settings.environ.get(name) for name in own.read},
        "files": len(files),
        "bytes": sum(_size(log.path) for log in files),
        "events": held.get("events", 0),
        "sessions": held.get("sessions", 0),
        "newest_activity": render(newest),
        "pending_bytes": pending,
    }
    if not files:
        where = ", ".join(str(root) for root in roots)
        return Finding(
            "agents", source.name, "note", f"No logs found (looked in {where}).", details
        )
    text = f"{len(files):,} files; {details['events']:,} events in {details['sessions']:,} sessions"
    if newest is not None:
        text += f", newest activity {render(newest)}"
    if pending:
        text += f"; {pending:,} bytes not ingested yet (any search, or `origin ingest`, reads them)"
    return Finding("agents", source.name, "ok", text + ".", details)


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
