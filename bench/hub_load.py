"""The hub under load: concurrent clients calling `search` over MCP, and the same searches
through a plain Litestar handler in the same app, so the ratio shows what MCP itself costs.

The hub runs in its own process (as `origin hub` would) on a free loopback port, over an existing
ORIGIN_HOME; the clients are asyncio tasks in this process, each on its own keep-alive
connection, speaking raw HTTP/1.1 so that the client library's own cost stays out of the figures.
Both endpoints check the same bearer token and run the same `service.call` in a worker thread:
the difference is the SDK's JSON-RPC and Streamable HTTP handling, and our transport guards.

    python -m bench.hub_load <origin_home> [--seconds 10] [--clients 16] [--asyncio]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from litestar import Request, Response, post

from .stats import percentile

if TYPE_CHECKING:
    from litestar.handlers import HTTPRouteHandler

    from origin_api.runtime import Origin
    from origin_api.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
TOKEN_NAME = "bench-hub-load"
PLAIN_PATH = "/bench/search"


def load_run(
    origin_home: Path | str,
    queries: Sequence[Any],
    clients: int = 16,
    seconds: float = 30,
    *,
    fast: bool = True,
    warmup_s: float | None = None,
) -> dict:
    """Start a hub over `origin_home`, run `clients` concurrent clients for `seconds` against
    MCP `tools/call search` and then against the plain handler; report requests/s, p50/p99 (ms),
    errors (which must be 0) and the ratios. `queries` are bench Query objects, dicts of search
    arguments, or plain strings. `fast=False` serves with asyncio + h11 instead of uvloop +
    httptools."""
    args = [_search_args(q) for q in queries]
    if not args:
        raise ValueError("load_run needs at least one query")
    warmup = min(3.0, seconds / 10) if warmup_s is None else warmup_s
    server = _HubProcess(Path(origin_home), fast=fast)
    try:
        mcp = asyncio.run(
            _drive(server.port, server.token, args, clients, seconds, warmup, mcp=True)
        )
        plain = asyncio.run(
            _drive(server.port, server.token, args, clients, seconds, warmup, mcp=False)
        )
    finally:
        server.stop()
    return {
        "clients": clients,
        "seconds": seconds,
        "queries": len(args),
        "server": "uvicorn (uvloop, httptools)" if fast else "uvicorn (asyncio, h11)",
        "mcp": mcp,
        "plain": plain,
        "mcp_overhead": {
            "throughput_ratio": round(plain["rps"] / mcp["rps"], 2) if mcp["rps"] else None,
            "p50_ratio": round(mcp["p50_ms"] / plain["p50_ms"], 2) if plain["p50_ms"] else None,
            "p99_ratio": round(mcp["p99_ms"] / plain["p99_ms"], 2) if plain["p99_ms"] else None,
        },
    }


def _search_args(query: Any) -> dict:
    if isinstance(query, str):
        return {"query": query}
    if isinstance(query, dict):
        return dict(query)
    from .origin_run import search_args

    return search_args(query)


# -- the server process ----------------------------------------------------------------------


class _HubProcess:
    def __init__(self, home: Path, *, fast: bool) -> None:
        command = [sys.executable, "-m", "bench.hub_load", "--serve", str(home)] + (
            [] if fast else ["--asyncio"]
        )
        # The hub logs a line per request on stderr: a pipe nobody drains would fill and stop
        # it mid-run, so stderr goes to a file, read only if the hub fails to start.
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
        self.proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=self.log)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.log.seek(0)
            error = self.log.read().decode(errors="replace")
            raise RuntimeError(f"the bench hub did not start: {error[-2000:]}")
        ready = json.loads(line)
        self.port: int = ready["port"]
        self.token: str = ready["token"]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(
                signal.SIGINT
            )  # uvicorn shuts down gracefully; the child then revokes its token
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def _serve(home: Path, fast: bool) -> None:
    """The child: open the home read-mostly (no log ingest: the figures are about serving),
    add the plain route to the hub's own app, print the port and a token, serve until stopped."""
    import uvicorn

    from origin_api.hub import create_app
    from origin_api.hub.server import uvicorn_config
    from origin_store.replication import tokens as store_tokens

    origin, settings = _open_served_origin(home)
    secret = _fresh_token(origin)
    app = create_app(origin, settings, ingest=False)
    app.register(_plain_search_handler(origin))
    sock, port = _listening_socket()
    server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", port, fast=fast))
    print(json.dumps({"port": port, "token": secret}), flush=True)
    try:
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=[sock])
    finally:
        store_tokens.revoke(origin.store, TOKEN_NAME)
        origin.close()


