"""One answer from two stores: a connected device's own and its hub's (the contract's Conventions).

A read runs here and on the hub at once; the hub gets `ORIGIN_HUB_TIMEOUT_MS` from the start of
the call, and when it has not answered by then (or cannot be reached, or refuses) the device's
answer goes out alone with the Note item saying so. What both stores have is the device's
(`origin: "local"`); what only the hub has is `"hub"`.

Order. The hub's results carry no score comparable to this device's, so `search` with a query
interleaves the two ranked lists, this device's first at each rank: the best match of either
store is among the first two, and neither store's order is undone. Without a query (the most
recent entries, or events with scope events) both lists merge newest first. `timeline` lists
sessions by their last activity. Limits hold on the merged list. Of the versions of one entry
(one `root`) only the current one is kept: the version no other one listed supersedes, and among
concurrent ones the store's fork rule (the later `created`, ties the larger id).

Writes stay local, except a `correct` or `forget` of an id this device does not know: that one is
the hub's, and fails with a readable message when the hub cannot be reached. A `remember` or
`correct` citing an event only the hub has checks it against the hub's copy, and is written here.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, TypeVar, cast

from ..contract.args import ToolArgs
from ..errors import CATEGORIES, OriginError
from ..runtime import Origin
from ..sync import client as hubclient
from ..sync.connection import Connection
from .common import Caller, Noted, Relayed, ingest_if_due
from .handlers import Handler
from .hubcite import HubEvents, forgotten, not_here
from .shapes import EntryView, GetResult, SearchResult, SourcesResult, TimelineResult

LOCAL, HUB = "local", "hub"
READS = frozenset({"search", "timeline", "get", "sources"})
#: An item of a result: an entry, event, session or source (each shape's `origin` is optional).
_Item = TypeVar("_Item", bound=Mapping[str, Any])
#: Writes that act on the hub when this device does not know the id.
ON_HUB_WHEN_UNKNOWN = frozenset({"correct", "forget"})
#: Writes whose sources may cite an event only the hub has.
CITING = frozenset({"remember", "correct"})


def relay(
    connection: Connection, tool: str, arguments: Any, caller: Caller, timeout_s: float
) -> Relayed:
    """A relay's every call: the hub's result verbatim, or the relay's one failure message."""
    answer = hubclient.call_tool(
        connection, tool, arguments, agent=caller.agent, timeout_s=timeout_s
    )
    if isinstance(answer, hubclient.HubFailure):
        raise OriginError(
            hubclient.relay_unreachable(connection, answer.reason), "upstream_failure"
        )
    return Relayed(answer.result)


def connected(
    origin: Origin,
    connection: Connection,
    tool: str,
    arguments: Any,
    checked: ToolArgs,
    caller: Caller,
    handler: Handler,
) -> Any:
    """Run `tool` on a connected device: a merged read, or a write here (or on the hub)."""
    if tool in READS:
        return _read(origin, connection, tool, arguments, checked, caller, handler)
    return _write(origin, connection, tool, arguments, checked, caller, handler)


# -- reads ----------------------------------------------------------------------------------------


def _read(
    origin: Origin,
    connection: Connection,
    tool: str,
    arguments: Any,
    checked: ToolArgs,
    caller: Caller,
    handler: Handler,
) -> Any:
    budget = origin.settings.hub_timeout_ms / 1000
    started = time.monotonic()
    pending = hubclient.start(connection, tool, arguments, agent=caller.agent, timeout_s=budget)
    _sync(origin, force=False, wait_s=budget)
    if tool in ("get", "sources"):
        ingest_if_due(origin)  # the Freshness section: on a connected device these ingest too
    local: Any = None
    failed: OriginError | None = None
    try:
        local = handler(origin, caller, checked, None)
    except OriginError as error:
        failed = error
    answer = hubclient.wait(pending, budget - (time.monotonic() - started), budget)
    if failed is not None:
        return _hubs_instead(connection, tool, checked, failed, answer)
    if isinstance(answer, hubclient.HubFailure):
        return Noted(label(tool, local, LOCAL), answer.reason)
    if answer.is_error:
        if tool in ("get", "sources") or checked.get("session"):
            return label(tool, local, LOCAL)  # the hub was asked; it does not know this id
        return Noted(label(tool, local, LOCAL), f"the hub answered: {answer.text}")
    return merge(tool, checked, local, answer.payload())


