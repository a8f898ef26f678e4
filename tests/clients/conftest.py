"""The real agent CLIs from npm (`make test-clients` installs them into .clients/), each run
with a scratch HOME against the installed `origin`: a user's machine, minus the user."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from clients_support import ORIGIN, RunningHub, User, free_port, new_user


@pytest.fixture
def user(tmp_path: Path) -> User:
    return new_user(tmp_path)


@pytest.fixture
def hub(user: User) -> Iterator[RunningHub]:
    """`origin hub` on a free loopback port with a real token, as a user starts it."""
    token = user.origin("token", "create", "clients-test").stdout.strip()
    assert token.startswith("ogn_"), token
    port = free_port()
    log = (user.home / "hub.log").open("w")
    proc = subprocess.Popen(
        [str(ORIGIN), "hub", "--port", str(port)],
        env=user.env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (user.home / "hub.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, (user.home / "hub.log").read_text()
                time.sleep(0.2)
        yield RunningHub(f"http://127.0.0.1:{port}/mcp", token)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
