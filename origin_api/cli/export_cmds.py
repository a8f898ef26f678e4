"""`origin export`: a session as a person reads it, in Markdown, HTML or JSON, to a file or to
stdout (the work is `origin_api.transcript`'s; this is the command's edge)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ..runtime import Origin
from ..transcript import FORMATS, export
from .output import edge, err_console, text

FORMAT_HELP = "md (Markdown), html (one standalone page, no script) or json (the events, typed)."


def register(app: typer.Typer) -> None:
    app.command(name="export")(export_session)


def export_session(
    session: str = typer.Argument(
        ..., metavar="SESSION", help="A session id, or the id of one of its events (a search hit)."
    ),
    fmt: str = typer.Option("md", "--format", "-f", help=FORMAT_HELP),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write to this file instead of stdout."
    ),
    include_tools: bool = typer.Option(
        False,
        "--include-tools",
        help="Also export tool calls and their results (commands, edits as diffs) and the "
        "harness's notes; without it, the messages only, with a line where events were left out.",
    ),
    source: str | None = typer.Option(
        None,
        "--source",
        help="The session's source (claude-code, codex, …) when its id is ambiguous.",
    ),
) -> None:
    """A session as a person reads it: a header (agent, project, directory, branch, model,
    times) and each message with its event id, so the file still points at its provenance.
    Forgotten events are never exported; secrets stay masked as they were stored."""
    if fmt not in FORMATS:
        err_console.print(f"[red]error:[/red] no format {text(fmt)}: md, html or json.")
        raise typer.Exit(2)
    with edge(), Origin.open(existing=True) as origin:
        written = export(origin, session, source, fmt=fmt, include_tools=include_tools)
    if output is None:
        sys.stdout.write(written)
        return
    try:
        output.write_text(written, encoding="utf-8")
    except OSError as failed:
        err_console.print(
            f"[red]error:[/red] cannot write {text(str(output))}: {text(str(failed))}"
        )
        raise typer.Exit(2) from None
    err_console.print(f"wrote {text(str(output))} ({len(written.encode()):,} bytes, {fmt})")
