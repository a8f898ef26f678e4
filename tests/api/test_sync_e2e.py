"""Two devices and a hub, each a real process with its own ORIGIN_HOME, syncing on loopback:
an entry remembered on A reaches B, a forget on B reaches A, and a hub killed mid-push and
started again ends with nothing lost or duplicated (docs/sync.md)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from helpers import fixture_env
from hub_support import PROMPT_ID

from origin_store import Store
from origin_store.entries import versions as E

ORIGIN = str(Path(sys.executable).with_name("origin"))
pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _bare_env(root: Path) -> dict[str, str]:
    """A home whose agents have no logs at all."""
    empty = root / "empty"
    empty.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(empty),
        "ORIGIN_HOME": str(root / "origin"),
        "CLAUDE_CONFIG_DIR": str(empty),
        "CODEX_HOME": str(empty),
        "ZCODE_STORAGE_DIR": str(empty),
        "GROK_HOME": str(empty),
        "ORIGIN_WATCH_INTERVAL_MS": "0",
    }


def _run(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([ORIGIN, *args], env=env, capture_output=True, text=True, timeout=120)
    if check:
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


class HubProcess:
    def __init__(self, env: dict[str, str], port: int) -> None:
        self.env = env
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [ORIGIN, "hub", "--port", str(self.port)],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx2.get(self.base + "/health", timeout=2).status_code == 200:
                    return
            except httpx2.TransportError:
                pass
            assert time.monotonic() < deadline and self.process.poll() is None, "no hub"
            time.sleep(0.1)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[tuple[HubProcess, dict[str, str]]]:
    env = _bare_env(tmp_path / "hub")
    tokens = {
        name: _run(env, "token", "create", name).stdout.strip() for name in ("laptop", "desktop")
    }
    running = HubProcess({**env, "ORIGIN_HUB_MAX_BODY": "60000"}, _free_port())
    running.start()
    try:
        yield running, tokens
    finally:
        running.stop()


def _store_of(env: dict[str, str]) -> Store:
    return Store.open(Path(env["ORIGIN_HOME"]))


def _events(env: dict[str, str]) -> tuple[set[str], int, int]:
    """Event ids, records kept, and event announcements on the feed."""
    with _store_of(env) as store, store.read() as txn:
        ids = {key.decode() for key, _ in store.iter_events(txn)}
        announced = sum(1 for _, item in store.feed_since(txn, 0) if item["t"] == "event")
        return ids, txn.stat(store.dbs["ev"])["entries"], announced


@pytest.mark.slow
def test_an_entry_and_a_forget_reach_the_other_device(
    tmp_path: Path, hub: tuple[HubProcess, dict[str, str]]
) -> None:
    running, tokens = hub
    a = fixture_env(tmp_path / "a", copy=True)
    b = _bare_env(tmp_path / "b")
    _run(a, "ingest")
    connected = _run(a, "connect", running.base, "--token", tokens["laptop"])
    assert "laptop" in connected.stdout and "First sync" in connected.stdout
    remembered = json.loads(
        _run(
            a,
            "remember",
            "Releases are cut on Fridays.",
            "--kind",
            "knowledge",
            "--event",
            PROMPT_ID,
            "--json",
        ).stdout
    )
    entry_id = remembered["entry"]["id"]
    _run(a, "sync")
    _run(b, "connect", running.base, "--token", tokens["desktop"])
    with _store_of(b) as store, store.read() as txn:
        found = E.get_entry(store, txn, entry_id)
        assert found is not None and found["text"] == "Releases are cut on Fridays."
    _run(b, "forget", entry_id, "--reason", "not any more", "--yes")
    _run(b, "sync")
    _run(a, "sync")
    with _store_of(a) as store, store.read() as txn:
        assert E.is_hidden(store, txn, entry_id)
    report = json.loads(_run(a, "sync", "--json").stdout)
    assert report["error"] is None and report["complete"] is True
    shown = json.loads(_run(a, "status", "--json").stdout)["hub"]
    assert (shown["url"], shown["device"], shown["pending"]) == (running.base, "laptop", 0)
    assert shown["last"]["error"] is None
    assert f"hub {running.base} as laptop: last sync" in _run(a, "status").stdout


def _big_log(env: dict[str, str], count: int) -> None:
    """A Claude Code session of `count` messages, in the agent's own format."""
    folder = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-home-dev-big"
    folder.mkdir(parents=True, exist_ok=True)
    session = "5a5a5a5a-0000-4000-8000-000000000000"
    lines = []
    for n in range(count):
        line: dict[str, Any] = {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/dev/big",
            "sessionId": session,
            "version": "2.1.241",
            "type": "user",
            "message": {"role": "user", "content": f"message {n}: " + "words of a prompt " * 20},
            "uuid": f"b{n:07d}-0000-4000-8000-000000000000",
            "timestamp": f"2026-10-22T09:{n // 3600 % 60:02d}:{n // 60 % 60:02d}.{n % 60:03d}Z",
        }
        lines.append(json.dumps(line))
    (folder / f"{session}.jsonl").write_text("\n".join(lines) + "\n")


@pytest.mark.slow
def test_a_hub_killed_mid_push_loses_and_duplicates_nothing(
    tmp_path: Path, hub: tuple[HubProcess, dict[str, str]]
) -> None:
    running, tokens = hub
    a = fixture_env(tmp_path / "a", copy=True)
    _run(a, "connect", running.base, "--token", tokens["laptop"])
    _big_log(a, 6000)
    _run(a, "ingest")
    syncing = subprocess.Popen(
        [ORIGIN, "sync"], env=a, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while True:  # kill the hub once part of the push is acknowledged, not all of it
        with _store_of(a) as store, store.read() as txn:
            pushed = store.meta_get(txn, "sync.pushed") or 0
            last = store.feed_last(txn)
        if 0 < pushed < last - 500:
            break
        assert syncing.poll() is None and time.monotonic() < deadline, "the push ended first"
        time.sleep(0.02)
    running.kill()
    _, err = syncing.communicate(timeout=60)
    assert syncing.returncode == 2 and "Sync failed" in err
    running.start()
    _run(a, "sync")
    mine, _, _ = _events(a)
    theirs, kept, announced = _events(running.env)
    assert theirs == mine  # nothing lost
    assert kept == len(theirs) == announced  # nothing kept or announced twice
