"""The session page in headless Chromium renders what agents wrote, wide and narrow, light and
dark: a Markdown message (a heading, a list, a coloured code fence), a shell command with its
output below, an edit as a diff, a long output folded under its size; hostile Markdown runs
nothing and loads nothing; the download saves the session. Run with `make test-ui`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ui_support import (
    HOSTILE_MD_SESSION,
    RENDER_COMMAND,
    RENDER_COMMAND_OUTPUT,
    RENDER_SESSION,
    render_event,
    sign_in_page,
)

from origin_api.hub.server import RunningHub

pytestmark = pytest.mark.browser

WIDTHS = {"wide": 1280, "narrow": 390}
#: The colour of a keyword (`def`) in code.css: Pygments' default style, and github-dark.
KEYWORD = {"light": "rgb(0, 128, 0)", "dark": "rgb(255, 123, 114)"}


@pytest.fixture(
    params=[(w, s) for w in WIDTHS for s in ("light", "dark")], ids=lambda p: "-".join(p)
)
def shown(request: Any, browser: Any, ui_hub: RunningHub) -> Iterator[tuple[Any, str, int]]:
    """A signed-in page at a width and in a colour scheme: (page, scheme, width)."""
    name, scheme = request.param
    width = WIDTHS[name]
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        sign_in_page(page, ui_hub.base)
        yield page, scheme, width
    finally:
        context.close()


def test_the_session_page_renders_what_the_agent_wrote(
    shown: tuple[Any, str, int], ui_hub: RunningHub
):
    page, scheme, width = shown
    page.goto(f"{ui_hub.base}/ui/session?source=claude-code&id={RENDER_SESSION}")
    reply = page.locator(f'li[id="{render_event(2)}"]')
    assert reply.get_by_role("heading", name="Retry plan", level=2).is_visible()
    assert reply.locator("li").all_inner_texts() == ["retries three times", "waits 1 s, 4 s, 16 s"]
    keyword = reply.locator("pre.code .k").first
    assert keyword.inner_text() == "def"
    assert keyword.evaluate("e => getComputedStyle(e).color") == KEYWORD[scheme]
    command = page.locator(f'li[id="{render_event(3)}"] pre.shell')
    assert command.is_visible() and command.inner_text() == RENDER_COMMAND  # `$ ` is CSS
    output = page.locator(f'li[id="{render_event(4)}"] .output.paired pre')
    assert output.is_visible() and output.inner_text() == RENDER_COMMAND_OUTPUT
    diff = page.locator(f'li[id="{render_event(5)}"] pre.diff')
    assert diff.locator(".gd").last.inner_text() == "-tries = 1"
    assert diff.locator(".gi").last.inner_text() == "+tries = 3"
    folded = page.locator(f'li[id="{render_event(8)}"] details.fold')
    summary = folded.locator("summary")
    assert summary.inner_text().startswith("Output: ") and " lines, " in summary.inner_text()
    assert not folded.locator("pre").is_visible()
    summary.click()
    assert folded.locator("pre").is_visible()
    assert "line 0 of the long output" in folded.locator("pre").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_hostile_markdown_runs_nothing_and_loads_nothing(
    shown: tuple[Any, str, int], ui_hub: RunningHub
):
    page, _, width = shown
    dialogs: list[str] = []
    elsewhere: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda r: None if r.url.startswith(ui_hub.base) else elsewhere.append(r.url))
    page.goto(f"{ui_hub.base}/ui/session?source=claude-code&id={HOSTILE_MD_SESSION}")
    page.wait_for_load_state("load")
    main = page.locator("main")
    text = main.inner_text()
    assert "<script>alert(8)</script>" in text and "<img src=x onerror=alert(9)>" in text
    assert "mdhostilemarker" in text
    for selector in ("script", "img", "iframe", "object", "embed", "[style]", "[onerror]"):
        assert main.locator(selector).count() == 0, selector
    hrefs = main.locator("a").evaluate_all("links => links.map(a => a.href)")
    assert hrefs and all(h.startswith((ui_hub.base, "http://evil.example/")) for h in hrefs), hrefs
    for link in main.locator("a.image").all():  # the image, a link to it: never fetched
        assert link.inner_text() == "[image: remote]"
    page.wait_for_timeout(300)
    assert dialogs == [] and elsewhere == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_the_download_saves_the_session(signed_in_page: Any, ui_hub: RunningHub):
    page = signed_in_page
    page.goto(f"{ui_hub.base}/ui/session?source=claude-code&id={RENDER_SESSION}")
    with page.expect_download() as waiting:
        page.locator(".downloads").get_by_role("link", name="Markdown").click()
    download = waiting.value
    assert download.suggested_filename == f"claude-code-{RENDER_SESSION}.md"
    saved = Path(download.path()).read_text(encoding="utf-8")
    assert render_event(1) in saved and RENDER_COMMAND in saved  # the page showed tool calls
