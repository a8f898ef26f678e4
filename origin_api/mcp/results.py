"""What every MCP server of Origin answers alike: who it is and how a tool call's result looks.

The lean stdio loop, the SDK's stdio server and the hub all name the server with `server_info()`
and shape every tool call with `run_tool`, so a client sees the same answers whichever it uses.
"""

from __future__ import annotations

import sys
import traceback
from functools import cache
from typing import Any

import orjson

from ..errors import OriginError
from ..runtime import Origin
from ..service import Caller, Noted, Relayed, Said, call

NAME = "origin"
TITLE = "Origin"
#: The package whose metadata gives the version (pyproject.toml's `[project] name`).
DISTRIBUTION = "origin-archive"
#: The version reported when Origin runs from a checkout that was never installed.
UNKNOWN_VERSION = "0+unknown"


@cache
def version() -> str:
    """Origin's version, from the installed package's metadata.

    Read on first use, not at import: importing `importlib.metadata` costs ~15 ms, which a
    process that never answers `initialize` (the CLI) should not pay."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed(DISTRIBUTION)
    except PackageNotFoundError:
        return UNKNOWN_VERSION


def server_info() -> dict[str, str]:
    """The server's MCP `Implementation`: name, title and version."""
    return {"name": NAME, "title": TITLE, "version": version()}


def tool_result(
    payload: Any, *, error: OriginError | None = None, request_id: str | None = None
) -> dict[str, Any]:
    """One JSON text item; errors carry the readable message (and the hub's structured data).
    A connected device's answer without its hub adds the Note as a second text item; a relay's
    is the hub's result as the hub gave it; an answer in words (`ingest`) is its text, with its
    data as structured content."""
    if error is None:
        if isinstance(payload, Relayed):
            return payload.result
        if isinstance(payload, Said):
            return {
                "content": [{"type": "text", "text": payload.text}],
                "structuredContent": payload.data,
                "isError": False,
            }
        content = [{"type": "text", "text": orjson.dumps(_payload(payload)).decode()}]
        if isinstance(payload, Noted):
            content.append({"type": "text", "text": payload.note})
        return {"content": content, "isError": False}
    message = error.message + (f" (request {request_id})" if request_id else "")
    result: dict[str, Any] = {"content": [{"type": "text", "text": message}], "isError": True}
    if request_id:
        result["structuredContent"] = {
            "data": {"category": error.category, "message": error.message, "requestId": request_id}
        }
    return result


def _payload(payload: Any) -> Any:
    return payload.payload if isinstance(payload, Noted) else payload


def run_tool(
    origin: Origin,
    name: str,
    arguments: Any,
    caller: Caller,
    allowed: frozenset[str] | None = None,
    request_id: str | None = None,
    *,
    merged: bool = False,
) -> dict[str, Any]:
    """Call a tool and shape its MCP result; every failure becomes a tool error, never a crash.
    With a request id (the hub), errors carry it and their category as structured data. With
    `merged` (a device's `origin mcp`), a connected device asks its hub too (`service.call`)."""
    if allowed is not None and name not in allowed:
        return tool_result(
            None, error=OriginError(f"Unknown tool {name!r}.", "not_found"), request_id=request_id
        )
    try:
        return tool_result(call(origin, name, arguments, caller, merged=merged))
    except OriginError as error:
        return tool_result(None, error=error, request_id=request_id)
    except Exception as error:
        traceback.print_exc(file=sys.stderr)
        failed = OriginError(
            f"Origin failed while running {name}: {type(error).__name__}: {error}",
            "upstream_failure",
        )
        return tool_result(None, error=failed, request_id=request_id)
