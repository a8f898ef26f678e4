"""`origin redact`: the secrets ingest masks, and `--rescan` to mask them in what is stored."""

from __future__ import annotations

import typer

from ..runtime import Origin
from ..service import redaction
from .output import console, edge, print_json, text


def register(app: typer.Typer) -> None:
    app.command()(redact)


def redact(
    rescan: bool = typer.Option(
        False,
        "--rescan",
        help="Mask the secrets the current patterns find in what is already stored: event "
        "records, sessions, mirrors and row logs (the index is rebuilt when an event changed).",
    ),
    json: bool = typer.Option(False, "--json", help="Print the patterns or the report as JSON."),
) -> None:
    """The kinds of secret ingest masks as [redacted <kind>] before anything is stored; with
    --rescan, mask them in what was stored before (safe to interrupt and run again)."""
    if not rescan:
        found = redaction.patterns()
        if json:
            print_json(found)
            return
        width = max(len(p["kind"]) for p in found)
        for pattern in found:
            console.print(f"  [cyan]{pattern['kind']:{width}}[/cyan]  {text(pattern['why'])}")
        console.print("\n`origin redact --rescan` masks them in what is already stored.")
        return
    with edge(), Origin.open() as origin:
        report = redaction.rescan(origin, None if json else _say)
        if json:
            print_json(report.as_dict())
            return
        _show(report)


def _say(step: str) -> None:
    console.print(f"[dim]rescanning {step}…[/dim]")


def _show(report: redaction.RescanReport) -> None:
    if not report.changed:
        console.print(f"Nothing to mask: no stored secret matches ({report.seconds:.1f} s).")
    else:
        console.print(
            f"Masked in {report.events:,} events, {report.sessions:,} sessions, "
            f"{report.problems:,} problems; {report.mirrors:,} mirror files rewritten "
            f"({report.mirror_lines:,} lines), {report.row_logs:,} row logs "
            f"({report.seconds:.1f} s)."
        )
    for kind, count in sorted(report.redacted.items()):
        console.print(f"  [yellow]{count:,}[/yellow] {kind}")
    for skipped in report.skipped:
        console.print(f"  [red]not rewritten[/red] {text(skipped)}")
