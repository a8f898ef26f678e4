"""Commands over the archive itself: ingest, status, run, verify, compact, and the demo's
removal."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from .. import admin
from .. import register as reg
from ..contract.timeargs import render
from ..runtime import Origin
from ..service import pause as recording
from ..settings import Settings
from .output import console, edge, human_bytes, print_json, run_with_progress, text

if TYPE_CHECKING:  # the shapes only: a command imports what it runs
    from ..doctor.archive import Status
    from ..service.shapes import PauseView

    class Shown(Status):
        """`origin status`: the archive's figures, this device's hub, a pause of recording."""

        hub: dict[str, Any] | None
        paused: PauseView | None


demo_app = typer.Typer(
    help="The demo archive `origin run` shows where there are no agent logs (ORIGIN_HOME/demo).",
    no_args_is_help=True,
)


#: One paragraph per line: typer keeps a docstring's line breaks.
RUN_HELP = (
    "Ingest this machine's agent logs and serve them (no logs yet: a demo, kept apart).\n\n"
    "Without agent logs (or with --samples) it shows the demo: generated sample sessions in an "
    "archive of their own, ORIGIN_HOME/demo, never mixed with yours (`origin demo remove` "
    "deletes it). The hub it ends with uses the token kept in ORIGIN_HOME/hub-token, the same "
    "from one run to the next."
)


def register(app: typer.Typer) -> None:
    app.command()(ingest)
    app.command()(status)
    app.command(help=RUN_HELP)(run)
    app.command()(verify)
    app.command()(compact)
    app.add_typer(demo_app, name="demo")


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
        elif report.paused:
            console.print(
                "Recording is paused (ephemeral mode): nothing was read; "
                "`origin resume` starts it again."
            )
        else:
            _print_report(report)


def status(json: bool = typer.Option(False, "--json", help="Print the status as JSON.")) -> None:
    """Counts per source and project, store and mirror sizes, the last ingest."""
    with edge(), Origin.open(existing=True) as origin:
        info: Shown = {
            **admin.status(origin),
            "hub": _hub(origin),
            "paused": recording.shown(recording.in_force(origin)),
        }
        if json:
            print_json(info)
            return
        console.print(f"[bold]Origin[/bold] at {origin.home}")
        paused = info["paused"]
        if paused is not None:
            until = f" until {paused['until']}" if paused["until"] else " until `origin resume`"
            why = f" ({text(paused['reason'])})" if paused["reason"] else ""
            console.print(
                f"  [yellow]recording paused[/yellow] since {paused['since']}{until}{why}: "
                "nothing new is recorded"
            )
        forgotten = info.get("forgotten_events") or 0
        console.print(
            f"  {info['events']:,} events in {info['sessions']:,} sessions from {info['files']:,} files"
            + (f" ({forgotten:,} more forgotten)" if forgotten else "")
            + f"; store {human_bytes(info['store_bytes'])}, mirrors {human_bytes(info['mirror_bytes'])}"
        )
        for source, counts in info["by_source"].items():
            console.print(
                f"  [cyan]{source:12}[/cyan] {counts['events']:>10,} events {counts['sessions']:>7,} sessions"
            )
        for project, count in list(info["by_project"].items())[:15]:
            console.print(f"  [magenta]{project[:40]:40}[/magenta] {count:>10,} events")
        _print_troubles(info)
        last = info["last_ingest"]
        if last:
            console.print(
                f"  last ingest {render(last['time'])}: {last['events']:,} new events, {last['lines']:,} lines"
            )
        else:
            console.print("  no ingest yet: run [bold]origin ingest[/bold]")
        hub = info["hub"]
        if hub is not None:
            last = hub["last"] or {}
            when = render(last["time"]) if last.get("time") else "never"
            failed = f" [red]failed: {text(last['error'])}[/red]" if last.get("error") else ""
            console.print(
                f"  hub {text(hub['url'])} as {text(hub['device'])}: last sync {when}{failed}, "
                f"{hub['pending']:,} changes to push"
            )
        demo = admin.demo_of(origin.settings)
        if demo.exists:
            console.print(
                f"  the demo archive is apart, in {demo.home}: `origin demo remove` deletes it"
            )


def _hub(origin: Origin) -> dict[str, Any] | None:
    """This device's hub, its last sync and what waits to be pushed (docs/sync.md)."""
    if origin.connection is None:
        return None
    from ..sync import cursors

    state = cursors(origin)
    return {"url": origin.connection.base, "device": origin.connection.device, **state}


