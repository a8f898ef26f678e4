"""Activity at a glance: events, sessions and tokens per day by agent, the busiest projects and
sessions, for the last 30, 90 or 365 days.

The figures are `admin.activity`'s, kept by the store at ingest (`origin_store.activity`): the
page reads a few hundred small records, never the events, so it answers in milliseconds at a
million events. Its charts are SVG drawn here (`activity_chart`).
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get
from markupsafe import Markup

from ... import admin
from ...admin import day_label
from ...contract.timeargs import render as iso
from ...errors import OriginError
from ..guard import ui_of
from ..render import render
from .activity_chart import SERIES_CLASSES, Series, figures_table, stacked

AnyRequest = Request[Any, Any, Any]
#: The windows offered: (days, label).
RANGES = ((30, "30 days"), (90, "90 days"), (365, "year"))
DEFAULT_DAYS = 90


def _days(request: AnyRequest) -> int:
    raw = str(request.query_params.get("days") or "").strip()
    return int(raw) if raw.isdigit() and 1 <= int(raw) <= admin.ACTIVITY_MAX_DAYS else DEFAULT_DAYS


def _charts(found: admin.Activity) -> list[tuple[str, Markup]]:
    """The three charts, stacked by agent: events, sessions started, tokens (in and out)."""
    sources = sorted(found.per_day)
    rows = [found.per_day[s] for s in sources]
    first = found.first_day
    return [
        (
            "Events per day",
            stacked(
                "act-events",
                "Events per day by agent",
                "events",
                first,
                [Series(s, [f.events for f in r]) for s, r in zip(sources, rows, strict=True)],
            ),
        ),
        (
            "Sessions started per day",
            stacked(
                "act-sessions",
                "Sessions started per day by agent",
                "sessions",
                first,
                [Series(s, [f.sessions for f in r]) for s, r in zip(sources, rows, strict=True)],
            ),
        ),
        (
            "Tokens per day",
            stacked(
                "act-tokens",
                "Tokens (in and out) per day by agent",
                "tokens",
                first,
                [
                    Series(s, [f.tokens_in + f.tokens_out for f in r])
                    for s, r in zip(sources, rows, strict=True)
                ],
            ),
        ),
    ]


#: What was drawn for the answers `admin.activity` keeps (the same object until the store's
#: feed moves): drawn once, not at every request.
_DRAWN: dict[int, tuple[admin.Activity, list[tuple[str, Markup]], Markup]] = {}
DRAWN = 16


def _drawn(found: admin.Activity) -> tuple[list[tuple[str, Markup]], Markup]:
    kept = _DRAWN.get(id(found))
    if kept is not None and kept[0] is found:
        return kept[1], kept[2]
    charts, table = _charts(found), figures_table(found.first_day, found.per_day)
    if len(_DRAWN) >= DRAWN:
        _DRAWN.pop(next(iter(_DRAWN)))
    _DRAWN[id(found)] = (found, charts, table)
    return charts, table


@get("/activity", sync_to_thread=True)
def activity(request: AnyRequest) -> Response[str]:
    days = _days(request)
    source = str(request.query_params.get("source") or "").strip()
    project = str(request.query_params.get("project") or "").strip()
    error = ""
    try:
        found = admin.activity(ui_of(request).origin, days, source=source, project=project)
    except OriginError as failed:
        error = failed.message
        found = admin.activity(ui_of(request).origin, days)
    charts, table = _drawn(found)
    return render(
        request,
        "activity.html",
        status=400 if error else 200,
        error=error,
        found=found,
        days=days,
        ranges=RANGES,
        source=source,
        project=project,
        charts=charts,
        legend=[(s, f"act-s{i % SERIES_CLASSES}") for i, s in enumerate(sorted(found.per_day))],
        table=table,
        first=day_label(found.first_day),
        last=day_label(found.first_day + found.days - 1),
        iso=iso,
    )


ROUTES = [activity]
