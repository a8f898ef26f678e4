"""Shared pytest fixtures and the Hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import DATA, SHARED_FIXTURES
from hypothesis import HealthCheck, settings

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
