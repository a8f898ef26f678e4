"""The docs hold: the README names real commands and make targets, and every --help works
(`origin run` itself is test_first_run.py's, the README's commands test_readme.py's)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

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
    # CI runs what the README's second command runs, then the slow multi-process suite, the real
    # agent CLIs' and the admin UI's in Chromium.
    ci = [
        line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("make")
    ]
    assert ci == ["make check", "make test-slow", "make test-clients", "make test-ui"]
    assert re.search(r"^test-clients:", makefile, flags=re.M)
    assert re.search(r"^test-ui:", makefile, flags=re.M)
    assert re.search(r"^test-slow:", makefile, flags=re.M)
    check = re.search(r"^check: (.*)$", makefile, flags=re.M)
    assert check and check.group(1).split() == ["fmt-check", "lint", "types", "test"]
