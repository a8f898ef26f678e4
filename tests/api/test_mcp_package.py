"""`origin_api.mcp`: both stdio servers and the hub's name and version, which comes from the
installed package's metadata; only typer parses `origin mcp`'s options."""

from __future__ import annotations

import importlib.metadata
import io
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from helpers import fixture_env

from origin_api.mcp import results
from origin_api.mcp.sdk import build_server
from origin_api.mcp.stdio import StdioServer
from origin_api.runtime import Origin
from origin_api.settings import Settings

ORIGIN = str(Path(sys.executable).with_name("origin"))


@pytest.fixture
def fresh_version():
    results.version.cache_clear()
    yield
    results.version.cache_clear()


def test_the_version_is_the_installed_packages(fresh_version):
    assert results.version() == importlib.metadata.version("origin-archive")
    assert results.server_info() == {
        "name": "origin",
        "title": "Origin",
        "version": results.version(),
    }


def test_a_checkout_never_installed_has_a_version_too(fresh_version, monkeypatch):
    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    assert results.version() == results.UNKNOWN_VERSION == "0+unknown"


def test_the_lean_and_sdk_servers_introduce_themselves_alike(origin):
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    out = io.BytesIO()
    StdioServer(origin, io.BytesIO(orjson.dumps(request) + b"\n"), out).serve()
    [reply] = [orjson.loads(line) for line in out.getvalue().splitlines()]
    assert reply["result"]["serverInfo"] == results.server_info()
    assert reply["result"]["protocolVersion"] == "2025-06-18"
    server = build_server(origin, lambda ctx: (None, frozenset(), None))
    options = server.create_initialization_options()
    assert (options.server_name, options.server_version) == ("origin", results.version())


@pytest.mark.e2e
def test_origin_mcp_options_are_typers(tmp_path: Path):
    env = {**os.environ, **fixture_env(tmp_path)}
    done = subprocess.run(
        [ORIGIN, "mcp", "--no-such-option"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "No such option" in done.stderr
    helped = subprocess.run(
        [ORIGIN, "mcp", "--help"], env=env, capture_output=True, text=True, timeout=60
    )
    assert helped.returncode == 0 and "--sdk" in helped.stdout


def test_the_lean_server_leaves_no_watcher_running_over_the_store(tmp_path: Path):
    """Its caller closes the store once `serve` says it is free: a watcher tick still under
    way would fail on the closed store (seen as a traceback on a busy machine)."""
    env = fixture_env(tmp_path, copy=True)
    env["ORIGIN_WATCH_INTERVAL_MS"] = "1"  # a tick every millisecond while stdin is open

    def stdin() -> Iterator[bytes]:
        for _ in range(20):
            time.sleep(0.01)
            yield b"\n"

    origin = Origin.open(Settings.from_env(env))
    try:
        free = StdioServer(origin, stdin(), io.BytesIO()).serve()
        watching = [t.name for t in threading.enumerate() if t.name == "origin-ingest"]
        assert free and not watching
    finally:
        origin.close()


def test_a_store_kept_open_outlives_close_for_the_background_work(tmp_path: Path):
    origin = Origin.open(Settings.from_env(fixture_env(tmp_path)))
    origin.keep_open()
    origin.close()
    with origin.store.read() as txn:  # a background ingest still reading would not fail
        assert txn is not None
    origin.store.close()