def run(
    samples: bool = typer.Option(
        False,
        "--samples",
        help="Show the demo archive (generated samples) even if real logs exist.",
    ),
    hub: bool = typer.Option(
        True, "--hub/--no-hub", help="End by serving the hub on loopback, with the kept token."
    ),
    port: int | None = typer.Option(
        None, "--port", help="The hub's port (default ORIGIN_HUB_PORT, 8765)."
    ),
) -> None:
    """Origin's main job on this machine; its help is RUN_HELP (a paragraph a line)."""
    settings = Settings.from_env()
    if port is not None:
        settings = Settings.from_env({**settings.environ, "ORIGIN_HUB_PORT": str(port)})
    with edge():
        # The port first: in use, it is one line and nothing has been printed, ingested or made.
        sock = _bind(settings) if hub else None
        try:
            served, demo = _choose_archive(settings, samples)
            started = time.perf_counter()
            with Origin.open(served) as origin:
                _print_report(_ingest(origin))
                _print_archive(origin, "Demo archive" if demo else "Archive", started)
                _index(origin, hint=not demo)
                token_file = settings.home / admin.TOKEN_FILE
                if sock is not None and not _serve_hub(origin, sock, token_file, demo=demo):
                    origin.keep_open()
        finally:
            if sock is not None:
                sock.close()


def _bind(settings: Settings) -> socket.socket:
    from ..hub.server import bind

    return bind(settings.hub_host, settings.hub_port)


def _choose_archive(settings: Settings, samples: bool) -> tuple[Settings, bool]:
    """The real archive when this machine has agent logs, else (or with --samples) the demo:
    its own home under ORIGIN_HOME, whose only logs are generated samples."""
    demo = admin.demo_of(settings)
    legacy = admin.legacy_samples(settings)
    if legacy is not None:
        console.print(
            f"[yellow]note[/yellow]: your archive {settings.home} also holds the samples an "
            f"earlier `origin run` generated in {legacy}; they cannot be taken out of it, so to "
            f"start clean move {settings.home} away and run again."
        )
    found = [] if samples else admin.find_logs(settings)
    if found:
        console.print(f"Found {len(found):,} agent log files; your archive is {settings.home}")
        if demo.exists:
            console.print(
                f"  (the demo in {demo.home} stays apart: `origin demo remove` deletes it)"
            )
        return settings, False
    why = "As asked (--samples)" if samples else "No agent logs found on this machine"
    console.print(
        f"{why}: showing the [bold]demo[/bold], generated sample logs in an archive of their "
        f"own ({demo.home}).\n  Your own archive ({settings.home}) stays apart and fills from "
        "your agents' logs (`origin ingest`, or `origin run` once there are some); "
        "`origin demo remove` deletes the demo."
    )
    if not demo.written:
        console.print(
            "Generating the sample logs (about 350 coding sessions of five agents, a few seconds)…"
        )
        admin.write_demo(demo)
    return demo.settings(settings), True


def _print_archive(origin: Origin, title: str, started: float) -> None:
    info = admin.status(origin)
    console.print(
        f"{title}: {info['events']:,} events in {info['sessions']:,} sessions "
        f"({time.perf_counter() - started:.1f} s)"
    )
    for source, counts in info["by_source"].items():
        console.print(
            f"  [cyan]{source:12}[/cyan] {counts['events']:>10,} events {counts['sessions']:>7,} sessions"
        )


def _index(origin: Origin, *, hint: bool = True) -> None:
    result = admin.index(origin)
    if result.docs:
        console.print(
            f"Indexed {result.docs:,} documents in {result.seconds:.1f} s"
            + ('; try [bold]origin search "…"[/bold]' if hint else "")
        )


