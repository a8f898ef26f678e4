"""What the real-client tests share: where `make test-clients` installed the agents' CLIs, a user
with a scratch HOME to run them as, and a running hub's address and token."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import ROOT

#: Where `make test-clients` installs the agents' CLIs (CLIENTS_NPM in the Makefile) and the Inspector.
CLIENTS = ROOT / ".clients" / "node_modules" / ".bin"
ORIGIN = Path(sys.executable).with_name("origin")
#: A PATH with nothing on it: a machine where the agents' CLIs are not installed (`origin` is
#: started by its absolute path and needs nothing from PATH).
BARE_PATH = "/nonexistent"
#: Anything one of the CLIs does in a test, at most.
TIMEOUT_S = 120


def client(name: str) -> Path:
    found = CLIENTS / name
    if not found.is_file():
        pytest.skip(f"{name} is not installed in {CLIENTS}: `make test-clients` installs it")
    return found


@dataclass
class User:
    """A person with a scratch HOME, PATH holding the clients, Origin and node; nothing else."""

    home: Path
    env: dict[str, str]

    def run(
        self, *argv: str | Path, check: bool = True, **env: str
    ) -> subprocess.CompletedProcess[str]:
        """`argv` in this user's HOME and environment (`env` changes some of it), in a process
        group of its own: past TIMEOUT_S the whole group is killed, so that nothing a CLI
        started (Codex's native binary, an MCP server) outlives the test."""
        proc = subprocess.Popen(
            [str(a) for a in argv],
            env={**self.env, **env},
            cwd=self.home,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            raise AssertionError(f"{argv} ran over {TIMEOUT_S} s", out, err) from None
        done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
        if check:
            assert done.returncode == 0, (argv, done.stdout, done.stderr)
        return done

    def origin(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run(ORIGIN, *args)


def new_user(tmp: Path) -> User:
    """A user whose HOME is `tmp`/home and whose Origin home is `tmp`/origin."""
    home = tmp / "home"
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
        "ORIGIN_HOME": str(tmp / "origin"),
        "ORIGIN_WATCH_INTERVAL_MS": "0",
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        # The clients must not phone home or update themselves during a test.
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
    }
    return User(home, env)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RunningHub:
    url: str
    token: str
