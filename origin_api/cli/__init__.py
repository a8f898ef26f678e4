"""`origin`: the command line. `main()` keeps `origin mcp`, `origin search --json` and `origin get`
off the heavy imports they do not need (typer, rich), and is the last edge every command's errors
meet: what no command turned into a message becomes one line on stderr and exit code 2, never a
traceback (an agent starting `origin mcp` shows a person only its stderr)."""

from __future__ import annotations

import sys

#: The exit code of an error a person can act on (a command's own edge uses it too).
EXIT_ERROR = 2


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    try:
        _dispatch(args)
    except Exception as error:
        message = _message(error)
        if message is None:
            raise  # a bug: its traceback is what a report needs
        sys.stdout.flush()
        sys.stderr.write(f"error: {message}\n")
        sys.stderr.flush()
        raise SystemExit(EXIT_ERROR) from None


def _dispatch(args: list[str]) -> None:
    if args == ["mcp"]:
        # Agents start this on every session: answer quickly, skip typer and rich (options such
        # as --sdk, which starts slowly anyway, go through typer like every other command).
        from ..mcp import serve

        serve()
        return
    if args[:1] in (["search"], ["get"]):
        # A running Origin process answers at once (it has everything loaded); else this one.
        from .. import lingering

        found = lingering.ask(args)
        if found == lingering.ANSWERED:
            return
        from ..lingering.lean import run

        if run(args):
            if found == lingering.NOBODY:
                lingering.start_lingering()  # the next fresh command is answered by it
            return
    from .commands import app

    app(args=args, prog_name="origin")


def _message(error: Exception) -> str | None:
    """What to tell a person about an error that left a command, or None for a bug. The layers'
    errors are messages already; an OS error is one only when it is about the home (a disk that
    filled, a directory made read-only after Origin opened it)."""
    from origin_search import SearchError
    from origin_store import StoreError

    from ..errors import OriginError

    if isinstance(error, OriginError | StoreError | SearchError):
        return getattr(error, "message", None) or str(error)
    if isinstance(error, OSError):
        from pathlib import Path

        from ..runtime import HOME_ERRNOS, home_unusable
        from ..settings import Settings

        home = Settings.from_env().home
        name = error.filename
        if error.errno in HOME_ERRNOS and isinstance(name, str) and Path(name).is_relative_to(home):
            return str(home_unusable(home, error))
    return None
