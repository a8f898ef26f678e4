"""`POST /sync/push` and `GET /sync/pull`: devices exchange changes with their hub (docs/sync.md).

The same edge as `/mcp`: the Host check, the bearer token and `X-Origin-Device` (`auth`), the
body limit, and every refusal in the hub's error shape with the request's id. A push is checked
whole and applied in one write transaction, so a malformed or hostile batch is refused (400) and
changes nothing; LMDB work runs in a worker thread, off the event loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, cast
from urllib.parse import parse_qs

import anyio
import orjson
from litestar import asgi
from litestar.handlers import ASGIRouteHandler
from litestar.types import Receive as LReceive
from litestar.types import Scope as LScope
from litestar.types import Send as LSend

from origin_store import Store
from origin_store.replication.sync import (
    BatchRefused,
    apply_items,
    note_device_push,
    prepare_items,
    pull_items,
)
from origin_store.replication.wire import PullAnswer, PushAnswer, parse_batch

from ..hostnames import bare_host
from ..runtime import Origin
from ..settings import Settings
from .auth import Grant, Refusal, authenticate
from .transport import (
    REQUEST_ID_KEY,
    Receive,
    Scope,
    Send,
    _headers,
    new_request_id,
    read_body,
    refuse,
    with_header,
)

#: Feed items a pull looks at, at most and by default.
PULL_MAX = 1000
PULL_DEFAULT = 500


def sync_route(
    origin: Origin,
    settings: Settings,
    names: frozenset[str],
    on_auth: Callable[[str], None] | None = None,
) -> ASGIRouteHandler:
    """The route the hub's app registers at /sync."""
    endpoint = SyncEndpoint(
        origin.store,
        names=names,
        max_body=settings.hub_max_body,
        timeout_s=settings.hub_request_timeout_ms / 1000,
        on_auth=on_auth,
    )

    @asgi("/sync", is_mount=True, copy_scope=True)
    async def sync(scope: LScope, receive: LReceive, send: LSend) -> None:
        await endpoint(cast(Scope, scope), cast(Receive, receive), cast(Send, send))

    return sync


class SyncEndpoint:
    def __init__(
        self,
        store: Store,
        *,
        names: frozenset[str],
        max_body: int,
        timeout_s: float,
        on_auth: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self.names = names
        self.max_body = max_body
        self.timeout_s = timeout_s
        self.on_auth = on_auth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request_id = scope.get(REQUEST_ID_KEY)
        if request_id is None:
            request_id = scope[REQUEST_ID_KEY] = new_request_id()
            send = with_header(send, b"x-request-id", request_id.encode())
        try:
            answer = await self._handle(scope, receive, request_id)
        except Refusal as refusal:
            await refuse(send, refusal, request_id)
            return
        body = orjson.dumps(answer)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    async def _handle(
        self, scope: Scope, receive: Receive, request_id: str
    ) -> PullAnswer | PushAnswer:
        started = time.monotonic()
        path = scope.get("path", "/").rstrip("/")
        method = scope["method"]
        allowed = {"/push": "POST", "/pull": "GET"}.get(path)
        if allowed is None:
            raise Refusal(
                404, "Not found: the hub syncs through POST /sync/push and GET /sync/pull."
            )
        if method != allowed:
            raise Refusal(405, f"{method} is not allowed here: use {allowed}.", {"allow": allowed})
        headers = _headers(scope)
        host = (headers.get("host") or [""])[0]
        if "*" not in self.names and bare_host(host.strip().lower()) not in self.names:
            raise Refusal(421, f"This hub does not answer to the host {host or '(none)'}.")
        grant = authenticate(self.store, headers, read_only_endpoint=False, request_id=request_id)
        if self.on_auth is not None:
            self.on_auth(grant.token)
        if path == "/pull":
            answer = await self._pull(scope)
            answer["device"] = grant.token
            return answer
        return await self._push(headers, receive, grant, started + self.timeout_s)

    async def _pull(self, scope: Scope) -> PullAnswer:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        after = _whole(query, "after", 0)
        limit = _whole(query, "limit", PULL_DEFAULT)
        if not 1 <= limit <= PULL_MAX:
            raise Refusal(400, f"limit must be between 1 and {PULL_MAX}.")
        items, last, more = await anyio.to_thread.run_sync(pull_items, self.store, after, limit)
        return {"items": items, "next": last, "more": more}

    async def _push(
        self, headers: dict[str, list[str]], receive: Receive, grant: Grant, deadline: float
    ) -> PushAnswer:
        if grant.scope == "read":
            raise Refusal(403, f"The token {grant.token} is read-only: it cannot push changes.")
        content_type = (headers.get("content-type") or [""])[0].split(";", 1)[0].strip().lower()
        if content_type != "application/json":
            raise Refusal(
                415, f"Content-Type must be application/json, not {content_type or 'missing'}."
            )
        declared = (headers.get("content-length") or [""])[0].strip()
        if declared.isascii() and declared.isdigit() and int(declared) > self.max_body:
            raise self._too_large()
        body = await self._read_body(receive, deadline)
        try:
            batch = parse_batch(body)
        except BatchRefused as error:
            raise Refusal(400, str(error)) from None
        items, last, partial = batch["items"], batch["last"], batch.get("partial", False)
        device = grant.token
        store = self.store

        def work(txn: Any) -> int:
            applied = apply_items(store, txn, items, device)
            if not partial:  # the device moves on only once the batch's last part is in
                note_device_push(store, txn, device, last, int(time.time() * 1000))
            return applied

        def apply() -> int:
            prepare_items(store, items)
            return store.write(work, durable=True)

        applied = await anyio.to_thread.run_sync(apply)
        return {"acknowledged": last, "applied": applied}

    def _too_large(self) -> Refusal:
        return Refusal(
            413,
            f"The request body is larger than the hub's limit of {self.max_body:,} bytes "
            "(ORIGIN_HUB_MAX_BODY): send smaller batches.",
        )

    async def _read_body(self, receive: Receive, deadline: float) -> bytes:
        late = Refusal(408, "The batch did not arrive in time (ORIGIN_HUB_REQUEST_TIMEOUT_MS).")
        return await read_body(receive, deadline, self.max_body, self._too_large, late)


def _whole(query: dict[str, list[str]], name: str, default: int) -> int:
    values = query.get(name)
    if not values:
        return default
    # ASCII digits only: str.isdigit() also passes "²" and other digits int() refuses.
    if len(values) > 1 or not (values[0].isascii() and values[0].isdigit()) or len(values[0]) > 18:
        raise Refusal(400, f"{name} must be one whole number.")
    return int(values[0])
