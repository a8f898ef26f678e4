"""The timeline that shows sessions: memory files apart, "N older sessions" a click from all
time, conversations grouped by day, and filters to click (agents, projects, dates)."""

from __future__ import annotations

import html
import re
import shutil
from collections.abc import Iterator
from urllib.parse import unquote

import pytest
from helpers import DATA, fixture_env
from ui_support import PASSWORD, Client

from origin_api.contract.timeargs import render as iso
from origin_api.hub import create_app
from origin_api.runtime import Origin
from origin_api.service.common import now_ms
from origin_api.ui.pages.home_read import facets
from origin_api.ui.password import set_password
from origin_store import Settings
from origin_store.reader import iter_sessions
from origin_store.records import SessionDoc

DAY_MS = 86_400_000
LINK = re.compile(r'<a class="title" href="/ui/session\?source=[^"&]+&amp;id=([^"&]+)"')


def _sessions(origin: Origin) -> list[SessionDoc]:
    with origin.store.read() as txn:
        return [s for s in iter_sessions(origin.store, txn) if s["events"] and s["ended"]]


def _conversations(origin: Origin) -> list[SessionDoc]:
    return [s for s in _sessions(origin) if not s["session"].startswith("memory:")]


def _part(page: str, start: str, end: str) -> str:
    return page[page.index(start) : page.index(end, page.index(start))]


def test_older_sessions_are_counted_and_one_click_away(signed_in: Client, ui_origin: Origin):
    cutoff = now_ms() - 30 * DAY_MS
    older = [s for s in _conversations(ui_origin) if (s["ended"] or 0) < cutoff]
    assert len(older) > 0  # the fixtures' sessions are older than the default window
    page = signed_in.get("/ui/timeline").text
    found = re.search(r'<p class="older"><a href="([^"]+)">([\d,]+) older sessions?</a>', page)
    assert found is not None and int(found.group(2).replace(",", "")) == len(older)
    widened = signed_in.get(html.unescape(found.group(1))).text
    shown = [unquote(s) for s in LINK.findall(widened.split('class="memory-files"')[0])]
    assert set(shown) == {s["session"] for s in _conversations(ui_origin)}
    assert 'class="older"' not in widened


@pytest.fixture(scope="module")
def with_memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Origin, Client]]:
    """An archive of the sample logs and Claude Code's memory files (CLAUDE.md, MEMORY.md)."""
    tmp = tmp_path_factory.mktemp("memory-timeline")
    env = fixture_env(tmp, copy=True)
    shutil.copytree(DATA / "memory" / "claude-code", env["CLAUDE_CONFIG_DIR"], dirs_exist_ok=True)
    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()
        origin.searcher.catch_up()
        set_password(origin.home, PASSWORD)
        with Client(create_app(origin, ingest=False), base_url="http://127.0.0.1") as client:
            assert client.sign_in().status_code == 200
            yield origin, client


def test_memory_files_are_listed_apart(with_memory: tuple[Origin, Client]):
    origin, signed_in = with_memory
    memory = [s for s in _sessions(origin) if s["session"].startswith("memory:")]
    assert len(memory) >= 2
    page = signed_in.get("/ui/timeline?since=all").text
    days, _, files = page.partition('<details class="memory-files">')
    assert "memory%3A" not in days
    assert f"Memory files ({len(memory)})" in files
    assert {unquote(s) for s in LINK.findall(files)} == {s["session"] for s in memory}
    # the default window: the memory files (ingested just now) are in it, apart
    window = signed_in.get("/ui/timeline").text
    days, _, files = window.partition('<details class="memory-files">')
    assert "memory%3A" not in days and f"Memory files ({len(memory)})" in files


def test_conversations_are_grouped_by_day_newest_first(signed_in: Client, ui_origin: Origin):
    page = signed_in.get("/ui/timeline?since=all").text.split('class="memory-files"')[0]
    sections = re.findall(
        r'<section class="day" aria-labelledby="day-([\d-]+)">(.*?)</section>', page, re.S
    )
    by_id = {s["session"]: s for s in _conversations(ui_origin)}
    assert len(sections) > 1 and [d for d, _ in sections] == sorted(
        {d for d, _ in sections}, reverse=True
    )
    for day, body in sections:
        assert re.search(
            r'<h2 id="day-[\d-]+" class="day-heading">\w+day, \d+ \w+ \d{4}</h2>', body
        )
        for session in LINK.findall(body):
            assert (iso(by_id[unquote(session)]["ended"]) or "")[:10] == day


def test_agent_and_project_filters_are_links(signed_in: Client, ui_origin: Origin):
    listed = facets(ui_origin)
    page = signed_in.get("/ui/timeline?since=all").text
    nav = _part(page, '<nav class="facets"', "</nav>")
    for agent in listed.agents:
        assert f'href="/ui/timeline?since=all&amp;source={agent}"' in nav
    codex = signed_in.get("/ui/timeline?since=all&source=codex").text
    assert set(re.findall(r"source=([a-z-]+)&amp;id=", codex)) == {"codex"}
    assert 'source=codex" aria-current="true"' in codex
    project = listed.projects[0]
    assert html.escape(project) in nav
    only = signed_in.get("/ui/timeline", params={"since": "all", "project": project}).text
    expected = {s["session"] for s in _sessions(ui_origin) if s["project"] == project}
    assert {unquote(s) for s in LINK.findall(only)} == expected


def test_a_from_date_picks_the_window(signed_in: Client, ui_origin: Origin):
    days = sorted({(iso(s["ended"]) or "")[:10] for s in _conversations(ui_origin)})
    assert len(days) > 1
    start = days[-1]
    page = signed_in.get(f"/ui/timeline?from={start}").text
    assert f'name="from" type="date" value="{start}"' in page
    shown = {unquote(s) for s in LINK.findall(page.split('class="memory-files"')[0])}
    expected = {s["session"] for s in _conversations(ui_origin) if (iso(s["ended"]) or "") >= start}
    assert shown == expected and 0 < len(shown) < len(_conversations(ui_origin))
    assert 'class="older"' in page
