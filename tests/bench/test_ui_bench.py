"""The bench's admin UI section over a small real archive: every page it times answers, so a
`make bench` at 1M does not stop at its last section (the figures themselves are the bench's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import fixture_env

from bench import ui_page
from origin_api.runtime import Origin
from origin_store import Settings


@pytest.fixture
def home(tmp_path: Path) -> Path:
    env = fixture_env(tmp_path)
    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()
        origin.searcher.catch_up()
        return origin.home


def test_the_session_page_at_a_hit_and_the_activity_page_answer(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ui_page, "SESSION_ROUNDS", 1)
    monkeypatch.setattr(ui_page, "ACTIVITY_REQUESTS", 6)
    at = ui_page.measure_session_at(home)
    assert at["sessions"] > 0 and at["at"]["n"] == at["sessions"] * len(ui_page.HIT_PLACES)
    found = ui_page.measure_activity(home)
    assert found["read"]["n"] == 6 and found["kept"]["n"] == 6