def _served_env(home: Path) -> dict[str, str]:
    """The hub's environment: `home` as ORIGIN_HOME, but HOME and the agents' config dirs
    pointed at an empty folder and the watcher and search-time ingest off, so no log ingest
    competes with the searches being measured."""
    empty = home / "bench-no-logs"
    return {
        **os.environ,
        "ORIGIN_HOME": str(home),
        "HOME": str(empty),
        "CLAUDE_CONFIG_DIR": str(empty / "claude"),
        "CODEX_HOME": str(empty / "codex"),
        "ORIGIN_WATCH_INTERVAL_MS": "0",
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": str(7 * 24 * 3600 * 1000),
        "ORIGIN_HUB_REQUEST_TIMEOUT_MS": "120000",
    }


def _open_served_origin(home: Path) -> tuple[Origin, Settings]:
    """Open the already built home with that environment."""
    from origin_api.runtime import Origin
    from origin_api.settings import Settings

    settings = Settings.from_env(_served_env(home))
    origin = Origin.open(settings)
    origin.last_ingest = time.monotonic()  # nothing to ingest: the home is already built
    return origin, settings


def _fresh_token(origin: Origin) -> str:
    """A new read token under TOKEN_NAME, revoking one left active by an earlier run, so both
    endpoints check a real bearer token as a client's would be."""
    from origin_store.replication import tokens as store_tokens

    existing = store_tokens.get(origin.store, TOKEN_NAME)
    if existing is not None and existing.active:
        store_tokens.revoke(origin.store, TOKEN_NAME)
    return store_tokens.create(origin.store, TOKEN_NAME, "read")


def _plain_search_handler(origin: Origin) -> HTTPRouteHandler:
    """The plain Litestar route: the same token check and the same `service.call` in a worker
    thread as MCP's search, without JSON-RPC, so the ratio isolates what MCP costs."""
    from origin_api.service import Caller, call
    from origin_store.replication import tokens as store_tokens

    caller = Caller("bench", "")

    @post(
        PLAIN_PATH,
        sync_to_thread=True,
        status_code=200,
        signature_namespace={"Request": Request, "Response": Response},
    )
    def plain_search(request: Request, data: dict[str, Any]) -> Response:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or store_tokens.verify(origin.store, given.strip()) is None:
            return Response(
                content=b'{"error":"unauthorized"}', status_code=401, media_type="application/json"
            )
        return Response(
            content=orjson.dumps(call(origin, "search", data, caller)),
            media_type="application/json",
        )

    return plain_search


