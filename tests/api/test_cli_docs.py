"""The docs execute: the README's commands exist, every --help works, `origin run` does its job."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

ORIGIN = str(Path(sys.executable).with_name("origin"))


def _commands() -> list[str]:
    out = subprocess.run([ORIGIN, "--help"], capture_output=True, text=True, check=True).stdout
    return re.findall(r"^│ (\w[\w-]*)\s", out, flags=re.M)


def test_every_command_has_working_help():
    commands = _commands()
    assert {"ingest", "status", "run", "search", "get", "remember", "correct", "forget", "restore", "mcp", "verify"} <= set(commands)
    for command in commands:
        result = subprocess.run([ORIGIN, command, "--help"], capture_output=True, text=True)
        assert result.returncode == 0, (command, result.stderr)
        assert "Usage" in result.stdout


def test_mcp_help_shows_how_to_register_with_agents():
    out = subprocess.run([ORIGIN, "mcp", "--help"], capture_output=True, text=True, check=True).stdout
    assert "claude mcp add" in out and "mcp_servers.origin" in out


def test_readme_opens_with_the_two_commands_and_names_real_commands():
    readme = (ROOT / "README.md").read_text()
    first_block = readme.split("```sh", 1)[1].split("```", 1)[0]
    assert re.findall(r"^make (\w+)", first_block, flags=re.M) == ["run", "test"]
    makefile = (ROOT / "Makefile").read_text()
    for target in re.findall(r"^make ([\w-]+)", readme, flags=re.M):
        assert re.search(rf"^{target}:", makefile, flags=re.M), f"README names make {target}"
    commands = set(_commands())
    for used in re.findall(r"origin (\w+)", readme):
        if used not in ("mcp", "hub") or used in commands:
            assert used in commands | {"restore"}, f"README names origin {used}"
    assert (ROOT / ".ci" / "run").read_text().strip().endswith("make test")


@pytest.mark.e2e
def test_origin_run_on_a_machine_without_logs_ingests_samples(tmp_path: Path):
    env = {**os.environ, "HOME": str(tmp_path / "home"), "ORIGIN_HOME": str(tmp_path / "origin"), "ORIGIN_NO_HUB": "1"}
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.pop("CODEX_HOME", None)
    result = subprocess.run([ORIGIN, "run"], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "sample logs" in result.stdout
    match = re.search(r"Archive: ([\d,]+) events in ([\d,]+) sessions", result.stdout)
    assert match and int(match.group(1).replace(",", "")) == 20_000
    again = subprocess.run([ORIGIN, "status", "--json"], env=env, capture_output=True, text=True, check=True)
    assert '"events": 20000' in again.stdout.replace(" ", "").replace('"events":20000', '"events": 20000')
