"""How the admin UI looks and is driven, in headless Chromium, wide (1280) and narrow (390), light
and dark: every page fits its window (no sideways scroll, no word broken mid-word at 1280, a
one-row header whose pages fold into a menu when narrow), dark mode follows the system and the
header's button (kept across pages), body text keeps AA contrast in both themes, and j/k/Enter/?
/ drive search hits and a session's events from the keyboard."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from test_entries_support import claude_folder, claude_line
from test_every_page_browser import _pages, written  # noqa: F401  (the pages, their fixture)
from ui_support import HOSTILE_SESSION, LONG_SESSION, sign_in_page

from origin_api.hub.server import RunningHub
from origin_api.runtime import Origin

pytestmark = pytest.mark.browser

LOOKS = [(1280, "light"), (1280, "dark"), (390, "light"), (390, "dark")]
#: Every word of Latin letters or digits that the layout split over two lines (a text node's
#: range for it has boxes on more than one line): what `overflow-wrap: anywhere` does to a word
#: that fits. CJK text wraps anywhere by nature and is left out.
BROKEN_WORDS = r"""() => {
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const box = node.parentElement;
    if (!box || !box.getClientRects().length) continue;
    for (const word of node.data.matchAll(/[A-Za-z0-9]{2,}/g)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (lines.size > 1) broken.push(box.tagName.toLowerCase() + ": " + word[0]);
    }
  }
  return broken;
}"""
COLOURS = """(selector) => {
  const el = document.querySelector(selector);
  let bg = el, back = 'rgba(0, 0, 0, 0)';
  while (bg && (back === 'rgba(0, 0, 0, 0)' || back === 'transparent')) {
    back = getComputedStyle(bg).backgroundColor; bg = bg.parentElement;
  }
  return [getComputedStyle(el).color, back];
}"""


def contrast(colour: str, background: str) -> float:
    """WCAG 2's contrast ratio of two computed `rgb(…)` colours."""

    def luminance(text: str) -> float:
        r, g, b = (int(v) / 255 for v in re.findall(r"[\d.]+", text)[:3])
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    high, low = sorted((luminance(colour), luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.fixture(params=LOOKS, ids=[f"{w}-{s}" for w, s in LOOKS])
def look(request: pytest.FixtureRequest, browser: Any, ui_hub: RunningHub) -> Iterator[Any]:
    """A signed-in page at one width, in one colour scheme of the system."""
    width, scheme = request.param
    context = browser.new_context(
        viewport={"width": width, "height": 844 if width < 640 else 800}, color_scheme=scheme
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    sign_in_page(page, ui_hub.base)
    page.look = (width, scheme)
    yield page
    context.close()


def test_every_page_fits_its_window_in_both_themes(
    look: Any,
    ui_hub: RunningHub,
    written: dict[str, str],  # noqa: F811 (the fixture)
) -> None:
    width, scheme = look.look
    page = look
    for path in _pages(written):
        response = page.goto(ui_hub.base + path)
        assert response is not None and response.status == 200, path
        assert page.evaluate("document.documentElement.scrollWidth") <= width, path
        header = page.evaluate("document.querySelector('header').getBoundingClientRect().height")
        assert header <= 0.12 * page.viewport_size["height"], (path, header)  # one row
        if width >= 1280:
            assert page.evaluate(BROKEN_WORDS) == [], path
        fg, bg = page.evaluate(COLOURS, "main")
        assert (bg == "rgb(255, 255, 255)") == (scheme == "light"), (path, bg)
        assert contrast(fg, bg) >= 4.5, (path, fg, bg)
        for selector in ("main a[href]", ".muted", "header a[href]"):
            if page.locator(selector).count():
                fg, bg = page.evaluate(COLOURS, selector)
                assert contrast(fg, bg) >= 4.5, (path, selector, fg, bg)


def test_a_compact_raw_line_wraps_between_its_fields(
    look: Any, ui_hub: RunningHub, ui_origin: Origin
) -> None:
    """Agents write JSON lines without a space (Claude Code's real logs do): the raw line page
    wraps such a line after its commas, colons and slashes, not in the middle of a word."""
    width, _ = look.look
    session, event = str(uuid.uuid4()), str(uuid.uuid4())
    path = "/home/dev/" + "/".join(f"folder{i}withalongname" for i in range(12)) + "/main.py"
    line = claude_line(session, event, "user", f"Read:{path},then:stop", "/home/dev/wrap")
    compact = json.dumps(json.loads(line), separators=(",", ":"), ensure_ascii=False)
    assert len(max(compact.split(" "), key=len)) > 400  # wider than the page, at 1280 too
    (claude_folder(ui_origin) / f"{session}.jsonl").write_text(compact + "\n", encoding="utf-8")
    ui_origin.ingest()
    page = look
    page.goto(ui_hub.base + "/ui/raw?id=claude-code:" + event)
    raw = page.get_by_label("The raw line")
    assert raw.inner_text().strip() == compact  # <wbr> is a place to wrap, not text
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if width >= 1280:
        assert page.evaluate(BROKEN_WORDS) == []
    assert raw.evaluate("e => e.getClientRects()[0].height") > 60  # it did wrap


def test_the_timeline_never_scrolls_sideways(
    look: Any, ui_hub: RunningHub, ui_origin: Origin
) -> None:
    """A title holding a name wider than a phone (the demo's `tests/test_status.py::test_…`
    made its timeline 467 pixels wide at 390) wraps within the page."""
    width, _ = look.look
    session = str(uuid.uuid4())
    name = "tests/test_look.py::test_a_rather_long_name_for_a_test_that_fails_twice"
    line = claude_line(session, str(uuid.uuid4()), "user", f"Why does {name} fail?", "/x")
    (claude_folder(ui_origin) / f"{session}.jsonl").write_text(line + "\n", encoding="utf-8")
    ui_origin.ingest()
    page = look
    page.goto(ui_hub.base + "/ui/timeline?since=all")
    assert page.locator(f"ol.sessions-list a.title[href*='{session}']").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_the_pages_fold_into_a_menu_when_narrow(look: Any, ui_hub: RunningHub) -> None:
    width, _ = look.look
    page = look
    page.goto(ui_hub.base + "/ui/search")
    menu = page.locator("details.menu > summary")
    timeline = page.get_by_role("link", name="Timeline", exact=True)
    if width >= 1280:
        assert not menu.is_visible() and timeline.is_visible()  # inline, no menu button
    else:
        assert menu.is_visible() and not timeline.is_visible()
        menu.click()
        assert timeline.is_visible() and page.get_by_role("button", name="Sign out").is_visible()
        page.keyboard.press("Escape")
        assert not timeline.is_visible()
        menu.click()
    timeline.click()
    page.wait_for_url("**/ui/timeline**")
    assert page.get_by_role("heading", level=1).inner_text() == "Timeline"


def test_without_script_the_menu_still_opens_and_the_system_theme_holds(
    browser: Any, ui_hub: RunningHub
) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, color_scheme="dark", java_script_enabled=False
    )
    page = context.new_page()
    try:
        page.goto(ui_hub.base + "/ui/login")
        page.fill("#secret", "correct horse battery")
        page.click("button[type=submit]")
        page.wait_for_url(ui_hub.base + "/ui/")
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") != (
            "rgb(255, 255, 255)"
        )
        assert not page.locator("[data-theme-toggle]").is_visible()  # it needs the script
        page.locator("details.menu > summary").click()
        page.get_by_role("link", name="Status", exact=True).click()
        page.wait_for_url("**/ui/status")
    finally:
        context.close()


def _background(page: Any) -> str:
    return str(page.evaluate("getComputedStyle(document.body).backgroundColor"))


def test_the_theme_button_switches_and_the_choice_is_kept(look: Any, ui_hub: RunningHub) -> None:
    _, scheme = look.look
    page = look
    page.goto(ui_hub.base + "/ui/search?q=release")
    system = _background(page)
    button = page.locator("[data-theme-toggle]")
    assert button.get_attribute("aria-pressed") == ("true" if scheme == "dark" else "false")
    button.click()
    other = "light" if scheme == "dark" else "dark"
    assert page.evaluate("document.documentElement.dataset.theme") == other
    assert _background(page) != system
    assert button.get_attribute("aria-pressed") == ("true" if other == "dark" else "false")
    fg, bg = page.evaluate(COLOURS, "main")
    assert contrast(fg, bg) >= 4.5
    page.reload()
    assert _background(page) != system  # kept, and set before the page shows
    page.goto(ui_hub.base + "/ui/timeline")
    assert page.evaluate("document.documentElement.dataset.theme") == other
    page.locator("[data-theme-toggle]").click()
    assert _background(page) == system
    page.reload()
    assert _background(page) == system


def test_the_focus_ring_stands_out_in_both_themes(look: Any, ui_hub: RunningHub) -> None:
    """The ring (and the j/k selection's outline) against the page: 3:1 at least (WCAG 1.4.11)."""
    page = look
    page.goto(ui_hub.base + f"/ui/session?source=claude-code&id={HOSTILE_SESSION}")
    page.keyboard.press("j")
    ring = page.evaluate("getComputedStyle(document.activeElement).outlineColor")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "solid"
    assert contrast(ring, _background(page)) >= 3, ring
    page.keyboard.press("Tab")  # to its first link: the browser's focus ring
    ring = page.evaluate("getComputedStyle(document.activeElement).outlineColor")
    assert contrast(ring, _background(page)) >= 3, ring


def _selected(page: Any) -> str:
    """The id of the item j and k selected (and focused), or its place among the items."""
    return str(
        page.evaluate(
            """() => { const s = document.querySelectorAll('.nav-selected');
            if (s.length !== 1 || document.activeElement !== s[0]) return 'none: ' + s.length;
            return s[0].id || 'item ' + [...document.querySelectorAll('[data-nav-item]')].indexOf(s[0]); }"""
        )
    )


def test_j_and_k_move_between_hits_and_enter_opens_one(look: Any, ui_hub: RunningHub) -> None:
    page = look
    page.goto(ui_hub.base + "/ui/search?q=longsession+reply")
    hits = page.locator("#hits [data-nav-item]")
    assert hits.count() >= 3
    texts = [f"item {i}" for i in range(3)]
    page.locator("body").click(position={"x": 1, "y": 300})  # out of the search box
    page.keyboard.press("j")
    assert _selected(page) == texts[0]
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert _selected(page) == texts[2]
    page.keyboard.press("k")
    assert _selected(page) == texts[1]
    assert hits.nth(1).get_attribute("aria-current") == "true"
    # a hit added later (as "show more" does) is reached too
    page.evaluate(
        """() => { const list = document.querySelector('#hits ol.hits:last-of-type');
        const copy = list.lastElementChild.cloneNode(true); copy.id = 'added-later';
        copy.classList.remove('nav-selected'); list.appendChild(copy); }"""
    )
    for _ in range(hits.count()):
        page.keyboard.press("j")
    assert _selected(page) == "added-later"
    page.keyboard.press("k")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/ui/session?**{LONG_SESSION}**")


def test_j_and_k_move_between_a_sessions_events(look: Any, ui_hub: RunningHub) -> None:
    page = look
    page.goto(ui_hub.base + f"/ui/session?source=claude-code&id={HOSTILE_SESSION}")
    ids = page.locator("li.ev").evaluate_all("els => els.map(e => e.id)")
    assert len(ids) == 3
    page.keyboard.press("j")
    assert _selected(page) == ids[0]
    page.keyboard.press("j")
    assert _selected(page) == ids[1]
    page.keyboard.press("k")
    page.keyboard.press("k")  # stays on the first
    assert _selected(page) == ids[0]
    page.keyboard.press("Enter")  # its raw line
    page.wait_for_url("**/ui/raw?**")
    assert ids[0].split(":")[1] in page.url


def test_j_starts_at_the_event_the_page_was_opened_at(look: Any, ui_hub: RunningHub) -> None:
    page = look
    url = ui_hub.base + f"/ui/session?source=claude-code&id={LONG_SESSION}"
    page.goto(url)
    ids = page.locator("li.ev").evaluate_all("els => els.map(e => e.id)")
    page.goto(url + "#" + ids[120])  # as a hit opens its session at the event
    page.evaluate("window.scrollBy(0, -150)")  # events above it in view too, it still is
    assert page.locator("li.ev").nth(119).is_visible()
    page.keyboard.press("j")
    assert _selected(page) == ids[120]
    page.keyboard.press("j")
    assert _selected(page) == ids[121]


def test_a_long_sessions_selection_scrolls_into_view(look: Any, ui_hub: RunningHub) -> None:
    page = look
    page.goto(ui_hub.base + f"/ui/session?source=claude-code&id={LONG_SESSION}")
    for _ in range(40):
        page.keyboard.press("j")
    chosen = page.locator(".nav-selected")
    assert chosen.count() == 1
    box = chosen.bounding_box()
    assert (
        box is not None
        and box["y"] >= 0
        and box["y"] + box["height"] <= page.viewport_size["height"]
    )
    assert page.evaluate("window.scrollY") > 0


def test_question_mark_lists_the_keys_and_escape_closes_them(look: Any, ui_hub: RunningHub) -> None:
    page = look
    page.goto(ui_hub.base + "/ui/timeline")
    help_box = page.get_by_role("dialog", name="Keys")
    assert not help_box.is_visible()
    page.keyboard.press("?")
    assert help_box.is_visible()
    for key in ("/", "j", "k", "Enter", "?", "Esc"):
        assert help_box.locator("kbd", has_text=re.compile(f"^{re.escape(key)}$")).count() == 1
    page.keyboard.press("j")  # the keys do nothing behind the dialog
    assert page.locator(".nav-selected").count() == 0
    page.keyboard.press("Escape")
    assert not help_box.is_visible()
    page.keyboard.press("?")
    help_box.get_by_role("button", name="Close").click()
    assert not help_box.is_visible()


def test_slash_focuses_search_and_typing_there_does_not_navigate(
    look: Any, ui_hub: RunningHub
) -> None:
    page = look
    page.goto(ui_hub.base + "/ui/search?q=longsession")
    page.locator("#hits [data-nav-item]").first.wait_for()
    page.locator("body").click(position={"x": 1, "y": 300})
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.press("End")
    page.keyboard.type(" jk")
    assert page.input_value("#q") == "longsession jk"
    assert page.locator(".nav-selected").count() == 0
    page.locator("body").click(position={"x": 1, "y": 300})
    page.keyboard.press("Control+j")  # with a modifier: the browser's, not ours
    assert page.locator(".nav-selected").count() == 0
    page.keyboard.press("j")  # alone, out of the box: it moves
    assert page.locator(".nav-selected").count() == 1
