"""Ephemeral mode as the tools and the commands see it: the switch is `origin_store.pause.state`'s.

While recording is paused, `ingest` answers that its event was suppressed (not an error: the
agent did nothing wrong, and retrying would not help), `remember` and `correct` refuse with a
message saying how to resume, and the read tools and `forget` work as ever. Every process over
the home asks the flag on every such call, so a pause takes effect at once everywhere.
"""

from __future__ import annotations

import re
import sys
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING

from origin_store.pause import marks as marks
from origin_store.pause import state as switch

from ..contract.timeargs import render
from ..errors import OriginError, invalid
from ..runtime import Origin
from .common import ingest_journals
from .shapes import PauseView

if TYPE_CHECKING:
    from origin_store.ingest import IngestReport

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


def shown(found: switch.Pause | None) -> PauseView | None:
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


@dataclass(frozen=True, slots=True)
class Resumed:
    """What `origin resume` did: the pause that ended, what of the pause it left out (lines of
    logs, rows of databases and whole files) or, with `backfill`, the pass that read it."""

    pause: switch.Pause
    lines: int = 0
    rows: int = 0
    ingested: IngestReport | None = None


#: The longest reason a pause keeps: one line, shown by `origin status` and the UI.
REASON_MAX = 200


def pause(origin: Origin, *, for_ms: int | None, reason: str | None) -> switch.Pause:
    """`origin pause`: recording stops on every process over this home until resumed. What the
    agents wrote before is read first (a pause already in force only gets its new end), so a
    pause never holds back what came before it; a pass that fails does not stop the pause,
    which matters more. A relay device keeps no archive: only its flag is set."""
    if reason is not None:
        reason = " ".join(reason.split())  # one line wherever it is shown
        if len(reason) > REASON_MAX:
            raise invalid(
                f"The reason is {len(reason):,} characters long; at most {REASON_MAX} are kept."
            )
    if in_force(origin) is None and not origin.relay:
        try:
            origin.ingest()
            ingest_journals(origin)
        except Exception:  # reported; the pause must happen all the same
            traceback.print_exc(file=sys.stderr)
    made = switch.pause(origin.home, for_ms=for_ms, reason=reason)
    if not origin.relay:
        marks.clear(origin.store, keep=made.since)  # an earlier pause's: they count for nothing
    return made


def resume(origin: Origin, *, backfill: bool) -> Resumed | None:
    """`origin resume`: what was written during the pause is left out (unless `backfill`) while
    the flag still stands, so that no pass reads it in between, then recording starts again.
    Returns what it did, or None when there was no pause.

    With `backfill`, the marks go first, then the flag, then a pass reads everything. If what a
    pause left in a log cannot be settled (a database busy past the wait), the pause stays and
    this raises: resuming anyway would record it."""
    found = switch.last(origin.home)
    if origin.relay:
        return Resumed(found) if found is not None and switch.resume(origin.home) else None
    if found is None:
        marks.clear(origin.store)  # a resume killed after removing the flag left them
        return None
    if backfill:
        marks.clear(origin.store)
        switch.resume(origin.home)
        return Resumed(found, ingested=origin.ingest())
    skipped = skip_paused_window(origin)
    if skipped.errors:
        raise OriginError(
            "Recording stays paused: what was written during the pause could not be left out "
            f"of {len(skipped.errors)} file(s) ({skipped.errors[0]}). Try `origin resume` again "
            "in a moment; `origin resume --backfill` records it instead.",
            "conflict",
        )
    switch.resume(origin.home)
    marks.clear(origin.store)
    return Resumed(found, skipped.unrecorded_lines, skipped.unrecorded_rows)


def skip_paused_window(origin: Origin) -> IngestReport:
    """Move every log's cursor past what its agent wrote during the pause, so that resuming
    does not ingest it; the pause is still on the flag (`origin_store.pause.state.last`) when this
    runs. A pause in force leaves out everything written up to now; one that ended by itself
    only what passes saw written before its end (their end marks, `origin_store.pause.marks`).
    Done per batch and per file under the ingest locks, so a kill loses nothing: running it
    again finishes."""
    return origin.ingester.skip_paused()
