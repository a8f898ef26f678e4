"""Forget and restore: the forget form, the forgets (tombstones) and what each hid, restore.

`POST /ui/forget` (fields `id`, `reason`, `_csrf`) forgets an entry or an event through the
`forget` tool as `user@<device or hub>`; any page may carry a form posting there (the entry
view does, and an event's raw line page can), or link to `GET /ui/forget?id=…`, which asks
first. A reason is required, as the tool requires one: a blank one is refused here with a
sentence rather than the tool's length error. Restoring is `admin.restore`, as
`origin restore` does: there is no tool for it, by the contract's design.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from litestar import Request, Response, get, post
from litestar.exceptions import NotFoundException
from litestar.params import FromPath, URLEncodedBody
from litestar.response import Redirect

from ... import admin
from ...errors import OriginError
from ...service import Caller
from ...service.shapes import ForgetResult, ReachItem
from ...service.writing import forget_reach
from ..errors import STATUS
from ..guard import log_write, session_of, ui_of
from ..render import render
from .forgets_read import MAX_IDS, forget_page, tombstone

AnyRequest = Request[Any, Any, Any]
Form = URLEncodedBody[dict[str, str]]
NO_REASON = (
    "A forget needs a reason: say why this should be forgotten (it is kept with the record, "
    "for whoever restores it)."
)


def counted(n: int, what: str) -> str:
    return f"{n:,} {what}" + ("" if n == 1 else "s")


def tombstone_url(tombstone_id: str) -> str:
    return "/ui/forgets/" + quote(tombstone_id, safe="")


def _flash(request: AnyRequest, message: str, level: str = "info") -> None:
    session = session_of(request)
    if session is not None:
        session.flash(message, level)


def _forget_form(
    request: AnyRequest, item_id: str, *, reason: str = "", status: int = 200, error: str = ""
) -> Response[str]:
    """The form, with what it would forget shown as `get` shows it (None once it is gone), and
    everything the forget would hide (`forget_reach`, the rule the forget itself follows)."""
    item = None
    reach: list[ReachItem] = []
    if item_id:
        try:
            item = ui_of(request).read("get", id=item_id)
            reach = forget_reach(ui_of(request).origin, item_id)
        except OriginError as failed:
            error = error or failed.message
            status = status if status != 200 else STATUS.get(failed.category, 400)
    return render(
        request,
        "forget.html",
        status=status,
        item_id=item_id,
        item=item,
        reach=reach,
        reach_entries=sum(1 for r in reach if r["kind"] == "entry"),
        reach_events=sum(1 for r in reach if r["kind"] == "event"),
        counted=counted,
        reason=reason,
        error=error,
        is_entry=item_id.startswith("ent_"),
    )


@get("/forget", sync_to_thread=True)
def forget_form(request: AnyRequest) -> Response[str]:
    """`/ui/forget?id=<entry or event id>`: what would be forgotten, and the reason to give."""
    return _forget_form(request, str(request.query_params.get("id") or "").strip())


@post("/forget", sync_to_thread=True)
def forget(request: AnyRequest, data: Form) -> Response[Any]:
    ui = ui_of(request)
    item_id = (data.get("id") or "").strip()
    reason = (data.get("reason") or "").strip()
    if not item_id:
        return _forget_form(request, "", status=400, error="Which entry or event? Give its id.")
    if not reason:
        return _forget_form(request, item_id, status=400, error=NO_REASON)
    try:
        out: ForgetResult = ui.call(
            "forget", {"id": item_id, "reason": reason}, Caller("user", ui.device)
        )
    except OriginError as failed:
        return _forget_form(
            request,
            item_id,
            reason=reason,
            status=STATUS.get(failed.category, 400),
            error=failed.message,
        )
    found = out["tombstone"]
    if found is None:
        _flash(request, f"{item_id} was forgotten already: nothing changed.")
        return Redirect("/ui/forgets", status_code=303)
    entries, events = len(out["forgotten_entries"]), out["excluded_events"]
    log_write(
        request, "forget", f"id={item_id} tombstone={found} entries={entries} events={events}"
    )
    _flash(
        request,
        f"Forgotten: {counted(entries, 'entry version')} and {counted(events, 'event')} are "
        f"hidden from every query "
        f"({found}). Restore it here if that was a mistake.",
    )
    return Redirect(tombstone_url(found), status_code=303)


@get("/forgets", sync_to_thread=True)
def forgets(request: AnyRequest) -> Response[str]:
    """`/ui/forgets?page=N`: every forget, newest first, restored or in force."""
    page = str(request.query_params.get("page") or "")
    found = forget_page(
        ui_of(request).origin, int(page) if page.isascii() and page.isdigit() else 1
    )
    return render(request, "forgets.html", found=found, tombstone_url=tombstone_url)


@get("/forgets/{tombstone_id:str}", sync_to_thread=True)
def forgotten(request: AnyRequest, tombstone_id: FromPath[str]) -> Response[str]:
    found = tombstone(ui_of(request).origin, tombstone_id)
    if found is None:
        raise NotFoundException(f"Unknown tombstone {tombstone_id}.")
    return render(
        request,
        "forgets_tombstone.html",
        tmb=found,
        max_ids=MAX_IDS,
        tombstone_url=tombstone_url,
    )


@post("/forgets/{tombstone_id:str}/restore", sync_to_thread=True)
def restore(request: AnyRequest, tombstone_id: FromPath[str]) -> Redirect:
    """Undo a forget: what it hid is visible and citable again, and search finds it (the
    index catches up in `admin.restore`), unless another forget in force hides it too."""
    origin = ui_of(request).origin
    before = tombstone(origin, tombstone_id)
    result = admin.restore(origin, tombstone_id)
    if before is not None and before["restored"]:
        _flash(request, f"{tombstone_id} was restored already: nothing changed.")
        return Redirect(tombstone_url(tombstone_id), status_code=303)
    entries, events = len(result["restored_entries"]), result["restored_events"]
    log_write(request, "restore", f"tombstone={tombstone_id} entries={entries} events={events}")
    still = "" if entries or events else " (another forget in force still hides them)"
    _flash(
        request,
        f"Restored: {counted(entries, 'entry version')} and {counted(events, 'event')} are "
        f"visible again{still}.",
    )
    return Redirect(tombstone_url(tombstone_id), status_code=303)


ROUTES = [forget_form, forget, forgets, forgotten, restore]
