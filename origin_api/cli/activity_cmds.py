"""`origin activity`: events, sessions and tokens per day by agent, in the shell, at a glance.

The figures are `admin.activity`'s (kept by the store at ingest), as the admin UI's activity
page shows them: a sparkline of events per agent, totals, the busiest projects and sessions.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, TypedDict

import typer

from .. import admin
from ..contract.timeargs import render
from ..runtime import Origin
from .output import console, edge, print_json, text

if TYPE_CHECKING:
    from ..admin import Activity, Figures

#: A sparkline's steps, lowest first; a day with nothing is a space.
BLOCKS = "▁▂▃▄▅▆▇█"
#: At most this many columns in a sparkline: longer windows add up days per column.
SPARK_COLUMNS = 90


class FiguresJson(TypedDict):
    events: int
    sessions: int
    tokens_in: int
    tokens_cached: int
    tokens_out: int


class ActivityJson(TypedDict):
    """`origin activity --json`: the window, its totals, each agent's figures with its events
    per day (oldest first), the busiest projects and sessions."""

    first_day: str
    last_day: str
    days: int
    source: str | None
    project: str | None
    totals: FiguresJson
    by_source: dict[str, FiguresJson]
    events_per_day: dict[str, list[int]]
    tokens_per_day: dict[str, list[int]]
    projects: list[dict[str, Any]]
    sessions: list[dict[str, Any]]


def register(app: typer.Typer) -> None:
    app.command()(activity)


def columns(values: list[int], width: int = SPARK_COLUMNS) -> list[int]:
    """Days added up into at most `width` columns (a year: five days a column)."""
    step = math.ceil(len(values) / width) if values else 1
    return [sum(values[i : i + step]) for i in range(0, len(values), step)]


def sparkline(values: list[int], top: int) -> str:
    """Values as blocks scaled to `top` (the largest of every row shown, so rows compare)."""
    top = max(top, 1)
    return "".join(
        " " if v <= 0 else BLOCKS[min(len(BLOCKS) - 1, (v * len(BLOCKS) - 1) // top)]
        for v in values
    )


def _figures(found: Figures) -> FiguresJson:
    return {
        "events": found.events,
        "sessions": found.sessions,
        "tokens_in": found.tokens_in,
        "tokens_cached": found.tokens_cached,
        "tokens_out": found.tokens_out,
    }


def as_json(found: Activity) -> ActivityJson:
    day_label = admin.day_label
    return {
        "first_day": day_label(found.first_day),
        "last_day": day_label(found.first_day + found.days - 1),
        "days": found.days,
        "source": found.source,
        "project": found.project,
        "totals": _figures(found.totals),
        "by_source": {s: _figures(f) for s, f in found.by_source.items()},
        "events_per_day": {s: [f.events for f in r] for s, r in found.per_day.items()},
        "tokens_per_day": {
            s: [f.tokens_in + f.tokens_out for f in r] for s, r in found.per_day.items()
        },
        "projects": [{"project": p, **asdict(f)} for p, f in found.projects],
        "sessions": [{**asdict(s), "last": render(s.last)} for s in found.sessions],
    }


def activity(
    days: int = typer.Option(90, "--days", help="How many days back, today included (UTC)."),
    source: str = typer.Option("", "--source", help="Only this agent's figures."),
    project: str = typer.Option("", "--project", help="Only this project's figures."),
    json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
) -> None:
    """Events, sessions and tokens per day by agent, with the busiest projects and sessions."""
    with edge(), Origin.open(existing=True) as origin:
        found = admin.activity(origin, days, source=source, project=project)
        if json:
            print_json(as_json(found))
            return
        _show(found)


def _show(found: Activity) -> None:
    shown = as_json(found)
    where = "".join(
        [
            f", {text(found.source)} only" if found.source else "",
            f", in {text(found.project)}" if found.project else "",
        ]
    )
    console.print(f"[bold]Activity[/bold] {shown['first_day']} to {shown['last_day']} (UTC){where}")
    t = found.totals
    console.print(
        f"  {t.events:,} events, {t.sessions:,} sessions started, "
        f"{t.tokens_in:,} tokens in ({t.tokens_cached:,} cached), {t.tokens_out:,} out"
    )
    per_column = {s: columns(v) for s, v in shown["events_per_day"].items()}
    top = max((max(v) for v in per_column.values() if v), default=0)
    for source, values in sorted(per_column.items()):
        console.print(
            f"  [cyan]{text(source):12}[/cyan] {sparkline(values, top)} {sum(values):>9,}",
            overflow="ignore",
            crop=False,
        )
    if found.projects:
        console.print("[bold]Busiest projects[/bold]")
        for name, f in found.projects:
            label = text(name or "(no project)")[:40]
            console.print(
                f"  [magenta]{label:40}[/magenta] {f.events:>9,} events {f.sessions:>5,} sessions"
            )
    if found.sessions:
        console.print("[bold]Busiest sessions[/bold]")
        for s in found.sessions:
            title = text((s.title or s.session).replace("\n", " ")[:50])
            console.print(f"  {s.events:>7,} events  {text(s.source)} {text(s.session)}  {title}")
