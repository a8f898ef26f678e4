"""The session page in Chromium, wide and narrow, light and dark: a search hit opens its session
at the hit (the right events, the hit marked, in view and focused); the header's context and the
command that continues the session, with its Copy button; a sub-agent's link there and back; and
no page shows an event without a time as 1 January 1970. Run with `make test-ui`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest
from helpers import TIMELESS_SESSION, timeless_env
from ui_support import LONG_SESSION, sign_in_page

from origin_api.hub import start_in_thread
from origin_api.hub.server import RunningHub
from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_api.ui.password import set_password
from origin_store import Settings

pytestmark = pytest.mark.browser

LIMITER = "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10"
TASK_CALL = "claude-code:a0000006-0000-4000-8000-000000000006"
MODE_EVENT = f"claude-code:{TIMELESS_SESSION}:mode:e1c1fefabd7dae3b"
LOOKS = [(1280, "light"), (1280, "dark"), (390, "light"), (390, "dark")]
#: The epoch as a browser shows it, in any zone and any of these forms.
EPOCH = re.compile(r"1970|1969|Jan 1, 1970|Dec 31, 1969")


@pytest.fixture(params=LOOKS, ids=[f"{w}-{s}" for w, s in LOOKS])
def look(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:
    width, scheme = request.param
    context = browser.new_context(viewport={"width": width, "height": 800}, color_scheme=scheme)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


@pytest.fixture
def signed_in_look(look: Any, ui_hub: RunningHub) -> Any:
    sign_in_page(look, ui_hub.base)
    return look


def _in_view(page: Any, selector: str) -> bool:
    return bool(
        page.eval_on_selector(
            selector,
            "el => { const r = el.getBoundingClientRect();"
            " return r.top >= 0 && r.top < window.innerHeight && r.height > 0; }",
        )
    )


def test_a_search_hit_opens_its_session_at_the_hit(signed_in_look: Any, ui_hub: RunningHub):
    page = signed_in_look
    page.goto(ui_hub.base + "/ui/search?q=longsession+message+4001&tools=1")
    hit = page.locator("#hits .hit").filter(has_text="number 4001").first
    hit.get_by_role("link", name="session").click()
    page.wait_for_url("**/ui/session?**at=**")
    event_id = f"claude-code:{LONG_SESSION[:8]}-0000-4000-8000-{4001:012x}"
    marked = page.locator("li.ev.ev-at")
    assert marked.count() == 1 and marked.get_attribute("id") == event_id
    assert "longsession message number 4001" in marked.inner_text()
    assert _in_view(page, "li.ev.ev-at")
    assert page.evaluate("document.activeElement.id") == event_id
    # The events before and after it are on the page, though it begins a numbered page.
    assert page.locator(f'li.ev[id="{event_id[:-3]}fa0"]').count() == 1
    assert "Events 3901–4100 of 5000" in page.locator("nav.pager").first.inner_text()
    border = page.eval_on_selector("li.ev.ev-at", "el => getComputedStyle(el).borderLeftWidth")
    assert border == "5px"


def test_the_header_shows_the_context_and_the_continue_command(
    signed_in_look: Any, ui_hub: RunningHub
):
    page = signed_in_look
    page.goto(ui_hub.base + f"/ui/session?source=claude-code&id={LIMITER}")
    facts = page.locator("dl.facts").inner_text()
    for words in ("/home/dev/demo-app", "feat/rate-limit", "claude-opus-4-5", "2.1.241"):
        assert words in facts
    command = page.locator("#continue-command")
    assert command.is_visible()
    assert command.input_value() == f"cd /home/dev/demo-app && claude --resume {LIMITER}"
    copy = page.get_by_role("button", name="Copy")
    assert copy.is_visible()
    copy.click()
    page.wait_for_function(
        "() => /Copied|Selected/.test(document.querySelector('[data-copy]').textContent)"
    )
    if copy.inner_text() == "Copied":
        assert page.evaluate("navigator.clipboard.readText()") == command.input_value()
    # Nothing of it runs off a narrow screen.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_sub_agents_link_goes_there_and_back_to_its_call(signed_in_look: Any, ui_hub: RunningHub):
    page = signed_in_look
    page.goto(ui_hub.base + f"/ui/session?source=claude-code&id={LIMITER}")
    task = page.locator(f'li.ev[id="{TASK_CALL}"]')
    task.locator("a.extra").click()
    page.wait_for_url(f"**id={quote(LIMITER)}%2Fagent-a3f9c2e1b7d40568*")
    assert "claude-haiku-4-5" in page.locator("dl.facts").inner_text()
    page.locator("a.parent-session").click()
    page.wait_for_url("**at=**")
    assert page.locator("li.ev.ev-at").get_attribute("id") == TASK_CALL
    assert _in_view(page, "li.ev.ev-at")


@dataclass
class Timeless:
    """A hub over an archive of one session whose first lines have no time, and an entry
    citing one of those."""

    hub: RunningHub
    entry: str


@pytest.fixture(scope="module")
def timeless(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Timeless]:
    env = timeless_env(tmp_path_factory.mktemp("timeless-browser"))
    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()
        origin.searcher.catch_up()
        from ui_support import PASSWORD

        set_password(origin.home, PASSWORD)
        cited = {
            "kind": "memory",
            "text": "The session opened in plan mode.",
            "confidence": 0.9,
            "sources": [{"event_id": MODE_EVENT}],
        }
        entry = call(origin, "remember", cited, Caller("user", "test"))["entry"]["id"]
        with start_in_thread(origin, ingest=False) as hub:
            yield Timeless(hub, entry)


def test_no_page_shows_an_event_without_a_time_as_1970(look: Any, timeless: Timeless):
    page, base = look, timeless.hub.base
    sign_in_page(page, base)
    mode = MODE_EVENT
    for path in (
        f"/ui/entries/{timeless.entry}",
        f"/ui/session?source=claude-code&id={TIMELESS_SESSION}",
        f"/ui/session?source=claude-code&id={TIMELESS_SESSION}&at={quote(mode)}",
        f"/ui/raw?id={quote(mode)}",
        "/ui/search?q=normal&tools=1",
        "/ui/timeline?since=all",
    ):
        page.goto(base + path)
        page.wait_for_load_state("load")
        text = page.locator("main").inner_text()
        assert not EPOCH.search(text), (path, text)
    # The times that are there are shown, in the browser's words.
    page.goto(base + f"/ui/session?source=claude-code&id={TIMELESS_SESSION}")
    assert page.locator("li.ev time").count() >= 1
