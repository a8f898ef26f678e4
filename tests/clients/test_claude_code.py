"""`origin register claude-code` with the real `claude`: `claude mcp list` connects to both of
Origin's servers (stdio and the hub over HTTP with a real token), and registering again is
harmless."""

from __future__ import annotations

import re

import pytest
from clients_support import BARE_PATH, ORIGIN, RunningHub, User, client

pytestmark = [pytest.mark.clients, pytest.mark.e2e]


def listed(user: User) -> dict[str, str]:
    """`claude mcp list` as {name: its line}, printed for the report when a test fails."""
    out = user.run(client("claude"), "mcp", "list").stdout
    print(out)
    return dict(re.findall(r"^([\w-]+): (.*)$", out, flags=re.M))


def test_stdio_and_hub_registered_by_origin_are_connected(user: User, hub: RunningHub) -> None:
    client("claude")
    said = user.origin("register", "claude-code").stdout
    assert said.startswith("Registered origin (stdio) with Claude Code:\n"), said
    said = user.origin("register", "claude-code", "--hub", hub.url, "--token", hub.token).stdout
    assert said.startswith("Registered origin-hub (http) with Claude Code:\n"), said
    assert hub.token not in said
    servers = listed(user)
    assert servers == {
        "origin": f"{ORIGIN} mcp - ✔ Connected",
        "origin-hub": f"{hub.url} (HTTP) - ✔ Connected",
    }


def test_registering_again_replaces_the_entry(user: User) -> None:
    claude = client("claude")
    for _ in range(2):
        user.origin("register", "claude-code")
    assert listed(user) == {"origin": f"{ORIGIN} mcp - ✔ Connected"}
    got = user.run(claude, "mcp", "get", "origin").stdout
    assert "Scope: User config" in got, got


def test_the_printed_command_is_the_one_that_works(user: User) -> None:
    """Where `claude` is not on PATH Origin prints a command: run as printed, it connects."""
    claude = client("claude")
    done = user.run(ORIGIN, "register", "claude-code", PATH=BARE_PATH, check=False)
    assert done.returncode == 1  # nothing registered: said, and not a success
    lines = done.stdout.splitlines()
    assert lines[0] == "claude is not on PATH. Once Claude Code is installed, run:", lines
    command = lines[1].strip().split(" ", 1)[1]
    user.run("/bin/sh", "-c", f"{claude} {command}")
    assert listed(user) == {"origin": f"{ORIGIN} mcp - ✔ Connected"}
