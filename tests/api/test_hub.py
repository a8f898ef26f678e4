"""`origin hub` as its clients meet it: a real uvicorn on 127.0.0.1, plain HTTP and the MCP SDK's
Streamable HTTP client, tokens in a real store, the fixture logs ingested for real."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import orjson
import pytest
from helpers import FIXTURES, fixture_env
from hub_support import (
    ALL_TOOLS,
    PROMPT_ID,
    READ_TOOLS,
    SESSION,
    SESSION_LOG,
    Hub,
    running_hub,
    sdk_client,
    tool_json,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from origin_api.admin import restore
from origin_store.reader import get_event
from origin_store.replication import tokens as store_tokens

ORIGIN = str(Path(sys.executable).with_name("origin"))
QUOTE = "cover it with a vitest test"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Hub:
    assert FIXTURES.is_dir(), f"the sample logs are missing at {FIXTURES}"
    with running_hub(
        tmp_path_factory.mktemp("hub"),
        ORIGIN_HUB_MAX_BODY="65536",
        ORIGIN_HUB_ALLOWED_HOSTS="hub.lan",
    ) as running:
        yield running


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Hub:
    """A hub with a rate limit and a short time limit."""
    with running_hub(
        tmp_path_factory.mktemp("limited"),
        ingest=False,
        ORIGIN_HUB_RATE_LIMIT="3/min",
        ORIGIN_HUB_REQUEST_TIMEOUT_MS="1500",
    ) as running:
        yield running


def _error(result: dict) -> tuple[str, dict]:
    """An error result's text and structured data, checked against the hub's conventions."""
    assert result["isError"] is True
    text = result["content"][0]["text"]
    data = result["structuredContent"]["data"]
    request_id = result["_request_id"]
    assert request_id.startswith("req_")
    assert text == f"{data['message']} (request {request_id})"
    assert data["requestId"] == request_id
    return data["message"], data


# -- every tool, both clients ----------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_every_tool_through_the_sdk_client(hub: Hub, mode: str):
    async with sdk_client(hub, mode=mode, X_Origin_Client="claude-code") as client:
        assert client.protocol_version == {"auto": "2026-07-28", "legacy": "2025-11-25"}[mode]
        assert "remember" in (client.instructions or "")
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == ALL_TOOLS
        for name in READ_TOOLS:
            assert tools[name].annotations.read_only_hint is True
        assert tools["forget"].annotations.destructive_hint is True
        assert tools["forget"].meta == {"origin/requiresConfirmation": True}
        assert tools["search"].input_schema["properties"]["limit"]["maximum"] == 100

        found = await tool_json(client, "search", {"query": "token bucket"})
        assert any(e["id"] == PROMPT_ID for e in found["events"])
        sessions = await tool_json(
            client, "timeline", {"since": "3650d", "project": "demo-app", "limit": 2}
        )
        assert len(sessions["sessions"]) == 2
        session = await tool_json(client, "timeline", {"session": SESSION, "include_tools": True})
        assert session["session"]["title"] == "rate-limiter" and len(session["events"]) > 10
        assert (await tool_json(client, "get", {"id": PROMPT_ID}))[
            "git_branch"
        ] == "feat/rate-limit"
        [source] = await tool_json(client, "sources", {"id": PROMPT_ID})
        assert json.loads(source["raw"])["uuid"] == PROMPT_ID.split(":", 1)[1]

        entry = (
            await tool_json(
                client,
                "remember",
                {
                    "kind": "cognition",
                    "text": f"Prefers vitest ({mode}).",
                    "confidence": 0.7,
                    "sources": [{"quote": QUOTE}],
                },
            )
        )["entry"]
        assert entry["author"] == "claude-code@laptop"
        newer = (
            await tool_json(
                client,
                "correct",
                {"id": entry["id"], "text": f"Prefers vitest over jest ({mode})."},
            )
        )["entry"]
        got = await tool_json(client, "get", {"id": newer["id"]})
        assert [h["id"] for h in got["history"]] == [entry["id"], newer["id"]]
        gone = await tool_json(client, "forget", {"id": newer["id"], "reason": "the user asked"})
        assert set(gone["forgotten_entries"]) == {entry["id"], newer["id"]}
        result = await client.call_tool("get", {"id": newer["id"]})
        assert result.is_error and result.content[0].text.startswith(
            f"{newer['id']} has been forgotten. (request req_"
        )
        assert result.structured_content["data"]["category"] == "not_found"
    restore(hub.origin, gone["tombstone"])  # the cited events are shared with the other tests


def test_every_tool_over_plain_http(hub: Hub):
    response, init = hub.rpc(
        "initialize",
        {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "curl", "version": "1"},
        },
    )
    assert response.headers["content-type"].startswith("application/json")
    assert "mcp-session-id" not in response.headers  # stateless
    assert (
        init["result"]["serverInfo"]["name"] == "origin"
        and "remember" in init["result"]["instructions"]
    )
    assert hub.post({"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
    listed = hub.listed()
    assert set(listed) == ALL_TOOLS
    assert listed["forget"]["annotations"]["destructiveHint"] is True
    assert listed["forget"]["_meta"] == {"origin/requiresConfirmation": True}
    assert all(listed[name]["annotations"]["readOnlyHint"] for name in READ_TOOLS)

    assert any(e["id"] == PROMPT_ID for e in hub.ok("search", {"query": "token bucket"})["events"])
    assert hub.ok("timeline", {"since": "3650d", "limit": 1})["sessions"]
    assert hub.ok("timeline", {"session": SESSION})["session"]["session"] == SESSION
    assert hub.ok("get", {"id": PROMPT_ID})["id"] == PROMPT_ID
    assert hub.ok("sources", {"id": PROMPT_ID})[0]["event_id"] == PROMPT_ID
    entry = hub.ok(
        "remember",
        {
            "kind": "memory",
            "text": "Use a token bucket (plain).",
            "confidence": 0.9,
            "sources": [{"event_id": PROMPT_ID}],
        },
    )["entry"]
    newer = hub.ok(
        "correct", {"id": entry["id"], "text": "Use a token bucket per client (plain)."}
    )["entry"]
    assert newer["supersedes"] == entry["id"]
    gone = hub.ok("forget", {"id": newer["id"], "reason": "the user asked"})
    assert gone["tombstone"].startswith("tmb_")
    restore(hub.origin, gone["tombstone"])


def test_authorship_follows_the_token_and_x_origin_client(hub: Hub):
    args = {
        "kind": "knowledge",
        "text": "The limiter is a token bucket.",
        "confidence": 0.8,
        "sources": [{"event_id": PROMPT_ID}],
    }
    assert hub.ok("remember", args, X_Origin_Client="codex")["entry"]["author"] == "codex@laptop"
    codex = hub.ok("remember", args, X_Origin_Client="codex-mcp-client")["entry"]
    assert codex["author"] == "codex@laptop"  # Codex's MCP client name is the agent's
    assert hub.ok("remember", args)["entry"]["author"] == "laptop"
    assert hub.ok("remember", args, X_Origin_Client="")["entry"]["author"] == "laptop"
    assert (
        hub.post(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, X_Origin_Client="a@b"
        ).status_code
        == 400
    )


@pytest.mark.anyio
async def test_sdk_client_without_x_origin_client_writes_as_the_token(hub: Hub):
    async with sdk_client(hub, mode="legacy") as client:
        entry = (
            await tool_json(
                client,
                "remember",
                {
                    "kind": "knowledge",
                    "text": "Author is the token.",
                    "confidence": 0.5,
                    "sources": [{"event_id": PROMPT_ID}],
                },
            )
        )["entry"]
    assert entry["author"] == "laptop"


# -- status codes ----------------------------------------------------------------------------


def test_401_for_missing_wrong_and_revoked_tokens(hub: Hub):
    """A token sent and refused is `invalid_token` in the challenge (RFC 6750, section 3), so a
    client shows a token error rather than starting OAuth; no credentials, no error code."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    secret = hub.token("temporary")
    bare = 'Bearer realm="origin"'
    invalid = 'Bearer realm="origin", error="invalid_token"'
    cases = {
        "missing": (hub.headers(None), bare),
        "not bearer": ({**hub.headers(None), "Authorization": f"Basic {secret}"}, bare),
        "empty": ({**hub.headers(None), "Authorization": "Bearer"}, bare),
        "unknown": (hub.headers("ogn_" + "A" * 43), invalid),
        "altered": (hub.headers(secret[:-1] + ("A" if secret[-1] != "A" else "B")), invalid),
        "no prefix": (hub.headers(secret[4:]), invalid),
    }
    for label, (headers, challenge) in cases.items():
        response = hub.post(body, headers=headers)
        assert response.status_code == 401, label
        assert response.headers["www-authenticate"] == challenge, label
        error = response.json()["error"]
        assert error["status"] == 401 and error["requestId"] == response.headers["x-request-id"]
    assert hub.post(body, token="temporary").status_code == 200
    store_tokens.revoke(hub.origin.store, "temporary")
    response = hub.post(body, token="temporary")
    assert response.status_code == 401 and "revoked" in response.json()["error"]["message"]
    assert response.headers["www-authenticate"] == invalid
    del hub.tokens["temporary"]  # the module's hub is shared: leave it only its own tokens


