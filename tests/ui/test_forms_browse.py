"""The forms say what they act on: forget lists everything it will hide, remember shows the
event it cites with its full id, a correction that changes nothing is refused in words."""

from __future__ import annotations

import html
import re

from test_entries_support import correct, remember, say
from ui_support import Client

from origin_api.runtime import Origin
from origin_api.ui.pages.entries_forms import NOTHING_CHANGED
from origin_api.ui.render import entry_url, raw_url


def _reach(page: str) -> list[tuple[str, str]]:
    part = page[
        page.index('<ul class="reach-list">') : page.index("</ul>", page.index("reach-list"))
    ]
    return [
        (kind, html.unescape(href))
        for kind, href in re.findall(
            r'<li class="reach-(entry|event)">.*?<a href="([^"]+)"', part, re.S
        )
    ]


def test_forgetting_an_event_lists_the_entries_citing_it(signed_in: Client, ui_origin: Origin):
    said = say(ui_origin)
    first = remember(signed_in, said, f"Cited once {said.marker}.")
    second = remember(signed_in, said, f"Cited twice {said.marker}.")
    page = signed_in.get("/ui/forget", params={"id": said.event_id}).text
    assert "What will be hidden: 2 entry versions and 1 event" in page
    listed = _reach(page)
    assert set(listed) == {
        ("entry", entry_url(first)),
        ("entry", entry_url(second)),
        ("event", raw_url(said.event_id)),
    }
    assert f"Cited once {said.marker}." in page and said.marker in page
    assert "(this one)" in page


def test_forgetting_an_entry_lists_its_versions_and_the_events_it_cites(
    signed_in: Client, ui_origin: Origin
):
    said = say(ui_origin)
    entry = remember(signed_in, said, f"First words {said.marker}.")
    fixed = correct(signed_in, entry, f"Better words {said.marker}.")
    newer = fixed.headers["location"].rsplit("/", 1)[-1]
    page = signed_in.get("/ui/forget", params={"id": newer}).text
    assert "What will be hidden: 2 entry versions and 1 event" in page
    assert set(_reach(page)) == {
        ("entry", entry_url(entry)),
        ("entry", entry_url(newer)),
        ("event", raw_url(said.event_id)),
    }


def test_the_remember_form_shows_the_cited_event_and_its_full_id(
    signed_in: Client, ui_origin: Origin
):
    said = say(ui_origin, "the gateway retries twice")
    page = signed_in.get("/ui/remember", params={"event": said.event_id}).text
    cited = page[page.index('id="cited-1"') :]
    assert f'<code class="full-id">{html.escape(said.event_id)}</code>' in cited
    assert html.escape(said.text) in cited and "user message" in cited
    unknown = signed_in.get("/ui/remember", params={"event": "claude-code:no-such-event"}).text
    assert "Unknown entry or event claude-code:no-such-event." in html.unescape(unknown)


def test_a_correction_that_changes_nothing_is_refused_in_words(
    signed_in: Client, ui_origin: Origin
):
    said = say(ui_origin)
    entry = remember(signed_in, said, f"Unchanged words {said.marker}.")
    same = correct(signed_in, entry, f"Unchanged words {said.marker}.")
    assert same.status_code == 400 and NOTHING_CHANGED in html.unescape(same.text)
    assert 'role="alert"' in same.text
    page = signed_in.get(entry_url(entry)).text
    assert "corrected by" not in page  # no version was written
    moved = signed_in.post(
        f"/ui/entries/{entry}/correct",
        data={
            "_csrf": signed_in.csrf,
            "text": f"Unchanged words {said.marker}.",
            "confidence": "0.5",
        },
        follow_redirects=False,
    )
    assert moved.status_code == 303  # a new confidence is a change
