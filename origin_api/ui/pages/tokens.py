"""Tokens: create one (its secret shown once), list them, revoke one.

A new token's secret exists outside the store only until it has been shown: the create form's
POST keeps it in this process's memory for its session alone and redirects; the page it
redirects to takes it out and shows it (with `cache-control: no-store`, as every page). A
second view, a reload, another session, a restart: it is gone, and the store only ever held
its SHA-256. It is never logged: the write's log line names the token, not its secret.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from litestar import Request, Response, get, post
from litestar.params import FromPath, URLEncodedBody
from litestar.response import Redirect

from origin_store.errors import StoreError
from origin_store.replication import tokens as store_tokens

from ... import admin
from ...contract.timeargs import render as iso
from ..guard import log_write, session_of, ui_of
from ..render import render

AnyRequest = Request[Any, Any, Any]
Form = URLEncodedBody[dict[str, str]]
#: How long a created token's secret waits to be shown before it is dropped unseen.
SHOW_WITHIN_S = 300.0
_MAX_WAITING = 64


class _ShownOnce:
    """Secrets waiting for their one showing, by the session's CSRF token (random, per
    session: another session cannot name it)."""

    def __init__(self) -> None:
        self._waiting: dict[str, tuple[float, str, str, str]] = {}
        self._lock = threading.Lock()

    def put(self, session_key: str, name: str, scope: str, secret: str) -> None:
        now = time.monotonic()
        with self._lock:
            for key, (at, *_rest) in list(self._waiting.items()):
                if now - at > SHOW_WITHIN_S or len(self._waiting) >= _MAX_WAITING:
                    del self._waiting[key]
            self._waiting[session_key] = (now, name, scope, secret)

    def take(self, session_key: str) -> tuple[str, str, str] | None:
        with self._lock:
            found = self._waiting.pop(session_key, None)
        if found is None or time.monotonic() - found[0] > SHOW_WITHIN_S:
            return None
        return found[1], found[2], found[3]


_SHOWN_ONCE = _ShownOnce()


def _session_key(request: AnyRequest) -> str:
    session = session_of(request)
    assert session is not None, "a token page outside a session"
    return session.csrf


def _tokens(
    request: AnyRequest, *, status: int = 200, error: str = "", draft: dict[str, str] | None = None
) -> Response[str]:
    listed = sorted(
        admin.list_tokens(ui_of(request).origin), key=lambda t: (t.revoked is not None, t.name)
    )
    rows = [
        {
            "name": token.name,
            "scope": token.scope,
            "created": iso(token.created),
            "last_used": iso(token.last_used),
            "revoked": iso(token.revoked),
        }
        for token in listed
    ]
    return render(
        request,
        "tokens.html",
        status=status,
        tokens=rows,
        scopes=store_tokens.SCOPES,
        local=admin.LOCAL_TOKEN,
        error=error,
        draft=draft or {"scope": "write"},
    )


def _in_use(request: AnyRequest, name: str) -> str:
    """The page's answer for a name an active token has (the store's names a CLI command),
    or "" when the name is free (a revoked token's name is reused)."""
    for token in admin.list_tokens(ui_of(request).origin):
        if token.name == name and token.revoked is None:
            return (
                f"The name {name} is in use: a {token.scope} token made {iso(token.created)} "
                f"has it. Pick another name, or revoke {name} in the list below and create "
                f"it again."
            )
    return ""


@get("/tokens", sync_to_thread=True)
def tokens(request: AnyRequest) -> Response[str]:
    return _tokens(request)


@post("/tokens", sync_to_thread=True)
def create(request: AnyRequest, data: Form) -> Response[Any]:
    name = (data.get("name") or "").strip()
    scope = (data.get("scope") or "write").strip()
    if in_use := _in_use(request, name):
        return _tokens(request, status=400, error=in_use, draft={"name": name, "scope": scope})
    try:
        secret = admin.create_token(ui_of(request).origin, name, scope)
    except StoreError as failed:
        return _tokens(request, status=400, error=str(failed), draft={"name": name, "scope": scope})
    log_write(request, "token-create", f"name={name} scope={scope}")
    _SHOWN_ONCE.put(_session_key(request), name, scope, secret)
    return Redirect("/ui/tokens/created", status_code=303)


@get("/tokens/created", sync_to_thread=True)
def created(request: AnyRequest) -> Response[Any]:
    """The new token's secret, this once."""
    found = _SHOWN_ONCE.take(_session_key(request))
    if found is None:
        session = session_of(request)
        if session is not None:
            session.flash(
                "A token's secret is shown once, right after it is created, and never again. "
                "If it was lost, revoke the token and create a new one.",
                "error",
            )
        return Redirect("/ui/tokens", status_code=303)
    name, scope, secret = found
    return render(request, "token_created.html", name=name, scope=scope, secret=secret)


@post("/tokens/{name:str}/revoke", sync_to_thread=True)
def revoke(request: AnyRequest, name: FromPath[str]) -> Redirect:
    session = session_of(request)
    try:
        token = admin.revoke_token(ui_of(request).origin, name)
    except StoreError as failed:
        if session is not None:
            session.flash(str(failed), "error")
        return Redirect("/ui/tokens", status_code=303)
    log_write(request, "token-revoke", f"name={name}")
    if session is not None:
        session.flash(f"Revoked {token.name}: it is refused from now on.")
    return Redirect("/ui/tokens", status_code=303)


ROUTES = [tokens, create, created, revoke]
