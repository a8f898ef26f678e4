"""The one login guard of the admin UI, its CSRF check, and what a page asks of a request.

Every route of the UI's router passes `guard` first. It checks the Host (as `/mcp` does: a
DNS-rebinding page never reaches the UI), finds the session from the cookie, and for every
method but GET, HEAD and OPTIONS compares the session's CSRF token with the one the request
sends (form field `_csrf`, or header `X-CSRF-Token` for scripts) in constant time: a request
without it is refused with 403 before the handler runs. Routes marked `opt={"public": True}`
(sign-in, static files) skip the login and do their own checks.

Pages then ask `ui_of(request)`, `session_of(request)` and `write_author(request)`, and log
each write with `log_write` so that who changed what is on the server's stderr.
"""

from __future__ import annotations

import hmac
from typing import Any, cast

from litestar import Request
from litestar.connection import ASGIConnection
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException
from litestar.handlers.base import BaseRouteHandler

from ..hostnames import bare_host
from .core import LOG, Ui
from .sessions import Session

#: The session cookie: HttpOnly, SameSite=Strict, Secure over TLS, path /ui.
COOKIE = "origin_ui"
#: The sign-in form's own CSRF cookie (double submit: there is no session yet).
LOGIN_COOKIE = "origin_ui_login"
CSRF_FIELD = "_csrf"
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_UI_KEY = "origin.ui"
_SESSION_KEY = "origin.ui.session"
_RAW_KEY = "origin.ui.cookie"

AnyRequest = Request[Any, Any, Any]


class HostRefused(PermissionDeniedException):
    """A Host the UI does not answer to (421, as on /mcp)."""

    status_code = 421


def make_guard(ui: Ui, hosts: frozenset[str]) -> Any:
    """The router's guard over this UI, answering to these Host names (`*`: any)."""

    async def guard(
        connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
    ) -> None:
        scope = cast("dict[str, Any]", connection.scope)
        scope[_UI_KEY] = ui
        _check_host(connection, hosts)
        if handler.opt.get("public"):
            return
        raw = connection.cookies.get(COOKIE)
        session = ui.sessions.find(raw)
        if session is None:
            raise NotAuthorizedException("Sign in to use the admin UI.")
        scope[_SESSION_KEY] = session
        scope[_RAW_KEY] = raw
        if connection.scope.get("method", "GET") not in SAFE_METHODS:
            await check_csrf(connection, session.csrf)

    return guard


async def check_csrf(connection: ASGIConnection[Any, Any, Any, Any], expected: str) -> None:
    """Refuse (403) a state-changing request whose CSRF token is missing or wrong. The form is
    read here and kept by Litestar for the handler, which reads it again for free."""
    sent = connection.headers.get(CSRF_HEADER)
    if sent is None:
        request: AnyRequest = Request(connection.scope, connection.receive)
        form = await request.form()
        value = form.get(CSRF_FIELD)
        sent = value if isinstance(value, str) else None
    if not sent or not hmac.compare_digest(sent.encode(), expected.encode()):
        LOG.info(
            "ui refused %s %s: no valid CSRF token client=%s",
            connection.scope.get("method"),
            connection.url.path,
            client_of(connection),
        )
        raise PermissionDeniedException(
            "This form is out of date or did not come from the admin UI (its CSRF token is "
            "missing or wrong). Reload the page and try again."
        )


def _check_host(connection: ASGIConnection[Any, Any, Any, Any], hosts: frozenset[str]) -> None:
    if "*" in hosts:
        return
    host = connection.headers.get("host", "")
    if bare_host(host.strip().lower()) not in hosts:
        raise HostRefused(
            f"The admin UI does not answer to the host {host or '(none)'}; start the hub with "
            "--allowed-host NAME to add one."
        )
    origin = connection.headers.get("origin")
    if origin is not None and connection.scope.get("method", "GET") not in SAFE_METHODS:
        name = origin.strip().lower().split("://", 1)[-1].split("/", 1)[0]
        if bare_host(name) not in hosts:
            raise PermissionDeniedException(f"Requests from the web origin {origin} are refused.")


# -- what pages ask ----------------------------------------------------------------------------


def ui_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Ui:
    """The UI this request belongs to (the guard put it there)."""
    found = find_ui(connection)
    assert found is not None, "a UI route outside the UI's router"
    return found


def find_ui(connection: ASGIConnection[Any, Any, Any, Any]) -> Ui | None:
    found = cast("dict[str, Any]", connection.scope).get(_UI_KEY)
    return found if isinstance(found, Ui) else None


def session_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Session | None:
    """The signed-in session (None only on public routes)."""
    found = cast("dict[str, Any]", connection.scope).get(_SESSION_KEY)
    if found is None:
        # A public route (sign-in) still sees a session when the browser has one.
        found = ui_of(connection).sessions.find(connection.cookies.get(COOKIE))
    return found if isinstance(found, Session) else None


def cookie_of(connection: ASGIConnection[Any, Any, Any, Any]) -> str | None:
    found = cast("dict[str, Any]", connection.scope).get(_RAW_KEY)
    return found if isinstance(found, str) else connection.cookies.get(COOKIE)


def write_author(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """Who writes through the admin UI: `user@<device>`, this device's or the hub's name."""
    return f"user@{ui_of(connection).device}"


def client_of(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    client = connection.client
    return client.host if client is not None else "-"


def log_write(connection: ASGIConnection[Any, Any, Any, Any], action: str, detail: str) -> None:
    """One line on stderr for every write: `ui write <action> author=user@box <detail>`."""
    session = session_of(connection)
    LOG.info(
        "ui write %s author=%s via=%s client=%s %s",
        action,
        write_author(connection),
        session.how.replace(" ", "-") if session else "-",
        client_of(connection),
        " ".join(detail.split())[:300],
    )


def is_tls(connection: ASGIConnection[Any, Any, Any, Any]) -> bool:
    """Whether the browser reached us over TLS (uvicorn reads X-Forwarded-Proto from a proxy on
    loopback): then the cookie is Secure."""
    return connection.url.scheme == "https"