@pytest.mark.anyio
async def test_sdk_client_with_a_bad_token_fails_to_connect(hub: Hub):
    with pytest.raises(BaseException) as failed:
        async with sdk_client(hub, "ogn_not_a_token", mode="legacy") as client:
            await client.list_tools()
    assert not isinstance(failed.value, (KeyboardInterrupt, SystemExit))


def test_403_when_x_origin_device_is_not_the_token_name(hub: Hub):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = hub.post(body, X_Origin_Device="desktop")
    assert response.status_code == 403
    assert "laptop" in response.json()["error"]["message"]
    assert hub.post(body, X_Origin_Device="laptop").status_code == 200


def test_host_and_origin_checks(hub: Hub):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    assert hub.post(body, headers={**hub.headers(), "Host": "evil.example"}).status_code == 421
    assert hub.post(body, headers={**hub.headers(), "Host": "hub.lan:8765"}).status_code == 200
    assert hub.post(body, headers={**hub.headers(), "Host": "localhost"}).status_code == 200
    assert (
        hub.post(body, headers={**hub.headers(), "Origin": "https://evil.example"}).status_code
        == 403
    )
    assert (
        hub.post(
            body, headers={**hub.headers(), "Origin": f"http://127.0.0.1:{hub.port}"}
        ).status_code
        == 200
    )


