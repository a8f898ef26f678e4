"""Merged answers and relays through a real `origin mcp` subprocess and the SDK's client, against a
real hub on loopback with a real token."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hub_support import PROMPT_ID, Hub, running_hub
from mcp_client import stdio_client, tool_json
from test_merge import NOTE, connect, dead_url, device_env, slow_proxy
from test_relay import ARGS, RELAY_MESSAGE

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _settled(env: dict[str, str], within_s: float = 20.0) -> None:
    """Wait for the device's start-up work: its last sync came after its last ingest."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        shown = subprocess.run(
            [str(Path(sys.executable).with_name("origin")), "status", "--json"],
            env=env,
            capture_output=True,
            check=True,
        )
        info = json.loads(shown.stdout)
        ingested = (info.get("last_ingest") or {}).get("time", 0)
        synced = ((info.get("hub") or {}).get("last") or {}).get("time", 0)
        if ingested and synced > ingested:
            return
        time.sleep(0.2)
    raise AssertionError("the device's start-up sync did not come")


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(tmp_path_factory.mktemp("hub")) as running:
        yield running


async def test_an_entry_made_on_the_hub_is_found_from_the_device_as_the_hubs(
    tmp_path: Path, hub: Hub
):
    env = device_env(tmp_path)
    connect(env, hub.url, hub.tokens["laptop"])
    async with stdio_client(env) as client:
        # Once the start-up ingest and its sync are done, what is made on the hub is the
        # hub's alone until this device's next sync, 10 s later.
        await tool_json(client, "search", {"query": "token bucket", "limit": 1})
        _settled(env)
        made = hub.ok(
            "remember",
            {
                "kind": "knowledge",
                "text": "Merged through stdio: the limiter is a token bucket.",
                "confidence": 0.8,
                "sources": [{"event_id": PROMPT_ID}],
            },
        )["entry"]
        found = await tool_json(client, "search", {"query": "token bucket", "limit": 5})
        entry = await tool_json(client, "get", {"id": made["id"]})
        fixed = await tool_json(client, "correct", {"id": made["id"], "text": "Token bucket, v2."})
        again = await tool_json(client, "search", {"query": "token bucket", "scope": "entries"})
    assert {e["id"]: e["origin"] for e in found["entries"]}[made["id"]] == "hub"
    assert len(found["entries"]) <= 5 and len(found["events"]) <= 5
    assert all(e["origin"] == "local" for e in found["events"])  # the device has the samples
    assert entry["entry"]["origin"] == "hub" and entry["history"][0]["origin"] == "hub"
    assert fixed["entry"]["origin"] == "hub"
    roots = [e["root"] for e in again["entries"]]
    assert len(roots) == len(set(roots))
    # the correction was made on the hub, and the sync right after it brought it here
    assert {e["id"]: e["origin"] for e in again["entries"]}[fixed["entry"]["id"]] == "local"
    assert made["id"] not in {e["id"] for e in again["entries"]}


@pytest.mark.slow
async def test_a_slow_hub_gives_the_note_within_two_and_a_half_seconds(tmp_path: Path, hub: Hub):
    env = device_env(tmp_path)
    with slow_proxy(hub, 5.0) as url:
        connect(env, url, hub.tokens["laptop"])
        async with stdio_client(env) as client:
            await client.call_tool("timeline", {"since": "3650d"})  # start-up ingest: not timed
            started = time.monotonic()
            result = await client.call_tool("search", {"query": "token bucket"})
            took = time.monotonic() - started
    assert took < 2.5, took
    assert not result.is_error and len(result.content) == 2
    assert result.content[1].text == NOTE.format("timed out after 2000 ms")
    events = json.loads(result.content[0].text)["events"]
    assert events and all(e["origin"] == "local" for e in events)


async def test_the_hub_down_gives_the_note(tmp_path: Path):
    env = device_env(tmp_path)
    connect(env, dead_url(), "ogn_unused")
    async with stdio_client(env) as client:
        result = await client.call_tool("get", {"id": PROMPT_ID})
    assert result.content[1].text == NOTE.format("connection refused")
    assert json.loads(result.content[0].text)["origin"] == "local"


async def test_a_relay_answers_as_its_hub_and_keeps_no_store(tmp_path: Path, hub: Hub):
    env = device_env(tmp_path, samples=False)
    connect(env, hub.url, hub.tokens["laptop"], relay=True)
    async with stdio_client(env) as client:
        got = await client.call_tool("get", {"id": PROMPT_ID})
        found = await client.call_tool("search", ARGS["search"])
    assert not (Path(env["ORIGIN_HOME"]) / "store").exists()
    direct = hub.call("get", {"id": PROMPT_ID})
    assert [c.text for c in got.content] == [c["text"] for c in direct["content"]]
    assert '"origin":' not in found.content[0].text
    assert json.loads(found.content[0].text) == hub.ok("search", ARGS["search"])


async def test_a_relay_whose_hub_is_down_fails_every_tool(tmp_path: Path):
    env = device_env(tmp_path, samples=False)
    url = dead_url()
    connect(env, url, "ogn_unused", relay=True)
    async with stdio_client(env) as client:
        for tool, args in ARGS.items():
            result = await client.call_tool(tool, args)
            assert result.is_error, tool
            assert result.content[0].text == (
                RELAY_MESSAGE.format(url) + ", which could not be reached (connection refused)."
            )
    assert not (Path(env["ORIGIN_HOME"]) / "store").exists()
