"""The real agent CLIs from npm (`make test-clients` installs them into .clients/), each run
with a scratch HOME against the installed `origin`: a user's machine, minus the user."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from clients_support import CLIENTS, ORIGIN, RunningHub, User, free_port


@pytest.fixture
def user(tmp_path: Path) -> User:
    home = tmp_path / "home"
    home.mkdir()
    node = shutil.which("node")
    assert node, "the agent CLIs need Node.js"
    path = os.pathsep.join(
        dict.fromkeys(
            [str(CLIENTS), str(ORIGIN.parent), str(Path(node).parent), "/usr/bin", "/bin"]
        )
    )
    env = {
        "HOME": str(home),
        "PATH": path,
        "ORIGIN_HOME": str(tmp_path / "origin"),
        "ORIGIN_WATCH_INTERVAL_MS": "0",
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        # The clients must not phone home or update themselves during a test.
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
    }
    return User(home, env)


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