@pytest.mark.parametrize("path", ["/mcp", "/mcp/", "/mcp/readonly"])
def test_405_for_every_method_but_post_promptly(hub: Hub, path: str):
    for method in ("GET", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"):
        for headers in (hub.headers(), {**hub.headers(), "Accept": "text/event-stream"}, {}):
            started = time.monotonic()
            response = hub.http.request(
                method, hub.base + path, headers=headers, timeout=httpx2.Timeout(3.0)
            )
            assert response.status_code == 405, (method, response.text)
            assert response.headers["allow"] == "POST"
            assert time.monotonic() - started < 2.0
            if method != "HEAD":
                assert response.json()["error"]["status"] == 405


def test_413_for_bodies_over_the_limit(hub: Hub):
    filler = "x" * 70_000
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": filler}},
        }
    ).encode()
    response = hub.post(body)
    assert response.status_code == 413 and "65,536" in response.json()["error"]["message"]

    def chunks():  # no Content-Length: the limit holds while the body streams in
        for start in range(0, len(body), 8192):
            yield body[start : start + 8192]

    response = hub.http.post(hub.url, content=chunks(), headers=hub.headers())
    assert response.status_code == 413
    small = hub.call(
        "search", {"query": "x" * 60_000}
    )  # under the limit: the tool's own validation answers
    assert _error(small)[1]["category"] == "validation_error"


