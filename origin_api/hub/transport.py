"""`POST /mcp`: the HTTP conventions around the SDK's stateless Streamable HTTP transport.

The SDK speaks MCP; this module decides whether a request gets that far. Every check that
needs no body runs first (method, Host and Origin, content type, Accept, token), then the body
is read within the size and time limits, and only then does the SDK parse it. Each refusal is
an HTTP status with a small JSON body `{"error": {"status", "message", "requestId"}}`; tool
failures stay MCP tool errors (`isError`), shaped by `mcp.results`.

Header values reach us as bytes, which HTTP leaves opaque. `_headers` holds them as ISO-8859-1
text, one character per byte, so the bytes come back exactly where a header is text
(`auth.header_text` decodes those strictly as UTF-8).

Two SDK behaviours are fenced off here on purpose: in stateless JSON mode it answers GET with
an endless event stream (we answer 405), and it runs tools in worker threads that cannot be
interrupted (so the time limit answers the client on time and lets the thread finish unseen).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

import anyio
import orjson
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from origin_store import Store

from ..hostnames import bare_host
from .auth import SCOPE_KEY, Refusal, authenticate, shown

#: The ASGI interface as the specification gives it, and as the SDK's transport takes it (the
#: Starlette spelling): plain mappings, since the hub keeps its own keys in the scope. Litestar's
#: TypedDicts are the same objects; `app` and `edge` cast them where they hand them over.
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")
READ_ONLY_PATH = "/readonly"
#: The key under which a request's id lives in its ASGI scope (set by `edge.HubApp`).
REQUEST_ID_KEY = "origin.hub.request_id"
#: What the SDK is handed once the hub has checked the request's own headers.
_SDK_HEADERS = (
    (b"content-type", b"application/json"),
    (b"accept", b"application/json, text/event-stream"),
)
#: How specific a media range that matches application/json is (RFC 9110, section 12.5.1).
_JSON_RANGES = {"application/json": 2, "application/*": 1, "*/*": 0}


def new_request_id() -> str:
    """Unique, not secret: Mersenne Twister bits, because `os.urandom` is a system call that
    measured at a third of a millisecond per request here."""
    return f"req_{random.getrandbits(64):016x}"


def host_names(bound_host: str, extra: Iterable[str]) -> frozenset[str]:
    """The Host names the hub answers to: loopback, the address it binds (unless a wildcard) and
    the names it was told; `*` among them turns the check off (e.g. behind a proxy)."""
    names = {name.lower() for name in LOOPBACK_NAMES}
    if bound_host not in ("0.0.0.0", "::", ""):
        names.add(bare_host(bound_host.lower()))
    names.update(bare_host(name.strip().lower()) for name in extra if name.strip())
    return frozenset(names)


def security_settings(names: frozenset[str]) -> TransportSecuritySettings:
    """The same list for the SDK's own DNS-rebinding check, which stays on behind ours."""
    if "*" in names:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = [form for name in sorted(names) for form in (_bracketed(name), f"{_bracketed(name)}:*")]
    origins = [f"{scheme}://{host}" for scheme in ("http", "https") for host in hosts]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def _bracketed(name: str) -> str:
    return f"[{name}]" if ":" in name else name


