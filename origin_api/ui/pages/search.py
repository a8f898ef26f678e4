"""Search, as you type: the `search` tool's answer with its snippets' matches highlighted.

The page and the fragment its script fetches while you type are one handler's two shapes, so
a search works without the script too (the form submits), and its URL can be kept and shared.

The tool has no offset: "Show more" asks again with a larger `limit` (20 more each time, up
to the contract's 100), a link that works without the script and that the script follows
in place. The count says what is known: the tool is asked for one more hit than is shown, so
"20 of more than 20" is a fact, and fewer than asked is the exact number.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from litestar import Request, Response, get

from origin_store.model import ENTRY_KINDS
from origin_store.parsers.agents import AGENTS

from ...errors import OriginError
from ...service.shapes import SearchResult
from ..guard import ui_of
from ..render import render
from .home_read import facets, session_titles

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
#: Hits a page shows first, and how many more each "Show more" adds.
STEP = 20
#: The search tool's largest `limit` (the contract's).
MAX_LIMIT = 100


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


@dataclass(frozen=True)
class Counted:
    """How many hits of one kind are shown, and whether more are known to match (`more`) or
    may (`capped`: the contract's largest limit was asked, nothing beyond it can be known)."""

    shown: int
    more: bool
    capped: bool

    @property
    def text(self) -> str:
        if self.more:
            return f"{self.shown:,} of more than {self.shown:,}"
        if self.capped:
            return f"the first {self.shown:,}"
        return f"{self.shown:,}"


def _counted(found: list[Any], limit: int, asked: int) -> tuple[list[Any], Counted]:
    return found[:limit], Counted(
        min(len(found), limit), len(found) > limit, asked == limit and len(found) >= limit
    )


def _results(request: AnyRequest) -> dict[str, Any]:
    """The search's answer, or its error in the page's words; with the server time it took,
    how many of each kind are known to match, and each hit's session title."""
    args = search_args(request.query_params)
    limit = args.get("limit", STEP)
    asked = limit + 1 if isinstance(limit, int) and 1 <= limit < MAX_LIMIT else limit
    started = time.perf_counter()
    result: SearchResult = {"entries": [], "events": []}
    error = ""
    searched = bool(args.get("query") or args.get("scope") in ("entries", "events"))
    if searched:
        try:
            result = ui_of(request).read("search", **{**args, "limit": asked})
        except OriginError as failed:
            error = failed.message
    shown = limit if isinstance(limit, int) else STEP  # a limit that is no number: the error
    entries, entry_count = _counted(result["entries"], shown, asked)
    events, event_count = _counted(result["events"], shown, asked)
    titles = session_titles(ui_of(request).origin, [(e["source"], e["session"]) for e in events])
    ms = (time.perf_counter() - started) * 1000
    more = not error and (entry_count.more or event_count.more)
    return {
        "args": args,
        "result": {"entries": entries, "events": events},
        "counts": {"entries": entry_count, "events": event_count},
        "titles": titles,
        "more_url": _more_url(request.query_params, shown) if more else "",
        "error": error,
        "ms": ms,
        "query": args.get("query", ""),
        "searched": searched,
    }


def _more_url(params: Any, limit: int) -> str:
    """This search with STEP more hits (at most the contract's largest limit)."""
    kept = {k: v for k, v in params.items() if k != "limit" and v}
    return "/ui/search?" + urlencode({**kept, "limit": min(limit + STEP, MAX_LIMIT)})


def _timing(found: dict[str, Any]) -> dict[str, str]:
    return {"server-timing": f"search;dur={found['ms']:.1f}"}


@get("/search", sync_to_thread=True)
def search_page(request: AnyRequest) -> Response[str]:
    found = _results(request)
    listed = facets(ui_of(request).origin)  # every agent, and the recorded sources there are
    return render(
        request,
        "search.html",
        status=400 if found["error"] else 200,
        headers=_timing(found),
        sources=sorted(set(AGENTS) | set(listed.agents)),
        projects=listed.projects,
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