def test_415_for_content_types_other_than_json(hub: Hub):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    for content_type in (
        "text/plain",
        "application/xml",
        "multipart/form-data",
        "application/jsonx",
        "",
        "application/json-seq",
    ):
        headers = {**hub.headers(), "Content-Type": content_type}
        response = hub.post(body, headers=headers)
        assert response.status_code == 415, content_type
    headers = {k: v for k, v in hub.headers().items() if k != "Content-Type"}
    assert hub.post(body, headers=headers).status_code == 415
    for content_type in ("application/json; charset=utf-8", "Application/JSON"):
        assert (
            hub.post(body, headers={**hub.headers(), "Content-Type": content_type}).status_code
            == 200
        )


# -- read-only and scopes --------------------------------------------------------------------


def test_read_only_endpoint_and_header(hub: Hub):
    assert set(hub.listed(path="/mcp/readonly")) == READ_TOOLS
    assert set(hub.listed(x_mcp_readonly="true")) == READ_TOOLS
    assert set(hub.listed(x_mcp_readonly="TRUE")) == READ_TOOLS
    assert set(hub.listed(x_mcp_readonly="false")) == ALL_TOOLS
    assert hub.ok("search", {"query": "token bucket"}, path="/mcp/readonly")["events"]
    for kw in ({"path": "/mcp/readonly"}, {"x_mcp_readonly": "true"}):
        message, data = _error(hub.call("forget", {"id": PROMPT_ID, "reason": "x"}, **kw))
        assert data["category"] == "forbidden" and "read-only" in message
    assert hub.ok("get", {"id": PROMPT_ID})["id"] == PROMPT_ID  # nothing was forgotten


def test_read_scoped_token_sees_and_calls_only_the_read_tools(hub: Hub):
    assert set(hub.listed(token="reader")) == READ_TOOLS
    assert hub.ok("get", {"id": PROMPT_ID}, token="reader")["id"] == PROMPT_ID
    for tool, args in (
        ("forget", {"id": PROMPT_ID, "reason": "x"}),
        ("remember", {"kind": "memory", "text": "x"}),
        ("correct", {"id": "ent_000000000000", "text": "x"}),
    ):
        message, data = _error(hub.call(tool, args, token="reader"))
        assert data["category"] == "forbidden" and "reader" in message and tool in message


@pytest.mark.anyio
async def test_read_scoped_token_through_the_sdk_client(hub: Hub):
    async with sdk_client(hub, "reader") as client:
        assert {t.name for t in (await client.list_tools()).tools} == READ_TOOLS
        refused = await client.call_tool(
            "remember",
            {"kind": "memory", "text": "x", "confidence": 1, "sources": [{"event_id": PROMPT_ID}]},
        )
        assert refused.is_error and refused.structured_content["data"]["category"] == "forbidden"
    async with sdk_client(hub, path="/mcp/readonly") as client:
        assert {t.name for t in (await client.list_tools()).tools} == READ_TOOLS


# -- errors and request ids ------------------------------------------------------------------


def test_tool_errors_carry_message_request_id_and_category(hub: Hub):
    message, data = _error(hub.call("get", {"id": "codex:nope"}))
    assert message == "Unknown entry or event codex:nope." and data["category"] == "not_found"
    message, data = _error(hub.call("search", {"limit": 500}))
    assert (
        message.startswith("limit must be between 1 and 100")
        and data["category"] == "validation_error"
    )
    message, data = _error(hub.call("no_such_tool", {}))
    assert data["category"] == "not_found"
    entry = hub.ok(
        "remember",
        {
            "kind": "memory",
            "text": "A fact to correct twice.",
            "confidence": 0.5,
            "sources": [{"event_id": PROMPT_ID}],
        },
    )["entry"]
    newer = hub.ok("correct", {"id": entry["id"], "text": "A corrected fact."})["entry"]
    message, data = _error(hub.call("correct", {"id": entry["id"], "text": "again"}))
    assert data["category"] == "conflict"
    assert message == (
        f"Entry {entry['id']} was already corrected; its current version is {newer['id']}. "
        "Correct that one instead."
    )
    assert set(data) == {"category", "message", "requestId"}


