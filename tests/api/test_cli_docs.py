"""The docs execute: the README's commands exist, every --help works, `origin run` does its job."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT
from typer.testing import CliRunner

from origin_api.cli.commands import app

ORIGIN = str(Path(sys.executable).with_name("origin"))


def _help(*args: str) -> str:
    """`origin ... --help`, in-process (typer's runner): a process per command is slow."""
    result = CliRunner().invoke(app, [*args, "--help"], prog_name="origin", env={"COLUMNS": "120"})
    assert result.exit_code == 0, (args, result.output)
    return result.stdout


def _commands() -> list[str]:
    return re.findall(r"^│ (\w[\w-]*)\s", _help(), flags=re.M)


def test_the_installed_command_answers_help():
    """The one real process: the entry point is installed and reaches typer."""
    out = subprocess.run([ORIGIN, "--help"], capture_output=True, text=True, check=True).stdout
    assert set(re.findall(r"^│ (\w[\w-]*)\s", out, flags=re.M)) == set(_commands())


def test_every_command_has_working_help():
    commands = _commands()
    assert {
        "ingest",
        "status",
        "run",
        "search",
        "get",
        "remember",
        "correct",
        "forget",
        "restore",
        "mcp",
        "verify",
    } <= set(commands)
    for command in commands:
        assert "Usage" in _help(command), command


def test_mcp_help_shows_how_to_register_with_agents():
    out = _help("mcp")
    assert "claude mcp add" in out and "mcp_servers.origin" in out


def test_readme_opens_with_the_two_commands_and_names_real_commands():
    readme = (ROOT / "README.md").read_text()
    first_block = readme.split("```sh", 1)[1].split("```", 1)[0]
    assert re.findall(r"^make (\w+)", first_block, flags=re.M) == ["run", "check"]
    makefile = (ROOT / "Makefile").read_text()
    for target in re.findall(r"^make ([\w-]+)", readme, flags=re.M):
        assert re.search(rf"^{target}:", makefile, flags=re.M), f"README names make {target}"
    commands = set(_commands())
    for used in re.findall(r"origin (\w+)", readme):
        if used not in ("mcp", "hub") or used in commands:
            assert used in commands | {"restore"}, f"README names origin {used}"
    assert (ROOT / ".ci" / "run").read_text().strip().endswith("make check")
    check = re.search(r"^check: (.*)$", makefile, flags=re.M)
    assert check and check.group(1).split() == ["fmt-check", "lint", "types", "test"]


@pytest.mark.e2e
def test_origin_run_on_a_machine_without_logs_ingests_samples(tmp_path: Path):
    env = {**os.environ, "HOME": str(tmp_path / "home"), "ORIGIN_HOME": str(tmp_path / "origin")}
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.pop("CODEX_HOME", None)
    result = subprocess.run(
        [ORIGIN, "run", "--no-hub"], env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert "sample logs" in result.stdout
    match = re.search(r"Archive: ([\d,]+) events in ([\d,]+) sessions", result.stdout)
    assert match and int(match.group(1).replace(",", "")) == 20_000
    again = subprocess.run(
        [ORIGIN, "status", "--json"], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(again.stdout)["events"] == 20_000
    assert "Indexed 20,0" in result.stdout
    found = subprocess.run(
        [ORIGIN, "search", "error", "--json", "--include-tools"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(found.stdout)["events"]


@pytest.mark.e2e
def test_origin_run_ends_serving_the_hub_with_a_fresh_token(tmp_path: Path):
    import socket
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "ORIGIN_HOME": str(tmp_path / "origin"),
        "ORIGIN_HUB_PORT": str(port),
    }
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.pop("CODEX_HOME", None)
    proc = subprocess.Popen(
        [ORIGIN, "run"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        token = None
        deadline = time.time() + 180
        while token is None and time.time() < deadline:
            line = proc.stdout.readline()
            assert line, "origin run ended before serving the hub"
            found = re.search(r"token: (ogn_\S+)", line)
            token = found.group(1) if found else None
        assert token
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "search",
                    "arguments": {"query": "error", "include_tools": True},
                },
            }
        ).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/mcp",
            data=body,
            method="POST",
            headers={
                "Authorization": f"Bearer {token}",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
        )
        for _ in range(50):
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    reply = json.loads(response.read())
                break
            except OSError:
                time.sleep(0.2)
        result = reply["result"]
        assert not result["isError"] and json.loads(result["content"][0]["text"])["events"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stdout.close()  # left to the collector, it is a ResourceWarning
        proc.stdout.close()
