"""`origin connect`, `origin disconnect` and `origin sync`: this device and its personal hub
(docs/sync.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import typer

from ..errors import OriginError
from ..runtime import Origin, check_home
from ..settings import Settings
from ..sync import connection as hub_connection
from .output import console, edge, err_console, print_json

#: Feed items to push before `origin sync` shows a progress bar.
PROGRESS_FROM = 2_000


def register(app: typer.Typer) -> None:
    app.command()(connect)
    app.command()(disconnect)
    app.command()(sync)


def _mcp_url(url: str) -> str:
    url = url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise OriginError(f"The hub's URL starts with http:// or https://: {url!r}.")
    return url if url.endswith("/mcp") else url + "/mcp"


def connect(
    url: str = typer.Argument(..., help="The hub's address, e.g. http://hub.local:8765."),
    token: str = typer.Option(..., "--token", help="A token of the hub (origin token create)."),
    relay: bool = typer.Option(
        False, "--relay", help="Keep no archive here: every tool call is the hub's."
    ),
) -> None:
    """Connect this device to a personal hub and sync with it (a relay only checks it)."""
    from ..sync import HubClient, SyncError, sync_now

    with edge():
        settings = Settings.from_env()
        check_home(settings.home)  # before the hub is asked: the connection is kept there
        probe = hub_connection.Connection(_mcp_url(url), "", relay, token.strip())
        try:
            with HubClient(probe, max(5.0, settings.hub_timeout_ms / 1000)) as client:
                answer = client.pull(0, 1)
        except SyncError as error:
            raise OriginError(f"Cannot connect: {error.message}.") from None
        device = answer.get("device")
        if not isinstance(device, str) or not device:
            raise OriginError(f"Cannot connect: {probe.base} did not say this token's name.")
        hub_connection.save(
            settings.home, hub_connection.Connection(probe.url, device, relay, probe.token)
        )
        mode = "a relay of" if relay else "connected to"
        console.print(f"This device, [bold]{device}[/bold], is {mode} {probe.base}.")
        if relay:
            return
        with Origin.open(settings) as origin, _progress() as progress:
            try:
                report = sync_now(origin, progress=progress)
            except SyncError as error:
                raise OriginError(
                    f"Connected, but the first sync failed: {error.message}."
                ) from None
        console.print(f"First sync: {report.pushed:,} items sent, {report.pulled:,} received.")


def disconnect() -> None:
    """Forget this device's hub (what was synced stays in both archives)."""
    with edge():
        home = Settings.from_env().home
        if hub_connection.forget(home):
            console.print("Disconnected: this device answers from its own archive alone.")
        else:
            console.print("This device was not connected to a hub.")


def sync(json: bool = typer.Option(False, "--json", help="Print the report as JSON.")) -> None:
    """Sync with the hub now: push what it lacks, pull its entries and forgets."""
    from ..sync import SyncError, sync_now

    with edge(), Origin.open() as origin:
        if origin.connection is None:
            raise OriginError(
                "This device is not connected: run origin connect <hub-url> --token …"
            )
        if origin.relay:
            raise OriginError(
                "This device is a relay: it keeps no archive, so it has nothing to sync."
            )
        with _progress(not json) as progress:
            try:
                report = sync_now(origin, progress=progress)
            except SyncError as error:
                raise OriginError(f"Sync failed: {error.message}.") from None
        if json:
            print_json(report.as_dict())
        else:
            console.print(
                f"Synced with {origin.connection.base}: {report.pushed:,} items sent, "
                f"{report.pulled:,} received ({report.applied:,} new here) in {report.seconds:.2f} s."
            )
            if report.refused:
                console.print(
                    f"{report.refused:,} received item(s) could not be kept and were passed over "
                    f"({report.refusal})."
                )


@contextmanager
def _progress(shown: bool = True) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr for a long push, started once the work turns out long."""
    if not shown or not err_console.is_terminal:
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TimeRemainingColumn,
    )

    bar = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err_console,
    )
    task: list[TaskID] = []

    def advance(done: int, total: int) -> None:
        if total < PROGRESS_FROM:
            return
        if not task:
            bar.start()
            task.append(bar.add_task("syncing", total=total))
        bar.update(task[0], completed=done)

    try:
        yield advance
    finally:
        if task:
            bar.stop()