def _serve_hub(origin: Origin, sock: socket.socket, token_file: Path, *, demo: bool) -> bool:
    """Serve the hub over this archive with the token kept for this machine's clients, so an
    agent registered once keeps connecting from one run to the next, demo or not. Returns
    `serve`'s answer: whether the store is free to close."""
    from ..hub.server import serve

    token = admin.hub_token(origin, token_file)
    host, port = sock.getsockname()[:2]
    url = reg.default_hub_url(host, port)
    what = "the demo archive" if demo else "your archive"
    console.print(f"\nOrigin hub at [bold]{url}[/bold], serving {what} (Ctrl-C stops it)")
    how = f"new: {token.new}" if token.new else "the same as last time"
    console.print(
        f"  token: [bold]{token.secret}[/bold] ({how}; kept in {token_file}, readable by you "
        f"alone, for the next runs; `origin token revoke {admin.LOCAL_TOKEN}` ends it)"
    )
    console.print(f"  {admin_ui_line(origin, url, demo=demo)}")
    console.print(
        "\nRegister Origin with an agent (origin: your archive over stdio; origin-hub: this hub):\n"
    )
    console.print(text(reg.instructions(hub_url=url, token=token.secret)))
    return serve(origin, origin.settings, sock)


def admin_ui_line(origin: Origin, url: str, *, demo: bool) -> str:
    """Where the hub's admin UI is and what signs in there: the token just printed, or the
    admin password kept in the served home (`origin ui password` sets one in ORIGIN_HOME, which
    the demo's home is not)."""
    from ..ui.password import has_password

    where = f"Admin UI: {url.removesuffix('/mcp')}/ui/ — sign in with the token above"
    if has_password(origin.home):
        return f"{where} or the admin password (`origin ui password` changes it)"
    if demo:
        return where
    return f"{where} (or set an admin password: `origin ui password`)"


def verify() -> None:
    """Check that the store and the mirrors on disk agree (reads everything; repairs nothing)."""
    with edge(), Origin.open(existing=True) as origin:
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


def compact(
    json: bool = typer.Option(False, "--json", help="Print what it did as JSON."),
) -> None:
    """Rewrite the store into a file of its own size, giving back to the disk what LMDB freed
    (after an upgrade, forgets, rescans), and converting a store made before Origin named
    events by sequence number. Needs the store to itself: stop agents' `origin mcp`, the hub
    and the UI first. A kill at any moment leaves the store whole."""
    with edge():
        settings = Settings.from_env()
        done = admin.compact(settings)
    if json:
        print_json(
            {
                "store_bytes_before": done.before,
                "store_bytes_after": done.after,
                "events": done.events,
                "converted": done.converted,
            }
        )
        return
    how = " (events converted to the layout a new store has)" if done.converted else ""
    console.print(
        f"store {human_bytes(done.before)} -> {human_bytes(done.after)} on disk, "
        f"{done.events:,} events{how}"
    )


@demo_app.command("remove")
def demo_remove() -> None:
    """Delete the demo archive and its sample logs; your own archive is not touched."""
    settings = Settings.from_env()
    demo = admin.demo_of(settings)
    with edge():
        size = admin.remove_demo(demo)
    if size is None:
        console.print(f"There is no demo archive in {demo.home}; nothing to remove.")
        return
    console.print(
        f"Removed the demo archive {demo.home} ({human_bytes(size)}); "
        f"your own archive in {settings.home} is as it was."
    )


def _print_troubles(info: Status) -> None:
    """What `origin status` says went wrong or was held back: lines skipped, records that
    cannot be read, secrets masked."""
    for reason, count in info["skipped_lines"].items():
        console.print(f"  [yellow]skipped {count:,} lines[/yellow]: {reason}")
    if info.get("damaged_records"):
        console.print(
            f"  [red]{info['damaged_records']:,} stored records cannot be read[/red]: "
            "`origin verify` names them"
        )
    masked = info.get("redacted") or {}
    if masked:
        kinds = ", ".join(f"{kind} {n:,}" for kind, n in sorted(masked.items()))
        console.print(f"  secrets masked before they were kept: {kinds}")
