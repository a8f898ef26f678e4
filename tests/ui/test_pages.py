"""The browsing pages over a real archive, through the hub app: search, timeline, a session
page by page, the raw line; hostile text shown as text; errors as pages."""

from __future__ import annotations

import html
import re
from urllib.parse import quote, unquote

import pytest
from ui_support import (
    HOSTILE_EVENT,
    HOSTILE_SESSION,
    LONG_EVENTS,
    LONG_SESSION,
    OWN_SCRIPTS,
    SCRIPT,
    Client,
)

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_api.ui.reads import PAGE_SIZE

HOSTILE_PAGES = [
    "/ui/search?q=hostilemarker",
    "/ui/search/hits?q=hostilemarker",
    f"/ui/session?source=claude-code&id={HOSTILE_SESSION}",
    f"/ui/raw?id={HOSTILE_EVENT}",
    "/ui/timeline?since=all",
]


@pytest.mark.parametrize("path", HOSTILE_PAGES)
def test_hostile_text_is_escaped_everywhere_it_shows(signed_in: Client, path: str):
    response = signed_in.get(path)
    assert response.status_code == 200
    body = response.text
    assert SCRIPT not in body and "<img" not in body and "onerror=alert(1)>" not in body
    shown = html.unescape(body.replace("<wbr>", ""))  # a place to wrap, not text
    assert SCRIPT in shown or SCRIPT[:30] in shown  # the text itself is there, as text
    # The only scripts a page has are the UI's own files.
    assert re.findall(r"<script[^>]*>", body) in ([], OWN_SCRIPTS)


def test_every_page_forbids_inline_script_and_framing(signed_in: Client):
    response = signed_in.get("/ui/search?q=release")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["cache-control"] == "no-store"


def test_search_highlights_matches_in_english_and_chinese(signed_in: Client):
    english = signed_in.get("/ui/search?q=release").text
    assert "<mark>" in english.lower() and re.search(r"<mark>release</mark>", english, re.I)
    chinese = signed_in.get("/ui/search?q=导出").text
    assert "<mark>导出</mark>" in chinese


def test_search_is_the_search_tools_answer(signed_in: Client, ui_origin: Origin):
    expected = call(ui_origin, "search", {"query": "rate limiter"}, Caller("t", "d"))
    page = signed_in.get("/ui/search/hits?q=rate+limiter").text
    n = len(expected["events"])
    assert f"{n} {'event' if n == 1 else 'events'} ·" in page
    for event in expected["events"]:
        assert f'href="/ui/raw?id={quote(event["id"], safe="")}"' in page


def test_search_filters_go_to_the_tool(signed_in: Client):
    only_codex = signed_in.get("/ui/search/hits?q=test&source=codex&tools=1").text
    sources = set(re.findall(r'<span class="tag">([a-z-]+)</span>', only_codex))
    assert sources == {"codex"}
    none = signed_in.get("/ui/search/hits?q=test&source=codex&until=2000-01-01").text
    assert "0 entries, 0 events" in none


def test_a_bad_filter_is_shown_on_the_page_with_400(signed_in: Client):
    response = signed_in.get("/ui/search?q=x&since=someday")
    assert response.status_code == 400
    assert 'class="error"' in response.text and "someday" in html.unescape(response.text)
    assert 'id="q"' in response.text  # the form is still there to fix it


def test_the_timeline_lists_sessions_newest_first_and_filters(signed_in: Client, ui_origin: Origin):
    expected = call(ui_origin, "timeline", {"since": "1970-01-01", "limit": 200}, Caller("t", "d"))
    page = signed_in.get("/ui/timeline?since=all").text
    linked = [
        unquote(s) for s in re.findall(r'href="/ui/session\?source=[^"&]+&amp;id=([^"&]+)"', page)
    ]
    sessions = [s["session"] for s in expected["sessions"]]
    memory = [s for s in sessions if s.startswith("memory:")]
    assert linked == [s for s in sessions if s not in memory] + memory  # memory files apart
    codex = signed_in.get("/ui/timeline?since=all&source=codex").text
    assert set(re.findall(r"source=([a-z-]+)&amp;id=", codex)) == {"codex"}


def test_a_long_session_opens_in_pages(signed_in: Client):
    base = f"/ui/session?source=claude-code&id={LONG_SESSION}"
    pages = -(-LONG_EVENTS // PAGE_SIZE)
    first = signed_in.get(base).text
    assert f"Page 1 of {pages}" in first and first.count('<li class="ev') == PAGE_SIZE
    assert "longsession message number 1\n" in first or "longsession message number 1<" in first
    last = signed_in.get(base + f"&page={pages}").text
    assert f"Page {pages} of {pages}" in last
    assert f"longsession reply number {LONG_EVENTS}<" in last
    beyond = signed_in.get(base + "&page=999").text
    assert f"Page {pages} of {pages}" in beyond
    messages = signed_in.get(base + "&messages=1").text
    assert f"{LONG_EVENTS} messages" in messages


def test_a_session_shows_commands_and_links_each_event_to_its_raw_line(signed_in: Client):
    page = signed_in.get(f"/ui/session?source=claude-code&id={HOSTILE_SESSION}").text
    assert '<div class="call command">' in page and "hostilemarker" in page
    assert f'href="/ui/raw?id={HOSTILE_EVENT.replace(":", "%3A")}"' in page
    without = signed_in.get(f"/ui/session?source=claude-code&id={HOSTILE_SESSION}&messages=1")
    assert 'class="call' not in without.text


def test_the_raw_line_is_the_sources_tools_answer(signed_in: Client, ui_origin: Origin):
    (source,) = call(ui_origin, "sources", {"id": HOSTILE_EVENT}, Caller("t", "d"))
    page = html.unescape(signed_in.get(f"/ui/raw?id={HOSTILE_EVENT}").text.replace("<wbr>", ""))
    assert source["original_file"] in page and source["raw"] in page
    assert f"Line {source['line']} of the log" in page


@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/ui/raw?id=claude-code:no-such-event", 404, "Unknown entry or event"),
        ("/ui/session?id=no-such-session", 404, "Unknown session"),
        ("/ui/session", 400, "Which session?"),
        ("/ui/no-such-page", 404, "no page /ui/no-such-page"),
    ],
)
def test_errors_are_pages_in_the_layout(signed_in: Client, path: str, status: int, words: str):
    response = signed_in.get(path)
    assert response.status_code == status
    assert response.headers["content-type"].startswith("text/html")
    assert words in html.unescape(response.text) and "Origin admin" in response.text


def test_the_static_files_and_nothing_else(client: Client):
    css = client.get("/ui/static/ui.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert client.get("/ui/static/ui.js").headers["content-type"].startswith("text/javascript")
    for name in ("../app.py", "%2e%2e%2fapp.py", "password.py", ".hidden.css", "nope.css"):
        assert client.get(f"/ui/static/{name}").status_code == 404, name


def test_a_host_the_hub_does_not_answer_to_is_refused(client: Client):
    response = client.get("/ui/login", headers={"Host": "evil.example"})
    assert response.status_code == 421
