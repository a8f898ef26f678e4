"""Shared pytest fixtures and the Hypothesis profiles."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
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
def no_search_server_outlives_the_suite() -> Iterator[None]:
    """A test whose commands leave a search server (a fresh `origin search` in an environment
    built whole, without ORIGIN_CLI_LINGER_S=0) would leave it idling for ten minutes after the
    suite. Every server of this installation (another checkout's suite may run beside this one)
    started while the suite ran, whatever home it serves, is ended with the suite, and named on
    stderr: the test that left it should end it (or start none)."""
    yield
    left = [(pid, home) for pid, home, started in _lingering_servers() if started >= _STARTED]
    for pid, _ in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    if left:
        homes = ", ".join(sorted({home for _, home in left}))
        sys.stderr.write(f"\nsearch servers left running by tests, now ended: {homes}\n")


def _started(stat: bytes) -> int:
    """A process's start, in clock ticks since boot (/proc/PID/stat's 22nd field)."""
    return int(stat.rsplit(b")", 1)[1].split()[19])


#: When this test process started: a server that started later was started by the suite.
_STARTED = _started(Path("/proc/self/stat").read_bytes())


#: This installation: a server it started runs its Python (`lingering.start_lingering`).
_OURS = (sys.prefix.rstrip("/") + "/").encode()


def _lingering_servers() -> Iterator[tuple[int, str, int]]:
    """Every lingering search server (`python -m PROCESS`) of this user, with the home it serves
    (ORIGIN_HOME, or HOME's .origin) and when it started."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            if PROCESS.encode() not in command or not command.startswith(_OURS):
                continue
            environ = dict(
                pair.split(b"=", 1)
                for pair in (entry / "environ").read_bytes().split(b"\0")
                if b"=" in pair
            )
            started = _started((entry / "stat").read_bytes())
        except (OSError, ValueError, IndexError):
            continue
        home = environ.get(b"ORIGIN_HOME") or environ.get(b"HOME", b"~") + b"/.origin"
        yield int(entry.name), home.decode(errors="replace"), started
