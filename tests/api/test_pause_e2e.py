"""Ephemeral mode across processes: `origin pause` on the command line, then two agents' `origin
mcp` and the hub over the same home all suppress `ingest` and refuse `remember` at once, with no
restart; `--for` ends by itself; `origin status` shows it; `origin resume` ends it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from hub_support import PROMPT_ID, Hub, running_hub
from mcp.client import Client
from mcp_client import stdio_client

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]
ORIGIN = str(Path(sys.executable).with_name("origin"))
SUPPRESSED = "(ephemeral mode: event suppressed)"
INGEST = {"content": "Tried the new cache layout.", "workspace": "/home/dev/demo-app"}
REMEMBER = {
    "kind": "memory",
    "text": "Noted during a pause.",
    "confidence": 0.5,
    "sources": [{"event_id": PROMPT_ID}],
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(tmp_path_factory.mktemp("hub")) as running:
        yield running


def origin_cli(hub: Hub, *args: str) -> str:
    done = subprocess.run(
        [ORIGIN, *args],
        env={**os.environ, **hub.env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout


async def _ingest_text(client: Client) -> str:
    result = await client.call_tool("ingest", INGEST)
    assert not result.is_error, result.content[0].text
    return result.content[0].text


async def test_two_agents_and_the_hub_see_a_pause_at_once(hub: Hub):
    env = {**os.environ, **hub.env}
    async with AsyncExitStack() as stack:
        agents = [
            await stack.enter_async_context(stdio_client(env, name=name))
            for name in ("claude-code", "codex")
        ]
        for agent in agents:  # recording before the pause
            assert (await _ingest_text(agent)).startswith("Recorded [mcp]: ")

        said = origin_cli(hub, "pause", "--reason", "a private call")
        assert "Recording is paused since " in said and "(a private call)" in said
        for agent in agents:
            assert await _ingest_text(agent) == SUPPRESSED
            refused = await agent.call_tool("remember", REMEMBER)
            assert refused.is_error
            assert refused.content[0].text.startswith("Recording is paused (ephemeral mode)")
            assert "`origin resume`" in refused.content[0].text
            assert not (await agent.call_tool("search", {"query": "token bucket"})).is_error
        on_hub = hub.call("ingest", INGEST)
        assert on_hub["isError"] is False and on_hub["content"][0]["text"] == SUPPRESSED
        assert on_hub["structuredContent"]["paused"]["reason"] == "a private call"
        refused_on_hub = hub.call("remember", REMEMBER)
        assert refused_on_hub["isError"] is True
        assert refused_on_hub["structuredContent"]["data"]["category"] == "conflict"

        status = json.loads(origin_cli(hub, "status", "--json"))
        assert status["paused"]["reason"] == "a private call" and status["paused"]["until"] is None
        assert "recording paused since " in origin_cli(hub, "status")
        doctor = subprocess.run(
            [ORIGIN, "doctor", "--json"], env=env, capture_output=True, text=True, timeout=60
        )
        findings = {(f["area"], f["subject"]): f for f in json.loads(doctor.stdout)["findings"]}
        assert findings[("archive", "recording")]["level"] == "note"

        assert "Recording resumed" in origin_cli(hub, "resume")
        for agent in agents:
            assert (await _ingest_text(agent)).startswith("Recorded [mcp]: ")
        assert hub.call("ingest", INGEST)["content"][0]["text"].startswith("Recorded [mcp]: ")
        assert json.loads(origin_cli(hub, "status", "--json"))["paused"] is None


@pytest.mark.slow
async def test_a_pause_for_a_while_ends_by_itself(hub: Hub):
    env = {**os.environ, **hub.env}
    async with stdio_client(env, name="claude-code") as agent:
        said = json.loads(origin_cli(hub, "pause", "--for", "3s", "--json"))
        assert said["paused"]["until"] is not None
        started = time.monotonic()
        assert await _ingest_text(agent) == SUPPRESSED
        assert hub.call("ingest", INGEST)["content"][0]["text"] == SUPPRESSED
        time.sleep(max(0.0, 3.2 - (time.monotonic() - started)))
        assert (await _ingest_text(agent)).startswith("Recorded [mcp]: ")
        assert hub.call("ingest", INGEST)["content"][0]["text"].startswith("Recorded [mcp]: ")
        assert json.loads(origin_cli(hub, "status", "--json"))["paused"] is None
        ended = json.loads(origin_cli(hub, "resume", "--json"))
        assert ended["resumed"]["until"] == said["paused"]["until"]  # the window, for the skip


def test_pause_and_resume_say_what_they_did(hub: Hub):
    assert "Recording was not paused" in origin_cli(hub, "resume")
    done = subprocess.run(
        [ORIGIN, "pause", "--for", "soon"],
        env={**os.environ, **hub.env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (
        done.returncode == 2 and "--for takes a duration such as 90s" in done.stdout + done.stderr
    )
    assert json.loads(origin_cli(hub, "status", "--json"))["paused"] is None
