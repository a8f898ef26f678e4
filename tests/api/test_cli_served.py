"""A fresh `origin search` or `origin get` answered by a running Origin process over the home's
Unix socket: the same bytes as answering alone, and every way the running process may be
missing, stale or another installation's ends in the command answering alone."""

from __future__ import annotations

import json
import os
import socket
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import fixture_env
from mcp_client import run_origin

from origin_api import lingering
from origin_api.lingering.server import CliServer
from origin_api.runtime import Origin
from origin_api.settings import Settings

pytestmark = pytest.mark.e2e


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    environ = {**fixture_env(tmp_path), "ORIGIN_WATCH_INTERVAL_MS": "0"}
    run_origin(environ, "ingest", timeout=60)
    return environ


@pytest.fixture
def server(env: dict[str, str]) -> Iterator[CliServer]:
    with Origin.open(Settings.from_env(env)) as origin:
        running = CliServer(origin)
        assert running.start()
        try:
            yield running
        finally:
            running.stop()


def _an_event(env: dict[str, str]) -> str:
    found = json.loads(run_origin(env, "search", "--json", "migration", timeout=60).stdout)
    return str(found["events"][0]["id"])


def test_answers_are_the_same_bytes_served_or_alone(env: dict[str, str]) -> None:
    event = _an_event(env)
    commands = [
        ("search", "--json", "migration"),
        ("search", "--json", "--limit", "3", "--include-tools", "数据库"),
        ("search", "migration"),  # people's text too
        ("search", "--limit", "2", "rate", "limiter", "--include-tools"),
        ("get", event),
        ("get", event, "--json"),
    ]
    alone = [run_origin(env, *c, timeout=60) for c in commands]
    with Origin.open(Settings.from_env(env)) as origin:
        running = CliServer(origin)
        assert running.start()
        try:
            served_now = [run_origin(env, *c, timeout=60) for c in commands]
            assert running.answered == len(commands)
        finally:
            running.stop()
    for command, a, s in zip(commands, alone, served_now, strict=True):
        assert a.returncode == s.returncode == 0, (command, a.stderr, s.stderr)
        assert s.stdout == a.stdout and s.stderr == a.stderr, command
    assert not Path(env["ORIGIN_HOME"], lingering.SOCKET).exists()  # stop took its socket away


def test_what_the_server_cannot_answer_is_answered_alone(
    env: dict[str, str], server: CliServer
) -> None:
    unknown = run_origin(env, "get", "claude-code:no-such-event", timeout=60)
    assert unknown.returncode == 2 and "no-such-event" in unknown.stderr
    wrong = run_origin(
        env, "search", "--json", "--limit", "0", "x", timeout=60
    )  # typer's own message
    assert wrong.returncode == 2 and "limit" in wrong.stderr.lower()
    assert server.answered == 0


def test_the_socket_is_the_owners_only(env: dict[str, str], server: CliServer) -> None:
    mode = os.stat(server.path).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600


def test_a_second_process_leaves_a_live_server_alone(
    env: dict[str, str], server: CliServer
) -> None:
    second = CliServer(server.origin)  # as another process over the same home would
    assert not second.start()
    second.stop()
    assert run_origin(env, "search", "--json", "migration", timeout=60).returncode == 0
    assert server.answered == 1  # the first one still serves


def test_a_dead_servers_socket_is_answered_alone_then_taken_over(env: dict[str, str]) -> None:
    path = Path(env["ORIGIN_HOME"], lingering.SOCKET)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dead:
        dead.bind(str(path))  # bound and never listening: as a killed server leaves it
    alone = run_origin(env, "search", "--json", "migration", timeout=60)
    assert alone.returncode == 0 and json.loads(alone.stdout)["events"]
    with Origin.open(Settings.from_env(env)) as origin:
        running = CliServer(origin)
        assert running.start()
        try:
            assert (
                run_origin(env, "search", "--json", "migration", timeout=60).stdout == alone.stdout
            )
            assert running.answered == 1
        finally:
            running.stop()


def test_stop_waits_for_a_command_being_answered(server: CliServer) -> None:
    """A command still being answered holds the store: its process leaves the store open
    rather than close it under the answer (`Origin.keep_open`)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(server.path)
        client.sendall(b"\0")  # the start of a request that is not finished yet
        deadline = time.monotonic() + 10
        while not server.busy and time.monotonic() < deadline:
            time.sleep(0.01)
        server.stop(wait_s=0.05)
        assert server.busy and not os.path.exists(server.path)
    deadline = time.monotonic() + 10
    while server.busy and time.monotonic() < deadline:  # the answer ends with its client
        time.sleep(0.01)
    assert not server.busy


@pytest.mark.parametrize(
    "request_",
    [
        b"origin-cli-0\0" + lingering.CODE + b"\0search\0--json\0x",  # another protocol
        lingering.PROTOCOL + b"\0/elsewhere/site-packages\0search\0--json\0x",  # another install
        lingering.PROTOCOL + b"\0" + lingering.CODE + b"\0timeline",  # not a lean command
    ],
)
def test_requests_of_another_kind_are_refused(server: CliServer, request_: bytes) -> None:
    assert server.answer(request_) == b"no"


@pytest.mark.parametrize(
    "environ",
    [
        {},
        {"HOME": "/home/ada"},
        {"HOME": "/home/ada", "ORIGIN_HOME": ""},
        {"HOME": "/home/ada", "ORIGIN_HOME": "~/archive"},
        {"HOME": "", "ORIGIN_HOME": "~/archive"},
        {"ORIGIN_HOME": "/srv/origin"},
        {"ORIGIN_HOME": "relative/home"},
    ],
)
def test_the_socket_is_where_the_settings_put_the_home(environ: dict[str, str]) -> None:
    """The lingering client finds ORIGIN_HOME without importing the store: it must read it as they do."""
    from origin_store.settings import Settings as StoreSettings

    home = StoreSettings.from_env(environ).home
    assert lingering.socket_path(environ) == str(home / lingering.SOCKET)


@pytest.mark.parametrize(
    "garbage",
    [
        b"",  # connected, then closed
        b"not a length\n",
        b"99999999999\n",  # longer than any message
        b"12\nshort",  # cut short
        b"%d\n" % (64 * 1024 * 1024 + 1) + b"x",  # over the limit
        b"5\n\xff\xfe\x00\x00\x01",  # bytes that are no request
    ],
)
def test_garbage_on_the_socket_is_dropped_and_the_server_keeps_serving(
    env: dict[str, str], server: CliServer, garbage: bytes
) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(5)
        conn.connect(server.path)
        try:
            conn.sendall(garbage)
            conn.shutdown(socket.SHUT_WR)
            answer = conn.recv(1024)
        except ConnectionResetError:  # closed with what it would not read still unread
            answer = b""
    assert answer in (b"", b"2\nno")  # dropped, or refused as no request of ours
    assert run_origin(env, "search", "--json", "migration", timeout=60).returncode == 0
    assert server.answered == 1
