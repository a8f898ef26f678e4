"""An event's raw line page leads on: remember from the event, forget it, and the entries that
cite it (every version, the current one first)."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from test_entries_support import correct, entry_id_of, remember, say
from ui_support import IMG, SCRIPT, Client

from origin_api.runtime import Origin


def _links(page: str) -> list[str]:
    return [html.unescape(href) for href in re.findall(r'href="([^"]+)"', page)]


def test_the_raw_line_links_to_remember_and_forget_the_event(signed_in: Client, ui_origin: Origin):
    said = say(ui_origin)
    page = signed_in.get("/ui/raw", params={"id": said.event_id})
    assert page.status_code == 200
    links = _links(page.text)
    remember_at = f"/ui/remember?event={quote(said.event_id, safe='')}"
    forget_at = f"/ui/forget?id={quote(said.event_id, safe='')}"
    assert remember_at in links and forget_at in links
    assert "No entry cites this event yet." in page.text

    form = signed_in.get(remember_at).text  # the form, its first source filled in
    assert f'name="event_1" value="{said.event_id}"' in form
    asked = signed_in.get(forget_at)  # asks first, showing what would be forgotten
    assert asked.status_code == 200 and said.marker in asked.text
    assert 'name="reason"' in asked.text and 'data-confirm="Forget ' in asked.text


def test_the_raw_line_lists_the_entries_citing_it(signed_in: Client, ui_origin: Origin):
    said = say(ui_origin)
    first = remember(signed_in, said, f"Cited from the raw line {said.marker}.")
    corrected = correct(signed_in, first, f"Cited and corrected {said.marker}.")
    second = entry_id_of(corrected.headers["location"])
    page = signed_in.get("/ui/raw", params={"id": said.event_id}).text
    cited = page[page.index('id="cited"') :]
    assert cited.index(f'href="/ui/entries/{second}"') < cited.index(
        f'href="/ui/entries/{first}"'
    )  # the current version first
    assert f"Cited and corrected {said.marker}." in cited
    rows = re.findall(r"<li>.*?</li>", cited, re.S)
    (old,) = [row for row in rows if first in row]
    (new,) = [row for row in rows if second in row]
    assert "superseded" in old and "superseded" not in new
    assert f"user@{ui_origin.settings.device}" in new
    assert "No entry cites this event yet." not in page


def test_a_citing_entrys_hostile_text_is_text_on_the_raw_line(signed_in: Client, ui_origin: Origin):
    said = say(ui_origin)
    hostile = f"Cites {said.marker}: {SCRIPT} {IMG}"
    remember(signed_in, said, hostile)
    body = signed_in.get("/ui/raw", params={"id": said.event_id}).text
    assert SCRIPT not in body and "<img" not in body and "onerror=alert(1)>" not in body
    assert hostile in html.unescape(body)
