"""The entries pages over a real archive, through the hub app: the list, an entry with its
sources and history, remember and correct as the user of this hub, hostile text as text."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from test_entries_support import (
    PROJECT,
    correct,
    entry_id_of,
    remember,
    say,
)
from ui_support import HOSTILE_EVENT, IMG, OWN_SCRIPTS, SCRIPT, Client

from origin_api.runtime import Origin
from origin_api.ui.pages.entries_read import entry_page
from origin_api.ui.render import raw_url, session_url
from origin_store.entries import versions as store_entries


def device(origin: Origin) -> str:
    return origin.settings.device


def test_remember_writes_an_entry_authored_by_the_user_of_this_hub(
    signed_in: Client, ui_origin: Origin, capsys: pytest.CaptureFixture[str]
):
    said = say(ui_origin)
    entry_id = remember(signed_in, said, "Builds run on the self-hosted runner.")
    page = signed_in.get(f"/ui/entries/{entry_id}")
    assert page.status_code == 200
    body = page.text
    author = f"user@{device(ui_origin)}"
    assert "Remembered as " + author in body  # the flash, once
    assert "Builds run on the self-hosted runner." in body and author in body
    assert said.marker in body  # the source's quote and text
    assert html.escape(raw_url(said.event_id)) in body
    assert html.escape(session_url("claude-code", said.session)) in body
    assert PROJECT in body  # taken from the cited event
    assert f"ui write remember author={author}" in capsys.readouterr().err
    assert "Remembered as" not in signed_in.get(f"/ui/entries/{entry_id}").text


def test_the_list_shows_current_entries_newest_first_with_filters(
    signed_in: Client, ui_origin: Origin
):
    said = say(ui_origin)
    older = remember(signed_in, said, "The older of two listed entries.")
    newer = remember(signed_in, said, "The newer of two listed entries.", kind="cognition")
    body = signed_in.get("/ui/entries").text
    assert body.index(newer) < body.index(older)
    cognition = signed_in.get("/ui/entries", params={"kind": "cognition"}).text
    assert newer in cognition and older not in cognition
    by_project = signed_in.get("/ui/entries", params={"project": PROJECT}).text
    assert newer in by_project and older in by_project
    assert older not in signed_in.get("/ui/entries", params={"project": "nowhere"}).text
    corrected = entry_id_of(
        correct(signed_in, older, "Corrected, so listed once.").headers["location"]
    )
    listed = signed_in.get("/ui/entries").text
    assert corrected in listed and older not in listed  # the current version only


def test_a_refused_remember_shows_the_tools_message_and_what_was_typed(
    signed_in: Client, ui_origin: Origin
):
    said = say(ui_origin)
    response = signed_in.post(
        "/ui/remember",
        data={
            "_csrf": signed_in.csrf,
            "kind": "memory",
            "text": "Typed with care, and kept.",
            "confidence": "0.7",
            "event_1": said.event_id,
            "quote_1": "words it never said",
        },
    )
    assert response.status_code == 404
    shown = html.unescape(response.text)
    assert f'Quote not found in event {said.event_id}: "words it never said"' in shown
    assert "Typed with care, and kept." in shown and said.event_id in shown
    no_source = signed_in.post(
        "/ui/remember",
        data={"_csrf": signed_in.csrf, "kind": "memory", "text": "x", "confidence": "0.5"},
    )
    assert no_source.status_code == 400 and "sources" in no_source.text


def test_correct_makes_a_new_current_version_and_keeps_the_old_in_the_history(
    signed_in: Client, ui_origin: Origin, capsys: pytest.CaptureFixture[str]
):
    said = say(ui_origin)
    old = remember(signed_in, said, "Deploys happen on Fridays.")
    response = correct(signed_in, old, "Deploys happen on Tuesdays.")
    assert response.status_code == 303
    new = entry_id_of(response.headers["location"])
    assert new != old
    assert f"ui write correct author=user@{device(ui_origin)}" in capsys.readouterr().err
    page = signed_in.get(f"/ui/entries/{new}").text
    assert "Deploys happen on Tuesdays." in page and "Corrected:" in page
    history = page[page.index('id="history"') :]
    assert history.index(old) < history.index(new)  # oldest first
    assert "superseded" in history and "current" in history
    assert said.marker in page  # the sources carry over
    old_page = signed_in.get(f"/ui/entries/{old}").text
    assert "This version was corrected" in old_page
    assert f'href="/ui/entries/{new}"' in old_page
    assert 'action="/ui/entries/' not in old_page  # no correct form on an old version


def test_correcting_an_old_version_shows_the_tools_message(signed_in: Client, ui_origin: Origin):
    said = say(ui_origin)
    old = remember(signed_in, said, "The staging database is Postgres 14.")
    new = entry_id_of(
        correct(signed_in, old, "The staging database is Postgres 16.").headers["location"]
    )
    late = correct(signed_in, old, "The staging database is Postgres 15.")
    assert late.status_code == 409
    shown = html.unescape(late.text)
    assert (
        f"Entry {old} was already corrected; its current version is {new}. Correct that one instead."
        in shown
    )
    assert "The staging database is Postgres 15." in shown  # the draft, to try again


def _version_items(page: str) -> dict[str, str]:
    history = page[page.index('id="history"') :]
    items = [item.split("</li>")[0] for item in history.split('<li class="version')[1:]]
    return {re.findall(r"ent_[0-9a-f]+", item)[0]: item for item in items}


def test_concurrent_corrections_are_marked_in_the_history(signed_in: Client, ui_origin: Origin):
    said = say(ui_origin)
    root = remember(signed_in, said, "Two devices corrected this at once.")
    store = ui_origin.store

    def fork(txn: Any) -> list[str]:
        base = store_entries.get_entry(store, txn, root)
        assert base is not None
        made = []
        for text in ("Correction from the laptop.", "Correction from the desktop."):
            version = store_entries.new_version(
                kind=base["kind"],
                text=text,
                confidence=0.9,
                project=base["project"],
                author="claude-code@elsewhere",
                created=base["created"] + 5,
                sources=base["sources"],
                after=base,
            )
            store_entries.put_version(store, txn, version)
            made.append(version["id"])
        return made

    made = store.write(fork)
    with store.read() as txn:
        line = store_entries.lineage(store, txn, root)
    loser = next(v for v in made if v != line.current)
    assert line.current in made
    page = signed_in.get(f"/ui/entries/{root}").text
    items = _version_items(page)
    assert "concurrent" in items[loser] and "fork" in items[loser]
    assert "concurrent" not in items[line.current] and "current" in items[line.current]
    assert "concurrent" not in items[root] and "superseded" in items[root]
    loser_page = signed_in.get(f"/ui/entries/{loser}").text
    assert "lost to a concurrent correction" in loser_page


def test_hostile_text_on_the_entry_pages_is_text(signed_in: Client):
    hostile = f"Never run {SCRIPT} nor {IMG}"
    form = {
        "_csrf": signed_in.csrf,
        "kind": "memory",
        "text": hostile,
        "confidence": "0.6",
        "event_1": HOSTILE_EVENT,
        "quote_1": SCRIPT,
    }
    made = signed_in.post("/ui/remember", data=form, follow_redirects=False)
    entry_id = entry_id_of(made.headers["location"])
    refused = signed_in.post("/ui/remember", data={**form, "quote_1": IMG + " not there"})
    assert refused.status_code == 404
    for body in (
        signed_in.get(f"/ui/entries/{entry_id}").text,
        signed_in.get("/ui/entries").text,
        refused.text,
        signed_in.get("/ui/forget", params={"id": entry_id}).text,
    ):
        assert SCRIPT not in body and "<img" not in body and "onerror=alert(1)>" not in body
        assert hostile in html.unescape(body)
        assert re.findall(r"<script[^>]*>", body) == OWN_SCRIPTS


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/ui/remember", {"kind": "memory", "text": "x", "confidence": "1"}),
        ("/ui/entries/ent_000000000000/correct", {"text": "x"}),
    ],
)
def test_a_post_without_the_csrf_token_is_refused(
    signed_in: Client, path: str, data: dict[str, str]
):
    response = signed_in.post(path, data=data, follow_redirects=False)
    assert response.status_code == 403 and "CSRF token" in response.text


def test_unknown_ids_and_events_on_the_entry_page(signed_in: Client, ui_origin: Origin):
    unknown = signed_in.get("/ui/entries/ent_0123456789ab")
    assert unknown.status_code == 404 and "Unknown entry or event ent_0123456789ab." in unknown.text
    said = say(ui_origin)
    event = signed_in.get(f"/ui/entries/{said.event_id}", follow_redirects=False)
    assert event.status_code == 303 and event.headers["location"] == raw_url(said.event_id)


def test_the_remember_form_starts_from_an_event(signed_in: Client, ui_origin: Origin):
    said = say(ui_origin)
    page = signed_in.get("/ui/remember", params={"event": said.event_id, "quote": said.marker})
    assert page.status_code == 200
    assert f'name="event_1" value="{said.event_id}"' in page.text
    assert f'name="quote_1" value="{said.marker}"' in page.text


def test_the_pages_need_a_session(client: Client):
    for path in ("/ui/entries", "/ui/entries/ent_0123456789ab", "/ui/remember"):
        response = client.get(path, follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"].startswith("/ui/login")


def test_the_list_is_read_a_page_at_a_time(signed_in: Client, ui_origin: Origin):
    said = say(ui_origin)
    project = "paged-" + said.marker
    made = [remember(signed_in, said, f"Paged entry {n}.", project=project) for n in range(3)]
    first = entry_page(ui_origin, project=project, size=2)
    assert (first.page, first.pages, first.total) == (1, 2, 3)
    assert [e["id"] for e in first.entries] == [made[2], made[1]]
    last = entry_page(ui_origin, project=project, size=2, page=9)  # past the end: the last
    assert last.page == 2 and [e["id"] for e in last.entries] == [made[0]]
    assert project in first.projects
    page = signed_in.get("/ui/entries", params={"project": project}).text
    assert "3 current entries, newest first." in page


def test_correcting_an_event_is_refused_in_the_tools_words(signed_in: Client, ui_origin: Origin):
    said = say(ui_origin)
    response = signed_in.post(
        f"/ui/entries/{said.event_id}/correct", data={"_csrf": signed_in.csrf, "text": "x"}
    )
    assert response.status_code == 400
    assert f"{said.event_id} is an event; only entries can be corrected." in response.text
