"""The home page's catalog of sessions, brought up to date from the change feed after an ingest,
is the catalog a whole read gives: new sessions, sessions with more events, and a forget (read
whole again) all show."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from helpers import fixture_env
from test_entries_support import claude_folder, claude_line

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_api.ui.pages import home_read
from origin_store import Settings


def _both(
    origin: Origin, monkeypatch: pytest.MonkeyPatch, *, caught_up: bool
) -> tuple[home_read.Catalog, home_read.Catalog]:
    """(the catalog as kept and brought up to date, the catalog read whole). With `caught_up`,
    the first must come without reading every session record."""
    with origin.store.read() as txn:
        with monkeypatch.context() as patched:
            if caught_up:
                patched.setattr(home_read, "iter_sessions", _no_whole_read)
            kept = home_read.catalog(origin, txn)
        home_read._KEPT.clear()
        whole = home_read.catalog(origin, txn)
    return kept, whole


def _no_whole_read(*_: object) -> None:
    raise AssertionError("the catalog was read whole, not brought up to date")


def test_the_catalog_brought_up_to_date_is_the_whole_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Origin.open(Settings.from_env(fixture_env(tmp_path, copy=True))) as origin:
        origin.ingest()
        kept, whole = _both(origin, monkeypatch, caught_up=False)
        assert kept == whole and whole.rows
        folder = claude_folder(origin)
        session = str(uuid.uuid4())
        lines = [claude_line(session, str(uuid.uuid4()), "user", "catalogmarker one", "/w")]
        (folder / f"{session}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        origin.ingest()
        kept, whole = _both(origin, monkeypatch, caught_up=True)  # a new session
        assert kept == whole
        assert any(row.session == session for row in whole.rows)
        more = claude_line(session, str(uuid.uuid4()), "assistant", "catalogmarker two", "/w")
        with (folder / f"{session}.jsonl").open("a", encoding="utf-8") as out:
            out.write(more + "\n")
        with origin.store.read() as txn:
            home_read.catalog(origin, txn)  # kept at this point of the feed
        origin.ingest()
        kept, whole = _both(origin, monkeypatch, caught_up=True)  # one more event
        assert kept == whole
        assert sum(a.events for a in whole.agents) == sum(a.events for a in kept.agents)
        hit = call(origin, "search", {"query": "catalogmarker"}, Caller("user", "t"))
        target = hit["events"][0]["id"]
        call(origin, "forget", {"id": target, "reason": "test"}, Caller("user", "t"))
        kept, whole = _both(origin, monkeypatch, caught_up=False)  # a forget: read whole
        assert kept == whole
