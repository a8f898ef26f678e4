"""The tools served through the official MCP SDK's low-level server: the hub's Streamable HTTP
endpoint (`build_server`) and `origin mcp --sdk` over stdio (`serve_stdio`). Same table, same
service, same results (`results`) as the lean stdio loop; only the transport differs.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server

from ..contract.tools import INSTRUCTIONS, TOOLS
from ..errors import OriginError
from ..runtime import Origin
from ..service import Caller
from .results import run_tool, server_info, tool_result

#: Given the request context: who calls, which tools they may see, and a request id (or None).
Access = Callable[[Any], tuple[Caller, frozenset[str], str | None]]
#: Given the request context and a tool name: an error refusing the call (a tool hidden from this
#: caller, a rate limit) with extra structured fields for it, or None to run the tool.
Gate = Callable[[Any, str], tuple[OriginError, dict[str, Any]] | None]


def build_server(
    origin: Origin, access: Access, gate: Gate | None = None, *, merged: bool = False
) -> Server:
    """The SDK server over `origin`; `merged` on a device's own stdio server only (the hub's
    answers are its store's alone, never labelled)."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        _, allowed, _ = access(ctx)
        return types.ListToolsResult(
            tools=[types.Tool.model_validate(t.as_mcp()) for t in TOOLS if t.name in allowed]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        caller, allowed, request_id = access(ctx)
        refused = gate(ctx, params.name) if gate is not None else None
        if refused is not None:
            error, extra = refused
            result = tool_result(None, error=error, request_id=request_id)
            if "structuredContent" in result:
                result["structuredContent"]["data"].update(extra)
        else:
            result = await anyio.to_thread.run_sync(
                partial(
                    run_tool,
                    origin,
                    params.name,
                    params.arguments,
                    caller,
                    allowed,
                    request_id,
                    merged=merged,
                )
            )
        return types.CallToolResult.model_validate(result)

    info = server_info()
    return Server(
        info["name"],
        version=info["version"],
        title=info["title"],
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve_stdio(origin: Origin) -> None:
    """`origin mcp --sdk`: the SDK's stdio transport; the author is the client's name."""
    from mcp.server.stdio import stdio_server

    every = frozenset(t.name for t in TOOLS)

    def access(ctx: Any) -> tuple[Caller, frozenset[str], str | None]:
        name = "unknown"
        params = getattr(getattr(ctx, "session", None), "client_params", None)
        if params is not None and getattr(params, "client_info", None) is not None:
            name = params.client_info.name or name
        return Caller(name, origin.settings.device), every, None

    server = build_server(origin, access, merged=True)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
