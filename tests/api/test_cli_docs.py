"""The docs hold: the README names real commands and make targets, and every --help works
(`origin run` itself is test_first_run.py's, the README's commands test_readme.py's)."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import typer
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


def _flat(text: str) -> str:
    """A text with its box lines and line breaks gone: what a reader reads, wrapped or not."""
    return " ".join(text.replace("│", " ").split())


def _written() -> Iterator[tuple[tuple[str, ...], str, Callable[..., Any] | None]]:
    """Every command and group's path, its help as its source writes it, and its callback."""
    from origin_api.cli import archive_cmds, hub_cmds, server_cmds, setup_cmds

    explicit = {
        "run": archive_cmds.RUN_HELP,
        "hub": hub_cmds.HUB_HELP,
        "mcp": server_cmds.MCP_HELP,
        "register": setup_cmds.REGISTER_HELP,
    }

    def walk(group: typer.Typer, path: tuple[str, ...]) -> Iterator[Any]:
        for command in group.registered_commands:
            assert command.callback is not None
            name = command.name or command.callback.__name__.replace("_", "-")
            doc = explicit.get(name) or inspect.getdoc(command.callback)
            assert doc, f"origin {' '.join((*path, name))} has no help"
            yield (*path, name), doc, command.callback
        for sub in group.registered_groups:
            assert sub.typer_instance is not None and isinstance(sub.name, str)
            help_ = sub.typer_instance.info.help
            assert isinstance(help_, str), sub.name
            callback = sub.typer_instance.registered_callback
            yield (*path, sub.name), help_, callback and callback.callback
            yield from walk(sub.typer_instance, (*path, sub.name))

    yield from walk(app, ())


def test_every_help_renders_as_written():
    """Each command's --help holds its text and its options' texts as the source writes them:
    none taken for markup (`[redacted <kind>]`), none cut."""
    seen = 0
    for path, doc, callback in _written():
        shown = _flat(_help(*path))
        assert _flat(doc) in shown, path
        for parameter in inspect.signature(callback).parameters.values() if callback else []:
            option = getattr(parameter.default, "help", None)
            if isinstance(option, str):
                assert _flat(option.replace("\\[", "[")) in shown, (path, parameter.name)
        seen += 1
    assert seen > 30
    assert "[redacted <kind>]" in _help("redact")


def test_the_list_of_commands_gives_each_a_whole_sentence():
    """`origin --help` lists each command with its first sentence whole, on lines rich wraps
    (not at the docstring's own line breaks, which cut a description off mid-sentence)."""
    listed = _help()
    rows: dict[str, str] = {}
    name = ""
    for line in listed.splitlines():
        found = re.match(r"^│ (\w[\w-]*)?\s+(.*?)\s*│$", line)
        if found:
            name = found.group(1) or name
            rows[name] = (rows.get(name, "") + " " + found.group(2)).strip()
    for path, doc, _ in _written():
        if len(path) == 1 and path[0] in rows:
            first = _flat(doc.split("\n\n")[0])
            assert first.startswith(rows[path[0]]), (path, rows[path[0]])
            assert rows[path[0]].endswith((".", ")", "?")), (path, rows[path[0]])
    assert rows["compact"].endswith("named events by sequence number.")
    assert rows["redact"].startswith("The kinds of secret ingest masks as [redacted <kind>]")
