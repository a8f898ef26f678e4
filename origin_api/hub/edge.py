"""The hub's edge: what every HTTP request meets before any route, and the shape of every refusal.

Litestar refuses some requests before a route handler runs: a Host header it cannot parse, a
path no route serves, a method a route does not take. Left alone, those answers carry
Litestar's own body and no request id. `HubApp` is Litestar with a first step in front of its
router: it gives the request its id (sent back as `X-Request-Id` whichever part answers),
checks the Host header's syntax itself, and its exception handlers turn Litestar's refusals,
and any bug, into the hub's `{"error": {"status", "message", "requestId"}}`.

Being the first and last step of every request, it also logs each one on a line of its own
(`REQUEST_LOG`): method, path, status, milliseconds, the client's X-Origin-Client and the
request id a client was sent, so a person can match what a client reported to what the hub did.
Never a header's secret or a body: a log is read and kept by more people than a token should be.

What uvicorn refuses before it calls the app at all (a request line or header its parser
rejects) keeps uvicorn's plain-text 400: no app can change that.
"""

from __future__ import annotations

import logging
import re
import sys
import time
import traceback
from collections.abc import Callable, Iterable
from typing import Any, cast

from litestar import Litestar, Request, Response
from litestar.enums import ScopeType
from litestar.exceptions import HTTPException, MethodNotAllowedException, NotFoundException
from litestar.types import (
    ExceptionHandlersMap,
    LifeSpanReceive,
    LifeSpanScope,
    LifeSpanSend,
    Receive,
    Scope,
    Send,
)

from ..stderrlog import show_on_stderr
from . import transport
from .auth import CLIENT_MAX, Refusal, shown
from .transport import REQUEST_ID_KEY, error_body, new_request_id, refuse, with_header

#: A request as Litestar's exception handlers receive it (the hub reads only its scope and URL).
AnyRequest = Request[Any, Any, Any]
#: How the admin UI answers a refusal under `/ui/` that no route of its own saw (an unknown
#: page): as a page, where every other path gets the hub's JSON.
PageErrors = Callable[[AnyRequest, HTTPException], Response[Any]]
UI_PREFIX = "/ui"

#: A Host header's bytes: RFC 3986 host characters and a port, nothing else (no userinfo, no
#: spaces, nothing beyond ASCII). A stricter form of the check Litestar's router makes.
_HOST_SYNTAX = re.compile(rb"[0-9A-Za-z!$&'()*+,;=\-._~:\[\]%]*")
#: One line per request, INFO: `origin hub` and `origin run` show it on stderr (`log_requests`).
REQUEST_LOG = logging.getLogger("origin.hub.requests")
#: A value that can stand in a log line as itself: no space, quote or character to escape.
_BARE = re.compile(r"[!#-~]+")


class HubApp(Litestar):
    """Litestar with the hub's edge in front of the router (see the module's docstring)."""

    __slots__ = ("hub_names", "pages")

    def __init__(
        self, *, hub_names: frozenset[str], pages: PageErrors | None = None, **config: Any
    ) -> None:
        self.hub_names = hub_names
        self.pages = pages
        handlers: ExceptionHandlersMap = {HTTPException: _http_error, Exception: _bug}
        super().__init__(exception_handlers=handlers, **config)
        log_requests()

    async def __call__(
        self,
        scope: Scope | LifeSpanScope,
        receive: Receive | LifeSpanReceive,
        send: Send | LifeSpanSend,
    ) -> None:
        if scope["type"] != ScopeType.HTTP:
            await super().__call__(scope, receive, send)
            return
        # The same objects as plain ASGI: the scope carries the hub's request id under its own key.
        raw = cast("transport.Scope", scope)
        request_id = new_request_id()
        raw[REQUEST_ID_KEY] = request_id
        named = with_header(cast("transport.Send", send), b"x-request-id", request_id.encode())
        exchange = _Exchange(raw, request_id, named)
        try:
            check_host_syntax(raw.get("headers", ()), any_host="*" in self.hub_names)
        except Refusal as refusal:
            await refuse(exchange, refusal, request_id)
        else:
            await super().__call__(scope, receive, cast("Send", exchange))
        finally:
            exchange.log()


