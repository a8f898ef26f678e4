"""The home page, `/ui/`: the search box, the latest conversations, the entries written last,
the archive's counts by agent, and the demo's mark."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_entries_support import say
from ui_support import Client

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_api.settings import DEMO_MARK
from origin_api.ui.pages.home_read import RECENT, facets, overview
from origin_store.reader import iter_sessions


def test_home_lists_the_latest_conversations_newest_first(signed_in: Client, ui_origin: Origin):
    page = signed_in.get("/ui/").text
    assert 'aria-current="page">Home<' in page and 'id="q"' in page
    with ui_origin.store.read() as txn:
        real = [
            s
            for s in iter_sessions(ui_origin.store, txn)
            if not s["session"].startswith("memory:") and s["events"] and s["ended"]
        ]
    real.sort(key=lambda s: s["ended"] or 0, reverse=True)
    listed = re.findall(r'class="home-list recent-sessions".*?</ol>', page, re.S)[0]
    ids = re.findall(r"id=([0-9a-zA-Z_.%-]+)\"", listed)
    assert len(ids) == min(RECENT, len(real)) > 0
    assert ids[0].replace("%3A", ":") == real[0]["session"]
    assert "memory%3A" not in listed  # memory files are not conversations


def test_home_counts_events_sessions_entries_and_agents(signed_in: Client, ui_origin: Origin):
    found = overview(ui_origin)
    with ui_origin.store.read() as txn:
        assert found.events == ui_origin.store.event_count(txn)
    assert found.sessions + found.memory_files == sum(1 for _ in _sessions(ui_origin))
    assert {a.agent for a in found.agents} >= {"claude-code", "codex"}
    page = signed_in.get("/ui/").text
    assert f'<span class="num">{found.events:,}</span> events' in page
    assert f'<span class="num">{found.sessions:,}</span> sessions' in page
    for agent in found.agents:
        assert f"source={agent.agent}" in page
    assert set(facets(ui_origin).agents) >= {a.agent for a in found.agents}


def _sessions(origin: Origin) -> Iterator[object]:
    with origin.store.read() as txn:
        yield from list(iter_sessions(origin.store, txn))


def test_home_lists_the_entries_written_last(signed_in: Client, ui_origin: Origin):
    caller = Caller("user", "ui-test")
    newest = call(
        ui_origin,
        "search",
        {"query": "release", "scope": "events", "limit": 1},
        caller,
    )["events"][0]
    made = call(
        ui_origin,
        "remember",
        {
            "kind": "knowledge",
            "text": "The home page lists this entry first (homepagemarker).",
            "sources": [{"event_id": newest["id"]}],
            "confidence": 0.9,
        },
        caller,
    )["entry"]
    page = signed_in.get("/ui/").text
    listed = re.findall(r'class="home-list recent-entries".*?</ol>', page, re.S)[0]
    assert listed.index("homepagemarker") < 400  # the first listed
    assert f"/ui/entries/{made['id']}" in listed


def test_the_demo_archive_says_so_on_the_home_page(signed_in: Client, ui_origin: Origin):
    mark = Path(ui_origin.home) / DEMO_MARK
    assert "Demo archive" not in signed_in.get("/ui/").text
    mark.write_text("{}")
    try:
        assert "Demo archive" in signed_in.get("/ui/").text
    finally:
        mark.unlink()


@pytest.mark.parametrize("path", ["/ui/login?next=%2Fui", "/ui/login?next=%2Fui%2F"])
def test_signing_in_from_the_home_page_comes_back_to_it(client: Client, path: str):
    form = client.get(path).text
    assert 'name="next" value="/ui/"' in form


def test_a_new_session_shows_at_once_on_home_and_timeline(signed_in: Client, ui_origin: Origin):
    """The kept catalog of sessions is read again once the change feed moves (an ingest)."""
    signed_in.get("/ui/")  # the catalog as it is now, kept
    said = say(ui_origin, "freshly ingested")
    page = signed_in.get("/ui/").text
    listed = re.findall(r'class="home-list recent-sessions".*?</ol>', page, re.S)[0]
    assert listed.index(said.session) < listed.index("</li>")  # the first listed
    timeline = signed_in.get("/ui/timeline").text
    assert said.session in timeline and "ui-entries" in timeline  # its project, a filter link
