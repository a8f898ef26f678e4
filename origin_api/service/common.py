"""What every tool shares: who is calling, the cuts the contract sets, and freshness."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from origin_search import MESSAGE_KINDS as MESSAGE_KINDS  # what `search` covers without tools
from origin_store.parsers.agents import agent_of_client

from ..runtime import Origin
from .shapes import IngestData, Payload

SEARCH_TEXT = 400
SNIPPET = 200
TIMELINE_TEXT = 1_000
GET_TEXT = 20_000
SOURCE_TEXT = 500
RAW_TEXT = 4_000
PROMPT = 80
#: How long a search waits for another thread's ingest pass before answering without it.
SEARCH_INGEST_WAIT = 5.0


@dataclass(frozen=True, slots=True)
class Noted:
    """A connected device's answer given without its hub: the payload, then the Note item
    (the contract's words) saying why the hub was not consulted."""

    payload: Payload
    reason: str

    @property
    def note(self) -> str:
        return (
            f"Note: the Origin hub was not consulted ({self.reason}); "
            "these results come from this device only."
        )


@dataclass(frozen=True, slots=True)
class Relayed:
    """The hub's tool result, sent on exactly as the hub gave it (a relay: no labels)."""

    result: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Said:
    """A tool's answer in words rather than JSON (`ingest`'s `Recorded [mcp]: …`): the text
    item, with `data` as the result's structured content."""

    text: str
    data: IngestData


class Caller:
    """Who is calling: the author of entries written through this call. A known agent's client
    name is its source id (`codex-mcp-client` writes as `codex`); any other name is kept."""

    def __init__(self, agent: str, device: str) -> None:
        self.agent = agent_of_client(agent) if agent else "unknown"
        self.device = device

    @property
    def author(self) -> str:
        return f"{self.agent}@{self.device}" if self.device else self.agent


def now_ms() -> int:
    return int(time.time() * 1000)


def refresh(origin: Origin, *, force: bool = False) -> None:
    """Ingest new log lines (at most every 10 s unless forced), then bring the index up."""
    ingest_if_due(origin, force=force)
    origin.searcher.catch_up()


def ingest_if_due(origin: Origin, *, force: bool = False) -> None:
    """A forced pass checks every log (a stat each, the cursor of those whose stat moved);
    otherwise a pass runs when no process (this one by its clock, any by the store's record)
    ended one within the interval, and checks the new and recently written logs and a turn of
    the others."""
    if force:
        origin.ingest(full=False, every=True)
        ingest_journals(origin)
        return
    interval = origin.settings.search_ingest_interval_ms / 1000
    if time.monotonic() - origin.last_ingest < interval:
        return
    age = origin.last_pass_age()
    if age is not None and 0 <= age < interval:
        # Another process's pass is recent, but this process may be running its own start-up
        # pass, which reads what changed since: a search just after start waits for it too.
        origin.wait_for_start(SEARCH_INGEST_WAIT)
        origin.last_ingest = time.monotonic() - age
        return
    if origin.ingest(timeout=SEARCH_INGEST_WAIT, full=False) is not None:
        ingest_journals(origin)


def ingest_journals(origin: Origin) -> None:
    """The journals of recorded sources that changed since their cursors: `ingest` reads its
    own line at once, so this finds only a line whose writer died before reading it. A pass
    over the agents' logs does not list the journals (`registry.with_recorded` would); a stat
    of each journal here costs next to nothing. Nothing is read while recording is paused."""
    from origin_store import journal
    from origin_store.pause.state import paused

    if paused(origin.home) is not None:
        return
    files = journal.logs(origin.home)
    if files:
        journal.ingest(origin.ingester, origin.store, files)
