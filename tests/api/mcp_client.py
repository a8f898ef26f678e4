"""Talking to a real `origin mcp` subprocess with the official SDK's client."""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.types import Implementation

ORIGIN = str(Path(sys.executable).with_name("origin"))


def run_origin(
    env: dict[str, str], *args: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """`origin ARGS` as a person runs it in that environment: its exit code and output, text."""
    return subprocess.run(
        [ORIGIN, *args], env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


@asynccontextmanager
async def stdio_client(
    env: dict[str, str], *, name: str = "claude-code", sdk: bool = False, mode: str = "auto"
):
    params = StdioServerParameters(
        command=ORIGIN, args=["mcp", "--sdk"] if sdk else ["mcp"], env=env
    )
    async with Client(
        params,
        client_info=Implementation(name=name, version="1.0"),
        read_timeout_seconds=60,
        mode=mode,
    ) as client:
        yield client


async def tool_json(client: Client, name: str, args: dict[str, Any]) -> Any:
    result = await client.call_tool(name, args)
    assert not result.is_error, result.content[0].text
    assert len(result.content) == 1 and result.content[0].type == "text"
    return json.loads(result.content[0].text)


async def tool_error(client: Client, name: str, args: dict[str, Any]) -> str:
    result = await client.call_tool(name, args)
    assert result.is_error, (
        f"expected an error from {name}({args}), got {result.content[0].text[:200]}"
    )
    return result.content[0].text
