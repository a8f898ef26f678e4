"""Commands that read and write the memory: search, get, remember, correct, forget, restore.

Each prints text for people and, with --json, the tool's own JSON result for scripts."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

import typer

from origin_store.model import ENTRY_KINDS

from .. import admin
from ..errors import OriginError
from ..lingering.lean import (
    JSON,
    JSON_HELP,
    KINDS,
    SEARCH_OPTIONS,
    TIME_HELP,
    answer,
    entry_lines,
    get_lines,
    plural,
)
from ..runtime import Origin
from ..service import Caller, device_call
from ..service.shapes import ForgetResult, ReachItem, RestoreResult
from ..service.writing import forget_reach
from .output import console, edge, print_json


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


#: The tools that only read: they open an archive that is there and create none.
READS = ("search", "get")


def _run(tool: str, args: dict[str, Any]) -> Any:
    """One tool called as the user of this device; arguments left out are None."""
    with edge(), Origin.open(existing=tool in READS) as origin:
        given = {k: v for k, v in args.items() if v is not None}
        result, note = device_call(origin, tool, given, _caller(origin))
    if note:
        typer.echo(note, err=True)
    return result


def _answer(result: Any, json: bool, lines: Callable[[Any], list[str]]) -> None:
    """The tool's JSON, or plain text for people: never wrapped, so ids and commands stay on
    one line wherever it is printed."""
    if json:
        print_json(result)
    else:
        typer.echo("\n".join(lines(result)))


def search(query: list[str], **given: Any) -> None:
    """Search entries and events, best match first."""
    args = {o.key: given[o.key] for o in SEARCH_OPTIONS if o.key != JSON}
    args = {"query": " ".join(query), **{k: v for k, v in args.items() if v is not None}}
    with edge(), Origin.open(existing=True) as origin:
        out, note = answer(origin, ("search", args, bool(given[JSON])))
    typer.echo(note, err=True, nl=False)
    typer.echo(out, nl=False)


def _search_parameters() -> inspect.Signature:
    """`search`'s parameters as typer reads them, from the table the lean parser reads."""
    query = typer.Argument(
        ...,
        metavar="QUERY...",
        help='Words or "phrases", quoted or not; every word must occur, in any language.',
    )
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    parameters = [inspect.Parameter("query", kind, default=query, annotation=list[str])]
    for option in SEARCH_OPTIONS:
        typed = str | None if option.default is None else type(option.default)
        default = typer.Option(option.default, option.flag, help=option.help)
        parameters.append(inspect.Parameter(option.key, kind, default=default, annotation=typed))
    return inspect.Signature(parameters, return_annotation=None)


search.__signature__ = _search_parameters()  # type: ignore[attr-defined]


