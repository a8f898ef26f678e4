"""The admin UI's pages over an event whose log line has no time (Claude Code's `mode` lines
that open a session): shown with no time ("—"), never as 1 January 1970."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from helpers import TIMELESS_SESSION, timeless_env
from ui_support import PASSWORD, Client

from origin_api.hub import create_app
from origin_api.runtime import Origin
from origin_api.ui.password import set_password
from origin_store import Settings

#: The epoch as a page would show it in any time zone.
EPOCH = re.compile(r"1970-01-0[12]|1969-12-31")
MODE_EVENT = f"claude-code:{TIMELESS_SESSION}:mode:e1c1fefabd7dae3b"
PAGES = [
    f"/ui/session?source=claude-code&id={TIMELESS_SESSION}&tools=1",
    f"/ui/raw?id={quote(MODE_EVENT)}",
    "/ui/search?q=plan&tools=1",
    "/ui/timeline?since=all",
]


@pytest.fixture
def signed_in(tmp_path: Path) -> Iterator[Client]:
    with Origin.open(Settings.from_env(timeless_env(tmp_path))) as origin:
        origin.ingest()
        origin.searcher.catch_up()
        set_password(origin.home, PASSWORD)
        with Client(create_app(origin, ingest=False), base_url="http://127.0.0.1") as client:
            assert client.sign_in().status_code == 200
            yield client


def test_no_page_shows_1970(signed_in: Client) -> None:
    for path in PAGES:
        response = signed_in.get(path)
        assert response.status_code == 200, path
        assert not EPOCH.search(response.text), path
    session = html.unescape(signed_in.get(PAGES[0]).text)
    assert "mode: normal" in session and "2026-10-22 08:00:00" in session
    raw = signed_in.get(PAGES[1]).text
    assert "<dt>Time</dt><dd><span class=muted>—</span></dd>" in raw, raw
