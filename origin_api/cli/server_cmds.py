"""Commands that serve the tools: `origin mcp` (stdio, for agents)."""

from __future__ import annotations

import typer

from .. import register as reg


def _help() -> str:
    """The help names this installation's `origin` by its absolute path, as the commands must."""
    commands = reg.instructions()
    return f"""Serve Origin's tools to an agent over MCP stdio (the agent starts this itself).

Register Origin with your agents:

{commands}
ORIGIN_HOME chooses the store (default ~/.origin).
ORIGIN_WATCH_INTERVAL_MS: how often new log lines are looked for (default 60000; 0: never).
"""


MCP_HELP = _help()


def register(app: typer.Typer) -> None:
    app.command(help=MCP_HELP)(mcp)


def mcp(
    sdk: bool = typer.Option(
        False, "--sdk", help="Serve through the MCP SDK's stdio server (slower start)."
    ),
) -> None:
    from ..mcp import serve

    serve(sdk=sdk)
