"""Forget and restore through the UI: a reason is required, what is forgotten leaves search
and is listed with its tombstone, a restore brings it back; hostile reasons are text."""

from __future__ import annotations

import html
import re

import pytest
from test_entries_support import (
    forget,
    remember,
    say,
    searched,
    tombstone_of,
)
from ui_support import IMG, OWN_SCRIPTS, SCRIPT, Client

from origin_api.runtime import Origin
from origin_api.ui.pages.forgets import NO_REASON
from origin_api.ui.render import raw_url


def shown(event_id: str) -> str:
    """How a page links an event (its raw line), escaped as in the HTML."""
    return html.escape(raw_url(event_id))


def test_a_forget_without_a_reason_is_refused_in_words(signed_in: Client, ui_origin: Origin):
    said = say(ui_origin)
    entry_id = remember(signed_in, said, f"Kept, since no reason was given {said.marker}.")
    for reason in ("", "   \n "):
        response = forget(signed_in, entry_id, reason)
        assert response.status_code == 400
        assert html.escape(NO_REASON) in response.text
        assert 'name="reason"' in response.text and "data-confirm=" in response.text
    assert signed_in.get(f"/ui/entries/{entry_id}").status_code == 200
    assert entry_id in searched(signed_in, said.marker)


def test_forget_hides_from_search_lists_the_tombstone_and_restore_brings_it_back(
    signed_in: Client, ui_origin: Origin, capsys: pytest.CaptureFixture[str]
):
    said = say(ui_origin)
    entry_id = remember(signed_in, said, f"The release key is in the vault {said.marker}.")
    before = searched(signed_in, said.marker)
    assert entry_id in before and shown(said.event_id) in before

    response = forget(signed_in, entry_id, "It named where the key lives.")
    assert response.status_code == 303
    tombstone = tombstone_of(response.headers["location"])
    author = f"user@{ui_origin.settings.device}"
    assert f"ui write forget author={author}" in capsys.readouterr().err

    page = signed_in.get(f"/ui/forgets/{tombstone}").text
    assert "Forgotten: 1 entry version and 1 event are hidden" in page
    assert "It named where the key lives." in page and author in page
    assert entry_id in page and said.event_id in html.unescape(page)
    assert "in force" in page and 'action="/ui/forgets/' in page
    gone = searched(signed_in, said.marker)
    assert entry_id not in gone and shown(said.event_id) not in gone
    assert shown(said.reply_id) in gone  # the reply cited nothing: it stays
    listed = signed_in.get("/ui/forgets").text
    row = listed[listed.index(tombstone) :].split("</tr>")[0]
    assert "It named where the key lives." in row and "1 entry, 1 event" in row
    assert entry_id in row  # the target
    hidden = signed_in.get(f"/ui/entries/{entry_id}")
    assert hidden.status_code == 404 and f"/ui/forgets/{tombstone}" in hidden.text

    restored = signed_in.post(
        f"/ui/forgets/{tombstone}/restore", data={"_csrf": signed_in.csrf}, follow_redirects=False
    )
    assert (
        restored.status_code == 303 and restored.headers["location"] == f"/ui/forgets/{tombstone}"
    )
    assert f"ui write restore author={author}" in capsys.readouterr().err
    page = signed_in.get(f"/ui/forgets/{tombstone}").text
    assert "Restored: 1 entry version and 1 event are visible again." in page
    assert "restored" in page and f'action="/ui/forgets/{tombstone}/restore"' not in page
    back = searched(signed_in, said.marker)
    assert entry_id in back and shown(said.event_id) in back
    assert signed_in.get(f"/ui/entries/{entry_id}").status_code == 200
    again = signed_in.post(f"/ui/forgets/{tombstone}/restore", data={"_csrf": signed_in.csrf})
    assert again.status_code == 200 and "was restored already" in again.text


def test_forgetting_an_event_hides_the_entries_citing_it(signed_in: Client, ui_origin: Origin):
    said = say(ui_origin)
    entry_id = remember(signed_in, said, "Cites an event that will be forgotten.")
    ask = signed_in.get("/ui/forget", params={"id": said.event_id})
    assert ask.status_code == 200 and said.marker in ask.text
    assert 'action="/ui/forget"' in ask.text and "data-confirm=" in ask.text
    response = forget(signed_in, said.event_id, "I pasted something private there.")
    tombstone = tombstone_of(response.headers["location"])
    page = signed_in.get(f"/ui/forgets/{tombstone}").text
    assert entry_id in page and said.event_id in html.unescape(page)
    assert said.marker not in page  # ids only: never what was forgotten
    assert entry_id not in searched(signed_in, said.marker)
    twice = forget(signed_in, said.event_id, "Again.")
    assert twice.status_code == 303 and twice.headers["location"] == "/ui/forgets"
    assert "was forgotten already: nothing changed." in signed_in.get("/ui/forgets").text


def test_hostile_reasons_are_text(signed_in: Client, ui_origin: Origin):
    said = say(ui_origin)
    entry_id = remember(signed_in, said, "Forgotten for a hostile reason.")
    reason = f"Because {SCRIPT} and {IMG}"
    tombstone = tombstone_of(forget(signed_in, entry_id, reason).headers["location"])
    for body in (
        signed_in.get("/ui/forgets").text,
        signed_in.get(f"/ui/forgets/{tombstone}").text,
    ):
        assert SCRIPT not in body and "<img" not in body and "onerror=alert(1)>" not in body
        assert reason in html.unescape(body)
        assert re.findall(r"<script[^>]*>", body) == OWN_SCRIPTS
    refused = forget(signed_in, f"{IMG}", "")
    assert "<img" not in refused.text


def test_unknown_ids(signed_in: Client):
    assert signed_in.get("/ui/forgets/tmb_000000000000").status_code == 404
    missing = signed_in.post("/ui/forgets/tmb_000000000000/restore", data={"_csrf": signed_in.csrf})
    assert missing.status_code == 404 and "Unknown tombstone tmb_000000000000." in missing.text
    unknown = forget(signed_in, "ent_0123456789ab", "No such entry.")
    assert unknown.status_code == 404 and "Unknown entry or event ent_0123456789ab." in unknown.text


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/ui/forget", {"id": "ent_0123456789ab", "reason": "no token"}),
        ("/ui/forgets/tmb_000000000000/restore", {}),
    ],
)
def test_a_post_without_the_csrf_token_is_refused(
    signed_in: Client, path: str, data: dict[str, str]
):
    response = signed_in.post(path, data=data, follow_redirects=False)
    assert response.status_code == 403 and "CSRF token" in response.text


def test_the_pages_render(signed_in: Client):
    listed = signed_in.get("/ui/forgets")
    assert listed.status_code == 200 and "<h1>Forgets</h1>" in listed.text
    ask = signed_in.get("/ui/forget")
    assert ask.status_code == 200 and 'name="id"' in ask.text and 'method="get"' in ask.text


def test_the_pages_need_a_session(client: Client):
    for path in ("/ui/forgets", "/ui/forgets/tmb_000000000000", "/ui/forget?id=x"):
        response = client.get(path, follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"].startswith("/ui/login")
