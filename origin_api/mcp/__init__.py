"""Origin's tools over MCP, one module per job:

- `results`: what every server answers alike (its name and version, each tool call's result);
- `stdio`: `origin mcp`, a lean JSON-RPC loop that starts fast (no SDK import);
- `sdk`: the MCP SDK's low-level server, for `origin mcp --sdk` and the hub's Streamable HTTP.

Importing this package imports neither transport: `serve` loads the one it runs.
"""

from __future__ import annotations


def serve(*, sdk: bool = False) -> None:
    """`origin mcp [--sdk]`: open Origin and serve its tools on stdio until the agent closes
    stdin; with `sdk`, through the MCP SDK's stdio server (a slower start)."""
    from ..runtime import Origin

    with Origin.open() as origin:
        if sdk:
            from .sdk import serve_stdio

            serve_stdio(origin)
        else:
            from .stdio import serve as serve_lean

            if not serve_lean(origin):
                origin.keep_open()
