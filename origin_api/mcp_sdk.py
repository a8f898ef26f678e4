"""The tools served through the official MCP SDK's low-level server: the hub's Streamable HTTP
endpoint and `origin mcp --sdk` over stdio. Same table, same service, same results as the lean
stdio loop; only the transport differs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server

from .app import Origin
from .mcp_stdio import SERVER_INFO, run_tool
from .service import Caller
from .tools import INSTRUCTIONS, TOOLS

#: Given the request context: who calls, which tools they may see, and a request id (or None).
Access = Callable[[Any], tuple[Caller, frozenset[str], str | None]]


def build_server(origin: Origin, access: Access) -> Server:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        _, allowed, _ = access(ctx)
        return types.ListToolsResult(tools=[types.Tool.model_validate(t.as_mcp()) for t in TOOLS if t.name in allowed])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        caller, allowed, request_id = access(ctx)
        result = await anyio.to_thread.run_sync(run_tool, origin, params.name, params.arguments, caller, allowed)
        if request_id and result["isError"]:
            data = result.get("structuredContent") or {}
            data = data.get("data") or {}
            text = result["content"][0]["text"]
            result = {
                "content": [{"type": "text", "text": f"{text} (request {request_id})"}],
                "isError": True,
                "structuredContent": {"data": {"category": data.get("category", "validation_error"),
                                               "message": data.get("message", text), "requestId": request_id, **{
                                                   k: v for k, v in data.items() if k not in ("category", "message", "requestId")}}},
            }
        return types.CallToolResult.model_validate(result)

    return Server(
        SERVER_INFO["name"],
        version=SERVER_INFO["version"],
        title=SERVER_INFO["title"],
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

    server = build_server(origin, access)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
