"""Search, as you type: the `search` tool's answer with its snippets' matches highlighted.

The page and the fragment its script fetches while you type are one handler's two shapes, so
a search works without the script too (the form submits), and its URL can be kept and shared.
"""

from __future__ import annotations

import time
from typing import Any

from litestar import Request, Response, get

from origin_store.model import ENTRY_KINDS
from origin_store.parsers.agents import AGENTS

from ...errors import OriginError
from ...service.shapes import SearchResult
from ..guard import ui_of
from ..render import render

AnyRequest = Request[Any, Any, Any]
#: Query parameters of the page, and the `search` tool's argument each one gives.
FIELDS = {
    "q": "query",
    "scope": "scope",
    "kind": "kind",
    "source": "source",
    "project": "project",
    "since": "since",
    "until": "until",
}
SCOPES = ("all", "entries", "events")


def search_args(params: Any) -> dict[str, Any]:
    """The tool's arguments from the page's query: blank fields are left out, so the tool's own
    defaults and validation apply; `tools` is the include_tools checkbox."""
    args: dict[str, Any] = {}
    for field, arg in FIELDS.items():
        value = str(params.get(field) or "").strip()
        if value:
            args[arg] = value
    if params.get("tools"):
        args["include_tools"] = True
    limit = str(params.get("limit") or "").strip()
    if limit:
        args["limit"] = int(limit) if limit.isascii() and limit.isdigit() else limit
    return args


def _results(request: AnyRequest) -> dict[str, Any]:
    """The search's answer, or its error in the page's words; with the server time it took."""
    args = search_args(request.query_params)
    started = time.perf_counter()
    result: SearchResult = {"entries": [], "events": []}
    error = ""
    if args.get("query") or args.get("scope") in ("entries", "events"):
        try:
            result = ui_of(request).read("search", **args)
        except OriginError as failed:
            error = failed.message
    ms = (time.perf_counter() - started) * 1000
    return {
        "args": args,
        "result": result,
        "error": error,
        "ms": ms,
        "query": args.get("query", ""),
        "searched": bool(args.get("query") or args.get("scope") in ("entries", "events")),
    }


def _timing(found: dict[str, Any]) -> dict[str, str]:
    return {"server-timing": f"search;dur={found['ms']:.1f}"}


@get("/search", sync_to_thread=True)
def search_page(request: AnyRequest) -> Response[str]:
    found = _results(request)
    return render(
        request,
        "search.html",
        status=400 if found["error"] else 200,
        headers=_timing(found),
        sources=AGENTS,
        kinds=ENTRY_KINDS,
        scopes=SCOPES,
        params=request.query_params,
        **found,
    )


@get("/search/hits", sync_to_thread=True)
def search_hits(request: AnyRequest) -> Response[str]:
    """The results alone, for the page's script (search as you type)."""
    found = _results(request)
    return render(
        request,
        "search_hits.html",
        status=400 if found["error"] else 200,
        headers=_timing(found),
        **found,
    )


ROUTES = [search_page, search_hits]
