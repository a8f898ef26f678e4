"""The shapes of the tools' results, field for field as the contract lists them.

Every front door (MCP, the hub, the CLI, the UI) reads what the service builds; naming the
fields once here lets mypy check both sides of that seam. Times are rendered (ISO 8601, local
zone), hence `str | None`. On a connected device every item also carries `origin` (`merge`).
The order of keys in the JSON is the order the service builds them in, not the order here.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict, final

from origin_store.entries.versions import Forgotten, Restored


class EventView(TypedDict):
    """An event: its text labelled and cut to the tool's length."""

    id: str
    time: str | None
    source: str
    project: str | None
    session: str
    role: str
    kind: str
    text: str
    origin: NotRequired[str]


class FoundEvent(EventView):
    """An event `search` found: with the snippet of the log's own words around the match."""

    snippet: str | None


@final
class EventDetail(EventView):
    """An event as `get` shows it: with where and by what it was written (final: no key of
    an entry's detail, so `"entry" in` tells `get`'s two answers apart)."""

    cwd: str | None
    git_branch: str | None
    agent_version: str | None


class CitedEvent(EventView):
    """An event an entry cites, as `get` lists it: with the quote it is cited by."""

    quote: str | None


class EntryView(TypedDict):
    """An entry version, its status within its lineage computed."""

    id: str
    kind: str
    text: str
    confidence: float
    status: str
    concurrent: bool
    project: str | None
    author: str
    created: str | None
    valid_from: str | None
    valid_to: str | None
    supersedes: str | None
    superseded_by: str | None
    root: str
    imported: bool
    origin: NotRequired[str]


class HistoryItem(TypedDict):
    """One version in `get`'s history of an entry."""

    id: str
    supersedes: str | None
    author: str
    created: str | None
    status: str
    origin: NotRequired[str]


class SessionView(TypedDict):
    """A session: its title, else its first visible prompt, and its number of visible events."""

    session: str
    source: str
    project: str | None
    title: str | None
    prompt: str | None
    started: str | None
    ended: str | None
    events: int
    origin: NotRequired[str]


class SourceItem(TypedDict):
    """One of `sources`'s items: an original log line behind an entry or event."""

    event_id: str
    time: str | None
    quote: str | None
    original_file: str | None
    mirror_file: str | None
    line: int
    raw: str | None
    origin: NotRequired[str]


class SearchResult(TypedDict):
    entries: list[EntryView]
    events: list[FoundEvent]


class SessionsResult(TypedDict):
    """`timeline` without a session: sessions by their last activity."""

    sessions: list[SessionView]


@final
class SessionEvents(TypedDict):
    """`timeline` with a session: the session and its first events (final: `"sessions" in`
    tells `timeline`'s two answers apart)."""

    session: SessionView
    events: list[EventView]


TimelineResult = SessionsResult | SessionEvents


class EntryDetail(TypedDict):
    """`get` of an entry: the entry, the events it cites, every version."""

    entry: EntryView
    sources: list[CitedEvent]
    history: list[HistoryItem]


GetResult = EntryDetail | EventDetail
SourcesResult = list[SourceItem]


class EntryResult(TypedDict):
    """`remember` and `correct`: the new version."""

    entry: EntryView


class PauseView(TypedDict):
    """A pause of recording as the tools and `origin status` show it (local times)."""

    since: str | None
    until: str | None
    reason: str | None


class Recorded(TypedDict):
    """`ingest`'s structured content: the event recorded."""

    recorded: bool
    id: str
    source: str
    session: str
    project: str | None
    time: str | None


class NotRecorded(TypedDict):
    """`ingest`'s structured content while recording is paused."""

    recorded: bool
    paused: PauseView | None


IngestData = Recorded | NotRecorded
#: `forget`'s result, as the store's forget gives it.
ForgetResult = Forgotten


class ReachItem(TypedDict):
    """One entry version or event a forget would hide, as a person checks it before: its
    text cut short; an event's source and session (None for an entry, or for a cited event
    this store does not have); `target` for the id the forget names."""

    id: str
    kind: str  # "entry" or "event"
    text: str
    source: str | None
    session: str | None
    target: bool


#: `origin restore`'s result (no tool restores: only a person undoes a forget).
RestoreResult = Restored

#: What one of the tools answers with as JSON.
Payload = SearchResult | TimelineResult | GetResult | SourcesResult | EntryResult | ForgetResult
