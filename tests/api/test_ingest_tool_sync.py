"""A recorded event syncs like any other: a connected device's `ingest` reaches its hub, which
answers `get`, `sources` (the journal line the device sent) and `timeline` for its session."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import fixture_env
from hub_support import Hub, running_hub

from origin_api.mcp.results import run_tool
from origin_api.runtime import Origin
from origin_api.service import Caller
from origin_api.sync import connection as hub_connection
from origin_api.sync import sync_now
from origin_store import Settings


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    with running_hub(tmp_path / "hub", ingest=False) as running:
        yield running


def test_a_recorded_event_reaches_the_hub(tmp_path: Path, hub: Hub):
    env = {**fixture_env(tmp_path / "dev", copy=True), "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0"}
    settings = Settings.from_env(env)
    hub_connection.save(
        settings.home, hub_connection.Connection(hub.url, "laptop", False, hub.tokens["laptop"])
    )
    with Origin.open(settings) as device:
        result = run_tool(
            device,
            "ingest",
            {"content": "Recorded on the laptop.", "workspace": "/home/dev/demo-app"},
            Caller("copilot", "laptop"),
            merged=True,
        )
        assert result["isError"] is False, result["content"][0]["text"]
        data = result["structuredContent"]
        sync_now(device)
    event = hub.ok("get", {"id": data["id"]})
    assert (event["source"], event["session"], event["project"]) == (
        "mcp",
        data["session"],
        "demo-app",
    )
    [source] = hub.ok("sources", {"id": data["id"]})
    assert json.loads(source["raw"])["content"] == "Recorded on the laptop."
    assert source["original_file"].endswith("/journal/mcp.jsonl")
    # The hub has no journal of its own for it, and still finds its session by id alone.
    assert hub.ok("timeline", {"session": data["session"]})["events"][0]["id"] == data["id"]
