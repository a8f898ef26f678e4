"""Forget with a reason in headless Chromium, the confirmation answered, see it gone from search,
and restore it."""

from __future__ import annotations

from typing import Any

import pytest
from test_entries_support import remember, say
from ui_support import Client

from origin_api.hub import create_app
from origin_api.runtime import Origin

pytestmark = pytest.mark.browser


def _found(page: Any, base: str, marker: str, entry_id: str) -> bool:
    page.goto(f"{base}/ui/search?q={marker}")
    return page.locator(f"#hits a[href='/ui/entries/{entry_id}']").count() == 1


def test_forget_with_a_reason_see_it_gone_from_search_then_restore_it(
    signed_in_page: Any, ui_hub: Any, ui_origin: Origin
):
    said = say(ui_origin)
    with Client(create_app(ui_origin, ingest=False), base_url="http://127.0.0.1") as client:
        client.sign_in()
        entry_id = remember(client, said, f"Forgotten in the browser {said.marker}.")
    page, base = signed_in_page, ui_hub.base
    assert _found(page, base, said.marker, entry_id)

    page.goto(f"{base}/ui/entries/{entry_id}")
    page.fill("#forget-reason", "The browser test asked for it.")
    asked: list[str] = []

    def dismiss(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", dismiss)
    page.click("button:has-text('Forget this entry')")
    assert asked and "Forget this entry" in asked[0]
    assert page.url.endswith(f"/ui/entries/{entry_id}")  # dismissed: nothing sent

    page.once("dialog", lambda dialog: dialog.accept())
    page.click("button:has-text('Forget this entry')")
    page.wait_for_url("**/ui/forgets/tmb_*")
    tombstone = page.url.rsplit("/", 1)[1]
    assert "Forgotten: 1 entry version" in page.locator("p.flash").inner_text()
    assert "The browser test asked for it." in page.locator("dl.facts").inner_text()
    assert not _found(page, base, said.marker, entry_id)
    page.goto(f"{base}/ui/forgets")
    assert (
        "The browser test asked for it." in page.locator(f"tr:has-text('{tombstone}')").inner_text()
    )

    page.click(f"a:has-text('{tombstone}')")
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation():
        page.click("button:has-text('Restore')")
    assert "visible again" in page.locator("p.flash").inner_text()
    assert _found(page, base, said.marker, entry_id)
