"""`origin continue SESSION`: the agent's own command that continues a session, in the directory
the session ran in; `--run` runs it. (`origin resume` resumes recording after `origin pause`.)

Exit codes: 0 the command (printed, or run and replaced by the agent, whose exit code is then
the command's); 1 the session has nothing to continue, or no command of its agent continues it,
or its directory is gone (`--run`); 2 the session is unknown (Origin's errors); 127 `--run` and
the agent's CLI is not on PATH."""

from __future__ import annotations

import os
import shutil

import typer

from ..continuing.commands import Continuation
from ..continuing.resolve import continuation_of
from ..runtime import Origin
from .output import edge, print_json

#: Nothing to continue, or no command of the agent continues it.
EXIT_NONE = 1
#: `--run` found no such program on PATH (a shell's own code for it).
EXIT_NO_PROGRAM = 127


def register(app: typer.Typer) -> None:
    app.command("continue")(continue_session)


def continue_session(
    session: str = typer.Argument(
        ...,
        metavar="SESSION",
        help="A session id as `origin timeline` prints it, `source:id`, or an event id in it "
        "(a search hit's).",
    ),
    source: str | None = typer.Option(
        None, "--source", help="The session's source, where two agents have the same id."
    ),
    run: bool = typer.Option(
        False,
        "--run",
        help="Run it: the agent takes over this terminal, in the session's directory.",
    ),
    json: bool = typer.Option(False, "--json", help="Print the command and its parts as JSON."),
) -> None:
    """Print the agent's own command that continues a session in its directory, such as
    `cd ~/app && claude --resume <id>`; with --run, run it."""
    with edge(), Origin.open(existing=True) as origin:
        found = continuation_of(origin, session, source)
    if json:
        print_json(_shown(found))
    elif found.argv is None:
        typer.echo(f"{found.source} session {found.session}: {found.reason}.", err=True)
    elif not run:
        if found.note:
            typer.echo(f"({found.note})", err=True)
        typer.echo(found.shell)
    if found.argv is None:
        raise typer.Exit(EXIT_NONE)
    if run:
        _run(found)


def _shown(found: Continuation) -> dict[str, object]:
    return {
        "source": found.source,
        "session": found.session,
        "cwd": found.cwd,
        "argv": found.argv,
        "command": found.shell or None,
        "reason": found.reason or None,
        "note": found.note or None,
    }


def _run(found: Continuation) -> None:
    """Become the agent, in the session's directory (its exit code is then this command's)."""
    assert found.argv is not None and found.cli is not None
    names = (found.cli.program, *found.cli.aliases)
    program = next((shutil.which(name) for name in names if shutil.which(name)), None)
    if program is None:
        typer.echo(
            f"{found.cli.program} is not on PATH: install {found.source}'s CLI, or run "
            f"this yourself where it is:\n{found.shell}",
            err=True,
        )
        raise typer.Exit(EXIT_NO_PROGRAM)
    if found.cwd:
        try:
            os.chdir(found.cwd)
        except OSError as error:
            typer.echo(
                f"cannot enter the session's directory {found.cwd}: {error.strerror}", err=True
            )
            raise typer.Exit(EXIT_NONE) from None
    typer.echo(f"running: {found.shell}", err=True)
    os.execv(program, [found.argv[0], *found.argv[1:]])
