"""Serving the hub with uvicorn: in the foreground for `origin hub`, or on a background thread
for tests and benchmarks.

The address is taken first (`bind`), before a command prints, ingests or makes a token, and
uvicorn is handed that socket: a port already in use is then one line saying which option moves
the hub, instead of a banner followed by uvicorn's own error, and nothing can take the port
between the check and the serving.

uvicorn runs on uvloop with the httptools parser: measured on loopback with 16 clients calling
`search`, it served more requests per second than uvicorn's pure-Python stack (asyncio + h11);
see docs/hub.md for the figures. `fast=False` selects that stack for comparison.

`origin ui` serves the admin pages alone the same way (`serve_ui`), its address taken first too.
"""

from __future__ import annotations

import contextlib
import errno
import socket
import threading
import time
from dataclasses import dataclass

import uvicorn
from litestar import Litestar

from ..errors import OriginError
from ..runtime import Origin
from ..settings import Settings
from ..stderrlog import UVICORN_LOGGING
from .app import create_app, create_ui_app

#: How far above a port in use `bind` looks for a free one to suggest.
_NEARBY = 20


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to host:port for the hub to listen on, or an `OriginError` saying, in one
    line, what to change. Bound, not yet listening: a client that connects before the hub
    serves is refused at once rather than left waiting."""
    try:
        found = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE | socket.AI_NUMERICSERV
        )
    except (socket.gaierror, UnicodeError, OverflowError) as error:
        raise OriginError(
            f"The hub cannot listen on {host}:{port} ({error}); choose the address with --host "
            "(or ORIGIN_HUB_HOST) and the port with --port (or ORIGIN_HUB_PORT)."
        ) from None
    family, kind, proto, _, address = found[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: TIME_WAIT is fine
    try:
        sock.bind(address)
    except OSError as error:
        sock.close()
        raise OriginError(_refused(host, port, error), "conflict") from None
    return sock


def _refused(host: str, port: int, error: OSError) -> str:
    shown = f"[{host}]" if ":" in host else host
    if error.errno == errno.EADDRINUSE:
        free = _free_port(host, port)
        hint = f" ({free} is free)" if free else ""
        return (
            f"Port {port} on {shown} is already in use (another hub?); "
            f"choose another with --port or ORIGIN_HUB_PORT{hint}."
        )
    if error.errno in (errno.EACCES, errno.EPERM):
        return (
            f"Not allowed to listen on port {port} (below 1024 needs privileges); "
            "choose another with --port or ORIGIN_HUB_PORT."
        )
    return (
        f"The hub cannot listen on {shown}:{port} ({error.strerror or error}); choose the address "
        "with --host (or ORIGIN_HUB_HOST) and the port with --port (or ORIGIN_HUB_PORT)."
    )


def _free_port(host: str, taken: int) -> int | None:
    """A port just above `taken` that binds now, to suggest (it may be gone by the next run)."""
    for port in range(taken + 1, min(taken + 1 + _NEARBY, 65536)):
        try:
            bind(host, port).close()
        except OriginError:
            continue
        return port
    return None


def uvicorn_config(
    app: Litestar,
    host: str,
    port: int,
    *,
    fast: bool = True,
    log_level: str = "warning",
    trusted_proxies: tuple[str, ...] = (),
) -> uvicorn.Config:
    """uvicorn believes X-Forwarded-For from 127.0.0.1 unless told otherwise: anything on this
    machine could then pose as any client (and dodge the UI's sign-in throttle, which counts
    per client). Forwarded headers are believed only from `trusted_proxies`
    (ORIGIN_HUB_TRUSTED_PROXIES)."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        proxy_headers=bool(trusted_proxies),
        forwarded_allow_ips=",".join(trusted_proxies) or "",
        loop="uvloop" if fast else "asyncio",
        http="httptools" if fast else "h11",
        ws="none",
        lifespan="on",
        log_level=log_level,
        log_config=UVICORN_LOGGING,
        access_log=False,
        server_header=False,
        timeout_graceful_shutdown=5,
        timeout_keep_alive=15,
    )


def serve(origin: Origin, settings: Settings, sock: socket.socket) -> bool:
    """Run the hub in the foreground on `sock` (from `bind`) until interrupted. Returns False
    if its background ingest was still running at the end: the caller then keeps the store
    open (`Origin.keep_open`)."""
    app = create_app(origin, settings)
    host, port = sock.getsockname()[:2]
    config = uvicorn_config(
        app, host, port, log_level="info", trusted_proxies=settings.hub_trusted_proxies
    )
    server = uvicorn.Server(config)
    with contextlib.suppress(
        KeyboardInterrupt
    ):  # uvicorn re-raises the Ctrl-C it handled by shutting down
        server.run(sockets=[sock])
    background = app.state.hub_background
    return background is None or not background.busy


def serve_ui(origin: Origin, sock: socket.socket) -> None:
    """Serve the admin UI alone (`origin ui`) on `sock` (from `bind`) until interrupted."""
    host, port = sock.getsockname()[:2]
    app = create_ui_app(origin, host)
    trusted = Settings.of(origin.settings).hub_trusted_proxies
    server = uvicorn.Server(
        uvicorn_config(app, host, port, log_level="info", trusted_proxies=trusted)
    )
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[sock])


@dataclass
class RunningHub:
    """A hub serving on a background thread; `url` is its /mcp endpoint's base."""

    app: Litestar
    server: uvicorn.Server
    thread: threading.Thread
    host: str
    port: int

    @property
    def base(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def stop(self, timeout_s: float = 10.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout_s)

    def __enter__(self) -> RunningHub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_in_thread(
    origin: Origin,
    settings: Settings | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    ingest: bool = True,
    fast: bool = True,
    app: Litestar | None = None,
    timeout_s: float = 15.0,
) -> RunningHub:
    """Start a real hub (uvicorn on a real socket) and return once it accepts requests.
    Port 0 picks a free one. Pass `app` to serve an app built (and extended) by the caller."""
    app = app or create_app(origin, settings, ingest=ingest)
    sock = bind(host, port)
    bound = sock.getsockname()[1]
    trusted = (settings or Settings.of(origin.settings)).hub_trusted_proxies
    server = uvicorn.Server(uvicorn_config(app, host, bound, fast=fast, trusted_proxies=trusted))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name=f"origin-hub-{bound}", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + timeout_s
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            raise RuntimeError(f"the hub did not start on {host}:{bound}")
        time.sleep(0.01)
    return RunningHub(app=app, server=server, thread=thread, host=host, port=bound)
