"""The activity page in Chromium, wide and narrow, light and dark: its charts show the store's
figures, fit the window, take their colours from the UI's variables, and its busiest tables
lead to the sessions and the projects' timelines."""

from __future__ import annotations

import re
from typing import Any

import pytest
from ui_support import sign_in_page

from origin_api import admin
from origin_api.runtime import Origin

pytestmark = pytest.mark.browser

WINDOWS = {"wide": (1280, 900), "narrow": (390, 844)}


@pytest.fixture(params=[(w, s) for w in WINDOWS for s in ("light", "dark")], ids=str)
def shown(request: pytest.FixtureRequest, browser: Any, ui_hub: Any) -> Any:
    window, scheme = request.param
    width, height = WINDOWS[window]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.emulate_media(color_scheme=scheme)
    sign_in_page(page, ui_hub.base)
    yield page, width
    context.close()


def test_the_charts_show_the_figures_and_fit_the_window(shown: Any, ui_hub: Any, ui_origin: Origin):
    page, width = shown
    found = admin.activity(ui_origin, 365)
    page.goto(f"{ui_hub.base}/ui/activity?days=365")
    assert page.inner_text("#act-total-events") == f"{found.totals.events:,}"
    assert page.inner_text("#act-total-out") == f"{found.totals.tokens_out:,}"
    charts = page.locator("svg.act-chart")
    assert charts.count() == 3
    for index in range(3):
        box = charts.nth(index).bounding_box()
        assert box is not None and box["width"] <= width and box["height"] > 40
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    titles = page.locator("#act-events rect title").all_text_contents()
    counted = sum(int(re.search(r": ([\d,]+) events", t)[1].replace(",", "")) for t in titles)  # type: ignore[index]
    assert counted == found.totals.events
    # The first agent's bars are painted with the UI's accent, whatever the scheme makes it.
    fill, accent = page.evaluate(
        """() => [getComputedStyle(document.querySelector('#act-events rect.act-s0')).fill,
                  getComputedStyle(document.querySelector('.act-swatch.act-s0')).backgroundColor]"""
    )
    assert fill == accent and fill not in ("", "none", "rgb(0, 0, 0)")


def test_the_busiest_tables_lead_to_sessions_and_projects(
    shown: Any, ui_hub: Any, ui_origin: Origin
):
    page, _ = shown
    found = admin.activity(ui_origin, 365)
    page.goto(f"{ui_hub.base}/ui/activity?days=365")
    first = found.sessions[0]
    page.locator("#act-sessions-table tbody tr").first.locator("a").click()
    page.wait_for_url("**/ui/session?**")
    assert f"id={first.session}" in page.url and f"source={first.source}" in page.url
    page.go_back()
    project = next(name for name, _ in found.projects if name)
    page.locator("#act-projects-table a", has_text=project).first.click()
    page.wait_for_url("**/ui/timeline?**")
    assert f"project={project}" in page.url
    page.go_back()
    page.select_option("select[name=days]", "30")
    page.click("form.filterbar button")
    page.wait_for_url("**/ui/activity?days=30**")
    assert page.locator("svg.act-chart").count() == 3