def _hubs_instead(
    connection: Connection,
    tool: str,
    checked: Mapping[str, Any],
    failed: OriginError,
    answer: hubclient.HubAnswer,
) -> Any:
    """A read this device failed: an id (or session) it does not know may be the hub's, or
    forgotten there; anything else (invalid input, an id forgotten here) is this device's
    answer. Without the hub, an unknown id cannot be told unknown: the error says why."""
    if not _unknown_here(failed):
        raise failed
    item = checked.get("id") or f"Session {checked.get('session')}"
    if isinstance(answer, hubclient.HubFailure):
        raise not_here(connection, item, "look for it there", answer.reason)
    if not answer.is_error:
        return label(tool, answer.payload(), HUB)
    if answer.message == forgotten(item):  # forgotten elsewhere; this device has not pulled it
        raise OriginError(answer.message, "not_found")
    raise failed


def _unknown_here(error: OriginError) -> bool:
    return error.category == "not_found" and not error.message.endswith("has been forgotten.")


def merge(tool: str, checked: Mapping[str, Any], local: Any, hub: Any) -> Any:
    """The merged payload of `tool` from the device's and the hub's payloads (labels added)."""
    if tool == "search":
        return _merge_search(checked, local, hub)
    if tool == "timeline":
        return _merge_timeline(checked, local, hub)
    if tool == "get":
        return _merge_get(local, hub)
    return _merge_sources(local, hub)


def _merge_sources(local: SourcesResult, hub: Any) -> SourcesResult:
    """The device's lines, then those of the cited events only the hub has (an entry of this
    device's citing another device's event, docs/sync.md). The hub's answer is its JSON."""
    out = [_with(item, LOCAL) for item in local]
    if isinstance(hub, list):
        have = {item["event_id"] for item in local}
        out += [_with(item, HUB) for item in hub if item.get("event_id") not in have]
    return out


def _merge_search(checked: Mapping[str, Any], local: SearchResult, hub: Any) -> SearchResult:
    limit = int(checked.get("limit") or 20)
    ranked = checked.get("query") is not None
    entries = _combine(local.get("entries", []), hub.get("entries", []), ranked, "created")
    events = _combine(local.get("events", []), hub.get("events", []), ranked, "time")
    return {"entries": current_only(entries)[:limit], "events": events[:limit]}


def _merge_timeline(checked: Mapping[str, Any], local: TimelineResult, hub: Any) -> Any:
    if "sessions" not in local:  # one session's events: the device's, which has the session
        return label("timeline", local, LOCAL)
    limit = int(checked.get("limit") or 50)
    seen = {s["session"] for s in local["sessions"]}
    sessions = [_with(s, LOCAL) for s in local["sessions"]]
    sessions += [_with(s, HUB) for s in hub.get("sessions", []) if s["session"] not in seen]
    sessions.sort(key=lambda s: (_when(s.get("ended") or s.get("started")), s["session"]))
    sessions.reverse()
    return {"sessions": sessions[:limit]}


def _merge_get(local: GetResult, hub: Any) -> Any:
    """The device's item; an entry's history also lists the versions only the hub has (another
    device's correction), a version either store saw superseded being superseded."""
    out = label("get", local, LOCAL)
    if "entry" not in local or "history" not in hub:
        return out
    history: dict[str, dict[str, Any]] = {h["id"]: h for h in out["history"]}
    for version in hub["history"]:
        mine = history.get(version["id"])
        if mine is None:
            history[version["id"]] = _with(version, HUB)
        elif version.get("status") == "superseded":
            mine["status"] = "superseded"
    out["history"] = sorted(history.values(), key=lambda h: (_when(h.get("created")), h["id"]))
    # The events it cites that only the hub has (another device's) are the hub's to show.
    cited = {source["id"] for source in out.get("sources", [])}
    if hub.get("entry", {}).get("id") == local["entry"]["id"]:
        out["sources"] = out.get("sources", []) + [
            _with(source, HUB) for source in hub.get("sources", []) if source["id"] not in cited
        ]
    return out


def _combine(local: list[_Item], hub: list[Any], ranked: bool, time_field: str) -> list[_Item]:
    """Both lists, each id once (the device's copy), labelled; interleaved by rank when ranked,
    newest first otherwise."""
    mine = [_with(item, LOCAL) for item in local]
    ids = {item["id"] for item in local}
    theirs = [_with(item, HUB) for item in hub if item["id"] not in ids]
    if not ranked:
        both = mine + theirs
        both.sort(key=lambda item: (_when(item.get(time_field)), item["id"]), reverse=True)
        return both
    out: list[_Item] = []
    for rank in range(max(len(mine), len(theirs))):
        out.extend(side[rank] for side in (mine, theirs) if rank < len(side))
    return out


