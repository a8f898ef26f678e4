"""Two devices and a hub, as the issue's acceptance tells it: an entry remembered on device A is
found from device B's `origin mcp` as the hub's; B forgets it (on the hub, since only the hub has
it); A's next reads no longer show it. Each device is a real process with its own ORIGIN_HOME;
the hub is real, on loopback, with a token per device."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import fixture_env
from hub_support import PROMPT_ID, running_hub
from mcp_client import stdio_client, tool_json

from origin_api.sync import connection

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]
ORIGIN = str(Path(sys.executable).with_name("origin"))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _device(tmp: Path, name: str, url: str, token: str, *, logs: bool) -> dict[str, str]:
    env = (
        fixture_env(tmp)
        if logs
        else {
            "HOME": str(tmp / "home"),
            "ORIGIN_HOME": str(tmp / "origin"),
            "CLAUDE_CONFIG_DIR": str(tmp / "none" / "claude"),
            "CODEX_HOME": str(tmp / "none" / "codex"),
            "ZCODE_STORAGE_DIR": str(tmp / "none" / "zcode"),
            "GROK_HOME": str(tmp / "none" / "grok"),
        }
    )
    env = {**os.environ, **env, "ORIGIN_DEVICE": name, "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0"}
    connection.save(Path(env["ORIGIN_HOME"]), connection.Connection(url, name, False, token))
    return env


def _origin(env: dict[str, str], *args: str) -> dict:
    done = subprocess.run([ORIGIN, *args, "--json"], env=env, capture_output=True, check=True)
    return json.loads(done.stdout)


def _synced(env: dict[str, str], after_ms: int = 0, within_s: float = 20.0) -> None:
    """Wait for a sync of this device that began after `after_ms` (its start-up sync)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        last = ((_origin(env, "status").get("hub") or {}).get("last") or {}).get("time", 0)
        if last > after_ms:
            time.sleep(0.3)  # the sync that recorded it is done; let its thread return
            return
        time.sleep(0.2)
    raise AssertionError("no sync came")


async def test_remembered_on_a_found_on_b_as_the_hubs_forgotten_on_b_gone_on_a(tmp_path: Path):
    with running_hub(tmp_path / "hub") as hub:
        a = _device(tmp_path / "a", "alpha", hub.url, hub.token("alpha"), logs=True)
        b = _device(tmp_path / "b", "beta", hub.url, hub.token("beta"), logs=False)
        started = int(time.time() * 1000)
        async with stdio_client(b) as device_b:
            _synced(b, started)  # B's start-up sync: what A does next is the hub's alone
            made = _origin(
                a,
                "remember",
                "The staging database is rebuilt every Sunday night.",
                "--kind",
                "knowledge",
                "--event",
                PROMPT_ID,
            )["entry"]
            assert _origin(a, "sync")["error"] is None
            found = await tool_json(device_b, "search", {"query": "staging database Sunday"})
            [entry] = [e for e in found["entries"] if e["id"] == made["id"]]
            assert entry["origin"] == "hub" and entry["author"] == "user@alpha"
            forgot = await tool_json(
                device_b, "forget", {"id": made["id"], "reason": "wrong: it is Saturday"}
            )
            assert forgot["forgotten_entries"] == [made["id"]]
            again = await tool_json(device_b, "search", {"query": "staging database Sunday"})
            assert made["id"] not in {e["id"] for e in again["entries"]}
        started = int(time.time() * 1000)
        async with stdio_client(a) as device_a:
            _synced(a, started)  # A's start-up sync brings the forget made through B
            seen = await tool_json(device_a, "search", {"query": "staging database Sunday"})
            gone = await device_a.call_tool("get", {"id": made["id"]})
        assert made["id"] not in {e["id"] for e in seen["entries"]}
        assert gone.is_error and gone.content[0].text == f"{made['id']} has been forgotten."
