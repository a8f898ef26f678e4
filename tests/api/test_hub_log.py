"""The hub's request log: a line per request on stderr (method, path, status, milliseconds,
client, request id) and never a token or a body, read from real hubs: one in this process, and
`origin hub` and `origin run` as a person starts them."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest
from helpers import fixture_env
from hub_support import running_hub

ORIGIN = str(Path(sys.executable).with_name("origin"))
#: A line of the log: the time, then the request's fields.
LINE = re.compile(
    r"^\S+ (?P<method>[A-Z]+) (?P<path>'[^']*'|\S+) (?P<status>\d{3}|-) (?P<ms>\d+\.\d) ms "
    r"client=(?P<client>\S+|'[^']*') (?P<id>req_[0-9a-f]{16})$"
)
#: Words sent in a request's body, which the log must not repeat.
BODY_WORDS = "zanzibar-quokka-body-words"
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
SEARCH = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "search", "arguments": {"query": BODY_WORDS}},
}
JSON = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _requests(base: str, secret: str) -> dict[str, tuple[str, str, int, str]]:
    """A few requests of every kind: each one's id with what its log line must say."""
    sent: dict[str, tuple[str, str, int, str]] = {}
    good = {**JSON, "Authorization": f"Bearer {secret}"}
    with httpx2.Client(timeout=10) as http:
        for method, path, headers, body, client in (
            ("POST", "/mcp", {**good, "X-Origin-Client": "claude-code"}, LIST, "claude-code"),
            ("POST", "/mcp", {**good, "X-Origin-Client": "my agent"}, SEARCH, "'my agent'"),
            ("POST", "/mcp", {**JSON, "Authorization": "Bearer ogn_wrong"}, LIST, "-"),
            ("GET", "/nowhere", good, None, "-"),
            ("GET", "/health", {}, None, "-"),
        ):
            response = http.request(method, base + path, headers=headers, json=body)
            sent[response.headers["x-request-id"]] = (method, path, response.status_code, client)
    return sent


def _check(log: str, sent: dict[str, tuple[str, str, int, str]], secret: str) -> None:
    assert secret not in log and secret[4:12] not in log and "ogn_wrong" not in log
    assert BODY_WORDS not in log and "tools/list" not in log
    lines = {}
    for line in log.splitlines():
        found = LINE.match(line)
        if found is not None:
            assert found["id"] not in lines, line  # one line per request
            lines[found["id"]] = found
    for request_id, (method, path, status, client) in sent.items():
        assert request_id in lines, (request_id, log)
        found = lines[request_id]
        assert (found["method"], found["path"], int(found["status"]), found["client"]) == (
            method,
            path,
            status,
            client,
        ), found.group(0)
        assert 0 <= float(found["ms"]) < 10_000


def test_a_hub_logs_each_request_on_stderr(tmp_path: Path, fixtures_dir: Path, capfd):
    with running_hub(tmp_path, ingest=False) as hub:
        sent = _requests(hub.base, hub.tokens["laptop"])
    _, err = capfd.readouterr()  # the hub has stopped: every line is written
    _check(err, sent, hub.tokens["laptop"])
    assert {status for _, _, status, _ in sent.values()} == {200, 401, 404}


def test_what_a_client_sends_stays_one_field_of_one_line(tmp_path: Path, fixtures_dir: Path, capfd):
    """A path is logged as sent (percent-encoded), a header's bytes escaped and quoted: neither
    can end a line or pass for another field."""
    fake = b"x\t200 0.1 ms client=y req_0000000000000000\xff"
    with running_hub(tmp_path, ingest=False) as hub:
        path = hub.raw(LIST, path="/mcp%0aGET%20/health%20200", token="laptop")
        client = hub.raw(LIST, token="laptop", extra=[(b"X-Origin-Client", fake)])
    _, err = capfd.readouterr()
    lines = {found["id"]: found for found in map(LINE.match, err.splitlines()) if found is not None}
    assert lines[path.headers["x-request-id"]]["path"] == "/mcp%0aGET%20/health%20200"
    assert lines[client.headers["x-request-id"]]["client"] == (
        "'x\\x09200 0.1 ms client=y req_0000000000000000\\xff'"
    )
    assert "req_0000000000000000" not in lines


# -- the commands, end to end --------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _serving(argv: list[str], env: dict[str, str], port: int) -> Iterator[list[str]]:
    """A command serving the hub on `port` until the block ends; then its stderr, in the list."""
    process = subprocess.Popen(
        [ORIGIN, *argv],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    output: list[str] = []
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx2.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx2.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                out, err = process.communicate(timeout=10)
                raise AssertionError(f"{argv} did not serve:\n{out}\n{err}")
            time.sleep(0.1)
        yield output
    finally:
        process.send_signal(signal.SIGINT)
        try:
            out, err = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
        output.append(err)
        assert "Traceback" not in err + out, err + out


def _token(env: dict[str, str]) -> str:
    made = subprocess.run(
        [ORIGIN, "token", "create", "logged"], env=env, capture_output=True, text=True, check=True
    )
    return made.stdout.strip()


@pytest.mark.e2e
def test_origin_hub_logs_each_request(tmp_path: Path, fixtures_dir: Path):
    env = {**os.environ, **fixture_env(tmp_path)}
    secret, port = _token(env), _free_port()
    with _serving(["hub", "--port", str(port)], env, port) as output:
        sent = _requests(f"http://127.0.0.1:{port}", secret)
    _check(output[0], sent, secret)
    _one_format(output[0])


#: The time every line of the log starts with, uvicorn's own as Origin's.
TIMED = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} \S")


def _one_format(log: str) -> None:
    """uvicorn's start and stop lines read as Origin's lines do: the time, then what happened
    (not `INFO:     Started server process`)."""
    started = [line for line in log.splitlines() if "Started server process" in line]
    finished = [line for line in log.splitlines() if "Finished server process" in line]
    assert len(started) == len(finished) == 1, log
    for line in log.splitlines():
        assert not line.startswith(("INFO:", "WARNING:", "ERROR:")), line
        if LINE.match(line) or "server process" in line or "application" in line.lower():
            assert TIMED.match(line), line


@pytest.mark.e2e
def test_origin_runs_hub_logs_each_request(tmp_path: Path, fixtures_dir: Path):
    env = {**os.environ, **fixture_env(tmp_path), "ORIGIN_HUB_PORT": str(_free_port())}
    secret, port = _token(env), int(env["ORIGIN_HUB_PORT"])
    with _serving(["run"], env, port) as output:
        sent = _requests(f"http://127.0.0.1:{port}", secret)
    _check(output[0], sent, secret)
    _one_format(output[0])
