"""`origin ui`: the admin pages alone, on a device, on loopback.

The same router the hub mounts, in an app of its own with the hub's edge (request ids, the
request log, Host syntax): only `/ui/` and `/` are served, no `/mcp`. Reads and writes go
through the device's `service.call` merged with its hub, as `origin mcp` answers. The address
is taken first, as `origin hub` takes it (`hub.server.bind`), so a port in use is one line.
"""

from __future__ import annotations

import contextlib
import socket

import uvicorn
from litestar import Litestar

from ..hub.edge import HubApp
from ..hub.server import uvicorn_config
from ..hub.transport import host_names
from ..runtime import Origin
from ..settings import Settings
from .app import create_router, root
from .core import Ui
from .errors import not_found

#: Where `origin ui` listens unless told: beside the hub's 8765.
DEFAULT_PORT = 8766


def create_ui_app(origin: Origin, host: str = "127.0.0.1", *, merged: bool = True) -> Litestar:
    """The admin UI alone over an open Origin, answering to loopback and the bound address."""
    names = host_names(host, ())
    return HubApp(
        hub_names=names,
        pages=not_found,
        route_handlers=[create_router(Ui(origin, merged=merged), names), root],
        openapi_config=None,
        logging_config=None,
    )


def serve_ui(origin: Origin, sock: socket.socket) -> None:
    """Serve on `sock` (from `hub.server.bind`) until interrupted."""
    host, port = sock.getsockname()[:2]
    app = create_ui_app(origin, host)
    trusted = Settings.of(origin.settings).hub_trusted_proxies
    server = uvicorn.Server(
        uvicorn_config(app, host, port, log_level="info", trusted_proxies=trusted)
    )
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[sock])
