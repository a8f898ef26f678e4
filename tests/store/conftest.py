"""Fixtures for the store tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from plain_format import PLAIN
from rows_format import NOTES

from origin_store import Ingester, Settings, Store
from origin_store.parsers.base import Source

Env = tuple[Settings, Path, Store, Ingester]


def _env(tmp_path: Path, folder: str, variable: str, source: Source) -> Iterator[Env]:
    """(settings, the agent's folder, open store, ingester) over a temp ORIGIN_HOME, the
    source's logs in `folder` (found through its environment `variable`)."""
    agent = tmp_path / folder
    agent.mkdir()
    settings = Settings.from_env(
        {"HOME": str(tmp_path), "ORIGIN_HOME": str(tmp_path / "origin"), variable: str(agent)}
    )
    store = Store.open(settings.home, map_size=settings.map_size)
    yield settings, agent, store, Ingester(store, settings, {source.name: source})
    store.close()


@pytest.fixture
def plain_env(tmp_path: Path) -> Iterator[Env]:
    """Plain JSONL logs (`plain_format`)."""
    yield from _env(tmp_path, "logs", "PLAIN_HOME", PLAIN)


@pytest.fixture
def rows_env(tmp_path: Path) -> Iterator[Env]:
    """A database read through a row log (`rows_format`)."""
    yield from _env(tmp_path, "notes", "NOTES_HOME", NOTES)
