"""Shared pytest fixtures and the Hypothesis profiles."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import pytest
from helpers import DATA, SHARED_FIXTURES, STARTED, lingering_servers
from hypothesis import HealthCheck, settings

# Fuzz depth is chosen here, not per test: "dev" keeps a local run quick and draws new examples
# every run (so local runs keep finding new cases), "ci" (when the CI env var is set, as CI
# services do) searches deeper from a fixed seed, so a CI failure reproduces on any machine.
# Its depth is bounded by `make check`'s 5 minutes on 2 cores: 300 examples took 40 s of it.
# HYPOTHESIS_PROFILE picks one by name.
# A fresh `origin search` leaves a search server behind for the next one; the suite's commands
# must not (tests/api/test_cli_linger.py turns it on where it is tested).
os.environ["ORIGIN_CLI_LINGER_S"] = "0"

settings.register_profile("dev", max_examples=60, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci",
    max_examples=150,
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


def pytest_sessionfinish(session: pytest.Session) -> None:
    """No search server outlives the suite. A test whose commands leave one (a fresh `origin
    search` in an environment built whole, without ORIGIN_CLI_LINGER_S=0) would leave it idling
    for ten minutes. Every server of this installation (another checkout's suite may run beside
    this one) started while the suite ran, whatever home it serves, is ended with the suite, and
    named in its summary: the test that left it should end it (or start none). Under
    pytest-xdist only the controller does this, once every worker is done: a worker finishing
    first would end the servers another worker's tests are using."""
    if hasattr(session.config, "workerinput"):
        return
    left = [(pid, home) for pid, home, started in lingering_servers() if started >= STARTED]
    for pid, _ in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    LEFT.extend(sorted({home for _, home in left}))


#: The homes of the search servers the suite left running (ended with it), for its summary.
LEFT: list[str] = []


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if LEFT:
        terminalreporter.write_line(
            "search servers left running by tests (now ended; the test that started one "
            f"should end it, or set ORIGIN_CLI_LINGER_S=0): {', '.join(LEFT)}",
            yellow=True,
        )