class _Exchange:
    """One request's line in `REQUEST_LOG`, as a `send` wrapper: written once the response's
    last part is handed over (nothing between a response's parts delays it), or when the request
    ends without one (the client left)."""

    def __init__(self, scope: transport.Scope, request_id: str, send: transport.Send) -> None:
        self.started = time.perf_counter()
        self.request_id = request_id
        self.send = send
        # What the client asked, as it asked it: routing rewrites the scope's path on its way.
        self.method: str = scope.get("method", "-")
        self.path: str | bytes = scope.get("raw_path") or scope.get("path", "-")
        self.client: bytes | None = next(
            (v for k, v in scope.get("headers", ()) if k.lower() == b"x-origin-client"), None
        )
        self.status: int | None = None
        self.logged = False

    async def __call__(self, message: transport.Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
        await self.send(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            self.log()

    def log(self) -> None:
        if not self.logged:
            self.logged = True
            if REQUEST_LOG.isEnabledFor(logging.INFO):
                REQUEST_LOG.info(self.line())

    def line(self) -> str:
        """`POST /mcp 200 3.1 ms client=claude-code req_…` (`-` for a status never sent, and for
        no X-Origin-Client)."""
        ms = (time.perf_counter() - self.started) * 1000
        client = _logged(self.client[: CLIENT_MAX * 4]) if self.client else "-"
        status = self.status if self.status is not None else "-"
        return (
            f"{_logged(self.method)} {_logged(self.path)} {status} {ms:.1f} ms "
            f"client={client} {self.request_id}"
        )


def _logged(value: str | bytes) -> str:
    """A value as one word of a log line: itself when it is plain, else quoted and escaped, so a
    request cannot write a line of its own (a newline in a path) or pass for another field."""
    text = value if isinstance(value, str) else value.decode("utf-8", "surrogateescape")
    return text if _BARE.fullmatch(text) else shown(text)


def log_requests() -> None:
    """Show the request log on stderr (`stderrlog`)."""
    show_on_stderr(REQUEST_LOG)


def check_host_syntax(headers: Iterable[tuple[bytes, bytes]], *, any_host: bool) -> None:
    """Refuse a repeated Host header (400), and one that is not a host name at all: 421, as for
    any other host the hub does not answer to, or 400 when the hub answers to every host (`*`)."""
    hosts = [value for name, value in headers if name.lower() == b"host"]
    if len(hosts) > 1:
        raise Refusal(400, "Send one Host header.")
    if not hosts or _HOST_SYNTAX.fullmatch(hosts[0]) is not None:
        return
    if any_host:
        raise Refusal(
            400, f"The Host header {shown(hosts[0])} is not a host name (and optional port)."
        )
    raise Refusal(
        421,
        f"This hub does not answer to the host {shown(hosts[0])}: a Host header is an ASCII host "
        "name or address (an internationalised name in its xn-- form).",
    )


def _http_error(request: AnyRequest, exc: HTTPException) -> Response[Any]:
    """Litestar's own refusals (no route, a method the route does not take) in the hub's shape,
    or as the admin UI's page under /ui/."""
    path = request.url.path
    pages = getattr(request.app, "pages", None)
    if pages is not None and (path == UI_PREFIX or path.startswith(UI_PREFIX + "/")):
        if isinstance(exc, NotFoundException):
            exc = NotFoundException(f"There is no page {path} in the admin UI.")
        return pages(request, exc)  # type: ignore[no-any-return]
    if isinstance(exc, NotFoundException):
        message = (
            f"Not found: {request.url.path}. The hub serves POST /mcp, POST /mcp/readonly, "
            "GET /health and the admin UI at /ui/."
        )
    elif isinstance(exc, MethodNotAllowedException):
        allowed = (exc.headers or {}).get("allow", "")
        message = f"{request.method} is not allowed on {request.url.path}" + (
            f"; it takes {allowed}." if allowed else "."
        )
    else:
        message = exc.detail
    return error_response(request.scope, exc.status_code, message, exc.headers)


def _bug(request: AnyRequest, exc: Exception) -> Response[bytes]:
    traceback.print_exception(exc, file=sys.stderr)
    return error_response(
        request.scope,
        500,
        "The hub failed while answering this request; this is a bug. "
        "Please report it with the request id.",
    )


def error_response(
    scope: Scope, status: int, message: str, headers: dict[str, str] | None = None
) -> Response[bytes]:
    request_id = cast("transport.Scope", scope).get(REQUEST_ID_KEY) or new_request_id()
    return Response(
        content=error_body(status, message, request_id),
        status_code=status,
        media_type="application/json",
        headers=headers or {},
    )
