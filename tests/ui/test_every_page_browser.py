"""Every page in headless Chromium: a narrow window (390 pixels) never scrolls sideways, the
keyboard alone gets from a search to a session and a raw line, and times are shown in the
browser's own zone, whatever the server's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
from test_entries_support import forget, remember, say, tombstone_of
from ui_support import (
    HOSTILE_EVENT,
    HOSTILE_SESSION,
    RENDER_SESSION,
    Client,
    render_event,
    sign_in_page,
)

from origin_api.hub import create_app
from origin_api.runtime import Origin

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def written(ui_origin: Origin) -> Iterator[dict[str, str]]:
    """An entry citing its own session's event, and a forget of another one."""
    kept, gone = say(ui_origin), say(ui_origin)
    with Client(create_app(ui_origin, ingest=False), base_url="http://127.0.0.1") as client:
        client.sign_in()
        entry = remember(client, kept, f"A narrow window shows {kept.marker} whole.")
        tombstone = tombstone_of(
            forget(client, gone.event_id, "The narrow test forgets it.").headers["location"]
        )
    yield {"entry": entry, "tombstone": tombstone, "event": kept.event_id}


def _pages(written: dict[str, str]) -> list[str]:
    return [
        "/ui/",
        "/ui/search?q=release",
        "/ui/search?q=longsession&limit=40",
        "/ui/timeline",
        "/ui/search?q=导出",
        "/ui/timeline?since=all",
        f"/ui/session?source=claude-code&id={HOSTILE_SESSION}",
        f"/ui/session?source=claude-code&id={RENDER_SESSION}&" + urlencode({"at": render_event(4)}),
        "/ui/raw?" + urlencode({"id": HOSTILE_EVENT}),
        "/ui/raw?" + urlencode({"id": written["event"]}),
        "/ui/entries",
        f"/ui/entries/{written['entry']}",
        "/ui/remember?" + urlencode({"event": HOSTILE_EVENT}),
        "/ui/forget?" + urlencode({"id": written["event"]}),
        "/ui/forgets",
        f"/ui/forgets/{written['tombstone']}",
        "/ui/tokens",
        "/ui/status",
        "/ui/recording",
        "/ui/activity?days=365",
    ]


def test_a_narrow_window_never_scrolls_sideways(browser: Any, ui_hub: Any, written: dict[str, str]):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        sign_in_page(page, ui_hub.base)
        for path in _pages(written):
            response = page.goto(ui_hub.base + path)
            assert response is not None and response.status == 200, path
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, (path, width)
            # styled: the stylesheet applied (the pages folded into the header's menu)
            assert page.locator("details.menu > summary").is_visible(), path
            assert not page.get_by_role("link", name="Search", exact=True).is_visible(), path
    finally:
        context.close()


def test_the_keyboard_alone_reaches_a_session_and_a_raw_line(signed_in_page: Any, ui_hub: Any):
    page = signed_in_page
    page.goto(ui_hub.base + "/ui/timeline")
    page.keyboard.press("/")  # to the search page
    page.wait_for_url("**/ui/search")
    page.keyboard.press("/")  # into its box
    page.keyboard.type("hostilemarker")
    page.keyboard.press("Enter")
    page.locator("#hits .hit").first.wait_for()

    def tab_to(name: str) -> None:
        for _ in range(80):
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.textContent.trim()") == name:
                return
        raise AssertionError(f"Tab never reached {name!r}")

    tab_to("session")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"  # the focus ring shows where the keyboard is
    page.keyboard.press("Enter")
    page.wait_for_url("**/ui/session?**")
    tab_to("raw line")
    page.keyboard.press("Enter")
    page.wait_for_url("**/ui/raw?**")
    tab_to("Remember from this event")
    page.keyboard.press("Enter")
    page.wait_for_url("**/ui/remember?**")
    assert page.input_value("input[name=event_1]").startswith("claude-code:")


@pytest.mark.parametrize(
    ("zone", "day", "hour"),
    [
        ("UTC", "Oct 22", "12:00 AM"),
        ("Asia/Shanghai", "Oct 22", "08:00 AM"),
        ("America/New_York", "Oct 21", "08:00 PM"),
    ],
)
def test_times_are_shown_in_the_browsers_zone(
    browser: Any, ui_hub: Any, zone: str, day: str, hour: str
):
    """The hostile session's first event is at 2026-10-22T00:00:00Z; the server writes that,
    and the page shows it in the browser's zone (the en-US locale's 12-hour clock)."""
    context = browser.new_context(locale="en-US", timezone_id=zone)
    page = context.new_page()
    try:
        sign_in_page(page, ui_hub.base)
        page.goto(ui_hub.base + "/ui/raw?" + urlencode({"id": HOSTILE_EVENT}))
        time = page.locator("dl.facts time").first
        assert time.get_attribute("datetime").startswith("2026-10-22T00:00:00")
        text = time.inner_text()
        assert day in text and hour in text, (zone, text)
    finally:
        context.close()
