"""Shared pytest fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import FIXTURES


@pytest.fixture
def fixtures_dir() -> Path:
    if not FIXTURES.is_dir():
        pytest.fail(f"the shared fixtures are missing at {FIXTURES}")
    return FIXTURES
