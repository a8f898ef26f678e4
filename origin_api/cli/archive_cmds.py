"""Commands over the archive itself: ingest, status, run, verify."""

from __future__ import annotations

import time

import typer

from .. import admin
from ..runtime import Origin
from ..settings import Settings
from ..timeargs import render
from .output import console, edge, human_bytes, print_json, run_with_progress


def register(app: typer.Typer) -> None:
    app.command()(ingest)
    app.command()(status)
    app.command()(run)
    app.command()(verify)


def _ingest(origin: Origin) -> admin.IngestReport:
    plan = admin.plan_ingest(origin)
    return run_with_progress(
        "ingesting", plan.pending_bytes, lambda progress: admin.ingest(origin, progress, plan=plan)
    )


def _print_report(report: admin.IngestReport) -> None:
    console.print(
        f"[bold]{report.files:,}[/bold] files ({report.files_changed:,} changed), "
        f"[bold]{report.lines:,}[/bold] lines, [bold]{human_bytes(report.bytes)}[/bold], "
        f"[bold green]{report.events:,}[/bold green] new events in {report.seconds:.2f} s"
        + (
            f" ({report.events / report.seconds:,.0f} events/s)"
            if report.seconds > 0.5 and report.events
            else ""
        )
    )
    if report.duplicates:
        console.print(f"  {report.duplicates:,} events were already in the store (kept once)")
    if report.rewritten:
        console.print(f"  {report.rewritten:,} rewritten files mirrored again as new versions")
    for reason, count in sorted(report.problems.items()):
        console.print(f"  [yellow]skipped {count:,} lines[/yellow]: {reason}")
    for error in report.errors:
        console.print(f"  [red]could not read[/red] {error}")


def ingest(json: bool = typer.Option(False, "--json", help="Print the summary as JSON.")) -> None:
    """Mirror and ingest every agent log on this machine (new lines only)."""
    with edge(), Origin.open() as origin:
        report = _ingest(origin)
        if json:
            print_json(report.as_dict())
        else:
            _print_report(report)


def status(json: bool = typer.Option(False, "--json", help="Print the status as JSON.")) -> None:
    """Counts per source and project, store and mirror sizes, the last ingest."""
    with edge(), Origin.open() as origin:
        info = admin.status(origin)
        if json:
            print_json(info)
            return
        console.print(f"[bold]Origin[/bold] at {origin.home}")
        console.print(
            f"  {info['events']:,} events in {info['sessions']:,} sessions from {info['files']:,} files; "
            f"store {human_bytes(info['store_bytes'])}, mirrors {human_bytes(info['mirror_bytes'])}"
        )
        for source, counts in info["by_source"].items():
            console.print(
                f"  [cyan]{source:12}[/cyan] {counts['events']:>10,} events {counts['sessions']:>7,} sessions"
            )
        for project, count in list(info["by_project"].items())[:15]:
            console.print(f"  [magenta]{project[:40]:40}[/magenta] {count:>10,} events")
        for reason, count in info["skipped_lines"].items():
            console.print(f"  [yellow]skipped {count:,} lines[/yellow]: {reason}")
        last = info["last_ingest"]
        if last:
            console.print(
                f"  last ingest {render(last['time'])}: {last['events']:,} new events, {last['lines']:,} lines"
            )
        else:
            console.print("  no ingest yet: run [bold]origin ingest[/bold]")


def run(
    samples: bool = typer.Option(
        False, "--samples", help="Use generated sample logs even if real ones exist."
    ),
    hub: bool = typer.Option(
        True, "--hub/--no-hub", help="End by serving the hub on loopback with a fresh token."
    ),
) -> None:
    """Origin's main job on this machine: ingest the agents' logs (or samples) and show them."""
    settings = Settings.from_env()
    found = admin.find_logs(settings)
    if samples or not found:
        settings, target = admin.sample_settings(settings)
        if not admin.samples_written(target):
            console.print(
                f"No agent logs found on this machine; writing realistic sample logs to {target}"
            )
            admin.write_samples(target)
    else:
        console.print(f"Found {len(found):,} agent log files on this machine")
    started = time.perf_counter()
    with edge(), Origin.open(settings) as origin:
        _print_report(_ingest(origin))
        info = admin.status(origin)
        console.print(
            f"Archive: {info['events']:,} events in {info['sessions']:,} sessions "
            f"({time.perf_counter() - started:.1f} s)"
        )
        for source, counts in info["by_source"].items():
            console.print(
                f"  [cyan]{source:12}[/cyan] {counts['events']:>10,} events {counts['sessions']:>7,} sessions"
            )
        _index(origin)
        if hub:
            _serve_hub(origin)


def _index(origin: Origin) -> None:
    result = admin.index(origin)
    if result.docs:
        console.print(
            f'Indexed {result.docs:,} documents in {result.seconds:.1f} s; try [bold]origin search "…"[/bold]'
        )


RUN_TOKEN = "make-run"


def _serve_hub(origin: Origin) -> None:
    """Serve the hub over this store, with a fresh token, so any MCP client can connect now."""
    from ..hub import serve

    settings = origin.settings
    secret = admin.replace_token(origin, RUN_TOKEN, "write")
    url = f"http://{settings.hub_host}:{settings.hub_port}/mcp"
    console.print(f"\nOrigin hub at [bold]{url}[/bold] (Ctrl-C stops it)")
    console.print(
        f"  token: [bold]{secret}[/bold] (shown once; `origin token revoke {RUN_TOKEN}` ends it)"
    )
    console.print(
        f'  register it: claude mcp add --transport http origin {url} --header "Authorization: Bearer {secret}"',
        soft_wrap=True,
    )
    serve(origin, settings, host=settings.hub_host, port=settings.hub_port)


def verify() -> None:
    """Check that the store and the mirrors on disk agree (reads everything; repairs nothing)."""
    with edge(), Origin.open() as origin:
        report = admin.verify(origin)
    console.print(
        f"{report.files:,} files, {report.frames:,} frames, {report.lines:,} mirrored lines, {report.events:,} events"
    )
    if report.ok:
        console.print("[green]ok[/green]: the store and its mirrors agree")
        return
    for problem in report.problems:
        console.print(f"[red]problem[/red] {problem}")
    raise typer.Exit(1)