def test_every_response_has_its_own_request_id(hub: Hub):
    seen = set()
    for response in (
        hub.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        hub.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, token=None),
        hub.http.get(hub.url),
        hub.post(b"{not json"),
        hub.http.get(hub.base + "/health"),
        hub.http.get(hub.base + "/nothing"),
        hub.post(b"{}", path="/health"),
    ):
        request_id = response.headers["x-request-id"]
        assert request_id.startswith("req_") and request_id not in seen
        seen.add(request_id)
    assert hub.post(b"{not json").status_code == 400


def test_health_needs_no_token(hub: Hub):
    response = hub.http.get(hub.base + "/health")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_tokens_are_stored_only_as_hashes(hub: Hub):
    hub.ok("search", {"query": "token bucket"}, token="reader")
    files = [p for p in (Path(hub.env["ORIGIN_HOME"]) / "store").rglob("*") if p.is_file()]
    assert files
    # LMDB's data file is as long as its map (a sparse GiB): read only the pages in use.
    env = hub.origin.store.env
    used = (env.info()["last_pgno"] + 1) * env.stat()["psize"]
    blobs = b""
    for path in files:
        with path.open("rb") as f:
            blobs += f.read(used) if path.name == "data.mdb" else f.read()
    for name, secret in hub.tokens.items():
        if not secret.startswith("ogn_"):
            continue
        assert secret.encode() not in blobs, name
        assert secret[4:].encode() not in blobs, name
        assert hashlib.sha256(secret.encode()).hexdigest().encode() in blobs, name
    listed = {t.name: t for t in store_tokens.list_tokens(hub.origin.store)}
    assert listed["laptop"].scope == "write" and listed["reader"].scope == "read"


# -- limits ----------------------------------------------------------------------------------


def test_rate_limit_answers_quota_exceeded_with_retry_data(limited: Hub):
    limited.token("burst")
    limited.token("other")
    for _ in range(3):
        assert (
            limited.call("get", {"id": "codex:nope"}, token="burst")["structuredContent"]["data"][
                "category"
            ]
            == "not_found"
        )
    message, data = _error(limited.call("get", {"id": "codex:nope"}, token="burst"))
    assert data["category"] == "quota_exceeded" and "Rate limit" in message
    assert 1 <= data["retryAfterSeconds"] <= 60
    assert data["rateLimit"] == {"limit": 3, "windowSeconds": 60, "remaining": 0}
    assert set(limited.listed(token="burst")) == ALL_TOOLS  # listing is not a tool call
    assert (
        _error(limited.call("get", {"id": "codex:nope"}, token="other"))[1]["category"]
        == "not_found"
    )


def test_a_body_that_never_finishes_is_cut_off(limited: Hub):
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", limited.port), timeout=10) as sock:
        sock.sendall(
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {limited.tokens['laptop']}\r\n"
            'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"'.encode()
        )
        answer = sock.recv(65536).decode("latin-1")
    assert answer.startswith("HTTP/1.1 408")
    assert "ORIGIN_HUB_REQUEST_TIMEOUT_MS" in answer
    # Not before the limit (1.5 s from when the hub read the headers); no upper bound, which
    # would only measure how busy the machine is: a hang is caught by the socket's timeout.
    assert time.monotonic() - started >= 1.4