def _listening_socket() -> tuple[socket.socket, int]:
    """A socket already listening on a free loopback port, so the port can be announced before
    uvicorn starts: connections wait in the backlog until it does."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)  # connections wait in the backlog until uvicorn has started
    return sock, sock.getsockname()[1]


# -- the clients -----------------------------------------------------------------------------


@dataclass
class _Tally:
    """What the clients of one run share: the phase flags the driver flips, and the requests
    that completed while measuring (their latencies in ms and any problems)."""

    measuring: bool = False
    stop: bool = False
    requests: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


async def _drive(
    port: int,
    token: str,
    args: list[dict],
    clients: int,
    seconds: float,
    warmup: float,
    *,
    mcp: bool,
) -> dict:
    """One run against one endpoint: `clients` connections warm up for `warmup` seconds, are
    measured for `seconds`, then stop; only requests finished inside the window count."""
    bodies = [_body(a, i, mcp) for i, a in enumerate(args)]
    head = _request_head(port, token, mcp)
    tally = _Tally()
    tasks = [
        asyncio.create_task(_client(n, port, head, bodies, mcp, tally)) for n in range(clients)
    ]
    await asyncio.sleep(warmup)
    tally.measuring = True
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    tally.stop = True
    measured = time.perf_counter() - started
    await asyncio.gather(*tasks)
    return _run_figures(tally, measured)


def _request_head(port: int, token: str, mcp: bool) -> bytes:
    """The request line and fixed headers, built once so that each request costs the client
    only a Content-Length and a write."""
    path = b"/mcp" if mcp else PLAIN_PATH.encode()
    return (
        b"POST "
        + path
        + b" HTTP/1.1\r\nHost: 127.0.0.1:"
        + str(port).encode()
        + b"\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nAuthorization: Bearer "
        + token.encode()
        + b"\r\n"
    )


async def _client(
    n: int, port: int, head: bytes, bodies: list[bytes], mcp: bool, tally: _Tally
) -> None:
    """One keep-alive connection sending requests back to back, starting at its own offset in
    the query cycle so the clients do not all ask the same thing at once."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for body in itertools.islice(itertools.cycle(bodies), n * 7 % len(bodies), None):
            if tally.stop:
                return
            started = time.perf_counter()
            writer.write(head + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            status, payload = await _response(reader)
            elapsed = (time.perf_counter() - started) * 1000
            problem = _problem(status, payload, mcp)
            if tally.measuring and not tally.stop:
                tally.latencies.append(elapsed)
                tally.requests += 1
                if problem:
                    tally.errors.append(problem)
    finally:
        writer.close()


def _run_figures(tally: _Tally, measured: float) -> dict:
    """Requests/s over the measured window, p50/p99 latency (ms), and the error count with the
    first few errors, so a failing run shows why."""
    latencies, errors = tally.latencies, tally.errors
    return {
        "requests": tally.requests,
        "rps": round(tally.requests / measured, 1),
        "p50_ms": round(percentile(latencies, 50), 2) if latencies else None,
        "p99_ms": round(percentile(latencies, 99), 2) if latencies else None,
        "errors": len(errors),
        "first_errors": errors[:3],
    }


def _body(args: dict, i: int, mcp: bool) -> bytes:
    if not mcp:
        return orjson.dumps(args)
    return orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": i,
            "method": "tools/call",
            "params": {"name": "search", "arguments": args},
        }
    )


async def _response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    status_line = await reader.readline()
    status = int(status_line.split(b" ", 2)[1])
    length, chunked = None, False
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
    if chunked:
        parts = []
        while True:
            size = int((await reader.readline()).split(b";")[0], 16)
            if size == 0:
                await reader.readline()
                return status, b"".join(parts)
            parts.append(await reader.readexactly(size))
            await reader.readline()
    return status, await reader.readexactly(length or 0)


def _problem(status: int, payload: bytes, mcp: bool) -> str | None:
    if status != 200:
        return f"HTTP {status}: {payload[:200]!r}"
    try:
        reply = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return f"not JSON: {payload[:200]!r}"
    if not mcp:
        return (
            None
            if isinstance(reply, dict) and "events" in reply
            else f"unexpected: {payload[:200]!r}"
        )
    if "error" in reply:
        return f"JSON-RPC error: {reply['error']}"
    if reply.get("result", {}).get("isError"):
        return f"tool error: {reply['result']['content'][0]['text'][:200]}"
    return None


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.hub_load",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "home", type=Path, help="an ORIGIN_HOME that is already ingested and indexed"
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--asyncio",
        action="store_true",
        help="serve with asyncio + h11 instead of uvloop + httptools",
    )
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument(
        "--query", action="append", help="a query (repeatable); default: a few common words"
    )
    options = parser.parse_args()
    if options.serve:
        _serve(options.home, fast=not options.asyncio)
        return
    queries = options.query or [
        "error",
        "test",
        "config file",
        "timeout",
        "build",
        "request handler",
    ]
    result = load_run(
        options.home,
        queries,
        clients=options.clients,
        seconds=options.seconds,
        fast=not options.asyncio,
    )
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
