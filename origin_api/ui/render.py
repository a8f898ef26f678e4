"""The one render helper of the admin UI: a Jinja2 template to an HTML response.

Autoescape is on for every template, whatever its name: event texts are hostile input (a log
line can hold `<script>` or `"><img onerror=…>`), and everything but what a filter below marks
safe after escaping it is escaped. Every page also carries headers that would stop a script
that got through anyway: a Content-Security-Policy allowing only the UI's own files (no inline
script, nothing from another site), no framing, no sniffing, no referrer to other sites, no caching.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any
from urllib.parse import quote, urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined
from litestar import Response
from litestar.connection import ASGIConnection
from markupsafe import Markup, escape

from ..transcript import Budget, event_html, markdown_text
from .guard import session_of, ui_of

#: The pages in the navigation, in order: (label, path). Each path is a page module's.
NAV = (
    ("Home", "/ui/"),
    ("Search", "/ui/search"),
    ("Timeline", "/ui/timeline"),
    ("Activity", "/ui/activity"),
    ("Entries", "/ui/entries"),
    ("Forgets", "/ui/forgets"),
    ("Tokens", "/ui/tokens"),
    ("Status", "/ui/status"),
)
HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    # same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on its forms.
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
}


def raw_url(event_id: str) -> str:
    """The raw line page of an event (ids hold `:` and other characters: a query, not a path)."""
    return "/ui/raw?" + urlencode({"id": event_id})


def entry_url(entry_id: str) -> str:
    return "/ui/entries/" + quote(entry_id, safe="")


def session_url(source: str, session: str, page: int = 1, **more: Any) -> str:
    args: dict[str, Any] = {"source": source, "id": session}
    if page != 1:
        args["page"] = page
    args.update({k: 1 if v is True else v for k, v in more.items() if v not in (None, "", False)})
    return "/ui/session?" + urlencode(args)


def at_url(source: str, session: str, event_id: str | None = None, **more: Any) -> str:
    """A session's page opened at one of its events: the window of events around it, the event
    marked, and the browser scrolled to it. Event ids hold `:`, `/` and `#`: the anchor is the
    id percent-encoded, which a browser decodes to find the element whose id is the event's."""
    if event_id is None:
        return session_url(source, session, **more)
    return session_url(source, session, at=event_id, **more) + "#" + quote(event_id, safe=":@-._~")


def export_url(source: str, session: str, fmt: str, tools: bool) -> str:
    """A session's download (`pages/export.py`), with its tool calls when `tools`."""
    args: dict[str, Any] = {"source": source, "id": session, "format": fmt}
    if tools:
        args["tools"] = 1
    return "/ui/session/export?" + urlencode(args)


def when(iso: str | None) -> Markup:
    """A time as `<time datetime>`: the server's ISO text, which the page's script shows in the
    browser's own time zone (and which stays readable without the script)."""
    if not iso:
        return Markup("<span class=muted>—</span>")
    shown = iso[:19].replace("T", " ")
    return Markup('<time datetime="{0}" title="{0}">{1}</time>').format(iso, shown)


def marked(snippet: str | None, query: str | None = None) -> Markup:
    """A search snippet with its matches, which the `search` tool puts in [brackets], as
    `<mark>`; everything else escaped. Text can hold brackets of its own (`arr[0]`): a bracketed
    span is a match only if it holds one of the query's words, compared as the index compares
    them (NFKC, case folded); other brackets stay text."""
    if not snippet:
        return Markup("")
    words = _words(query or "")
    out: list[str] = []
    i = 0
    while i < len(snippet):
        start = snippet.find("[", i)
        end = snippet.find("]", start + 1) if start >= 0 else -1
        if start < 0 or end < 0:
            out.append(str(escape(snippet[i:])))
            break
        inner = snippet[start + 1 : end]
        out.append(str(escape(snippet[i:start])))
        if inner and "[" not in inner and (not words or _holds(inner, words)):
            out.append(f"<mark>{escape(inner)}</mark>")
        else:
            out.append(str(escape(snippet[start : end + 1])))
        i = end + 1
    return Markup("".join(out))


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _words(query: str) -> list[str]:
    words: list[str] = []
    word: list[str] = []
    for char in _fold(query):
        if char.isalnum():
            word.append(char)
        elif word:
            words.append("".join(word))
            word = []
    if word:
        words.append("".join(word))
    return words


def _holds(inner: str, words: list[str]) -> bool:
    folded = _fold(inner)
    return any(word in folded or folded in word for word in words)


_ENV = Environment(
    loader=PackageLoader("origin_api.ui", "templates"),
    autoescape=True,  # every template, whatever its extension
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_ENV.globals.update(
    raw_url=raw_url, entry_url=entry_url, session_url=session_url, at_url=at_url, nav=NAV
)
_ENV.globals.update(event_body=event_html, highlight_budget=Budget, export_url=export_url)
_ENV.filters.update(when=when, marked=marked, words=markdown_text)


def render(
    connection: ASGIConnection[Any, Any, Any, Any],
    template: str,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
    **context: Any,
) -> Response[str]:
    """`template` (under `origin_api/ui/templates/`) as an HTML response. Every template sees
    `session` (None when signed out), `csrf` (the session's token, for forms and scripts),
    `flashes` (taken: shown once), `device`, `path` (the page's, for the navigation) and
    the helpers `raw_url`, `entry_url`, `session_url`, and the filters `when` and `marked`."""
    session = session_of(connection)
    base = {
        "session": session,
        "csrf": session.csrf if session is not None else "",
        "flashes": session.take_flashes() if session is not None else [],
        "device": ui_of(connection).device,
        "path": connection.url.path,
    }
    html = _ENV.get_template(template).render({**base, **context})
    return Response(
        html,
        status_code=status,
        media_type="text/html; charset=utf-8",
        headers={**HEADERS, **(headers or {})},
    )


def bare(template: str, *, status: int, **context: Any) -> Response[str]:
    """A page outside the UI's router (an unknown /ui/ path): no session, no navigation."""
    html = _ENV.get_template(template).render(context)
    return Response(
        html, status_code=status, media_type="text/html; charset=utf-8", headers=HEADERS
    )


#: Where a long run without spaces (a JSON line, a path, an id) may wrap: after these.
_SOFT_BREAK = re.compile(r"(?<=[,:;/\\{}\[\]=&?|])(?=\S)")


def breakable(text: str | None) -> Markup:
    """`text` escaped, with `<wbr>` after the separators of JSON, paths and URLs, so that a long
    raw line wraps between its fields rather than mid-word (`overflow-wrap` breaks anywhere only
    when a run is wider than the line); `<wbr>` is not text, so copying gives the line back."""
    if not text:
        return Markup("")
    return Markup("<wbr>").join(escape(part) for part in _SOFT_BREAK.split(text))


_ENV.filters["breakable"] = breakable
