"""A long catch-up is announced before it starts, once, with how far behind it is; a short one
or none is not. Real store, real ingest of the sample logs, real index."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ingested_store

from origin_search import catchup, open_searcher


def test_a_long_catch_up_is_announced_once_before_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ingested_store(tmp_path)
    try:
        with store.read() as txn:
            behind = store.feed_last(txn)
        monkeypatch.setattr(catchup, "ANNOUNCE_AT", behind)
        heard: list[tuple[int, int]] = []
        searcher = open_searcher(
            store, tmp_path / "index", announce=lambda n: heard.append((n, searcher.index.count()))
        )
        done = searcher.catch_up()
        assert heard == [(behind, 0)] and done.docs > 200  # before anything was indexed
        assert searcher.catch_up().current and len(heard) == 1
    finally:
        store.close()


def test_a_short_catch_up_is_not_announced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ingested_store(tmp_path)
    try:
        with store.read() as txn:
            behind = store.feed_last(txn)
        monkeypatch.setattr(catchup, "ANNOUNCE_AT", behind + 1)
        heard: list[int] = []
        searcher = open_searcher(store, tmp_path / "index", announce=heard.append)
        assert searcher.catch_up().docs > 200 and heard == []
    finally:
        store.close()
