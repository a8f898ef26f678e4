"""A real hub for tests: an Origin over copies of the fixture logs, tokens, and uvicorn on a free
loopback port in a background thread; plus plain-HTTP and SDK clients to talk to it."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from helpers import fixture_env
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_client import tool_json  # noqa: F401 - one definition, re-exported for the hub tests

from origin_api.hub import create_app, start_in_thread
from origin_api.runtime import Origin
from origin_store import Settings
from origin_store.replication import tokens as store_tokens

PROMPT_ID = "claude-code:a0000001-0000-4000-8000-000000000001"
SESSION = "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10"
SESSION_LOG = "projects/-home-dev-demo-app/7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10.jsonl"
READ_TOOLS = {"search", "timeline", "get", "sources"}
ALL_TOOLS = READ_TOOLS | {"remember", "correct", "forget", "ingest"}
JSON_ACCEPT = b"application/json, text/event-stream"
#: The admin UI's password in tests that sign in to a real hub's pages.
UI_PASSWORD = "correct horse battery"
_CSRF = re.compile(r'name="_csrf" value="([^"]+)"')


def csrf_in(html: str) -> str:
    """The CSRF token an admin UI page's form carries."""
    found = _CSRF.search(html)
    assert found is not None, html[:500]
    return found.group(1)


@dataclass
class RawResponse:
    """An answer to `Hub.raw`: the status, the headers (names in lower case), the body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def error(self) -> dict:
        """The hub's `{"error": …}` body, checked against the response's own request id."""
        request_id = self.headers["x-request-id"]
        assert request_id.startswith("req_"), self.headers
        assert self.headers["content-type"].startswith("application/json"), self.headers
        error = self.json()["error"]
        assert error["status"] == self.status and error["requestId"] == request_id, (
            self.status,
            error,
        )
        return error


@dataclass
class Hub:
    """A hub to talk to at `base`; `origin` is its open Origin when it runs in this process."""

    base: str
    port: int
    env: dict[str, str]
    origin: Origin | None = None
    tokens: dict[str, str] = field(default_factory=dict)
    http: httpx2.Client = field(default_factory=lambda: httpx2.Client(timeout=httpx2.Timeout(10.0)))
    _ids: int = 0

    @property
    def url(self) -> str:
        return self.base + "/mcp"

    def token(self, name: str, scope: str = "write") -> str:
        assert self.origin is not None
        self.tokens[name] = store_tokens.create(self.origin.store, name, scope)
        return self.tokens[name]

    def headers(self, token: str | None = "laptop", **extra: str) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if token is not None:
            headers["Authorization"] = f"Bearer {self.tokens.get(token, token)}"
        headers.update({k.replace("_", "-"): v for k, v in extra.items()})
        return headers

    def post(
        self,
        body: Any,
        *,
        token: str | None = "laptop",
        path: str = "/mcp",
        headers: dict[str, str] | None = None,
        **extra: str,
    ) -> httpx2.Response:
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent = self.headers(token, **extra) if headers is None else headers
        return self.http.post(self.base + path, content=content, headers=sent)

    def raw(
        self,
        body: Any = b"",
        *,
        method: str = "POST",
        path: str = "/mcp",
        host: bytes | None = b"127.0.0.1",
        token: str | None = "laptop",
        content_type: bytes | None = b"application/json",
        accept: bytes | None = JSON_ACCEPT,
        extra: Iterable[tuple[bytes, bytes]] = (),
    ) -> RawResponse:
        """One request with header bytes exactly as given (HTTP clients re-encode or refuse what
        these tests send on purpose); None leaves a header out."""
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers: list[tuple[bytes, bytes]] = []
        if host is not None:
            headers.append((b"Host", host))
        if content_type is not None:
            headers.append((b"Content-Type", content_type))
        if accept is not None:
            headers.append((b"Accept", accept))
        if token is not None:
            headers.append((b"Authorization", b"Bearer " + self.tokens.get(token, token).encode()))
        headers += extra
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for name, value in headers:
                connection.putheader(name, value)
            connection.putheader(b"Content-Length", str(len(content)).encode())
            connection.endheaders(content)
            response = connection.getresponse()
            answer = response.read()
            return RawResponse(
                response.status, {k.lower(): v for k, v in response.getheaders()}, answer
            )
        finally:
            connection.close()

    def raw_call(self, tool: str, args: dict, **kw: Any) -> tuple[RawResponse, dict | None]:
        """`tools/call` through `raw`: the response and, if it is a 200, the tool's result."""
        self._ids += 1
        response = self.raw(
            {
                "jsonrpc": "2.0",
                "id": self._ids,
                "method": "tools/call",
                "params": {"name": tool, "arguments": args},
            },
            **kw,
        )
        return response, response.json()["result"] if response.status == 200 else None

    def rpc(
        self, method: str, params: dict | None = None, **kw: Any
    ) -> tuple[httpx2.Response, dict]:
        self._ids += 1
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": self._ids, "method": method}
        if params is not None:
            body["params"] = params
        response = self.post(body, **kw)
        assert response.status_code == 200, response.text
        payload = response.json()
        assert payload["id"] == self._ids
        return response, payload

    def call(self, tool: str, args: dict, **kw: Any) -> dict:
        """A tools/call result (content, isError, structuredContent) with the response's request id."""
        response, payload = self.rpc("tools/call", {"name": tool, "arguments": args}, **kw)
        result = payload["result"]
        result["_request_id"] = response.headers["x-request-id"]
        return result

    def ok(self, tool: str, args: dict, **kw: Any) -> Any:
        result = self.call(tool, args, **kw)
        assert result["isError"] is False, result["content"][0]["text"]
        return json.loads(result["content"][0]["text"])

    def listed(self, **kw: Any) -> dict[str, dict]:
        _, payload = self.rpc("tools/list", {}, **kw)
        return {tool["name"]: tool for tool in payload["result"]["tools"]}


