"""`origin pause` and `origin resume`: recording stops for a while (ephemeral mode)."""

from __future__ import annotations

import typer

from ..runtime import Origin
from ..service import pause as recording
from ..service.shapes import PauseView
from .output import console, edge, print_json, text


def register(app: typer.Typer) -> None:
    app.command()(pause)
    app.command()(resume)


def _when(info: PauseView) -> str:
    until = f" until {info['until']}" if info["until"] else " until `origin resume`"
    reason = f" ({info['reason']})" if info["reason"] else ""
    return f"since {info['since']}{until}{reason}"


def pause(
    duration: str | None = typer.Option(
        None, "--for", help="End the pause by itself after this long: 90s, 30m, 1h, 2d."
    ),
    reason: str | None = typer.Option(None, "--reason", help="Why, shown by origin status."),
    json: bool = typer.Option(False, "--json", help="Print the pause as JSON."),
) -> None:
    """Stop recording on this device until `origin resume` (or for --for): agents' `ingest` is
    suppressed, `remember` and `correct` refuse, and new log lines are not ingested. Every
    `origin mcp` and the hub over this home see it at once."""
    with edge(), Origin.open() as origin:
        for_ms = recording.duration_ms(duration) if duration is not None else None
        made = recording.shown(recording.pause(origin, for_ms=for_ms, reason=reason))
        assert made is not None
        if json:
            print_json({"paused": made})
            return
        console.print(f"Recording is [bold]paused[/bold] {text(_when(made))}.")
        console.print(
            "  Agents' ingest calls are suppressed, remember and correct refuse, and new log "
            "lines are left unread; `origin resume` starts recording again."
        )


def resume(
    backfill: bool = typer.Option(
        False, "--backfill", help="Also ingest what the agents wrote during the pause."
    ),
    json: bool = typer.Option(False, "--json", help="Print the pause that ended as JSON."),
) -> None:
    """Start recording again. What agents wrote to their logs during the pause stays out of the
    archive (and is counted) unless --backfill; a line's number in its log stays its number."""
    with edge(), Origin.open() as origin:
        resumed = recording.resume(origin, backfill=backfill)
        ended = recording.shown(resumed.pause) if resumed is not None else None
        if json:
            print_json({"resumed": ended, "backfill": backfill, **_counts(resumed)})
            return
        if resumed is None or ended is None:
            console.print("Recording was not paused; nothing to resume.")
            return
        console.print(f"Recording [bold]resumed[/bold]; it was paused {text(_when(ended))}.")
        if resumed.ingested is not None:
            report = resumed.ingested
            console.print(
                f"  What the agents wrote during the pause is ingested: {report.lines:,} lines, "
                f"{report.events:,} new events."
            )
            return
        console.print(
            f"  Left out what the agents wrote during the pause: {resumed.lines:,} log lines, "
            f"{resumed.rows:,} database rows (--backfill would have ingested them)."
        )


def _counts(resumed: recording.Resumed | None) -> dict[str, int]:
    """What `--json` adds: what was left out, or what the backfill read."""
    if resumed is None:
        return {}
    if resumed.ingested is not None:
        return {
            "ingested_lines": resumed.ingested.lines,
            "ingested_events": resumed.ingested.events,
        }
    return {"unrecorded_lines": resumed.lines, "unrecorded_rows": resumed.rows}
