"""The device's one hub client on its sync side (`origin_api.sync.client.HubClient`) against
loopback servers that misbehave as real ones do: a kept-alive connection closed while idle, an
answer that is not the hub's, a hub that never answers. A real hub's side is in test_sync.py."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from origin_api.sync.client import HubClient, SyncError
from origin_api.sync.connection import Connection

#: (request head, body) -> the raw answer, or None to close without one.
Answer = Callable[[bytes, bytes], bytes | None]


def _reply(status: str, body: bytes, *extra: str) -> bytes:
    head = [f"HTTP/1.1 {status}", f"Content-Length: {len(body)}", *extra]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


@contextmanager
def server(answer: Answer, *, keep_alive: bool) -> Iterator[tuple[str, list[bytes], list[int]]]:
    """A loopback HTTP/1.1 server: the base URL, the request heads it got, and how many
    connections it accepted. With `keep_alive` False it closes each connection after one answer
    without saying so (as a hub whose idle connections time out does)."""
    listener = socket.create_server(("127.0.0.1", 0))
    heads: list[bytes] = []
    connections = [0]

    def serve(conn: socket.socket) -> None:
        with conn:
            data = b""
            while True:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, _, data = data.partition(b"\r\n\r\n")
                length = next(
                    (
                        int(v)
                        for k, _, v in (h.partition(b":") for h in head.split(b"\r\n"))
                        if k.strip().lower() == b"content-length"
                    ),
                    0,
                )
                while len(data) < length:
                    data += conn.recv(65536)
                body, data = data[:length], data[length:]
                heads.append(head)
                reply = answer(head, body)
                if reply is None:
                    return
                conn.sendall(reply)
                if not keep_alive:
                    return

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            connections[0] += 1
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/prefix", heads, connections
    finally:
        listener.close()


def _client(base: str, timeout_s: float = 2.0) -> HubClient:
    return HubClient(Connection(base + "/mcp", "laptop", False, "ogn_secret"), timeout_s)


def _pulled(head: bytes, body: bytes) -> bytes:
    return _reply("200 OK", b'{"items":[],"next":0,"more":false,"device":"laptop"}')


@pytest.mark.parametrize("keep_alive", [True, False])
def test_requests_share_a_connection_and_one_closed_while_idle_is_opened_again(
    keep_alive: bool,
) -> None:
    with (
        server(_pulled, keep_alive=keep_alive) as (base, heads, connections),
        _client(base) as client,
    ):
        answers = [client.pull(0, 1), client.push(b'{"after":0,"last":0,"items":[]}')]
        answers.append(client.pull(7, 500))
    assert answers[0] == {"items": [], "next": 0, "more": False, "device": "laptop"}
    assert len(answers) == len(heads) == 3  # every request answered once: none lost, none twice
    assert connections[0] == (1 if keep_alive else 3)
    first, push, last = (h.decode().split("\r\n") for h in heads)
    assert first[0] == "GET /prefix/sync/pull?after=0&limit=1 HTTP/1.1"
    assert last[0] == "GET /prefix/sync/pull?after=7&limit=500 HTTP/1.1"
    assert push[0] == "POST /prefix/sync/push HTTP/1.1"
    assert (
        "Content-Type: application/json" in push and "Content-Type: application/json" not in first
    )
    for head in (first, push, last):
        assert "Authorization: Bearer ogn_secret" in head and "X-Origin-Device: laptop" in head


@pytest.mark.parametrize(
    ("reply", "message", "status"),
    [
        (
            _reply("404 Not Found", b"nothing here"),
            "answered 404: it has no sync endpoints (is this an Origin hub?)",
            404,
        ),
        (
            _reply("401 Unauthorized", b'{"error":{"message":"Invalid or revoked token."}}'),
            "answered 401: Invalid or revoked token.",
            401,
        ),
        (
            _reply("502 Bad Gateway", b"upstream down \xff"),
            "answered 502: upstream down \ufffd",
            502,
        ),
        (_reply("200 OK", b"[1]"), "answered something not JSON", 0),
        (_reply("200 OK", b"<html>"), "answered something not JSON", 0),
        (None, "cannot be reached (Server disconnected without sending a response.)", 0),
    ],
)
def test_what_is_not_the_hubs_answer_is_one_readable_error(
    reply: bytes | None, message: str, status: int
) -> None:
    with (
        server(lambda head, body: reply, keep_alive=True) as (base, _, _),
        _client(base) as client,
        pytest.raises(SyncError) as raised,
    ):
        client.pull(0, 1)
    assert raised.value.message == f"the hub at {base} {message}"
    assert raised.value.status == status


def test_a_hub_that_does_not_answer_in_time_is_one_error() -> None:
    quiet = threading.Event()

    def stall(head: bytes, body: bytes) -> bytes:
        quiet.wait(5)
        return _pulled(head, body)

    with server(stall, keep_alive=True) as (base, _, _):
        with _client(base, timeout_s=0.3) as client, pytest.raises(SyncError) as raised:
            client.pull(0, 1)
        quiet.set()
    assert raised.value.message == f"the hub at {base} did not answer in time"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://127.0.0.1:9/mcp", "cannot be reached ([Errno 111] Connection refused)"),
        ("ftp://hub.example/mcp", "cannot be reached (the hub's address 'ftp://hub.example/mcp'"),
    ],
)
def test_a_hub_that_cannot_be_reached_is_one_error(url: str, message: str) -> None:
    connection = Connection(url, "laptop", False, "ogn_secret")
    with HubClient(connection, 1.0) as client, pytest.raises(SyncError) as raised:
        client.pull(0, 1)
    assert raised.value.message.startswith(f"the hub at {connection.base} {message}")


def test_the_client_loads_no_http_library_nor_the_sync_itself() -> None:
    """A connected device's first tool call imports the client: it must not bring in an HTTP
    library (tens of ms at a fresh process's start) or the sync run and the store's sync code."""
    code = (
        "import sys, origin_api.sync.client\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('httpx', 'httpx2', 'httpcore')"
        " or m in ('origin_api.sync.run', 'origin_api.sync.batches', 'origin_store.replication.sync')))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert loaded.stdout.strip() == "[]", loaded.stdout
