"""The browsing pages in headless Chromium, wide (1280) and narrow (390), light and dark: the
home page, search's Show more, the timeline's days and filters, and the forms that say what
they act on."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_entries_support import remember, say
from ui_support import Client, sign_in_page

from origin_api.runtime import Origin
from origin_api.settings import DEMO_MARK

pytestmark = pytest.mark.browser

VIEWS = [
    pytest.param((1280, "light"), id="wide-light"),
    pytest.param((1280, "dark"), id="wide-dark"),
    pytest.param((390, "light"), id="narrow-light"),
    pytest.param((390, "dark"), id="narrow-dark"),
]


@pytest.fixture(params=VIEWS)
def view(request: pytest.FixtureRequest, browser: Any, ui_hub: Any) -> Iterator[Any]:
    """A signed-in page at the view's width and colour scheme."""
    width, scheme = request.param
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.emulate_media(color_scheme=scheme)
    sign_in_page(page, ui_hub.base)
    yield page
    context.close()


def _fits(page: Any) -> None:
    """Nothing scrolls sideways."""
    wide, shown = page.evaluate(
        "[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]"
    )
    assert wide <= shown, f"{page.url} scrolls sideways: {wide} > {shown}"


def test_the_home_page_shows_work_and_the_demo_mark(view: Any, ui_hub: Any, ui_origin: Origin):
    page = view
    mark = Path(ui_origin.home) / DEMO_MARK
    mark.write_text("{}")
    try:
        page.goto(ui_hub.base + "/ui/")
        assert page.locator(".demo-mark").is_visible()
        assert "Demo archive" in page.locator(".demo-mark").inner_text()
    finally:
        mark.unlink()
    page.reload()
    assert page.locator(".demo-mark").count() == 0
    recent = page.locator("ol.recent-sessions > li")
    assert recent.count() >= 5 and recent.first.locator("a.title").is_visible()
    assert re.fullmatch(r"[\d,]+\s+events", page.locator("ul.counts li").first.inner_text())
    _fits(page)
    recent.first.locator("a.title").click()
    page.wait_for_url("**/ui/session?**")
    page.goto(ui_hub.base + "/ui/")
    page.fill("#q", "longsession")
    page.keyboard.press("Enter")
    page.wait_for_url("**/ui/search?q=longsession")


def test_search_shows_more_in_place_with_an_honest_count(view: Any, ui_hub: Any):
    page = view
    page.goto(ui_hub.base + "/ui/search")
    page.fill("#q", "longsession")
    page.locator("li.hit.event").nth(19).wait_for()
    assert page.locator("li.hit.event").count() == 20
    assert "20 of more than 20 events" in page.locator("#hit-count").inner_text()
    titles = page.locator("li.hit.event .hit-session")
    assert titles.first.inner_text() == "longsession message number 1"
    page.click("a[data-more]")
    page.locator("li.hit.event").nth(39).wait_for()
    assert page.locator("li.hit.event").count() == 40
    assert "limit=40" in page.url and "q=longsession" in page.url
    assert "40 of more than 40 events" in page.locator("#hit-count").inner_text()
    focused = page.evaluate("document.activeElement.matches('li.hit.event')")
    assert focused  # the first new hit, for the keyboard
    _fits(page)


def test_search_filters_pick_dates_and_projects(view: Any, ui_hub: Any):
    page = view
    page.goto(ui_hub.base + "/ui/search?q=longsession&since=2026-10-01")
    assert page.locator("input[name=since]").get_attribute("type") == "date"
    assert page.locator("input[name=since]").input_value() == "2026-10-01"
    assert page.locator("#search-projects option").count() >= 1
    _fits(page)


def test_the_timeline_widens_groups_by_day_and_filters_by_click(view: Any, ui_hub: Any):
    page = view
    page.goto(ui_hub.base + "/ui/timeline")
    older = page.locator("p.older a")
    assert re.fullmatch(r"[\d,]+ older sessions?", older.inner_text())
    older.click()
    page.wait_for_url("**/ui/timeline?since=all**")
    headings = page.locator("h2.day-heading")
    assert headings.count() > 1
    assert re.fullmatch(r"\w+day, \d+ \w+ \d{4}", headings.first.inner_text())
    _fits(page)
    page.locator("nav.facets a.tag", has_text="codex").click()
    page.wait_for_url("**source=codex**")
    tags = page.locator("ol.sessions-list .meta a.tag").all_inner_texts()
    assert tags and set(tags) == {"codex"}
    _fits(page)


def test_forget_lists_its_reach_and_remember_shows_the_event(
    view: Any, ui_hub: Any, ui_origin: Origin, signed_in: Client
):
    page = view
    said = say(ui_origin)
    entry = remember(signed_in, said, f"Seen before forgetting {said.marker}.")
    page.goto(ui_hub.base + "/ui/forget?id=" + said.event_id)
    reach = page.locator("ul.reach-list > li")
    assert reach.count() == 2
    assert "1 entry version and 1 event" in page.locator("#reach-h").inner_text()
    assert entry in reach.nth(0).inner_text()
    _fits(page)
    page.goto(ui_hub.base + "/ui/remember?event=" + said.event_id)
    cited = page.locator("#cited-1")
    assert said.event_id in cited.locator("code.full-id").inner_text()
    assert said.marker in cited.locator(".cited-text").inner_text()
    _fits(page)


def test_no_op_correction_and_a_taken_token_name_are_answered_on_the_page(
    view: Any, ui_hub: Any, ui_origin: Origin, signed_in: Client
):
    page = view
    said = say(ui_origin)
    entry = remember(signed_in, said, f"Left as it is {said.marker}.")
    page.goto(ui_hub.base + f"/ui/entries/{entry}")
    page.click("button:has-text('Save the correction')")
    alert = page.locator("p.error[role=alert]")
    assert alert.inner_text().startswith("Nothing to correct")
    name = "taken-" + secrets.token_hex(3)
    for _ in range(2):
        page.goto(ui_hub.base + "/ui/tokens")
        page.fill("input[name=name]", name)
        page.click("form.token-form button[type=submit]")
    page.wait_for_url("**/ui/tokens")
    said_there = page.locator("p.error[role=alert]").inner_text()
    assert f"The name {name} is in use" in said_there and "origin token" not in said_there
    _fits(page)
