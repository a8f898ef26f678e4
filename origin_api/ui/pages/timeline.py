"""The timeline, a session's events page by page, and the raw line behind an event.

The timeline is the `timeline` tool's answer; a session's page is read a page at a time
(`ui.reads`), since the tool lists only a session's first events; the raw line is the
`sources` tool's answer, beside the event as `get` gives it and the entries citing it.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get

from origin_store.parsers.agents import AGENTS

from ...errors import OriginError
from ...service.shapes import EventDetail, SessionsResult, SessionView, SourcesResult
from ..guard import ui_of
from ..reads import PAGE_SIZE, cited_by
from ..render import render
from .session_read import session_context, session_page_at

AnyRequest = Request[Any, Any, Any]
#: The timeline's ranges: (value of `since`, label). "all" is every session there is.
RANGES = (("24h", "day"), ("7d", "week"), ("30d", "month"), ("365d", "year"), ("all", "all time"))
DEFAULT_RANGE = "30d"
#: The most sessions one timeline page lists (the tool's own maximum is 500).
TIMELINE_LIMIT = 200
#: Event kinds shown folded (a click away) in a session: what the agent's tools did.
FOLDED = frozenset({"tool_use", "tool_result", "meta", "system"})


def _param(request: AnyRequest, name: str) -> str:
    return str(request.query_params.get(name) or "").strip()


@get("/timeline", sync_to_thread=True)
def timeline(request: AnyRequest) -> Response[str]:
    since = _param(request, "since") or DEFAULT_RANGE
    args: dict[str, Any] = {
        "since": "1970-01-01" if since == "all" else since,
        "limit": TIMELINE_LIMIT,
    }
    for name in ("source", "project", "until"):
        if value := _param(request, name):
            args[name] = value
    error = ""
    sessions: list[SessionView] = []
    try:
        listed: SessionsResult = ui_of(request).read("timeline", **args)
        sessions = listed["sessions"]
    except OriginError as failed:
        error = failed.message
    return render(
        request,
        "timeline.html",
        status=400 if error else 200,
        sessions=sessions,
        error=error,
        since=since,
        ranges=RANGES,
        sources=AGENTS,
        source=args.get("source", ""),
        project=args.get("project", ""),
        until=args.get("until", ""),
        projects=sorted({s["project"] for s in sessions if s.get("project")}),
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
        folded=FOLDED,
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
