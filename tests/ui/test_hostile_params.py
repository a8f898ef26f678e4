"""The pages the person-facing work added, under hostile query parameters: an answer with a
status below 500 (the page, or its readable refusal), never an error the server did not expect,
and nothing of the parameter shown as markup. Sizes in bytes as well as characters: a 600-byte
id of 3-byte letters, one of 4-byte emoji, NUL, lone surrogates' UTF-8, Unicode digits."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest
from ui_support import RENDER_SESSION, Client, render_event

from origin_api.hub import create_app
from origin_api.runtime import Origin

HOSTILE = [
    "",
    "-1",
    "0",
    "99999999999999999999999",
    "１２",  # Unicode digits: int() would take them
    "abc",
    "\x00",
    "%FF%FE",
    "\ud800".encode("utf-8", "surrogatepass").decode("latin-1"),
    "語" * 200,  # 600 bytes in 200 characters
    "😀" * 150,  # 600 bytes in 150 characters
    "x" * 10_000,
    '"><script>alert(1)</script>',
]
SESSION = f"/ui/session?source=claude-code&id={RENDER_SESSION}"
PAGES = [
    ("/ui/activity", "days"),
    ("/ui/activity?days=30", "source"),
    ("/ui/activity?days=30", "project"),
    (SESSION, "at"),
    (SESSION, "start"),
    (SESSION, "page"),
    ("/ui/session/export?source=claude-code&format=md", "id"),
    (f"/ui/session/export?source=claude-code&id={RENDER_SESSION}", "format"),
    ("/ui/search?q=retries", "limit"),
    ("/ui/search?q=retries", "since"),
    ("/ui/timeline", "from"),
    ("/ui/timeline", "before"),
    ("/ui/timeline", "project"),
    ("/ui/", "q"),
]


@pytest.fixture(scope="module")
def reader(ui_origin: Origin) -> Iterator[Client]:
    """One signed-in client for the table: its requests only read, and a sign-in each (scrypt)
    would be most of the table's time."""
    with Client(create_app(ui_origin, ingest=False), base_url="http://127.0.0.1") as opened:
        assert opened.sign_in().status_code == 200
        yield opened


@pytest.mark.parametrize(("page", "name"), PAGES)
@pytest.mark.parametrize("value", HOSTILE, ids=range(len(HOSTILE)))
def test_a_hostile_parameter_is_answered_not_failed(
    reader: Client, page: str, name: str, value: str
) -> None:
    joiner = "&" if "?" in page else "?"
    response = reader.get(f"{page}{joiner}{name}={quote(value, safe='%')}")
    assert response.status_code < 500, (page, name, value[:40], response.text[-500:])
    assert "<script>alert(1)" not in response.text


def test_a_session_opened_at_an_event_of_another_session_says_so(signed_in: Client) -> None:
    other = render_event(2).replace(RENDER_SESSION[:8], "00000000")
    page = signed_in.get(f"{SESSION}&at={quote(other, safe='')}")
    assert page.status_code == 200 and "is not among this session" in page.text
