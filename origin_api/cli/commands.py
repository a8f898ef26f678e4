"""The typer app: each group of commands lives in its own module and registers here."""

from __future__ import annotations

import typer

from . import (
    activity_cmds,
    archive_cmds,
    browse_cmds,
    continue_cmds,
    doctor_cmds,
    export_cmds,
    helptext,
    hub_cmds,
    memory_cmds,
    pause_cmds,
    redact_cmds,
    server_cmds,
    setup_cmds,
    sync_cmds,
    ui_cmds,
)

app = typer.Typer(
    help="Origin: a local-first archive and memory for coding agents.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(shown: bool) -> None:
    if shown:
        from ..mcp.results import version

        typer.echo(f"origin {version()}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False,
        "--version",
        "-V",
        callback=_version,
        is_eager=True,
        help="Print Origin's version and exit.",
    ),
) -> None:
    """Origin: a local-first archive and memory for coding agents."""


archive_cmds.register(app)
browse_cmds.register(app)
continue_cmds.register(app)
export_cmds.register(app)
memory_cmds.register(app)
server_cmds.register(app)
hub_cmds.register(app)
setup_cmds.register(app)
doctor_cmds.register(app)
sync_cmds.register(app)
ui_cmds.register(app)
redact_cmds.register(app)
pause_cmds.register(app)
activity_cmds.register(app)
helptext.as_written(app)