@contextmanager
def running_hub(
    tmp: Path,
    *,
    ingest: bool = True,
    fast: bool = True,
    routes: Iterable[Any] = (),
    logs: dict[str, str] | None = None,
    **settings: str,
) -> Iterator[Hub]:
    """A hub over fresh copies of the fixture logs (or the environment `logs` names); settings
    are ORIGIN_* overrides. `fast=False` serves it with uvicorn's pure-Python stack (h11);
    `routes` are added to the hub's app."""
    logs = logs if logs is not None else fixture_env(tmp, copy=True)
    env = {**logs, "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0", **settings}
    origin = Origin.open(Settings.from_env(env))
    try:
        app = create_app(origin, ingest=ingest)
        for route in routes:
            app.register(route)
        running = start_in_thread(origin, app=app, fast=fast)
        hub = Hub(base=running.base, port=running.port, env=env, origin=origin)
        hub.token("laptop", "write")
        hub.token("reader", "read")
        try:
            yield hub
        finally:
            hub.http.close()
            running.stop()
    finally:
        origin.close()


@asynccontextmanager
async def sdk_client(
    hub: Hub, token: str = "laptop", *, mode: str = "auto", path: str = "/mcp", **headers: str
) -> AsyncIterator[Client]:
    """The official SDK's Streamable HTTP client, as a cloud agent would connect."""
    sent = {
        "Authorization": f"Bearer {hub.tokens.get(token, token)}",
        **{k.replace("_", "-"): v for k, v in headers.items()},
    }
    http = httpx2.AsyncClient(headers=sent, timeout=httpx2.Timeout(10, read=30))
    async with (
        http,
        Client(
            streamable_http_client(hub.base + path, http_client=http, terminate_on_close=False),
            read_timeout_seconds=30,
            mode=mode,
        ) as client,
    ):
        yield client
