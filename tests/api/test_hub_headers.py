"""The hub's edge, over raw HTTP on loopback: every refusal in the hub's shape with its request
id, whatever part of the stack refuses; `Accept`; and how the text headers are read
(`X-Origin-Client`, `X-Origin-Device`) and the read-only switch (`x-mcp-readonly`)."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from helpers import FIXTURES
from hub_support import ALL_TOOLS, PROMPT_ID, READ_TOOLS, Hub, running_hub, sdk_client, tool_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar import get

LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
CJK = "claude-代码"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Hub:
    assert FIXTURES.is_dir(), f"the sample logs are missing at {FIXTURES}"
    with running_hub(
        tmp_path_factory.mktemp("edge"),
        ingest=False,
        ORIGIN_HUB_MAX_BODY="65536",
        ORIGIN_HUB_ALLOWED_HOSTS="hub.lan",
    ) as running:
        assert running.ok("search", {"query": "token bucket"})[
            "events"
        ]  # a search ingests the fixture logs first
        yield running


@pytest.fixture(scope="module")
def open_hub(tmp_path_factory: pytest.TempPathFactory) -> Hub:
    """A hub that answers to every host (behind a proxy that sets Host)."""
    with running_hub(
        tmp_path_factory.mktemp("open"), ingest=False, ORIGIN_HUB_ALLOWED_HOSTS="*"
    ) as running:
        yield running


def _remember(text: str) -> dict:
    return {"kind": "memory", "text": text, "confidence": 0.5, "sources": [{"event_id": PROMPT_ID}]}


def _author(hub: Hub, client: bytes, text: str) -> str:
    response, result = hub.raw_call(
        "remember", _remember(text), extra=[(b"X-Origin-Client", client)]
    )
    assert response.status == 200, response.body
    assert result["isError"] is False, result
    return json.loads(result["content"][0]["text"])["entry"]["author"]


def _label(value: object) -> str:
    """A test id for a header value: its repr, or its length if that would be long."""
    return repr(value) if len(repr(value)) <= 30 else f"{len(value)}-bytes"  # type: ignore[arg-type]


def _stored(hub: Hub, text: str) -> bool:
    found = hub.ok("search", {"query": text, "scope": "entries"})
    return any(entry["text"] == text for entry in found["entries"])


# -- Host ------------------------------------------------------------------------------------

NOT_HOST_NAMES = [
    "hüb.lan".encode(),
    "例え.jp".encode(),
    b"h\xfcb.lan",
    b"hub.lan\xc2\x85",
    b"hub lan",
    b"me@hub.lan",
]


@pytest.mark.parametrize("host", NOT_HOST_NAMES, ids=_label)
@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/mcp"), ("POST", "/mcp/readonly"), ("GET", "/health"), ("GET", "/nothing")],
)
def test_a_host_header_that_is_no_host_name_is_421_in_the_hubs_shape(
    hub: Hub, host: bytes, method: str, path: str
):
    response = hub.raw(LIST, method=method, path=path, host=host)
    assert response.status == 421, response.body
    message = response.error()["message"]
    assert message.startswith("This hub does not answer to the host")


def test_an_unknown_ascii_host_is_421_on_mcp_and_health_answers_any_host(hub: Hub):
    response = hub.raw(LIST, host=b"evil.example")
    assert response.status == 421 and "evil.example" in response.error()["message"]
    assert hub.raw(LIST, host=b"hub.lan:8765").status == 200
    health = hub.raw(method="GET", path="/health", host=b"evil.example", content_type=None)
    assert health.status == 200 and health.json() == {"status": "ok"}
    assert health.headers["x-request-id"].startswith("req_")


def test_a_repeated_host_header_is_400(hub: Hub):
    response = hub.raw(LIST, extra=[(b"Host", b"127.0.0.1")])
    assert response.status == 400 and response.error()["message"] == "Send one Host header."


def test_with_every_host_allowed_a_malformed_host_is_400(open_hub: Hub):
    assert open_hub.raw(LIST, host=b"evil.example").status == 200
    response = open_hub.raw(LIST, host="hüb.lan".encode())
    assert response.status == 400 and "not a host name" in response.error()["message"]


# -- what Litestar and the SDK would answer in their own words --------------------------------


@pytest.mark.parametrize(
    ("method", "path", "status", "allow"),
    [
        ("GET", "/nothing", 404, None),
        ("POST", "/nothing", 404, None),
        ("POST", "/", 404, None),
        ("GET", "/mcpx", 404, None),
        ("POST", "/mcp/other", 404, None),
        ("GET", "/mcp", 405, "POST"),
        ("DELETE", "/mcp/readonly", 405, "POST"),
        ("POST", "/health", 405, "GET, OPTIONS"),
        ("PUT", "/health", 405, "GET, OPTIONS"),
    ],
)
def test_unknown_paths_and_wrong_methods_are_refused_in_the_hubs_shape(
    hub: Hub, method: str, path: str, status: int, allow: str | None
):
    response = hub.raw(LIST, method=method, path=path)
    assert response.status == status, response.body
    error = response.error()
    if allow is not None:
        assert response.headers["allow"] == allow
        assert error["message"].startswith(f"{method} is not allowed")
    else:
        assert error["message"].startswith("Not found")


def test_head_gets_405_with_a_request_id_and_no_body(hub: Hub):
    for path in ("/health", "/mcp"):
        response = hub.raw(method="HEAD", path=path)
        assert response.status == 405 and response.body == b""
        assert response.headers["x-request-id"].startswith("req_")


def test_bodies_the_hub_refuses_carry_its_request_id(hub: Hub):
    for body in (b"{not json", b'"\xff"', b"", b"[]", b'{"jsonrpc": "2.0"}'):
        response = hub.raw(body)
        assert response.status == 400, body
        request_id = response.headers["x-request-id"]
        assert request_id.startswith("req_")
        assert (
            "error" in response.json()
        )  # the protocol's own JSON-RPC error: the client's MCP layer reads it
    big = hub.raw(b"[" + b"0," * 40_000 + b"0]")
    assert big.status == 413 and "65,536" in big.error()["message"]
    for content_type in (b"text/plain", b"application/xml", None):
        response = hub.raw(LIST, content_type=content_type)
        assert response.status == 415 and "Content-Type" in response.error()["message"]


def test_a_declared_body_larger_than_the_limit_is_refused_before_it_is_sent(hub: Hub):
    with socket.create_connection(("127.0.0.1", hub.port), timeout=10) as sock:
        sock.sendall(
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {hub.tokens['laptop']}\r\nContent-Length: 100000000\r\n\r\n".encode()
        )
        answer = sock.recv(65536).decode("latin-1")
    head, _, body = answer.partition("\r\n\r\n")
    assert head.startswith("HTTP/1.1 413") and "x-request-id: req_" in head.lower()
    assert json.loads(body)["error"]["status"] == 413


# -- Accept ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "accept",
    [
        None,
        b"",
        b"*/*",
        b"application/*",
        b"application/json",
        b"Application/JSON",
        b"application/json, text/event-stream",
        b"text/html, */*;q=0.1",
        b"application/json;q=0.5, text/event-stream",
        b"application/*;q=0, application/json",
    ],
    ids=_label,
)
def test_accept_that_allows_json_or_no_accept_at_all_is_answered(hub: Hub, accept: bytes | None):
    response = hub.raw(LIST, accept=accept)
    assert response.status == 200, response.body
    assert set(tool["name"] for tool in response.json()["result"]["tools"]) == ALL_TOOLS


def test_no_accept_runs_a_tool_too(hub: Hub):
    response, result = hub.raw_call("get", {"id": PROMPT_ID}, accept=None)
    assert response.status == 200 and json.loads(result["content"][0]["text"])["id"] == PROMPT_ID


@pytest.mark.parametrize(
    "accept",
    [
        b"text/html",
        b"text/event-stream",
        b"application/xml",
        b"application/json;q=0",
        b"application/json;q=0, */*",
        b"*/*;q=0",
        b"image/*",
        b"application/json;q=x",
    ],
    ids=_label,
)
def test_accept_that_excludes_json_is_406(hub: Hub, accept: bytes):
    response = hub.raw(LIST, accept=accept)
    assert response.status == 406, response.body
    assert "excludes application/json" in response.error()["message"]


# -- X-Origin-Client and X-Origin-Device -----------------------------------------------------


def test_a_utf8_client_name_is_the_authors_name_exactly(hub: Hub):
    assert _author(hub, CJK.encode(), "Written by a CJK-named agent.") == f"{CJK}@laptop"
    assert _stored(hub, "Written by a CJK-named agent.")  # the check the refusals below rely on
    assert _author(hub, b"x" * 100, "Written by a 100-character name.") == "x" * 100 + "@laptop"
    assert (
        _author(hub, "代".encode() * 100, "Written by 100 CJK characters.")
        == "代" * 100 + "@laptop"
    )
    assert _author(hub, b"claude code", "Written by a name with a space.") == "claude code@laptop"
    assert _author(hub, b"  codex \t", "Written with spaces around the name.") == "codex@laptop"


@pytest.mark.parametrize("empty", [b"", b"   "], ids=_label)
def test_an_empty_client_name_is_no_client_name(hub: Hub, empty: bytes):
    assert _author(hub, empty, f"Written without a client name ({empty!r}).") == "laptop"


@pytest.mark.parametrize(
    ("client", "says"),
    [
        (b"a\xc2\x85b", "U+0085"),  # C1 control (NEL), as UTF-8
        (b"a\x85b", "UTF-8"),  # the same byte alone: not UTF-8
        (CJK.encode("gbk"), "UTF-8"),  # another encoding
        (b"a\tb", "U+0009"),
        (b"a\xe2\x80\x8bb", "U+200B"),  # zero-width space (a format character)
        (b"a\xc2\xa0b", "U+00A0"),  # no-break space
        (b"a\xee\x80\x80b", "U+E000"),  # private use
        (b"x" * 101, "at most 100 characters; this one has 101"),
        ("代".encode() * 101, "this one has 101"),
        (b"a@b", "without @"),
        (b"@", "without @"),
    ],
    ids=_label,
)
def test_a_malformed_client_name_is_refused_and_writes_nothing(hub: Hub, client: bytes, says: str):
    text = f"Never written (client {client[:12].hex()}, {len(client)} bytes)."
    response, _ = hub.raw_call("remember", _remember(text), extra=[(b"X-Origin-Client", client)])
    assert response.status == 400, response.body
    message = response.error()["message"]
    assert message.startswith("X-Origin-Client") and says in message
    assert not _stored(hub, text)


def test_a_repeated_client_name_is_refused(hub: Hub):
    response = hub.raw(LIST, extra=[(b"X-Origin-Client", b"codex"), (b"X-Origin-Client", b"codex")])
    assert response.status == 400 and "x-origin-client" in response.error()["message"]


@pytest.mark.parametrize(
    ("device", "status"),
    [
        (b"laptop", 200),
        (b" laptop ", 200),
        (b"", 200),
        (b"desktop", 403),
        ("lаptop".encode(), 403),  # a Cyrillic а
        (b"lap\xc2\x85top", 400),
        (b"lap\x85top", 400),
        (b"lap\ttop", 400),
    ],
    ids=_label,
)
def test_x_origin_device_is_read_like_the_client_name(hub: Hub, device: bytes, status: int):
    response = hub.raw(LIST, extra=[(b"X-Origin-Device", device)])
    assert response.status == status, response.body
    if status != 200:
        message = response.error()["message"]
        assert message.startswith("X-Origin-Device")
        if status == 403:
            assert "laptop" in message


@pytest.mark.anyio
async def test_the_sdk_client_writes_with_a_utf8_client_name(hub: Hub):
    async with sdk_client(
        hub, X_Origin_Client=CJK.encode()
    ) as client:  # bytes: httpx sends str headers as ASCII
        entry = (
            await tool_json(
                client, "remember", _remember("Written through the SDK by a CJK-named agent.")
            )
        )["entry"]
        assert entry["author"] == f"{CJK}@laptop"
        assert (await tool_json(client, "get", {"id": entry["id"]}))["entry"][
            "author"
        ] == f"{CJK}@laptop"


# -- x-mcp-readonly --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "tools"),
    [
        (b"true", READ_TOOLS),
        (b"TRUE", READ_TOOLS),
        (b"True", READ_TOOLS),
        (b" true ", READ_TOOLS),
        (b"false", ALL_TOOLS),
        (b"FALSE", ALL_TOOLS),
    ],
    ids=_label,
)
def test_x_mcp_readonly_true_or_false_in_any_case(hub: Hub, value: bytes, tools: set[str]):
    response = hub.raw(LIST, extra=[(b"x-mcp-readonly", value)])
    assert response.status == 200, response.body
    assert {tool["name"] for tool in response.json()["result"]["tools"]} == tools


@pytest.mark.parametrize(
    "value",
    [b"1", b"0", b"yes", b"no", b"on", b"off", b"", b"truee", b"t", b"\xc2\x85true"],
    ids=_label,
)
def test_any_other_x_mcp_readonly_is_refused_before_anything_runs(hub: Hub, value: bytes):
    text = f"Never written (x-mcp-readonly {value.hex() or 'empty'})."
    response, _ = hub.raw_call("remember", _remember(text), extra=[(b"x-mcp-readonly", value)])
    assert response.status == 400, response.body
    assert response.error()["message"].startswith("x-mcp-readonly is true or false")
    assert not _stored(hub, text)


def test_x_mcp_readonly_false_does_not_open_the_read_only_endpoint(hub: Hub):
    response = hub.raw(LIST, path="/mcp/readonly", extra=[(b"x-mcp-readonly", b"false")])
    assert {tool["name"] for tool in response.json()["result"]["tools"]} == READ_TOOLS


# -- random header bytes: always the hub's answer, or the HTTP parser's --------------------------

HEADER_BYTES = st.binary(max_size=40).filter(lambda b: not any(c in b for c in b"\r\n\x00"))
FUZZED = st.sampled_from(
    [
        b"Host",
        b"X-Origin-Client",
        b"X-Origin-Device",
        b"x-mcp-readonly",
        b"Accept",
        b"Content-Type",
        b"Origin",
        b"Authorization",
    ]
)


def _raw_exchange(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=8) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


@settings(
    deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    headers=st.lists(st.tuples(FUZZED, HEADER_BYTES), max_size=3),
    path=st.sampled_from([b"/mcp", b"/health", b"/x"]),
)
def test_random_header_bytes_get_an_answer_with_a_request_id(
    hub: Hub, headers: list[tuple[bytes, bytes]], path: bytes
):
    sent = dict(
        [
            (b"Host", b"127.0.0.1"),
            (b"Content-Type", b"application/json"),
            (b"Authorization", b"Bearer " + hub.tokens["laptop"].encode()),
        ]
    )
    sent.update(headers)
    body = json.dumps(LIST).encode()
    request = (
        b"POST "
        + path
        + b" HTTP/1.1\r\n"
        + b"".join(k + b": " + v + b"\r\n" for k, v in sent.items())
        + b"Content-Length: "
        + str(len(body)).encode()
        + b"\r\nConnection: close\r\n\r\n"
        + body
    )
    started = time.monotonic()
    answer = _raw_exchange(hub.port, request)
    assert time.monotonic() - started < 8
    head, _, content = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    assert status < 500, answer[:400]
    if (
        content == b"Invalid HTTP request received."
    ):  # uvicorn's parser refused it before the app ran
        assert status == 400
        return
    lines = {
        line.split(b":", 1)[0].lower(): line.split(b":", 1)[1].strip()
        for line in head.split(b"\r\n")[1:]
    }
    request_id = lines[b"x-request-id"].decode()
    assert request_id.startswith("req_")
    payload = json.loads(content)
    if (
        "error" in payload
        and isinstance(payload["error"], dict)
        and "requestId" in payload["error"]
    ):
        assert payload["error"]["requestId"] == request_id and payload["error"]["status"] == status


# -- a bug, and uvicorn's other HTTP stack -----------------------------------------------------


@get("/boom", sync_to_thread=False)
def boom() -> None:
    raise RuntimeError("a bug in a route")


@pytest.mark.parametrize("fast", [True, False], ids=["httptools", "h11"])
def test_a_bug_is_a_500_in_the_hubs_shape_on_either_http_stack(
    tmp_path: Path, fast: bool, capfd: pytest.CaptureFixture[str]
):
    with running_hub(tmp_path, ingest=False, fast=fast, routes=[boom]) as hub:
        response = hub.raw(method="GET", path="/boom")
        assert response.status == 500
        assert "this is a bug" in response.error()["message"]
        assert (
            "a bug in a route" in capfd.readouterr().err
        )  # the traceback, for whoever runs the hub
        assert hub.raw(LIST, host="hüb.lan".encode()).status == 421
        assert hub.raw(LIST, accept=None).status == 200
        assert hub.raw(method="GET", path="/nothing").error()["status"] == 404
