"""Ephemeral mode as the tools and the commands see it: the switch is `origin_store.pause`'s.

While recording is paused, `ingest` answers that its event was suppressed (not an error: the
agent did nothing wrong, and retrying would not help), `remember` and `correct` refuse with a
message saying how to resume, and the read tools and `forget` work as ever. Every process over
the home asks the flag on every such call, so a pause takes effect at once everywhere.
"""

from __future__ import annotations

import re
from typing import Any

from origin_store import pause as switch

from ..errors import OriginError, invalid
from ..runtime import Origin
from ..timeargs import render

#: What `ingest` answers while recording is paused (the peer's words, which agents know).
SUPPRESSED = "(ephemeral mode: event suppressed)"
#: The tools that record something new, which a pause stops.
RECORDING = frozenset({"ingest", "remember", "correct"})

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|d|w)?\s*$", re.IGNORECASE)
_UNIT_MS = {"s": 1_000, "sec": 1_000, "m": 60_000, "min": 60_000, "h": 3_600_000}
_UNIT_MS.update({"d": 86_400_000, "w": 7 * 86_400_000})


def in_force(origin: Origin) -> switch.Pause | None:
    """The pause in force on this device's home, or None (one stat while the flag holds)."""
    return switch.paused(origin.home)


def refusal(tool: str, found: switch.Pause) -> OriginError:
    """Why `remember` or `correct` did nothing, and how to end the pause."""
    until = f" until {render(found.until)}" if found.until is not None else ""
    return OriginError(
        f"Recording is paused (ephemeral mode) since {render(found.since)}{until}, so {tool} "
        "saved nothing. The user can resume it with `origin resume`; try again then.",
        "conflict",
    )


def shown(found: switch.Pause | None) -> dict[str, Any] | None:
    """A pause as `origin status --json`, `doctor` and the tools show it (local times)."""
    if found is None:
        return None
    return {"since": render(found.since), "until": render(found.until), "reason": found.reason}


def duration_ms(text: str) -> int:
    """`--for`: a number and a unit, s, m, h, d or w (`90s`, `30m`, `1h`, `1.5h`); minutes
    without a unit."""
    found = _DURATION.match(text)
    if found is None:
        raise invalid(
            f"--for takes a duration such as 90s, 30m, 1h or 2d; got {text[:40]!r}.",
        )
    ms = int(float(found.group(1)) * _UNIT_MS[(found.group(2) or "m").lower()])
    if ms <= 0:
        raise invalid("--for must be longer than zero.")
    return ms


def pause(origin: Origin, *, for_ms: int | None, reason: str | None) -> switch.Pause:
    """`origin pause`: recording stops on every process over this home until resumed."""
    return switch.pause(origin.home, for_ms=for_ms, reason=reason)


def resume(origin: Origin, *, backfill: bool) -> switch.Pause | None:
    """`origin resume`: what was written during the pause is skipped (unless `backfill`) while
    the flag still stands, so that no pass reads it in between, then recording starts again.
    Returns the pause that ended, or None when there was none."""
    found = switch.last(origin.home)
    if found is None:
        return None
    if not backfill:
        skip_paused_window(origin)
    return switch.resume(origin.home)


def skip_paused_window(origin: Origin) -> None:
    """Move every log's cursor past what its agent wrote during the pause, so that resuming
    does not ingest it; the pause is still on the flag (`origin_store.pause.last`) when this
    runs.

    TODO(lead engineer): the ingest engine's side of ephemeral mode (origin_store/ingest) goes
    here; until then a resume without --backfill ingests what was written during the pause.
    """
    del origin
