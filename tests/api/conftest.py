"""An `Origin` over a temp home whose agents' logs are (copies of) the shared fixtures."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import fixture_env

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_store import Settings


def _opened(home: Path) -> Iterator[Origin]:
    env = fixture_env(home, copy=True)
    env["ORIGIN_SEARCH_INGEST_INTERVAL_MS"] = "0"
    with Origin.open(Settings.from_env(env)) as opened:
        opened.ingest()  # as `origin mcp` does when it starts
        yield opened


def _tool(origin: Origin) -> Callable[..., Any]:
    caller = Caller("test-agent", origin.settings.device)

    def run(name: str, **args: Any) -> Any:
        return call(origin, name, args, caller)

    return run


@pytest.fixture
def origin(tmp_path: Path, fixtures_dir: Path) -> Iterator[Origin]:
    yield from _opened(tmp_path)


@pytest.fixture
def tool(origin: Origin) -> Callable[..., Any]:
    return _tool(origin)


@pytest.fixture(scope="module")
def shared_tool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Any]]:
    """`tool` over one archive for a whole module, for tests whose calls only read or are
    refused before they write: an archive each is a tenth of a second of copying and ingest."""
    yield from map(_tool, _opened(tmp_path_factory.mktemp("shared")))
