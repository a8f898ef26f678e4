"""Fixtures for the store tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from plain_format import PLAIN
from rows_format import NOTES

from origin_store import Ingester, Settings, Store


@pytest.fixture
def plain_env(tmp_path: Path):
    """(settings, logs dir, open store, ingester) over a temp ORIGIN_HOME."""
    logs = tmp_path / "logs"
    logs.mkdir()
    settings = Settings.from_env(
        {"HOME": str(tmp_path), "ORIGIN_HOME": str(tmp_path / "origin"), "PLAIN_HOME": str(logs)}
    )
    store = Store.open(settings.home, map_size=settings.map_size)
    yield settings, logs, store, Ingester(store, settings, {"plain": PLAIN})
    store.close()


@pytest.fixture
def rows_env(tmp_path: Path):
    """(settings, agent dir, open store, ingester) for the notes format (a database)."""
    agent = tmp_path / "notes"
    agent.mkdir()
    settings = Settings.from_env(
        {"HOME": str(tmp_path), "ORIGIN_HOME": str(tmp_path / "origin"), "NOTES_HOME": str(agent)}
    )
    store = Store.open(settings.home, map_size=settings.map_size)
    yield settings, agent, store, Ingester(store, settings, {"notesdb": NOTES})
    store.close()
