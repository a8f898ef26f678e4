"""A front door says on stderr that a long catch-up is starting: a fresh `origin search` over a
deleted index would otherwise wait without a word. Real store, ingest and index."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import fixture_env

from origin_api.runtime import Origin
from origin_search import catchup


def test_a_front_door_says_it_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a fresh `origin search` prints while it builds a deleted index first."""
    env = fixture_env(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(catchup, "ANNOUNCE_AT", 100)
    with Origin.open() as origin:
        origin.ingest(full=True)
        origin.searcher.catch_up()
    capsys.readouterr()
    shutil.rmtree(Path(env["ORIGIN_HOME"]) / "index")
    with Origin.open() as origin:
        done = origin.searcher.catch_up()
    err = capsys.readouterr().err
    assert done.docs > 200
    assert "Origin: indexing " in err and "archived items for search first" in err
