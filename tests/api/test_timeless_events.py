"""An event whose log line has no time (Claude Code's `mode` and `permission-mode` lines that
open a session) has no time at every front door: the tools' `time` is null, the CLI prints
none, the hub answers the same; and its session's range is its timed events' alone. None of
them shows 1 January 1970."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import TIMELESS_PROMPT_TIME, TIMELESS_SESSION, timeless_env
from hub_support import running_hub
from mcp_client import stdio_client, tool_json

from origin_api.contract.timeargs import parse_time, render

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ORIGIN = str(Path(sys.executable).with_name("origin"))
PROMPT_TIME = render(parse_time(TIMELESS_PROMPT_TIME, "time"))
PROMPT_ID = "claude-code:0d1e5500-0000-4000-8000-0000000000a1"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, **timeless_env(tmp_path)}


def times(events: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    return [
        (e["id"].split(":")[-2] if e["kind"] == "meta" else e["kind"], e["time"]) for e in events
    ]


EXPECTED = [("permission-mode", None), ("mode", None), ("message", PROMPT_TIME)]


async def test_the_tools_give_no_time_and_the_session_its_timed_range(env):
    async with stdio_client(env) as client:
        args = {"session": TIMELESS_SESSION, "include_tools": True}
        listed = await tool_json(client, "timeline", args)
        assert times(listed["events"]) == EXPECTED
        session = listed["session"]
        assert (session["started"], session["ended"]) == (PROMPT_TIME, PROMPT_TIME)
        [listed_session] = (await tool_json(client, "timeline", {"since": "3650d"}))["sessions"]
        assert listed_session["started"] == PROMPT_TIME
        found = await tool_json(
            client, "search", {"query": "plan", "scope": "events", "include_tools": True}
        )
        assert sorted(times(found["events"]), key=str) == sorted(
            [("permission-mode", None), ("message", PROMPT_TIME)], key=str
        )
        meta = listed["events"][0]["id"]
        assert (await tool_json(client, "get", {"id": meta}))["time"] is None
        [source] = await tool_json(client, "sources", {"id": meta})
        assert source["time"] is None and source["line"] == 1


@pytest.mark.parametrize(
    "args",
    [
        ["timeline", "--session", TIMELESS_SESSION, "--include-tools"],
        ["search", "plan", "--include-tools"],
        ["get", f"claude-code:{TIMELESS_SESSION}:mode:e1c1fefabd7dae3b"],
        ["sources", f"claude-code:{TIMELESS_SESSION}:mode:e1c1fefabd7dae3b"],
    ],
    ids=["timeline", "search", "get", "sources"],
)
def test_the_cli_prints_no_time(env, args):
    subprocess.run([ORIGIN, "ingest"], env=env, check=True, capture_output=True)
    done = subprocess.run([ORIGIN, *args], env=env, capture_output=True, text=True, check=True)
    assert "mode" in done.stdout, done.stdout
    assert not re.search(r"1970-01-0[12]|1969-12-31|None", done.stdout), done.stdout


def test_the_hub_gives_no_time(tmp_path: Path):
    with running_hub(tmp_path, logs=timeless_env(tmp_path)) as hub:
        args = {"session": TIMELESS_SESSION, "include_tools": True}
        listed = hub.ok("timeline", args)
        assert times(listed["events"]) == EXPECTED
        assert listed["session"]["started"] == PROMPT_TIME
