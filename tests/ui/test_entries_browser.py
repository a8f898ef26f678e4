"""Remember and correct in headless Chromium, and see the history: the pages as a person uses
them, through the real hub."""

from __future__ import annotations

from typing import Any

import pytest
from test_entries_support import say

from origin_api.runtime import Origin

pytestmark = pytest.mark.browser


def test_remember_then_correct_and_see_the_history(
    signed_in_page: Any, ui_hub: Any, ui_origin: Origin
):
    page = signed_in_page
    said = say(ui_origin)
    page.goto(f"{ui_hub.base}/ui/entries")
    page.click("text=Remember something")
    page.fill("#remember-text", f"The browser test remembers {said.marker}.")
    page.select_option("select[name=kind]", "knowledge")
    page.fill("input[name=confidence]", "0.75")
    page.fill("input[name=event_1]", said.event_id)
    page.fill("input[name=quote_1]", said.marker)
    page.click("button:has-text('Remember')")
    page.wait_for_url("**/ui/entries/ent_*")
    first = page.url.rsplit("/", 1)[1]
    author = f"user@{ui_origin.settings.device}"
    assert page.locator("p.flash").inner_text() == f"Remembered as {author}."
    assert page.locator(".entry-text").inner_text() == f"The browser test remembers {said.marker}."
    assert page.locator(".sources blockquote.quote").inner_text() == said.marker
    assert page.locator(".sources a:has-text('raw line')").count() == 1

    page.fill("#correct-text", f"The browser test corrected {said.marker}.")
    page.click("button:has-text('Save the correction')")
    page.wait_for_url(lambda url: first not in url and "/ui/entries/ent_" in url)
    assert page.locator(".entry-text").inner_text() == f"The browser test corrected {said.marker}."
    versions = page.locator("ol.history > li")
    assert versions.count() == 2
    assert first in versions.nth(0).inner_text() and "superseded" in versions.nth(0).inner_text()
    assert "current" in versions.nth(1).inner_text() and author in versions.nth(1).inner_text()
    versions.nth(0).locator("a").first.click()
    page.wait_for_url(f"**/ui/entries/{first}")
    assert "This version was corrected" in page.locator("main").inner_text()
    assert page.locator("#correct-text").count() == 0
