"""`origin`: the command line. `main()` keeps `origin mcp`, `origin search --json` and `origin get`
off the heavy imports they do not need (typer, rich)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args == ["mcp"]:
        # Agents start this on every session: answer quickly, skip typer and rich (options such
        # as --sdk, which starts slowly anyway, go through typer like every other command).
        from ..mcp import serve

        serve()
        return
    if args[:1] in (["search"], ["get"]):
        from .lean import run

        if run(args):
            return
    from .commands import app

    app(args=args, prog_name="origin")
