"""Recording: ephemeral mode from the browser, as `origin pause [--for]` and `origin resume
[--backfill]` do it (`service.recording`): the switch every process of this home reads."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.params import URLEncodedBody
from litestar.response import Redirect

from ...errors import OriginError
from ...service import pause as recording
from ..guard import log_write, session_of, ui_of
from ..render import render

AnyRequest = Request[Any, Any, Any]
Form = URLEncodedBody[dict[str, str]]
PAGE = "/ui/recording"


@get("/recording", sync_to_thread=True)
def page(request: AnyRequest) -> Response[str]:
    origin = ui_of(request).origin
    return render(
        request,
        "recording.html",
        paused=recording.shown(recording.in_force(origin)),
    )


@post("/recording/pause", sync_to_thread=True)
def pause(request: AnyRequest, data: Form) -> Redirect:
    session = session_of(request)
    given = (data.get("for") or "").strip()
    reason = (data.get("reason") or "").strip() or None
    try:
        for_ms = recording.duration_ms(given) if given else None
        found = recording.pause(ui_of(request).origin, for_ms=for_ms, reason=reason)
    except OriginError as refused:
        if session is not None:
            session.flash(refused.message, "error")
        return Redirect(PAGE, status_code=303)
    shown = recording.shown(found)
    until_at = shown["until"] if shown is not None else None
    log_write(request, "pause", f"until={until_at} reason={reason or '-'}")
    if session is not None:
        until = f" until {until_at}" if until_at else " until resumed"
        session.flash(f"Recording is paused{until}: nothing new is recorded on this device.")
    return Redirect(PAGE, status_code=303)


@post("/recording/resume", sync_to_thread=True)
def resume(request: AnyRequest, data: Form) -> Redirect:
    session = session_of(request)
    backfill = data.get("backfill") == "1"
    try:
        ended = recording.resume(ui_of(request).origin, backfill=backfill)
    except OriginError as refused:  # a database kept busy: the pause stays rather than record
        if session is not None:
            session.flash(refused.message, "error")
        return Redirect(PAGE, status_code=303)
    log_write(request, "resume", f"backfill={'yes' if backfill else 'no'}")
    if session is not None:
        if ended is None:
            session.flash("Recording was not paused.")
        elif backfill:
            session.flash("Recording resumed; what was written during the pause is recorded.")
        else:
            session.flash(
                f"Recording resumed; what was written during the pause is left out "
                f"({ended.lines:,} log lines, {ended.rows:,} database rows)."
            )
    return Redirect(PAGE, status_code=303)


ROUTES = [page, pause, resume]