def test_a_slow_call_is_cut_off_with_504_and_still_completes(limited: Hub):
    limited.token("slow")
    store = limited.origin.store
    txn = store.env.begin(write=True)  # holds LMDB's writer lock: remember must wait for it
    try:
        started = time.monotonic()
        response = limited.post(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {
                    "name": "remember",
                    "arguments": {
                        "kind": "memory",
                        "text": "Written after the cut-off.",
                        "confidence": 0.5,
                        "sources": [{"event_id": PROMPT_ID}],
                    },
                },
            },
            token="slow",
        )
        elapsed = time.monotonic() - started
    finally:
        txn.abort()
    assert response.status_code == 504, response.text
    assert "cut off" in response.json()["error"]["message"]
    assert elapsed >= 1.4  # not before the limit; the call itself still completes below
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = limited.call("search", {"query": "cut-off", "scope": "entries"}, token="laptop")
        if not found["isError"] and json.loads(found["content"][0]["text"])["entries"]:
            break
        time.sleep(0.2)
    else:
        pytest.fail("the call cut off by the time limit never completed")


# -- freshness -------------------------------------------------------------------------------


def test_hub_ingests_its_own_logs_at_start_and_when_they_change(tmp_path: Path, fixtures_dir: Path):
    with running_hub(tmp_path, ORIGIN_WATCH_INTERVAL_MS="200") as hub:
        store = hub.origin.store

        def has(event_id: str) -> bool:
            with store.read() as txn:
                return get_event(store, txn, event_id) is not None

        _wait(lambda: has(PROMPT_ID), "the start-up ingest")
        log = Path(hub.env["CLAUDE_CONFIG_DIR"]) / SESSION_LOG
        line = {
            "parentUuid": None,
            "isSidechain": False,
            "type": "user",
            "cwd": "/home/dev/demo-app",
            "sessionId": SESSION,
            "version": "2.1.241",
            "gitBranch": "feat/rate-limit",
            "uuid": "f00dcafe-0000-4000-8000-0000000000a1",
            "timestamp": "2026-10-20T10:59:00.000Z",
            "message": {"role": "user", "content": "the hub watches its logs"},
        }
        with open(log, "ab") as handle:
            handle.write(orjson.dumps(line) + b"\n")
        _wait(
            lambda: has("claude-code:f00dcafe-0000-4000-8000-0000000000a1"), "the watcher's ingest"
        )


def _wait(condition, what: str, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


# -- malformed input: never a 5xx, never a hang ----------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
METHODS = st.sampled_from(
    [
        "initialize",
        "tools/list",
        "tools/call",
        "ping",
        "server/discover",
        "resources/list",
        "notifications/initialized",
        "notifications/cancelled",
        "prompts/get",
        "nope",
        "",
    ]
)
TOOL_CALLS = st.fixed_dictionaries(
    {"name": st.sampled_from(sorted(ALL_TOOLS) + ["nope", ""]), "arguments": JSON_VALUES}
)
MESSAGES = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "1.0", 2]), "method": METHODS},
    optional={
        "id": st.none() | st.integers() | st.text(max_size=8) | st.lists(st.integers(), max_size=2),
        "params": TOOL_CALLS | JSON_VALUES,
    },
)
BODIES = st.one_of(
    st.binary(max_size=300),
    MESSAGES.map(lambda m: json.dumps(m).encode()),
    st.lists(MESSAGES, max_size=3).map(lambda m: json.dumps(m).encode()),
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
)
HEADER_TEXT = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40)
HEADERS = st.dictionaries(
    st.sampled_from(
        [
            "mcp-protocol-version",
            "accept",
            "x-mcp-readonly",
            "x-origin-client",
            "x-origin-device",
            "origin",
            "mcp-session-id",
            "last-event-id",
            "x-request-id",
            "content-encoding",
            "mcp-method",
            "mcp-name",
        ]
    ),
    st.sampled_from(
        [
            "2025-11-25",
            "2025-06-18",
            "2026-07-28",
            "1999-01-01",
            "true",
            "laptop",
            "application/json",
            "text/event-stream",
            "*/*",
            "gzip",
        ]
    )
    | HEADER_TEXT,
    max_size=4,
)
CONTENT_TYPES = (
    st.sampled_from(
        [
            "application/json",
            "application/json; charset=utf-8",
            "text/plain",
            "",
            "application/x-www-form-urlencoded",
            "application/json;;",
            "APPLICATION/JSON",
        ]
    )
    | HEADER_TEXT
)


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Hub:
    with running_hub(
        tmp_path_factory.mktemp("fuzz"), ingest=False, ORIGIN_HUB_REQUEST_TIMEOUT_MS="5000"
    ) as running:
        yield running


