"""The timeline, a session's events page by page, and the raw line behind an event.

The timeline is the sessions the `timeline` tool lists, read with its filters
(`timeline_read`) so that memory files stand apart and the sessions older than the window are
counted; a session's page is read a page at a time (`ui.reads`), since the tool lists only a
session's first events; the raw line is the `sources` tool's answer, beside the event as `get`
gives it and the entries citing it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from litestar import Request, Response, get

from ...errors import OriginError
from ...service.shapes import EventDetail, SourcesResult
from ..guard import ui_of
from ..reads import PAGE_SIZE, cited_by
from ..render import render
from .home_read import facets
from .session_read import session_context, session_page_at
from .timeline_read import Window, sessions_in

AnyRequest = Request[Any, Any, Any]
#: The timeline's ranges: (value of `since`, label). "all" is every session there is.
RANGES = (("24h", "day"), ("7d", "week"), ("30d", "month"), ("365d", "year"), ("all", "all time"))
DEFAULT_RANGE = "30d"
#: The most sessions one timeline page lists (the tool's own maximum is 500).
TIMELINE_LIMIT = 200


def _param(request: AnyRequest, name: str) -> str:
    return str(request.query_params.get(name) or "").strip()


def _timeline_url(current: dict[str, str], **changes: str) -> str:
    """This timeline with some filters changed (a blank value drops that filter)."""
    args = {k: v for k, v in {**current, **changes}.items() if v}
    return "/ui/timeline" + ("?" + urlencode(args) if args else "")


@get("/timeline", sync_to_thread=True)
def timeline(request: AnyRequest) -> Response[str]:
    """`/ui/timeline?since=30d|…|all&from=YYYY-MM-DD&until=YYYY-MM-DD&source=…&project=…`:
    conversations by day, memory files apart, and the older ones a click away. A `from` date
    is the window's start in place of the range."""
    since = _param(request, "since") or DEFAULT_RANGE
    current = {n: _param(request, n) for n in ("since", "from", "until", "source", "project")}
    start = current["from"] or ("1970-01-01" if since == "all" else since)
    error = ""
    found = Window()
    try:
        found = sessions_in(
            ui_of(request).origin,
            since=start,
            until=current["until"] or None,
            source=current["source"] or None,
            project=current["project"] or None,
            limit=TIMELINE_LIMIT,
        )
    except OriginError as failed:
        error = failed.message
    return render(
        request,
        "timeline.html",
        status=400 if error else 200,
        found=found,
        error=error,
        since=since,
        ranges=RANGES,
        current=current,
        listed=facets(ui_of(request).origin),
        url=lambda **changes: _timeline_url(current, **changes),
        widen=_timeline_url(current, since="all", **{"from": ""}),
        limit=TIMELINE_LIMIT,
    )


@get("/session", sync_to_thread=True)
def session(request: AnyRequest) -> Response[str]:
    """`/ui/session?source=…&id=…&page=N`; `messages=1` leaves the tools' events out; `at=<event
    id>` opens the events around that one (`start=N` steps from such a window)."""
    session_id = _param(request, "id")
    if not session_id:
        raise OriginError("Which session? /ui/session?id=<session id>&source=<source>.")
    asked = bool(_param(request, "messages"))
    found, messages = session_page_at(
        ui_of(request).origin,
        session_id,
        _param(request, "source") or None,
        page=_number(_param(request, "page")) or 1,
        start=_number(_param(request, "start")),
        at=_param(request, "at") or None,
        messages=asked,
    )
    return render(
        request,
        "session.html",
        found=found,
        messages=messages,
        widened=asked and not messages,
        page_size=PAGE_SIZE,
        context=session_context(
            ui_of(request).origin, found.session["source"], session_id, found.events
        ),
    )


def _number(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() else None


@get("/raw", sync_to_thread=True)
def raw(request: AnyRequest) -> Response[str]:
    """The original log line(s) behind an event (or an entry's cited events); for an event,
    the entries citing it, and the ways on: remember from it, forget it."""
    item_id = _param(request, "id")
    if not item_id:
        raise OriginError("Which event? /ui/raw?id=<event id>.")
    ui = ui_of(request)
    event: EventDetail | None = None if item_id.startswith("ent_") else ui.read("get", id=item_id)
    lines: SourcesResult = ui.read("sources", id=item_id)
    cited = cited_by(ui.origin, item_id) if event is not None else []
    return render(request, "raw.html", item_id=item_id, event=event, lines=lines, cited=cited)


ROUTES = [timeline, session, raw]
