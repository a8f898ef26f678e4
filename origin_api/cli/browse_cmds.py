"""Commands to browse the archive: `origin timeline` (sessions, or one session's events) and
`origin sources` (the original lines behind an event or an entry).

Both call the tools of the same names and print their results for people; --json prints the
tool's own JSON. Times are shown as the tools render them.
"""

from __future__ import annotations

from typing import Any

import typer

from ..lingering.lean import joined, plural
from ..lingering.names import check_filters
from ..runtime import Origin
from ..service import Caller, device_call
from ..service.shapes import SessionEvents, SessionsResult, SessionView, SourceItem, SourcesResult
from .output import console, edge, indented, print_json, text

#: The most sessions or events one timeline call gives (the tool's limit).
MOST = 500
TIME_HELP = "30m, 24h, 7d, 2w (back from now), a date or ISO 8601."
#: How a row log's line starts (`{"table", "key", "row"}`): the event came from a database's row
#: or a file rewritten whole, read as it was then, not from a line of the original file.
ROW_LINE = '{"table":'


def register(app: typer.Typer) -> None:
    app.command()(timeline)
    app.command()(sources)


def _call(tool: str, args: dict[str, Any]) -> Any:
    with edge(), Origin.open(existing=True) as origin:
        given = {k: v for k, v in args.items() if v is not None}
        result, note = device_call(origin, tool, given, Caller("user", origin.settings.device))
        if tool == "timeline" and not result.get("sessions", True):
            check_filters(origin, given.get("source"), given.get("project"))
    if note:
        typer.echo(note, err=True)
    return result


def timeline(
    session: str | None = typer.Option(
        None, "--session", help="A session id: list its events, oldest first."
    ),
    since: str = typer.Option("7d", help=f"Sessions active since then: {TIME_HELP}"),
    until: str | None = typer.Option(None, help=f"Sessions started before then: {TIME_HELP}"),
    source: str | None = typer.Option(
        None,
        help="Sessions of this source only (claude-code, codex, …); with --session, its source.",
    ),
    project: str | None = typer.Option(None, help="Sessions of this project only."),
    include_tools: bool = typer.Option(
        False,
        "--include-tools",
        help="With --session: also list tool calls and results, injected context and system events.",
    ),
    limit: int = typer.Option(50, help=f"At most this many sessions, or events (1–{MOST})."),
    json: bool = typer.Option(False, "--json", help="Print the tool's JSON result."),
) -> None:
    """Sessions, newest activity first; or, with --session, that session's events in order."""
    args = {
        "since": since,
        "until": until,
        "source": source,
        "project": project,
        "session": session,
        "include_tools": include_tools,
        "limit": limit,
    }
    result = _call("timeline", args)
    if json:
        print_json(result)
    elif session is None:
        listed: SessionsResult = result
        _print_sessions(listed["sessions"], args)
    else:
        one: SessionEvents = result
        _print_session(one, args)


def _session_head(session: SessionView, times: str | None) -> None:
    """A session's first lines; `times` is left out for a session none of whose events has a
    time (its lines had none)."""
    about = joined(
        session["source"],
        session["project"],
        plural(session["events"], "event", "events"),
        times,
    )
    console.print(f"[cyan]{text(session['session'])}[/cyan]  [dim]{text(about)}[/dim]")
    if session["title"]:
        console.print(f"  [bold]{text(session['title'])}[/bold]")
    elif session["prompt"]:
        console.print(f"  “{text(session['prompt'])}”")
    else:
        console.print("  [dim](no title and no prompt)[/dim]")


def _print_sessions(sessions: list[SessionView], args: dict[str, Any]) -> None:
    for session in sessions:
        _session_head(session, session["ended"] and f"last active {session['ended']}")
    if not sessions:
        scope = joined(
            f"since {args['since']}",
            args["until"] and f"until {args['until']}",
            args["source"] and f"source {args['source']}",
            args["project"] and f"project {args['project']}",
        )
        console.print(
            f"[dim]no sessions active {text(scope)}; a wider --since (4w, 2025-01-01) looks further back[/dim]"
        )
        return
    if len(sessions) == args["limit"] and args["limit"] < MOST:
        console.print(
            f"[dim]the {len(sessions):,} most recently active; --limit {MOST} shows more[/dim]"
        )
    console.print("[dim]a session's events: origin timeline --session ID[/dim]")


def _print_session(result: SessionEvents, args: dict[str, Any]) -> None:
    session, events = result["session"], result["events"]
    _session_head(session, session["started"] and f"{session['started']} → {session['ended']}")
    console.print()
    for event in events:
        about = joined(event["time"], f"{event['role']} {event['kind']}")
        console.print(f"[cyan]{text(event['id'])}[/cyan]  [dim]{text(about)}[/dim]")
        console.print(text(indented(event["text"] or "")))
    listed = len(events)
    if listed == args["limit"] and listed < session["events"]:
        more = f"; --limit {MOST} shows more" if listed < MOST else ""
        console.print(f"[dim]the first {listed:,} events{more}[/dim]")
    elif not args["include_tools"] and listed < session["events"]:
        console.print(
            f"[dim]{listed:,} of {session['events']:,} events (messages); "
            "--include-tools also lists tool calls and results[/dim]"
        )


def sources(
    item_id: str = typer.Argument(..., metavar="ID", help="An event id, or an entry id (ent_…)."),
    json: bool = typer.Option(False, "--json", help="Print the tool's JSON result."),
) -> None:
    """The original log lines behind an event or an entry: file, line and the raw line."""
    result: SourcesResult = _call("sources", {"id": item_id})
    if json:
        print_json(result)
        return
    for item in result:
        about = joined(item["time"], item["quote"] and f'quote "{item["quote"]}"')
        console.print(f"[cyan]{text(item['event_id'])}[/cyan]  [dim]{text(about)}[/dim]")
        console.print(f"  {text(_where(item))}")
        console.print(f"  [dim]mirror {text(item['mirror_file'])}[/dim]")
        console.print(
            text(indented(item["raw"] if item["raw"] is not None else "(not in the mirror)"))
        )
    if not result:
        console.print("[dim]no visible sources: every event it cites was forgotten[/dim]")


def _where(item: SourceItem) -> str:
    """Where the line is: a log's own line (file:line), or a database's row as it was read."""
    if (item["raw"] or "").startswith(ROW_LINE):
        return f"{item['original_file']} (a row as read: line {item['line']} of its row log)"
    return f"{item['original_file']}:{item['line']}"
