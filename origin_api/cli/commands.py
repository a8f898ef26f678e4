"""The typer app: each group of commands lives in its own module and registers here."""

from __future__ import annotations

import typer

from . import archive_cmds, hub_cmds, memory_cmds, server_cmds

app = typer.Typer(
    help="Origin: a local-first archive and memory for coding agents.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
archive_cmds.register(app)
memory_cmds.register(app)
server_cmds.register(app)
hub_cmds.register(app)
