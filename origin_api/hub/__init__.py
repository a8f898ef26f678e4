"""`origin hub`: Origin's tools over stateless MCP Streamable HTTP, for clients without local logs.

`create_app(origin, settings)` builds the Litestar app; `start_in_thread` serves it on a real
loopback socket (tests, benchmarks); `serve` runs it in the foreground (`origin hub`).
"""

from .app import create_app
from .server import RunningHub, serve, start_in_thread

__all__ = ["RunningHub", "create_app", "serve", "start_in_thread"]
