"""Shared pytest fixtures and the Hypothesis profiles."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import DATA, SHARED_FIXTURES
from hypothesis import HealthCheck, settings

from origin_api.lingering import PROCESS

# Fuzz depth is chosen here, not per test: "dev" keeps a local run quick and draws new examples
# every run (so local runs keep finding new cases), "ci" (when the CI env var is set, as CI
# services do) searches deeper from a fixed seed, so a CI failure reproduces on any machine.
# HYPOTHESIS_PROFILE picks one by name.
# A fresh `origin search` leaves a search server behind for the next one; the suite's commands
# must not (tests/api/test_cli_linger.py turns it on where it is tested).
os.environ["ORIGIN_CLI_LINGER_S"] = "0"

settings.register_profile("dev", max_examples=60, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci",
    max_examples=300,
    suppress_health_check=[HealthCheck.too_slow],
    deadline=None,
    derandomize=True,
)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


@pytest.fixture
def fixtures_dir() -> Path:
    """The project's own sample logs (tests/data), one folder per agent."""
    assert DATA.is_dir(), f"the sample logs are missing at {DATA}"
    return DATA


@pytest.fixture
def shared_fixtures() -> Path:
    """The steering repo's fixtures, for the cross-check only: skipped where they are absent."""
    if not SHARED_FIXTURES.is_dir():
        pytest.skip(f"cross-check against the shared fixtures: none at {SHARED_FIXTURES}")
    return SHARED_FIXTURES


@pytest.fixture(scope="session", autouse=True)
def no_search_server_outlives_the_suite(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """Tests whose environment is built whole (without ORIGIN_CLI_LINGER_S=0) may leave a
    search server in a temporary home; each is ended with the suite rather than idling on."""
    yield
    base = str(tmp_path_factory.getbasetemp())
    for pid, home in _lingering_servers():
        if home.startswith(base):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)


def _lingering_servers() -> Iterator[tuple[int, str]]:
    """Every lingering search server (`python -m PROCESS`) of this user, with the ORIGIN_HOME it
    serves."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if PROCESS.encode() not in (entry / "cmdline").read_bytes():
                continue
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        for pair in environ:
            if pair.startswith(b"ORIGIN_HOME="):
                yield int(entry.name), pair.split(b"=", 1)[1].decode(errors="replace")