def current_only(entries: list[EntryView]) -> list[EntryView]:
    """Of each entry's versions listed, only the current one, where the first of them stood."""
    groups: dict[str, list[EntryView]] = {}
    for entry in entries:
        groups.setdefault(entry.get("root") or entry["id"], []).append(entry)
    out: list[EntryView] = []
    placed: set[str] = set()
    for entry in entries:
        root = entry.get("root") or entry["id"]
        if root not in placed:
            placed.add(root)
            out.append(_winner(groups[root]))
    return out


def _winner(versions: list[EntryView]) -> EntryView:
    corrected = {v.get("supersedes") for v in versions}
    open_ = [v for v in versions if v["id"] not in corrected] or versions
    return max(open_, key=lambda v: (_when(v.get("created")), v["id"]))


def label(tool: str, payload: Any, origin: str) -> Any:
    """`payload` with `origin` on every entry, event, session and source in it."""
    if tool == "sources":
        return [_with(item, origin) for item in payload]
    if not isinstance(payload, dict):
        return payload
    if "entry" in payload and ("history" in payload or tool != "get"):
        out = {**payload, "entry": _with(payload["entry"], origin)}
        if "sources" in payload:
            out["sources"] = [_with(s, origin) for s in payload["sources"]]
        if "history" in payload:
            out["history"] = [_with(h, origin) for h in payload["history"]]
        return out
    if tool == "search":
        return {k: _each(v, origin) for k, v in payload.items()}
    if tool == "timeline":
        out = dict(payload)
        if "sessions" in out:
            out["sessions"] = _each(out["sessions"], origin)
        if "session" in out and isinstance(out["session"], dict):
            out["session"] = _with(out["session"], origin)
        if "events" in out:
            out["events"] = _each(out["events"], origin)
        return out
    if tool == "get":  # an event
        return _with(payload, origin)
    return payload


def _each(items: Iterable[Any], origin: str) -> list[Any]:
    return [_with(item, origin) if isinstance(item, dict) else item for item in items]


def _with(item: _Item, origin: str) -> _Item:
    """A copy of the item labelled with the store it comes from."""
    return cast("_Item", {**item, "origin": origin})


def _when(stamp: Any) -> float:
    """An ISO time (either store's zone) as a comparable instant; unknown sorts first."""
    if not isinstance(stamp, str):
        return float("-inf")
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return float("-inf")


# -- writes ---------------------------------------------------------------------------------------


def _write(
    origin: Origin,
    connection: Connection,
    tool: str,
    arguments: Any,
    checked: ToolArgs,
    caller: Caller,
    handler: Handler,
) -> Any:
    elsewhere = None
    if tool in CITING:
        timeout = origin.settings.hub_request_timeout_ms / 1000
        elsewhere = HubEvents(connection, caller, timeout)
    try:
        result = handler(origin, caller, checked, elsewhere)
    except OriginError as error:
        if tool not in ON_HUB_WHEN_UNKNOWN or error.message != unknown(checked.get("id")):
            raise
        return _on_hub(origin, connection, tool, arguments, caller)
    _sync(origin, force=True)
    return label(tool, result, LOCAL)


def unknown(item_id: Any) -> str:
    return f"Unknown entry or event {item_id}."


def _on_hub(
    origin: Origin, connection: Connection, tool: str, arguments: Any, caller: Caller
) -> Any:
    """`correct`/`forget` of what only the hub has, done there; its refusal is the answer."""
    timeout = origin.settings.hub_request_timeout_ms / 1000
    answer = hubclient.call_tool(connection, tool, arguments, agent=caller.agent, timeout_s=timeout)
    item = arguments.get("id") if isinstance(arguments, dict) else None
    if isinstance(answer, hubclient.HubFailure):
        raise not_here(connection, item, f"{tool} it there", answer.reason)
    if answer.is_error:
        # The hub's own words, as this device's answer (its request id is the hub's business).
        category = answer.category
        raise OriginError(answer.message, category if category in CATEGORIES else "conflict")
    _sync(origin, force=True)  # what the hub did comes back to this device
    return label(tool, answer.payload(), HUB)


def _sync(origin: Origin, *, force: bool, wait_s: float | None = None) -> None:
    """Sync with the hub (docs/sync.md): before a read when the last sync is 10 s old, at once
    after a write (`force`), for no longer than the hub timeout (or `wait_s`). A failed sync
    never fails the tool: the merged answer covers what it lacks, and origin status reports it."""
    from ..sync.hubsync import sync_due

    sync_due(origin, force=force, wait_s=wait_s)
