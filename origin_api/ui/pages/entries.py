"""Entries: the list, one entry with its sources and history, correct and remember.

Every write goes through the tools as `user@<device or hub>`, the author the contract gives the
admin UI, and is logged with it. A refused write shows the form again, filled with what was
typed, and the tool's own message; an accepted one redirects to the entry (POST, redirect,
GET), so reloading never writes twice.
"""

from __future__ import annotations

from typing import Any, TypedDict

from litestar import Request, Response, get, post
from litestar.params import FromPath, URLEncodedBody
from litestar.response import Redirect

from origin_store.model import ENTRY_KINDS

from ...errors import OriginError
from ...service import Caller
from ...service.shapes import EntryDetail, EntryResult, EventDetail
from ..core import Ui
from ..errors import STATUS
from ..guard import log_write, session_of, ui_of
from ..render import entry_url, raw_url, render
from .entries_forms import (
    CORRECT_ROWS,
    DEFAULT_CONFIDENCE,
    NOTHING_CHANGED,
    REMEMBER_ROWS,
    changes_nothing,
    correct_args,
    draft_of,
    remember_args,
)
from .entries_read import entry_page, marked_history
from .forgets_read import hiding_tombstone

AnyRequest = Request[Any, Any, Any]
Form = URLEncodedBody[dict[str, str]]
#: How much of a cited event's text the remember form shows.
CITED_TEXT = 1_000


class CitedShown(TypedDict):
    """A source row's event as the remember form shows it."""

    id: str
    event: EventDetail | None
    text: str
    error: str


def _param(request: AnyRequest, name: str) -> str:
    return str(request.query_params.get(name) or "").strip()


def _flash(request: AnyRequest, message: str, level: str = "info") -> None:
    session = session_of(request)
    if session is not None:
        session.flash(message, level)


@get("/entries", sync_to_thread=True)
def entries(request: AnyRequest) -> Response[str]:
    """`/ui/entries?kind=…&project=…&page=N`: current entries, newest first."""
    kind, project, page = (
        _param(request, "kind"),
        _param(request, "project"),
        _param(request, "page"),
    )
    found = entry_page(
        ui_of(request).origin,
        kind=kind or None,
        project=project or None,
        page=int(page) if page.isascii() and page.isdigit() else 1,
    )
    return render(
        request, "entries.html", found=found, kinds=ENTRY_KINDS, kind=kind, project=project
    )


def _entry(
    request: AnyRequest,
    entry_id: str,
    *,
    status: int = 200,
    error: str = "",
    draft: dict[str, str] | None = None,
) -> Response[Any]:
    """The entry view, with a refused correction's message and draft when there is one."""
    ui = ui_of(request)
    if not entry_id.startswith("ent_"):
        return Redirect(raw_url(entry_id), status_code=303)  # an event: its own page
    try:
        found: EntryDetail = ui.read("get", id=entry_id)
    except OriginError as failed:
        tombstone = (
            hiding_tombstone(ui.origin, entry_id) if failed.category == "not_found" else None
        )
        if tombstone is None:
            raise
        return render(
            request, "entry_forgotten.html", status=404, entry_id=entry_id, tombstone=tombstone
        )
    return render(
        request,
        "entry.html",
        status=status,
        found=found,
        entry=found["entry"],
        history=marked_history(found["history"]),
        kinds=ENTRY_KINDS,
        error=error,
        draft=draft,
        rows=CORRECT_ROWS,
    )


@get("/entries/{entry_id:str}", sync_to_thread=True)
def entry(request: AnyRequest, entry_id: FromPath[str]) -> Response[Any]:
    return _entry(request, entry_id)


@post("/entries/{entry_id:str}/correct", sync_to_thread=True)
def correct(request: AnyRequest, entry_id: FromPath[str], data: Form) -> Response[Any]:
    """A new version of the entry's current version; another version gets the tool's message
    (which names the current one), shown on that version's page with what was typed."""
    ui = ui_of(request)
    args = correct_args(entry_id, data)
    if entry_id.startswith("ent_") and _unchanged(ui, entry_id, args):
        return _entry(request, entry_id, status=400, error=NOTHING_CHANGED, draft=draft_of(data))
    try:
        out: EntryResult = ui.call("correct", args, Caller("user", ui.device))
    except OriginError as failed:
        if not entry_id.startswith("ent_"):
            raise  # an event's id: the tool's message, on the error page
        return _entry(
            request,
            entry_id,
            status=STATUS.get(failed.category, 400),
            error=failed.message,
            draft=draft_of(data),
        )
    new = out["entry"]
    log_write(request, "correct", f"id={entry_id} new={new['id']}")
    _flash(request, f"Corrected: {new['id']} is the current version, by {new['author']}.")
    return Redirect(entry_url(new["id"]), status_code=303)


def _unchanged(ui: Ui, entry_id: str, args: dict[str, Any]) -> bool:
    """Whether a correction would write what the version already says (an unknown or
    forgotten id is left to the tool, which names it)."""
    try:
        found: EntryDetail = ui.read("get", id=entry_id)
    except OriginError:
        return False
    return changes_nothing(args, found["entry"])


def _cited(ui: Ui, draft: dict[str, str]) -> dict[int, CitedShown]:
    """The events the form's rows name, as `get` gives them, so a person sees what they cite
    (the text, cut, and the full id); an id `get` does not know gets its message instead."""
    shown: dict[int, CitedShown] = {}
    for n in range(1, REMEMBER_ROWS + 1):
        event_id = draft.get(f"event_{n}", "").strip()
        if not event_id:
            continue
        try:
            event: EventDetail = ui.read("get", id=event_id)
        except OriginError as failed:
            shown[n] = {"id": event_id, "event": None, "text": "", "error": failed.message}
            continue
        text = event["text"]
        cut = text if len(text) <= CITED_TEXT else text[: CITED_TEXT - 1] + "…"
        shown[n] = {"id": event_id, "event": event, "text": cut, "error": ""}
    return shown


def _remember_form(
    request: AnyRequest, draft: dict[str, str], *, status: int = 200, error: str = ""
) -> Response[str]:
    return render(
        request,
        "remember.html",
        status=status,
        draft=draft,
        error=error,
        kinds=ENTRY_KINDS,
        rows=REMEMBER_ROWS,
        cited=_cited(ui_of(request), draft),
    )


@get("/remember", sync_to_thread=True)
def remember_form(request: AnyRequest) -> Response[str]:
    """`/ui/remember?event=<event id>&quote=…`: the form, its first source filled in (an event's
    page links here)."""
    draft = {"confidence": DEFAULT_CONFIDENCE, "kind": ENTRY_KINDS[0]}
    if event_id := _param(request, "event"):
        draft["event_1"] = event_id
    if quote := _param(request, "quote"):
        draft["quote_1"] = quote
    return _remember_form(request, draft)


@post("/remember", sync_to_thread=True)
def remember(request: AnyRequest, data: Form) -> Response[Any]:
    ui = ui_of(request)
    args = remember_args(data)
    try:
        out: EntryResult = ui.call("remember", args, Caller("user", ui.device))
    except OriginError as failed:
        return _remember_form(
            request, draft_of(data), status=STATUS.get(failed.category, 400), error=failed.message
        )
    new = out["entry"]
    log_write(
        request, "remember", f"id={new['id']} kind={new['kind']} sources={len(args['sources'])}"
    )
    _flash(request, f"Remembered as {new['author']}.")
    return Redirect(entry_url(new["id"]), status_code=303)


ROUTES = [entries, entry, correct, remember_form, remember]
