"""The hub's Litestar app: `POST /mcp` (and `/mcp/readonly`) over the one tool table, `GET /health`,
and the admin UI under `/ui/` (`/` leads there).

Everything MCP goes through the SDK's `StreamableHTTPSessionManager` (stateless, JSON responses)
around `mcp.sdk.build_server`, so the hub lists and runs exactly what `origin mcp` does. This
module wires the pieces: what every request meets first (`edge`), who may call (`auth`), the
HTTP conventions of `/mcp` (`transport`), and the hub's own freshness (it ingests its
machine's agent logs like any device). The admin UI (`origin_api.ui`) is a router of its own,
behind its own sign-in, on the same host names; `create_ui_app` serves that router alone, for
`origin ui` on a device (the hub mounts the UI, so the UI never imports the hub).
"""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, cast

from litestar import Litestar, asgi, get
from litestar.types import Receive, Scope, Send
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from origin_store.replication import tokens as store_tokens

from ..contract.tools import BY_NAME
from ..errors import OriginError
from ..freshness import Freshness
from ..mcp.sdk import build_server
from ..runtime import Origin
from ..service import Caller
from ..settings import Settings
from ..ui.app import create_router, root
from ..ui.core import Ui
from ..ui.errors import not_found as ui_not_found
from . import transport
from .auth import SCOPE_KEY, Grant, RateLimiter, parse_rate
from .edge import HubApp
from .sync_routes import sync_route
from .transport import McpEndpoint, host_names, security_settings

#: `last_used` is a write; one per token per minute is plenty for `origin token list`.
TOUCH_EVERY_S = 60.0


def create_ui_app(origin: Origin, host: str = "127.0.0.1", *, merged: bool = True) -> Litestar:
    """The admin UI alone over an open Origin, answering to loopback and the bound address: the
    hub's edge (request ids, the request log, Host syntax), `/ui/` and `/`, and no `/mcp`. Reads
    and writes go through the device's `service.call` merged with its hub, as `origin mcp`
    answers."""
    names = host_names(host, ())
    return HubApp(
        hub_names=names,
        pages=ui_not_found,
        route_handlers=[create_router(Ui(origin, merged=merged), names), root],
        openapi_config=None,
        logging_config=None,
    )


class _Policy:
    """Who may call which tool, as the SDK server asks per call: the grant the endpoint attached
    to the request (token, scope, client), and the token's rate."""

    def __init__(self, limiter: RateLimiter | None) -> None:
        self.limiter = limiter

    def access(self, ctx: Any) -> tuple[Caller, frozenset[str], str | None]:
        grant = grant_of(ctx)
        if grant is None:  # not through our endpoint: see nothing
            return Caller("unknown", ""), frozenset(), None
        return grant.caller, grant.allowed, grant.request_id

    def gate(self, ctx: Any, name: str) -> tuple[OriginError, dict[str, Any]] | None:
        grant = grant_of(ctx)
        if grant is None:
            return OriginError("This request was not authenticated.", "forbidden"), {}
        if name in BY_NAME and name not in grant.allowed:
            return OriginError(
                f"The tool {name} is not available: {grant.hidden_because()}, so only search, "
                "timeline, get and sources can be called.",
                "forbidden",
            ), {}
        return self.limiter.take(grant.token) if self.limiter is not None else None


def _session_manager(
    origin: Origin, settings: Settings, names: frozenset[str]
) -> StreamableHTTPSessionManager:
    """The SDK's session manager of the hub's /mcp: its server, with the rate limit and the
    scopes of `_Policy`, answering JSON without sessions."""
    rate = parse_rate(settings.hub_rate_limit)
    policy = _Policy(RateLimiter(rate) if rate is not None else None)
    return StreamableHTTPSessionManager(
        app=build_server(origin, policy.access, policy.gate),
        json_response=True,
        stateless=True,
        security_settings=security_settings(names),
        max_request_body_size=settings.hub_max_body + 1,
    )


def create_app(
    origin: Origin, settings: Settings | None = None, *, ingest: bool = True
) -> Litestar:
    """The hub over an open Origin. `settings` (default: the Origin's) gives the hub's host names,
    limits and rate; with `ingest`, the hub reads its own machine's agent logs in the background.
    Each app owns a fresh SDK session manager, which can run only once."""
    settings = settings or origin.settings
    names = host_names(settings.hub_host, settings.hub_allowed_hosts)
    manager = _session_manager(origin, settings, names)
    toucher = _Toucher(origin)
    endpoint = McpEndpoint(
        manager,
        origin.store,
        names=names,
        max_body=settings.hub_max_body,
        timeout_s=settings.hub_request_timeout_ms / 1000,
        on_auth=toucher.used,
    )

    @asgi("/mcp", is_mount=True, copy_scope=True)
    async def mcp(scope: Scope, receive: Receive, send: Send) -> None:
        # Litestar's TypedDicts, handed over as the plain ASGI mappings the endpoint and the SDK take.
        await endpoint(
            cast("transport.Scope", scope),
            cast("transport.Receive", receive),
            cast("transport.Send", send),
        )

    @get("/health", sync_to_thread=False)
    def health() -> dict[str, str]:
        return {"status": "ok"}

    freshness = (
        Freshness(origin, settings.watch_interval_ms / 1000, "origin-hub-ingest")
        if ingest
        else None
    )
    lifespan = _lifespan(manager, freshness, toucher)

    app = HubApp(
        hub_names=names,
        pages=ui_not_found,
        route_handlers=[
            mcp,
            health,
            sync_route(origin, settings, names, toucher.used),
            create_router(Ui(origin), names),
            root,
        ],
        lifespan=[lifespan],
        openapi_config=None,
        logging_config=None,
    )
    app.state.hub_background = freshness
    return app


def grant_of(ctx: Any) -> Grant | None:
    """The grant the transport left in this request's ASGI scope (the SDK hands handlers the
    Starlette request it built from that scope)."""
    scope = getattr(getattr(ctx, "request", None), "scope", None)
    grant = scope.get(SCOPE_KEY) if isinstance(scope, dict) else None
    return grant if isinstance(grant, Grant) else None


def _lifespan(
    manager: StreamableHTTPSessionManager, freshness: Freshness | None, toucher: _Toucher
) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """While the app runs: the SDK's session manager, and the background ingest if any; both
    stop, and the last token touches are written, when it ends."""

    @asynccontextmanager
    async def lifespan(_app: Litestar) -> AsyncIterator[None]:
        if freshness is not None:
            freshness.start()
        try:
            async with manager.run():
                yield
        finally:
            if freshness is not None:
                freshness.stop()
            toucher.close()

    return lifespan


class _Toucher:
    """Records tokens' last use off the event loop, at most once a minute per token."""

    def __init__(self, origin: Origin) -> None:
        self.origin = origin
        self._last: dict[str, float] = {}
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="origin-hub-touch")

    def used(self, token: str) -> None:
        now = time.monotonic()
        if now - self._last.get(token, -TOUCH_EVERY_S) >= TOUCH_EVERY_S:
            self._last[token] = now
            self._pool.submit(self._touch, token)

    def _touch(self, token: str) -> None:
        try:
            store_tokens.touch(self.origin.store, token)
        except Exception:
            traceback.print_exc(file=sys.stderr)

    def close(self) -> None:
        self._pool.shutdown(wait=True)
