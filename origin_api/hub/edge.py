"""The hub's edge: what every HTTP request meets before any route, and the shape of every refusal.

Litestar refuses some requests before a route handler runs: a Host header it cannot parse, a
path no route serves, a method a route does not take. Left alone, those answers carry
Litestar's own body and no request id. `HubApp` is Litestar with a first step in front of its
router: it gives the request its id (sent back as `X-Request-Id` whichever part answers),
checks the Host header's syntax itself, and its exception handlers turn Litestar's refusals,
and any bug, into the hub's `{"error": {"status", "message", "requestId"}}`.

What uvicorn refuses before it calls the app at all (a request line or header its parser
rejects) keeps uvicorn's plain-text 400: no app can change that.
"""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Iterable
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

from . import transport
from .auth import Refusal, shown
from .transport import REQUEST_ID_KEY, error_body, new_request_id, refuse, with_header

#: A request as Litestar's exception handlers receive it (the hub reads only its scope and URL).
AnyRequest = Request[Any, Any, Any]

#: A Host header's bytes: RFC 3986 host characters and a port, nothing else (no userinfo, no
#: spaces, nothing beyond ASCII). A stricter form of the check Litestar's router makes.
_HOST_SYNTAX = re.compile(rb"[0-9A-Za-z!$&'()*+,;=\-._~:\[\]%]*")


class HubApp(Litestar):
    """Litestar with the hub's edge in front of the router (see the module's docstring)."""

    __slots__ = ("hub_names",)

    def __init__(self, *, hub_names: frozenset[str], **config: Any) -> None:
        self.hub_names = hub_names
        handlers: ExceptionHandlersMap = {HTTPException: _http_error, Exception: _bug}
        super().__init__(exception_handlers=handlers, **config)

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
        try:
            check_host_syntax(raw.get("headers", ()), any_host="*" in self.hub_names)
        except Refusal as refusal:
            await refuse(named, refusal, request_id)
            return
        await super().__call__(scope, receive, cast("Send", named))


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


def _http_error(request: AnyRequest, exc: HTTPException) -> Response[bytes]:
    """Litestar's own refusals (no route, a method the route does not take) in the hub's shape."""
    if isinstance(exc, NotFoundException):
        message = f"Not found: {request.url.path}. The hub serves POST /mcp, POST /mcp/readonly and GET /health."
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
