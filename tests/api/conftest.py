"""An `Origin` over a temp home whose agents' logs are (copies of) the shared fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import fixture_env

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_store import Settings


@pytest.fixture
def origin(tmp_path: Path, fixtures_dir: Path):
    env = fixture_env(tmp_path, copy=True)
    env["ORIGIN_SEARCH_INGEST_INTERVAL_MS"] = "0"
    with Origin.open(Settings.from_env(env)) as opened:
        opened.ingest()  # as `origin mcp` does when it starts
        yield opened


@pytest.fixture
def tool(origin):
    caller = Caller("test-agent", origin.settings.device)

    def run(name: str, **args):
        return call(origin, name, args, caller)

    return run
