"""`origin`: the command line. `main()` keeps `origin mcp` off the heavy imports it does not need."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["mcp"] and not {"--help", "-h"} & set(args):
        # Agents start this on every session: answer quickly, skip typer and rich.
        from ..mcp_stdio import run_from_args

        sys.exit(run_from_args(args[1:]))
    from .commands import app

    app(args=args, prog_name="origin")
