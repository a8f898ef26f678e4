"""Commands that serve the tools: `origin mcp` (stdio, for agents)."""

from __future__ import annotations

import typer

MCP_HELP = """Serve Origin's tools to an agent over MCP stdio (the agent starts this itself).

Register Origin with Claude Code:

    claude mcp add --scope user origin -- origin mcp

Register it with Codex (in ~/.codex/config.toml):

    \\[mcp_servers.origin]
    command = "origin"
    args = ["mcp"]

Use the full path of `origin` (e.g. from `which origin`) if the agent's PATH lacks it.
ORIGIN_HOME chooses the store (default ~/.origin); ORIGIN_WATCH_INTERVAL_MS sets how often new
log lines are looked for (default 60000; 0 turns it off).
"""


def register(app: typer.Typer) -> None:
    app.command(help=MCP_HELP)(mcp)


def mcp(
    sdk: bool = typer.Option(
        False, "--sdk", help="Serve through the MCP SDK's stdio server (slower start)."
    ),
) -> None:
    from ..mcp import serve

    serve(sdk=sdk)
