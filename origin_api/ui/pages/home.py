"""The home page, `/ui/`: where a person lands, with something on it.

The search box, the latest conversations, the entries written last, and what the archive
holds by agent; the demo archive says so at the top. Its figures come from one pass over the
session records (`home_read`) and the `search` tool's own listing of the newest entries, so it
stays within the UI's budget at a million events.
"""

from __future__ import annotations

import time
from typing import Any

from litestar import Request, Response, get

from ...errors import OriginError
from ...service.shapes import EntryView
from ..guard import ui_of
from ..render import render
from .home_read import overview

AnyRequest = Request[Any, Any, Any]
#: Entries the home page lists, newest first.
ENTRIES = 8


@get("/", sync_to_thread=True)
def home(request: AnyRequest) -> Response[str]:
    ui = ui_of(request)
    started = time.perf_counter()
    found = overview(ui.origin)
    entries: list[EntryView] = []
    error = ""
    try:
        entries = ui.read("search", scope="entries", limit=ENTRIES)["entries"]
    except OriginError as failed:
        error = failed.message
    ms = (time.perf_counter() - started) * 1000
    return render(
        request,
        "home.html",
        path="/ui/",  # the router names it `/ui`; the navigation's link is `/ui/`
        headers={"server-timing": f"home;dur={ms:.1f}"},
        found=found,
        entries=entries,
        error=error,
    )


ROUTES = [home]
