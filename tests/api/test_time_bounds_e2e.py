"""Times no front door can render, where they enter by a tool and where a device pulls them: a
real `origin mcp` refuses them as `remember`'s and `correct`'s validity and as filters, and a real
second device process that pulls one from a hub (one an earlier version of the hub accepted)
passes over it, counted, keeps the rest, and still answers every read."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers import fixture_env
from hub_support import running_hub
from mcp_client import run_origin, stdio_client, tool_error, tool_json

from origin_api.sync import connection
from origin_store import Settings, Store, bounds
from origin_store.entries import versions as E

pytestmark = [pytest.mark.e2e]
RANGE = "between 0001-01-02 and 9999-12-30 (UTC)"


@pytest.mark.anyio
async def test_origin_mcp_refuses_times_it_could_not_show(tmp_path: Path) -> None:
    env = {
        **os.environ,
        **fixture_env(tmp_path, copy=True),
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0",
        "ORIGIN_WATCH_INTERVAL_MS": "0",
    }
    remembered = {
        "kind": "knowledge",
        "text": "The deploy window is Tuesday mornings.",
        "confidence": 0.8,
        "sources": [{"quote": "the"}],
    }
    async with stdio_client(env) as client:
        entry = (await tool_json(client, "remember", remembered))["entry"]
        for name, value in [
            ("valid_from", "9999-12-31T23:59:59-14:00"),
            ("valid_from", "0001-01-01T00:00:00+14:00"),
            ("valid_to", "9999999w"),
        ]:
            refused = await tool_error(client, "remember", {**remembered, name: value})
            assert refused == f"{name} must be a time {RANGE}; got {value!r}.", refused
            corrected = {"id": entry["id"], "text": "Tuesday afternoons.", name: value}
            refused = await tool_error(client, "correct", corrected)
            assert refused == f"{name} must be a time {RANGE}; got {value!r}.", refused
        refused = await tool_error(client, "search", {"query": "deploy", "since": "9999999w"})
        assert refused.startswith("since must be a time between 0001-01-02"), refused
        # Nothing was kept that breaks a read.
        found = await tool_json(client, "search", {"query": "deploy window Tuesday"})
        assert [e["id"] for e in found["entries"]] == [entry["id"]]
        assert (await tool_json(client, "get", {"id": entry["id"]}))["entry"]["id"] == entry["id"]
        assert (await tool_json(client, "timeline", {"since": "3650d"}))["sessions"]


def _version(text: str, **changes: Any) -> dict[str, Any]:
    version = E.new_version(
        kind="knowledge",
        text=text,
        confidence=0.7,
        project=None,
        author="user@old-hub",
        created=E.now_ms(),
        sources=[],
    )
    return {**version, **changes}


def _device_env(tmp: Path, url: str, token: str) -> dict[str, str]:
    env = {
        **os.environ,
        "HOME": str(tmp / "home"),
        "ORIGIN_HOME": str(tmp / "origin"),
        "CLAUDE_CONFIG_DIR": str(tmp / "none" / "claude"),
        "CODEX_HOME": str(tmp / "none" / "codex"),
        "ZCODE_STORAGE_DIR": str(tmp / "none" / "zcode"),
        "GROK_HOME": str(tmp / "none" / "grok"),
        "ORIGIN_DEVICE": "beta",
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0",
    }
    connection.save(Path(env["ORIGIN_HOME"]), connection.Connection(url, "beta", False, token))
    return env


@pytest.mark.parametrize(
    "hostile",
    [
        {"valid_from": 2**62 - 1},
        {"valid_to": -(2**62) + 1},
        {"created": bounds.TIME_MAX_MS + 1},
    ],
    ids=["valid_from 2^62-1", "valid_to -2^62+1", "created past 9999"],
)
def test_a_device_passes_over_a_pulled_time_it_could_not_show(
    tmp_path: Path, hostile: dict[str, int]
) -> None:
    bad = _version("An entry from a hub that kept anything.", **hostile)
    good = _version("The release branch is cut on Thursdays.")
    with running_hub(tmp_path / "hub", ingest=False) as hub:
        assert hub.origin is not None
        store = hub.origin.store
        # As an earlier version of the hub stored them, unchecked.
        store.write(lambda txn: [E.put_version(store, txn, v) for v in (bad, good)])
        env = _device_env(tmp_path / "beta", hub.url, hub.token("beta"))
        done = run_origin(env, "sync", "--json")
        assert done.returncode == 0, done.stderr[-2000:]
        report = json.loads(done.stdout)
        assert (report["error"], report["refused"], report["pulled"]) == (None, 1, 1), report
        assert "must be times between" in report["refusal"], report
        again = json.loads(run_origin(env, "sync", "--json").stdout)
        assert (again["error"], again["refused"], again["pulled"]) == (None, 0, 0), again
    # The hub gone, the device answers from its own store: the good entry, and no error.
    found = run_origin(env, "search", "release branch Thursdays", "--json")
    assert found.returncode == 0, found.stderr[-2000:]
    assert good["id"] in found.stdout and bad["id"] not in found.stdout
    timeline = run_origin(env, "timeline", "--json")
    assert timeline.returncode == 0 and "Traceback" not in timeline.stderr, timeline.stderr
    shown = run_origin(env, "get", good["id"], "--json")
    assert shown.returncode == 0, shown.stderr[-2000:]


def test_a_device_leaves_out_of_its_push_what_the_hub_would_refuse(tmp_path: Path) -> None:
    """An entry an earlier version's `remember` kept with a valid_from of year 10000 would have
    the hub refuse every batch it is in: it is left out and counted, and the rest arrives."""
    with running_hub(tmp_path / "hub", ingest=False) as hub:
        assert hub.origin is not None
        env = _device_env(tmp_path / "beta", hub.url, hub.token("beta"))
        bad = _version("Kept before times were bounded.", valid_from=bounds.TIME_MAX_MS + 1)
        good = _version("The staging database is rebuilt on Sundays.")
        made = run_origin(env, "status", "--json")  # creates the device's store
        assert made.returncode == 0, made.stderr[-2000:]
        device = Store.open(Settings.from_env(env).home)
        try:
            device.write(lambda txn: [E.put_version(device, txn, v) for v in (bad, good)])
        finally:
            device.close()
        done = run_origin(env, "sync", "--json")
        assert done.returncode == 0, done.stderr[-2000:]
        report = json.loads(done.stdout)
        assert (report["error"], report["refused"]) == (None, 1), report
        assert "this device has items the hub cannot keep" in report["refusal"], report
        assert report["pushed"] >= 1
        assert hub.ok("get", {"id": good["id"]})["entry"]["id"] == good["id"]
        refused = hub.call("get", {"id": bad["id"]})
        assert refused["isError"] is True
        assert refused["content"][0]["text"].startswith(f"Unknown entry or event {bad['id']}.")
        again = json.loads(run_origin(env, "sync", "--json").stdout)
        assert (again["error"], again["refused"], again["pushed"]) == (None, 0, 0), again
