"""The admin UI in headless Chromium over a real hub: sign in, search as you type in English and
Chinese, open a session and a raw line, hostile text stays text, forms need their CSRF token,
the keyboard works (every page in a narrow window: test_every_page_browser). Run with
`make test-ui`."""

from __future__ import annotations

from typing import Any

import pytest
from ui_support import HOSTILE_EVENT, HOSTILE_SESSION, IMG, PASSWORD, SCRIPT

from origin_api.hub.server import RunningHub

pytestmark = pytest.mark.browser


def test_a_wrong_password_is_refused_and_the_right_one_signs_in(page: Any, ui_hub: RunningHub):
    page.goto(ui_hub.base + "/")
    assert page.url.endswith("/ui/login?next=%2Fui")
    page.fill("#secret", "not it at all")
    page.click("button[type=submit]")
    assert page.get_by_role("alert").inner_text() == "That password or token is not right."
    assert "/ui/login" in page.url
    page.fill("#secret", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/ui/")
    assert page.get_by_role("status").inner_text() == "Signed in."
    assert page.get_by_role("link", name="Timeline").is_visible()


@pytest.mark.parametrize(("query", "match"), [("release", "release"), ("导出", "导出")])
def test_search_as_you_type_highlights_matches(signed_in_page: Any, query: str, match: str):
    page = signed_in_page
    page.locator("#q").press_sequentially(query, delay=30)
    marks = page.locator("#hits mark")
    marks.first.wait_for()
    assert marks.first.inner_text().lower() == match
    assert "q=" in page.url  # the address follows the search, so it can be kept
    assert page.locator("#hits .hit").count() >= 1


def test_a_search_hit_opens_its_session_and_its_raw_line(signed_in_page: Any, ui_hub: RunningHub):
    page = signed_in_page
    page.goto(ui_hub.base + "/ui/search?q=hostilemarker")
    page.locator("#hits .hit").first.get_by_role("link", name="session").click()
    page.wait_for_url("**/ui/session?**")
    assert page.locator("li.ev").count() == 3
    command = page.locator("li.ev pre.shell").first  # a Bash call, shown as its command
    assert command.is_visible() and command.inner_text() == "echo hostilemarker"
    page.locator("li.ev").first.get_by_role("link", name="raw line").click()
    page.wait_for_url("**/ui/raw?**")
    assert page.get_by_role("heading", level=1).inner_text() == "Raw line"
    raw = page.get_by_label("The raw line").inner_text()
    assert HOSTILE_SESSION in raw and '"type": "user"' in raw


def test_hostile_text_renders_as_text_and_runs_nothing(signed_in_page: Any, ui_hub: RunningHub):
    page = signed_in_page
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    for path in (
        "/ui/search?q=hostilemarker",
        f"/ui/session?source=claude-code&id={HOSTILE_SESSION}",
        f"/ui/raw?id={HOSTILE_EVENT}",
    ):
        page.goto(ui_hub.base + path)
        page.wait_for_load_state("load")
        text = page.locator("main").inner_text()
        assert SCRIPT in text and IMG in text, path
        assert page.locator("main img").count() == 0 and page.locator("main script").count() == 0
    page.goto(ui_hub.base + "/ui/search")  # and through the script's fragment, as you type
    page.locator("#q").press_sequentially("hostilemarker")
    page.wait_for_url("**q=hostilemarker*")
    page.locator("#hits .hit").first.wait_for()
    assert SCRIPT in page.locator("#hits").inner_text()
    assert dialogs == []


def test_a_post_without_the_csrf_token_is_refused(signed_in_page: Any, ui_hub: RunningHub):
    page = signed_in_page
    refused = page.request.post(ui_hub.base + "/ui/logout", form={"x": "1"}, max_redirects=0)
    assert refused.status == 403 and "CSRF token" in refused.text()
    forged = page.request.post(
        ui_hub.base + "/ui/logout", form={"_csrf": "forged"}, max_redirects=0
    )
    assert forged.status == 403
    page.goto(ui_hub.base + "/ui/search")
    assert "/ui/search" in page.url  # still signed in
    page.get_by_role("button", name="Sign out").click()  # the page's own form carries it
    page.wait_for_url("**/ui/login")


def test_the_keyboard_and_local_times(signed_in_page: Any, ui_hub: RunningHub):
    page = signed_in_page
    page.goto(ui_hub.base + "/ui/timeline?since=all")
    page.keyboard.press("/")
    page.wait_for_url("**/ui/search")
    page.locator("body").click()
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.goto(ui_hub.base + "/ui/timeline?since=all")
    time = page.locator("ol.sessions-list time").first
    assert time.get_attribute("datetime") != time.inner_text()  # shown in the browser's zone
    page.keyboard.press("Tab")  # the skip link comes first
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
