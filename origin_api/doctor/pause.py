"""Whether this device records: ephemeral mode's switch, as `origin doctor` reports it."""

from __future__ import annotations

from origin_store.pause import state as switch

from ..contract.timeargs import render
from ..settings import Settings
from .findings import Finding


def recording(settings: Settings) -> Finding:
    """A note while recording is paused (since when, until when), ok otherwise: a pause is a
    person's choice, not something to fix, but one forgotten leaves the archive silently behind."""
    found = switch.paused(settings.home)
    if found is None:
        return Finding("archive", "recording", "ok", "Recording is on.", {"paused": None})
    until = f"until {render(found.until)}" if found.until is not None else "until resumed"
    why = f" ({found.reason})" if found.reason else ""
    details = {"since": render(found.since), "until": render(found.until), "reason": found.reason}
    return Finding(
        "archive",
        "recording",
        "note",
        f"Recording is paused since {render(found.since)}, {until}{why}: nothing new is "
        "recorded; `origin resume` starts it again.",
        {"paused": details},
    )
