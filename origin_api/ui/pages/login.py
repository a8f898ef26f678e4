"""Signing in and out: the admin password, or the hub's own token.

Who may sign in: whoever knows the admin password (`origin ui password`, an scrypt hash in the
home) or the token `origin run` keeps for this machine (`ORIGIN_HOME/hub-token`, named
`local`; the store keeps only its SHA-256, compared in constant time). Tokens made with
`origin token create` are for agents and devices and do not open the UI. A client that fails
five times in five minutes waits for the window to pass; every attempt is logged.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

import anyio
from litestar import Request, Response, get, post
from litestar.response import Redirect

from origin_store.replication import tokens as store_tokens

from ...admin import LOCAL_TOKEN
from ..core import LOG, Ui
from ..guard import (
    COOKIE,
    CSRF_FIELD,
    LOGIN_COOKIE,
    client_of,
    cookie_of,
    is_tls,
    session_of,
    ui_of,
)
from ..password import check_password, has_password
from ..render import render

AnyRequest = Request[Any, Any, Any]


def _next(target: str | None) -> str:
    """Where to go after signing in: a UI path only (never another site: `//evil`, `/\\evil`);
    anything else, and `/ui` (as the router names the home page's path), is the home page."""
    if target == "/ui":
        return "/ui/"
    if (
        target
        and target.startswith("/ui/")
        and "\\" not in target
        and all(ord(c) > 32 for c in target)
    ):
        return target
    return "/ui/"


def _form(request: AnyRequest, *, status: int = 200, error: str = "") -> Response[str]:
    """The sign-in form with a fresh double-submit token (cookie and hidden field)."""
    token = secrets.token_urlsafe(32)
    ui = ui_of(request)
    response = render(
        request,
        "login.html",
        status=status,
        login_csrf=token,
        error=error,
        next=_next(request.query_params.get("next")),
        password_set=has_password(ui.origin.home),
    )
    response.set_cookie(
        LOGIN_COOKIE,
        token,
        path="/ui/login",
        httponly=True,
        samesite="strict",
        secure=is_tls(request),
        max_age=3600,
    )
    return response


@get("/login", opt={"public": True}, sync_to_thread=True)
def login_form(request: AnyRequest) -> Response[Any]:
    if session_of(request) is not None:
        return Redirect(_next(request.query_params.get("next")), status_code=303)
    return _form(request)


def _who(ui: Ui, secret: str) -> str | None:
    """How this secret signs in ("password", "token local"), or None."""
    if secret.startswith(store_tokens.PREFIX):
        token = store_tokens.verify(ui.origin.store, secret)
        return f"token {token.name}" if token is not None and token.name == LOCAL_TOKEN else None
    return "password" if check_password(ui.origin.home, secret) else None


@post("/login", opt={"public": True})
async def login(request: AnyRequest) -> Response[Any]:
    ui = ui_of(request)
    form = await request.form()
    client = client_of(request)
    sent = str(form.get(CSRF_FIELD) or "")
    kept = request.cookies.get(LOGIN_COOKIE) or ""
    if not sent or not kept or not hmac.compare_digest(sent.encode(), kept.encode()):
        LOG.info("ui login refused: no valid CSRF token client=%s", client)
        return _form(request, status=403, error="The form was out of date; try again.")
    wait = ui.throttle.wait(client)
    if wait:
        LOG.info("ui login refused: too many failures client=%s wait=%ds", client, wait)
        return _form(request, status=429, error=f"Too many failed attempts; try again in {wait} s.")
    secret = str(form.get("secret") or "")
    how = await anyio.to_thread.run_sync(_who, ui, secret) if secret else None
    if how is None:
        failures = ui.throttle.failed(client)
        LOG.info("ui login failed client=%s failures=%d", client, failures)
        return _form(request, status=401, error="That password or token is not right.")
    ui.throttle.succeeded(client)
    ui.sessions.end(cookie_of(request))
    raw, session = ui.sessions.start(how)
    LOG.info("ui login ok via=%s client=%s", how.replace(" ", "-"), client)
    session.flash("Signed in.")
    response = Redirect(_next(str(form.get("next") or "")), status_code=303)
    response.set_cookie(
        COOKIE, raw, path="/ui", httponly=True, samesite="strict", secure=is_tls(request)
    )
    response.delete_cookie(LOGIN_COOKIE, path="/ui/login")
    return response


@post("/logout", sync_to_thread=False)
def logout(request: AnyRequest) -> Response[Any]:
    """Ends the session (the guard checked its CSRF token first)."""
    ui = ui_of(request)
    ui.sessions.end(cookie_of(request))
    LOG.info("ui logout client=%s", client_of(request))
    response = Redirect("/ui/login", status_code=303)
    response.delete_cookie(COOKIE, path="/ui")
    return response


ROUTES = [login_form, login, logout]
