"""Ephemeral mode from the admin UI: pause (with and without a duration), the state shown,
resume, a bad duration refused readably, CSRF on both forms."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ui_support import Client

from origin_api.runtime import Origin
from origin_store.pause import state as switch


@pytest.fixture
def resumed(ui_origin: Origin) -> Iterator[None]:
    """The shared archive is recording again whatever a test left."""
    yield
    switch.resume(ui_origin.home)


def test_pause_shows_and_resume(signed_in: Client, ui_origin: Origin, resumed: None) -> None:
    assert "Pause recording" in signed_in.get("/ui/recording").text
    done = signed_in.post(
        "/ui/recording/pause",
        data={"_csrf": signed_in.csrf, "for": "1h", "reason": "a private call <b>"},
        follow_redirects=False,
    )
    assert done.status_code == 303
    found = switch.paused(ui_origin.home)
    assert found is not None and found.until is not None and found.reason == "a private call <b>"
    page = signed_in.get("/ui/recording").text
    assert "Resume recording" in page and "a private call &lt;b&gt;" in page
    assert "Recording is paused until" in page  # the flash
    signed_in.post("/ui/recording/resume", data={"_csrf": signed_in.csrf, "backfill": "1"})
    assert switch.paused(ui_origin.home) is None


def test_a_bad_duration_is_refused_readably(
    signed_in: Client, ui_origin: Origin, resumed: None
) -> None:
    page = signed_in.post("/ui/recording/pause", data={"_csrf": signed_in.csrf, "for": "soon"})
    assert "--for takes a duration such as" in page.text
    assert switch.paused(ui_origin.home) is None


def test_a_reason_past_the_limit_is_refused_and_one_within_it_kept_on_one_line(
    signed_in: Client, ui_origin: Origin, resumed: None
) -> None:
    """The form's maxlength is the browser's; the server holds the limit for any client."""
    page = signed_in.post(
        "/ui/recording/pause", data={"_csrf": signed_in.csrf, "reason": "x" * 5000}
    )
    assert "The reason is 5,000 characters long; at most 200 are kept." in page.text
    assert switch.paused(ui_origin.home) is None
    signed_in.post(
        "/ui/recording/pause",
        data={"_csrf": signed_in.csrf, "reason": "a call\nwith\r\n  my bank"},
    )
    found = switch.paused(ui_origin.home)
    assert found is not None and found.reason == "a call with my bank"


@pytest.mark.parametrize("path", ["/ui/recording/pause", "/ui/recording/resume"])
def test_forms_without_the_csrf_token_are_refused(
    signed_in: Client, ui_origin: Origin, resumed: None, path: str
) -> None:
    assert signed_in.post(path, data={"for": "1h"}).status_code == 403
    assert switch.paused(ui_origin.home) is None