class McpEndpoint:
    """The ASGI app mounted at /mcp (and /mcp/readonly)."""

    def __init__(
        self,
        manager: StreamableHTTPSessionManager,
        store: Store,
        *,
        names: frozenset[str],
        max_body: int,
        timeout_s: float,
        on_auth: Callable[[str], None] | None = None,
    ) -> None:
        self.manager = manager
        self.store = store
        self.names = names
        self.max_body = max_body
        self.timeout_s = timeout_s
        self.on_auth = on_auth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.monotonic()
        request_id = scope.get(REQUEST_ID_KEY)
        if request_id is None:  # served without the edge in front: name the request here
            request_id = scope[REQUEST_ID_KEY] = new_request_id()
            send = with_header(send, b"x-request-id", request_id.encode())
        try:
            await self._handle(scope, receive, send, request_id, started)
        except Refusal as refusal:
            await refuse(send, refusal, request_id)

    async def _handle(
        self, scope: Scope, receive: Receive, send: Send, request_id: str, started: float
    ) -> None:
        if scope["type"] != "http":
            raise Refusal(404, "Not an HTTP request.")
        path = scope.get("path", "/").rstrip("/")
        if path not in ("", READ_ONLY_PATH):
            raise Refusal(404, "Not found: the hub serves POST /mcp and POST /mcp/readonly.")
        if scope["method"] != "POST":
            raise Refusal(
                405,
                f"{scope['method']} is not allowed: the hub takes MCP messages as POST only "
                "(stateless JSON, no event streams).",
                {"allow": "POST"},
            )
        headers = _headers(scope)
        self._check_host(headers)
        content_type = (_first(headers, "content-type") or "").split(";", 1)[0].strip().lower()
        if content_type != "application/json":
            raise Refusal(
                415, f"Content-Type must be application/json, not {content_type or 'missing'}."
            )
        if not accepts_json(headers.get("accept", [])):
            raise Refusal(
                406,
                f"Accept {shown(', '.join(headers['accept']).encode('latin-1'))} excludes application/json, the only "
                "type the hub answers with; send Accept: application/json, text/event-stream (or none).",
            )
        grant = authenticate(
            self.store, headers, read_only_endpoint=path == READ_ONLY_PATH, request_id=request_id
        )
        if self.on_auth is not None:
            self.on_auth(grant.token)
        declared = _first(headers, "content-length")
        if (
            declared is not None
            and declared.strip().isascii()
            and declared.strip().isdigit()
            and int(declared) > self.max_body
        ):
            raise self._too_large()
        deadline = started + self.timeout_s
        body = await self._read_body(receive, deadline)
        scope[SCOPE_KEY] = grant
        # Both were checked above; the SDK compares the content type case-sensitively and wants an
        # Accept header, so it gets the spellings it expects.
        kept = [
            (k, v) for k, v in scope["headers"] if k.lower() not in (b"content-type", b"accept")
        ]
        scope["headers"] = [*kept, *_SDK_HEADERS]
        await self._run(scope, receive, send, body, deadline, request_id)

    def _check_host(self, headers: dict[str, list[str]]) -> None:
        if "*" in self.names:
            return
        host = _first(headers, "host") or ""
        if bare_host(host.strip().lower()) not in self.names:
            raise Refusal(
                421,
                f"This hub does not answer to the host {host or '(none)'}; start it with "
                "--allowed-host NAME to add one.",
            )
        origin = _first(headers, "origin")
        if origin is not None:
            name = origin.strip().lower().split("://", 1)[-1].split("/", 1)[0]
            if bare_host(name) not in self.names:
                raise Refusal(403, f"Requests from the web origin {origin} are not allowed.")

    def _too_large(self) -> Refusal:
        return Refusal(
            413,
            f"The request body is larger than the hub's limit of {self.max_body:,} bytes "
            "(ORIGIN_HUB_MAX_BODY).",
        )

    async def _read_body(self, receive: Receive, deadline: float) -> bytes:
        late = Refusal(
            408,
            f"The request body did not arrive within {self.timeout_s:g} s "
            "(ORIGIN_HUB_REQUEST_TIMEOUT_MS).",
            {"connection": "close"},
        )
        return await read_body(receive, deadline, self.max_body, self._too_large, late)

    async def _run(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        body: bytes,
        deadline: float,
        request_id: str,
    ) -> None:
        """Let the SDK answer, unless the time limit passes first: then the client gets a 504 at
        once and whatever the SDK still sends is dropped."""
        state = {"started": False, "cut": False}
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        async def guarded(message: Message) -> None:
            if state["cut"]:
                return
            if message["type"] == "http.response.start":
                state["started"] = True
            await send(message)

        finished = anyio.Event()

        async def serve() -> None:
            try:
                await self.manager.handle_request(scope, replay, guarded)
            finally:
                finished.set()

        async with anyio.create_task_group() as group:
            group.start_soon(serve)
            with anyio.move_on_after(max(0.0, deadline - time.monotonic())):
                await finished.wait()
            if not finished.is_set():
                if not state["started"]:
                    state["cut"] = True
                    await refuse(
                        send,
                        Refusal(
                            504,
                            f"The request took longer than the hub's limit of "
                            f"{self.timeout_s:g} s (ORIGIN_HUB_REQUEST_TIMEOUT_MS) and was "
                            "cut off; what it was doing may still complete.",
                            {"connection": "close"},
                        ),
                        request_id,
                    )
                group.cancel_scope.cancel()


def error_body(status: int, message: str, request_id: str) -> bytes:
    """The hub's error shape, one definition for the guard and for Litestar's own refusals."""
    return orjson.dumps({"error": {"status": status, "message": message, "requestId": request_id}})


async def refuse(send: Send, refusal: Refusal, request_id: str) -> None:
    body = error_body(refusal.status, refusal.message, request_id)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in refusal.headers.items()]
    await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def accepts_json(values: list[str]) -> bool:
    """Whether Accept headers allow application/json. No header (or only empty ones) excludes
    nothing; otherwise the most specific media range that matches decides, and `q=0` means no.
    A range with an unreadable `q` counts as absent."""
    best, weight = -1, 0.0
    for value in values:
        for item in value.split(","):
            media, *params = (part.strip() for part in item.split(";"))
            specificity = _JSON_RANGES.get(media.lower())
            if specificity is None:
                continue
            q = 1.0
            for param in params:
                key, _, number = param.partition("=")
                if key.strip().lower() == "q":
                    try:
                        q = float(number.strip())
                    except ValueError:
                        q = math.nan
            if specificity > best and not math.isnan(q):
                best, weight = specificity, q
    if best < 0:
        return not any(item.strip() for value in values for item in value.split(","))
    return weight > 0


def _headers(scope: Scope) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for name, value in scope.get("headers", []):
        found.setdefault(name.decode("latin-1").lower(), []).append(value.decode("latin-1"))
    return found


def _first(headers: dict[str, list[str]], name: str) -> str | None:
    values = headers.get(name)
    return values[0] if values else None


def with_header(send: Send, name: bytes, value: bytes) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), (name, value)]}
        await send(message)

    return wrapped


async def read_body(
    receive: Receive,
    deadline: float,
    max_body: int,
    too_large: Callable[[], Refusal],
    late: Refusal,
) -> bytes:
    """A request's body, read as it arrives: refused (`too_large()`) as soon as it passes
    `max_body`, so a huge body is never held, and `late` when it is not whole by `deadline`."""
    chunks: list[bytes] = []
    size = 0
    with anyio.move_on_after(max(0.0, deadline - time.monotonic())) as timer:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise Refusal(400, "The client went away before sending the whole body.")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > max_body:
                raise too_large()
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
    if timer.cancelled_caught:
        raise late
    return b"".join(chunks)
