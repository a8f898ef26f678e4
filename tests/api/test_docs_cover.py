"""The docs name everything a person can set or call: every setting, tool, command and error
category (the docs are README.md and docs/*.md)."""

from __future__ import annotations

import re

import typer.main
from helpers import ROOT

from origin_api.cli.commands import app
from origin_api.contract.tools import TOOLS
from origin_api.errors import CATEGORIES
from origin_api.settings import TABLE

DOCS = {
    path.relative_to(ROOT).as_posix(): path.read_text()
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
}
ALL = "\n".join(DOCS.values())


def test_every_setting_is_in_the_docs():
    missing = [s.env for s in TABLE if f"`{s.env}`" not in ALL]
    assert not missing, f"settings the docs never name: {missing}"


def test_the_architecture_settings_table_is_the_code_table():
    rows = re.findall(
        r"^\| `(ORIGIN_[A-Z_]+)` \|\s*`?([^|`]*?)`?\s*\|", DOCS["docs/architecture.md"], flags=re.M
    )
    assert rows == [(s.env, s.default) for s in TABLE]


def test_every_tool_is_in_the_docs():
    missing = [tool.name for tool in TOOLS if f"`{tool.name}`" not in DOCS["README.md"]]
    assert not missing, f"tools the README never names: {missing}"


def _commands() -> list[str]:
    names = []
    for name, command in typer.main.get_command(app).commands.items():
        names.append(name)
        names.extend(f"{name} {sub}" for sub in getattr(command, "commands", {}))
    return names


def test_every_command_is_in_the_docs():
    commands = _commands()
    assert {"ingest", "mcp", "hub", "token create", "reindex"} <= set(commands)
    missing = [name for name in commands if not re.search(rf"\borigin {name}\b", ALL)]
    assert not missing, f"commands the docs never name: {missing}"


def test_every_error_category_is_in_the_hub_docs():
    missing = [category for category in CATEGORIES if f"`{category}`" not in DOCS["docs/hub.md"]]
    assert not missing, f"error categories docs/hub.md never names: {missing}"
