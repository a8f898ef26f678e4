"""`origin`: the command line. `main()` keeps `origin mcp` off the heavy imports it does not need."""

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
    from .commands import app

    app(args=args, prog_name="origin")
