"""What a connected device cites that only its hub has: another device's events (docs/sync.md).

`remember` and `correct` check a source against this device's store first; an event it does not
have is looked for on the hub, through the hub's own tools (`get` for an id, `search` for a quote
alone), and the quote checked against the hub's copy. The entry is written on this device and
pushed by the sync right after, like any other.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from origin_store.textclip import uncut

from ..errors import OriginError
from ..sync import client as hubclient
from ..sync.connection import Connection
from .common import Caller
from .shapes import EventDetail, EventView
from .writing import cannot_cite, holds

#: The hub's events a quote alone is looked for in: its best matches, as its `search` ranks them.
QUOTE_CANDIDATES = 50
#: The kinds a quote alone may cite, in the order they are preferred (never a tool call: the
#: agent's own remember call holds the quote).
QUOTED_KINDS = ("message", "tool_result")


def forgotten(item_id: Any) -> str:
    return f"{item_id} has been forgotten."


def not_here(connection: Connection, item: Any, doing: str, reason: str) -> OriginError:
    """What a connected device answers when only its hub could say what `item` is, and the hub
    cannot be reached."""
    return OriginError(
        f"{item} is not on this device, and its Origin hub ({connection.url}) could not be "
        f"reached to {doing} ({reason}).",
        "upstream_failure",
    )


class HubEvents:
    """The hub's events, as `remember` and `correct` see them (`writing.Elsewhere`)."""

    def __init__(self, connection: Connection, caller: Caller, timeout_s: float) -> None:
        self.connection = connection
        self.caller = caller
        self.timeout_s = timeout_s

    def _call(self, tool: str, arguments: dict[str, Any]) -> hubclient.HubAnswer:
        return hubclient.call_tool(
            self.connection, tool, arguments, agent=self.caller.agent, timeout_s=self.timeout_s
        )

    def event(self, event_id: str) -> EventDetail | None:
        """The hub's copy of the event as its `get` shows it (the cut's note taken off), or None
        when the hub does not know it either."""
        answer = self._call("get", {"id": event_id})
        if isinstance(answer, hubclient.HubFailure):
            raise not_here(self.connection, event_id, "cite it", answer.reason)
        if answer.is_error and answer.message == forgotten(event_id):
            raise cannot_cite(event_id)
        return _event_of(answer, event_id)

    def quoted(self, quote: str) -> EventView | None:
        """The most recent of the hub's messages holding the quote, else of its tool results;
        None when none does (or the hub refuses the quote as a query)."""
        arguments = {
            "query": quote,
            "scope": "events",
            "include_tools": True,
            "limit": QUOTE_CANDIDATES,
        }
        answer = self._call("search", arguments)
        if isinstance(answer, hubclient.HubFailure):
            raise OriginError(
                f'No event on this device contains the quote "{quote}", and its Origin hub '
                f"({self.connection.url}) could not be reached to look for it there "
                f"({answer.reason}).",
                "upstream_failure",
            )
        payload = None if answer.is_error else answer.payload()
        listed = payload.get("events") if isinstance(payload, dict) else None
        found: list[dict[str, Any]] = [
            e for e in listed or [] if isinstance(e, dict) and isinstance(e.get("id"), str)
        ]
        for kind in QUOTED_KINDS:
            holding = [e for e in found if e.get("kind") == kind and self._holds(quote, e)]
            if holding:
                # The hub's JSON: an event of its search, as the contract shows one.
                return cast(
                    "EventView", max(holding, key=lambda e: (_instant(e.get("time")), e["id"]))
                )
        return None

    def _holds(self, quote: str, shown: dict[str, Any]) -> bool:
        """Whether an event the hub's search showed holds the quote: in the text shown, or,
        when that was cut, in the whole text the hub's `get` shows."""
        text = str(shown.get("text", ""))
        if holds(quote, uncut(text)):
            return True
        if uncut(text) == text:
            return False
        answer = self._call("get", {"id": shown["id"]})
        whole = (
            _event_of(answer, str(shown["id"])) if isinstance(answer, hubclient.HubResult) else None
        )
        return whole is not None and holds(quote, whole["text"])


def _event_of(answer: hubclient.HubResult, event_id: str) -> EventDetail | None:
    """The event in the hub's answer to `get`, its cut's note taken off; None for an error (the
    hub does not know it either) or anything but that event."""
    event = None if answer.is_error else answer.payload()
    if not isinstance(event, dict) or event.get("id") != event_id or "text" not in event:
        return None
    # The hub's JSON: its `get` of an event, as the contract shows one.
    return cast("EventDetail", {**event, "text": uncut(str(event["text"]))})


def _instant(stamp: Any) -> float:
    """An ISO time as a comparable instant; unknown sorts first."""
    try:
        return datetime.fromisoformat(str(stamp)).timestamp()
    except ValueError:
        return float("-inf")
