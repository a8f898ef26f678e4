"""The MCP Inspector's CLI mode lists Origin's tools over stdio, started as the printed command
starts it, and over HTTP from the hub where the installed Inspector can send headers (0.17 and
later, which need Node 22)."""

from __future__ import annotations

import json

import pytest
from clients_support import CLIENTS, ORIGIN, RunningHub, User, client

from origin_api import register as reg

pytestmark = [pytest.mark.clients, pytest.mark.e2e]

ALL_TOOLS = {"search", "timeline", "get", "sources", "remember", "correct", "forget", "ingest"}


def tool_names(out: str) -> set[str]:
    return {tool["name"] for tool in json.loads(out)["tools"]}


def test_stdio_as_printed(user: User) -> None:
    inspector = client("mcp-inspector")
    printed = reg.commands(ORIGIN)["inspector"][0].split()
    assert printed[:2] == ["npx", "@modelcontextprotocol/inspector"]
    done = user.run(inspector, "--cli", *printed[2:], "--method", "tools/list")
    assert tool_names(done.stdout) == ALL_TOOLS


def test_hub_with_its_token(user: User, hub: RunningHub) -> None:
    inspector = client("mcp-inspector")
    package = CLIENTS.parent / "@modelcontextprotocol" / "inspector" / "package.json"
    version = json.loads(package.read_text(encoding="utf-8"))["version"]
    if tuple(int(n) for n in version.split(".")[:2]) < (0, 17):
        pytest.skip(f"Inspector {version} cannot send headers (0.17 can; it needs Node 22)")
    done = user.run(
        inspector,
        "--cli",
        hub.url,
        "--transport",
        "http",
        "--method",
        "tools/list",
        "--header",
        f"Authorization: Bearer {hub.token}",
    )
    assert tool_names(done.stdout) == ALL_TOOLS