def get(
    item_id: str = typer.Argument(..., metavar="ID", help="An entry id (ent_…) or an event id."),
    json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """An entry with its sources and history, or an event with its full text."""
    result = _run("get", {"id": item_id})
    _answer(result, json, get_lines)


def remember(
    statement: str = typer.Argument(..., metavar="TEXT", help="One self-contained statement."),
    kind: str = typer.Option(ENTRY_KINDS[0], help=f"{KINDS}."),
    confidence: float = typer.Option(0.9, help="How sure, from 0 to 1."),
    event: list[str] = typer.Option([], "--event", help="An event id to cite (repeatable)."),
    quote: list[str] = typer.Option([], "--quote", help="An exact quote to cite (repeatable)."),
    project: str | None = typer.Option(None, help="The project it belongs to."),
    valid_from: str | None = typer.Option(None, help=f"When it starts to hold: {TIME_HELP}"),
    valid_to: str | None = typer.Option(None, help=f"When it stops holding: {TIME_HELP}"),
    json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Save an entry, authored user@<device>, citing events by id or by quote."""
    args = {
        "kind": kind,
        "text": statement,
        "confidence": confidence,
        "sources": [{"event_id": e} for e in event] + [{"quote": q} for q in quote],
        "project": project,
        "valid_from": valid_from,
        "valid_to": valid_to,
    }
    result = _run("remember", args)
    _answer(result, json, lambda r: ["remembered:", *entry_lines(r["entry"])])


def correct(
    entry_id: str = typer.Argument(..., metavar="ID", help="The entry's current version."),
    statement: str = typer.Argument(..., metavar="TEXT", help="The corrected statement."),
    kind: str | None = typer.Option(None, help="A new kind."),
    confidence: float | None = typer.Option(None, help="A new confidence."),
    event: list[str] = typer.Option([], "--event", help="Another event id to cite."),
    quote: list[str] = typer.Option([], "--quote", help="Another quote to cite."),
    valid_from: str | None = typer.Option(None, help=f"A new validity start: {TIME_HELP}"),
    valid_to: str | None = typer.Option(None, help=f"A new validity end: {TIME_HELP}"),
    json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Replace an entry with a corrected version; the old one stays in its history."""
    sources = [{"event_id": e} for e in event] + [{"quote": q} for q in quote]
    args = {
        "id": entry_id,
        "text": statement,
        "kind": kind or None,
        "confidence": confidence,
        "sources": sources or None,
        "valid_from": valid_from,
        "valid_to": valid_to,
    }
    result = _run("correct", args)
    _answer(result, json, lambda r: ["corrected:", *entry_lines(r["entry"])])


def forget(
    item_id: str = typer.Argument(..., metavar="ID", help="An entry id or an event id."),
    reason: str = typer.Option(
        ..., "--reason", help="Why it should be forgotten (kept with the record)."
    ),
    yes: bool = typer.Option(
        False, "--yes", "-y", help="Forget without asking (scripts; needed off a terminal)."
    ),
    json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Hide an entry and the events it cites, or an event and the entries citing it.

    Lists what it will hide and asks first; --yes skips the question."""
    if not yes:
        _confirm_forget(item_id)
    result = _run("forget", {"id": item_id, "reason": reason})
    _answer(result, json, lambda r: forget_lines(item_id, r))


def _confirm_forget(item_id: str) -> None:
    """What the forget would hide, on stderr, and a question a person answers at a terminal;
    off a terminal, a refusal that names --yes (a script never hangs on a question). Nothing
    to hide (forgotten already) needs no question."""
    with edge(), Origin.open() as origin:
        try:
            reach: list[ReachItem] | None = forget_reach(origin, item_id)
        except OriginError as failed:
            if failed.category != "not_found" or origin.connection is None:
                raise
            reach = None  # a device's forget of what only its hub holds: the hub applies it
    if reach == []:
        return
    typer.echo("\n".join(reach_lines(item_id, reach)), err=True)
    if not sys.stdin.isatty():
        typer.echo(
            "error: origin forget asks before it hides anything; pass --yes to forget "
            "without asking.",
            err=True,
        )
        raise typer.Exit(2)
    if not typer.confirm("Forget all of this?", default=False, err=True):
        typer.echo("nothing forgotten", err=True)
        raise typer.Exit(1)


def reach_lines(target: str, reach: list[ReachItem] | None) -> list[str]:
    """What a forget will hide, one line each, as the UI's forget page lists it."""
    if reach is None:
        return [f"{target} is not in this device's archive: its hub will forget it there."]
    entries = sum(1 for r in reach if r["kind"] == "entry")
    events = len(reach) - entries
    head = f"forget {target} hides {plural(entries, 'entry', 'entries')} and "
    lines = [head + f"{plural(events, 'event', 'events')}:"]
    for item in reach:
        shown = item["text"] or "(not in this archive)"
        lines.append(f"  {item['kind']:<5}  {item['id']}  {shown}")
    return lines


def restore(
    tombstone: str = typer.Argument(..., help="The tmb_… id a forget returned."),
    json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Undo a forget: what it hid becomes visible and citable again."""
    with edge(), Origin.open() as origin:
        result = admin.restore(origin, tombstone)
    _answer(result, json, restore_lines)


def reindex() -> None:
    """Rebuild the search index from the store (the index is derived; nothing is lost)."""
    with edge(), Origin.open() as origin:
        result = admin.reindex(origin)
        console.print(f"indexed {result.docs:,} documents in {result.seconds:.1f} s")


def forget_lines(target: str, result: ForgetResult) -> list[str]:
    tombstone = result["tombstone"]
    if tombstone is None:
        return [f"{target} was already forgotten: nothing changed"]
    hidden = plural(len(result["forgotten_entries"]), "entry", "entries")
    events = plural(result["excluded_events"], "event", "events")
    lines = [f"forgot {target}: {hidden} and {events} hidden from every query ({tombstone})"]
    lines += [f"  {entry}" for entry in result["forgotten_entries"]]
    return [*lines, f"undo: origin restore {tombstone}"]


def restore_lines(result: RestoreResult) -> list[str]:
    tombstone = result["tombstone"]
    entries, count = result["restored_entries"], result["restored_events"]
    if not entries and not count:
        return [f"{tombstone} was already restored: nothing changed"]
    back = f"{plural(len(entries), 'entry', 'entries')} and {plural(count, 'event', 'events')}"
    return [f"restored {tombstone}: {back} visible again", *[f"  {entry}" for entry in entries]]
