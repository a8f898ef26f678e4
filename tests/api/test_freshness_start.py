"""Freshness at a long-running process's start: another process's recent pass does not let a
search skip the start-up pass this process is still running."""

from __future__ import annotations

import math
import threading
from pathlib import Path

from helpers import fixture_env

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_api.settings import Settings


def test_a_search_waits_for_its_own_processes_start_up_pass(tmp_path: Path) -> None:
    """Another process's pass is recent, but this one (a long-running front door just started)
    is still reading what changed since: its first searches wait for that pass, not longer."""
    env = {**fixture_env(tmp_path), "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "600000"}
    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()  # the recent pass of "another process"
        origin.last_ingest = -math.inf  # this process has run none of its own
        origin.started = threading.Event()
        done = threading.Event()

        def search() -> None:
            call(origin, "search", {"query": "limiter"}, Caller("test", "box"))
            done.set()

        threading.Thread(target=search, daemon=True).start()
        assert not done.wait(0.5)  # waiting for the start-up pass
        origin.started.set()
        assert done.wait(10)
