"""Commands that read and write the memory: search, get, remember, correct, forget, restore."""

from __future__ import annotations

import re

import typer

from origin_store.model import ENTRY_KINDS

from .. import admin
from ..runtime import Origin
from ..service import Caller, call
from .output import console, edge, print_json

#: The entry kinds as help text says them: "memory, knowledge or cognition".
KINDS = (
    f"{', '.join(ENTRY_KINDS[:-1])} or {ENTRY_KINDS[-1]}"
    if len(ENTRY_KINDS) > 1
    else ENTRY_KINDS[0]
)


def register(app: typer.Typer) -> None:
    app.command()(search)
    app.command()(get)
    app.command()(remember)
    app.command()(correct)
    app.command()(forget)
    app.command()(restore)
    app.command()(reindex)


def _caller(origin: Origin) -> Caller:
    return Caller("user", origin.settings.device)


def _highlight(snippet: str) -> str:
    escaped = snippet.replace("[", "\\[")
    return re.sub(r"\\\[([^\]]*)\]", r"[bold yellow]\1[/bold yellow]", escaped)


def search(
    query: str = typer.Argument(
        ..., help="Words or phrases; every word must occur, in any language."
    ),
    scope: str = typer.Option("all", help="all, entries or events."),
    kind: str | None = typer.Option(None, help=f"Entries of this kind only: {KINDS}."),
    since: str | None = typer.Option(None, help="Since: 30m, 24h, 7d, 2w, a date or ISO 8601."),
    until: str | None = typer.Option(None, help="Until: 30m, 24h, 7d, 2w, a date or ISO 8601."),
    source: str | None = typer.Option(
        None, help="Events of this source only (claude-code, codex, …)."
    ),
    project: str | None = typer.Option(None, help="Entries and events of this project only."),
    include_tools: bool = typer.Option(
        False, "--include-tools", help="Also search tool calls and results."
    ),
    limit: int = typer.Option(20, help="At most this many entries, and this many events (1–100)."),
    json: bool = typer.Option(False, "--json", help="Print the tool's JSON result."),
) -> None:
    """Search entries and events, best match first."""
    args = {
        "query": query,
        "scope": scope,
        "kind": kind,
        "since": since,
        "until": until,
        "source": source,
        "project": project,
        "include_tools": include_tools,
        "limit": limit,
    }
    with edge(), Origin.open() as origin:
        result = call(
            origin, "search", {k: v for k, v in args.items() if v is not None}, _caller(origin)
        )
    if json:
        print_json(result)
        return
    for entry in result["entries"]:
        console.print(
            f"[bold green]{entry['id']}[/bold green]"
            f" [dim]{entry['kind']} · {entry['created']} · {entry['author']}[/dim]"
        )
        console.print(f"  {entry['text']}")
    for event in result["events"]:
        console.print(
            f"[cyan]{event['id']}[/cyan] [dim]{event['time']} · {event['source']} · {event['project']} · "
            f"{event['role']} {event['kind']}[/dim]"
        )
        console.print("  " + _highlight(event["snippet"] or event["text"]))
    if not result["entries"] and not result["events"]:
        console.print("[dim]nothing found[/dim]")


def get(
    item_id: str = typer.Argument(..., metavar="ID", help="An entry id (ent_…) or an event id."),
) -> None:
    """An entry with its sources and history, or an event with its full text (JSON)."""
    with edge(), Origin.open() as origin:
        print_json(call(origin, "get", {"id": item_id}, _caller(origin)))


def remember(
    text: str = typer.Argument(..., help="One self-contained statement."),
    kind: str = typer.Option(ENTRY_KINDS[0], help=f"{KINDS}."),
    confidence: float = typer.Option(0.9, help="How sure, from 0 to 1."),
    event: list[str] = typer.Option([], "--event", help="An event id to cite (repeatable)."),
    quote: list[str] = typer.Option([], "--quote", help="An exact quote to cite (repeatable)."),
    project: str | None = typer.Option(None, help="The project it belongs to."),
) -> None:
    """Save an entry, authored user@<device>, citing events by id or by quote."""
    sources = [{"event_id": e} for e in event] + [{"quote": q} for q in quote]
    args = {"kind": kind, "text": text, "confidence": confidence, "sources": sources}
    if project:
        args["project"] = project
    with edge(), Origin.open() as origin:
        print_json(call(origin, "remember", args, _caller(origin)))


def correct(
    entry_id: str = typer.Argument(..., metavar="ID", help="The entry's current version."),
    text: str = typer.Argument(..., help="The corrected statement."),
    kind: str | None = typer.Option(None, help="A new kind."),
    confidence: float | None = typer.Option(None, help="A new confidence."),
    event: list[str] = typer.Option([], "--event", help="Another event id to cite."),
    quote: list[str] = typer.Option([], "--quote", help="Another quote to cite."),
) -> None:
    """Replace an entry with a corrected version; the old one stays in its history."""
    args: dict[str, object] = {"id": entry_id, "text": text}
    if kind:
        args["kind"] = kind
    if confidence is not None:
        args["confidence"] = confidence
    sources = [{"event_id": e} for e in event] + [{"quote": q} for q in quote]
    if sources:
        args["sources"] = sources
    with edge(), Origin.open() as origin:
        print_json(call(origin, "correct", args, _caller(origin)))


def forget(
    item_id: str = typer.Argument(..., metavar="ID", help="An entry id or an event id."),
    reason: str = typer.Option(
        ..., "--reason", help="Why it should be forgotten (kept with the record)."
    ),
) -> None:
    """Hide an entry and the events it cites, or an event and the entries citing it."""
    with edge(), Origin.open() as origin:
        print_json(call(origin, "forget", {"id": item_id, "reason": reason}, _caller(origin)))


def restore(tombstone: str = typer.Argument(..., help="The tmb_… id a forget returned.")) -> None:
    """Undo a forget: what it hid becomes visible and citable again."""
    with edge(), Origin.open() as origin:
        print_json(admin.restore(origin, tombstone))


def reindex() -> None:
    """Rebuild the search index from the store (the index is derived; nothing is lost)."""
    with edge(), Origin.open() as origin:
        result = admin.reindex(origin)
        console.print(f"indexed {result.docs:,} documents in {result.seconds:.1f} s")