@settings(
    deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    body=BODIES,
    content_type=CONTENT_TYPES,
    extra=HEADERS,
    token=st.sampled_from(["laptop", "reader", None, "ogn_x"]),
    path=st.sampled_from(["/mcp", "/mcp/", "/mcp/readonly", "/mcp/other"]),
    method=st.sampled_from(["POST"] * 6 + ["GET", "PUT"]),
)
def test_random_requests_never_get_a_5xx_or_hang(
    fuzzed: Hub, body, content_type, extra, token, path, method
):
    headers = {**fuzzed.headers(token), "Content-Type": content_type, **extra}
    started = time.monotonic()
    try:
        response = fuzzed.http.request(
            method, fuzzed.base + path, content=body, headers=headers, timeout=httpx2.Timeout(8.0)
        )
    except httpx2.LocalProtocolError:
        return  # the client refused to send these headers at all
    assert time.monotonic() - started < 8.0
    assert response.status_code < 500, (response.status_code, response.text[:300])
    assert response.headers.get("x-request-id", "").startswith("req_")


# -- the command line, end to end ------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.e2e
@pytest.mark.anyio
async def test_origin_hub_and_token_commands(tmp_path: Path, fixtures_dir: Path):
    env = {**os.environ, **fixture_env(tmp_path, copy=True)}
    made = subprocess.run(
        [ORIGIN, "token", "create", "cloud"], env=env, capture_output=True, text=True, check=True
    )
    secret = made.stdout.strip()
    assert secret.startswith("ogn_") and len(secret) >= 36 and secret not in made.stderr
    subprocess.run(
        [ORIGIN, "token", "create", "ro", "--scope", "read"],
        env=env,
        capture_output=True,
        check=True,
    )
    again = subprocess.run(
        [ORIGIN, "token", "create", "cloud"], env=env, capture_output=True, text=True
    )
    assert again.returncode == 2 and "exists already" in again.stderr
    port = _free_port()
    process = subprocess.Popen(
        [ORIGIN, "hub", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        async with httpx2.AsyncClient(timeout=5) as http:
            deadline = time.monotonic() + 20
            while True:
                try:
                    if (await http.get(base + "/health")).status_code == 200:
                        break
                except httpx2.TransportError:
                    pass
                assert time.monotonic() < deadline and process.poll() is None, (
                    "origin hub did not start"
                )
                time.sleep(0.1)
        hub = Hub(base=base, port=port, env=env, tokens={"cloud": secret})
        try:
            async with sdk_client(hub, "cloud", X_Origin_Client="claude-code") as client:
                found = await tool_json(client, "search", {"query": "token bucket"})
                assert any(e["id"] == PROMPT_ID for e in found["events"])
                entry = (
                    await tool_json(
                        client,
                        "remember",
                        {
                            "kind": "memory",
                            "text": "Through the hub.",
                            "confidence": 0.9,
                            "sources": [{"event_id": PROMPT_ID}],
                        },
                    )
                )["entry"]
                assert entry["author"] == "claude-code@cloud"
            listed = subprocess.run(
                [ORIGIN, "token", "list", "--json"],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            assert secret not in listed.stdout and {
                t["name"] for t in json.loads(listed.stdout)
            } == {"cloud", "ro"}
            subprocess.run(
                [ORIGIN, "token", "revoke", "cloud"], env=env, capture_output=True, check=True
            )
            refused = hub.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, token="cloud")
            assert refused.status_code == 401
        finally:
            hub.http.close()  # its pooled connection, left open, is a ResourceWarning
    finally:
        process.send_signal(signal.SIGINT)
        try:
            output = process.communicate(timeout=15)[0].decode()
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert process.returncode == 0, output
    assert f"http://127.0.0.1:{port}/mcp" in output
