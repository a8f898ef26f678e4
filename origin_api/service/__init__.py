"""The eight tools' semantics, written once: plain functions over an open `Origin`.

Every front door (stdio MCP, the hub, the CLI's tool commands) validates with `tools.TOOLS`,
calls `call()`, and turns `OriginError` into its own form. Nothing here knows about transports;
the archive's care outside the tools (ingest, verify, tokens, restore) is `origin_api.admin`.
"""

from __future__ import annotations

from typing import Any

import orjson

from origin_store.pause.state import Pause

from ..contract.tools import BY_NAME
from ..errors import OriginError, not_found
from ..runtime import Origin
from .common import Caller, Noted, Relayed, Said, refresh
from .handlers import HANDLERS
from .pause import RECORDING, SUPPRESSED, in_force, refusal, shown
from .shapes import Payload

#: What `call` answers: a tool's payload, `ingest`'s words, a connected device's answer without
#: its hub, or a relay's result from the hub.
Answer = Payload | Said | Noted | Relayed


def call(origin: Origin, tool: str, args: Any, caller: Caller, *, merged: bool = False) -> Answer:
    """Validate and run one tool; the single entry point of every front door.

    With `merged` (a device's own `origin mcp`, never the hub's `/mcp`), a device connected to a
    hub answers with the hub too (`merge`): a relay returns the hub's `Relayed` result, and a read
    the hub did not answer in time is `Noted`. After the call, the process's mapped archive
    pages are brought under budget if due (`footprint`)."""
    try:
        return _call(origin, tool, args, caller, merged)
    finally:
        origin.footprint.check()


def _call(origin: Origin, tool: str, args: Any, caller: Caller, merged: bool) -> Answer:
    hub = origin.connection if merged else None
    if hub is not None and hub.relay:
        from .merge import relay

        if tool in RECORDING and (paused := in_force(origin)) is not None:
            return _paused(tool, paused)
        timeout = origin.settings.hub_request_timeout_ms / 1000
        return relay(hub, tool, args, caller, timeout)
    spec = BY_NAME.get(tool)
    if spec is None:
        raise not_found(f"Unknown tool {tool!r}; Origin's tools are {', '.join(BY_NAME)}.")
    checked = spec.validate(args)
    if tool in RECORDING and (paused := in_force(origin)) is not None:
        return _paused(tool, paused)
    handler = HANDLERS[tool]
    if hub is not None:
        from .merge import connected

        merged_answer: Answer = connected(origin, hub, tool, args, checked, caller, handler)
        return merged_answer
    return handler(origin, caller, checked, None)


def _paused(tool: str, paused: Pause) -> Said:
    """While recording is paused: `ingest`'s answer, or the refusal of `remember`/`correct`."""
    if tool != "ingest":
        raise refusal(tool, paused)
    return Said(SUPPRESSED, {"recorded": False, "paused": shown(paused)})


def device_call(origin: Origin, tool: str, args: Any, caller: Caller) -> tuple[Any, str | None]:
    """A person's command on this device: the tool's payload as `origin mcp` would answer it
    (merged with the hub when connected, the hub's when a relay), and the Note to show beside
    it when the hub was not consulted."""
    result = call(origin, tool, args, caller, merged=True)
    if isinstance(result, Noted):
        return result.payload, result.note
    if isinstance(result, Relayed):
        content = result.result.get("content") or [{}]
        text = str(content[0].get("text", ""))
        if result.result.get("isError"):
            raise OriginError(text, "upstream_failure")
        return orjson.loads(text), None
    return result, None


__all__ = [
    "HANDLERS",
    "Answer",
    "Caller",
    "Noted",
    "Relayed",
    "Said",
    "call",
    "device_call",
    "refresh",
]
