"""`origin activity`: the store's activity figures in the shell, as text and as --json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import fixture_env
from typer.testing import CliRunner

from origin_api import admin
from origin_api.cli.activity_cmds import BLOCKS, columns, sparkline
from origin_api.cli.commands import app
from origin_api.runtime import Origin
from origin_store import Settings

#: The samples are from 2026; a window this long covers them whatever today is.
DAYS = "3650"


@pytest.fixture
def env(tmp_path: Path, fixtures_dir: Path) -> dict[str, str]:
    values = {**fixture_env(tmp_path), "COLUMNS": "200"}
    with Origin.open(Settings.from_env(values)) as origin:
        origin.ingest()
    return values


def _run(env: dict[str, str], *args: str) -> str:
    result = CliRunner().invoke(app, ["activity", *args], env=env)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_json_gives_the_figures(env: dict[str, str]) -> None:
    with Origin.open(Settings.from_env(env)) as origin:
        found = admin.activity(origin, int(DAYS))
    shown = json.loads(_run(env, "--days", DAYS, "--json"))
    assert shown["days"] == int(DAYS) and shown["source"] is None
    assert shown["totals"]["events"] == found.totals.events > 0
    assert shown["totals"]["tokens_in"] == found.totals.tokens_in > 0
    for source, figures in shown["by_source"].items():
        assert sum(shown["events_per_day"][source]) == figures["events"]
        assert len(shown["events_per_day"][source]) == int(DAYS)
    assert sum(f["events"] for f in shown["by_source"].values()) == shown["totals"]["events"]
    assert shown["sessions"] and all(s["last"] for s in shown["sessions"])
    only = json.loads(_run(env, "--days", DAYS, "--source", "codex", "--json"))
    assert set(only["by_source"]) == {"codex"}
    assert only["totals"]["events"] == shown["by_source"]["codex"]["events"]
    assert all(s["source"] == "codex" for s in only["sessions"])


def test_text_shows_a_sparkline_per_agent_totals_and_the_busiest(env: dict[str, str]) -> None:
    shown = json.loads(_run(env, "--days", DAYS, "--json"))
    out = _run(env, "--days", DAYS)
    assert f"{shown['totals']['events']:,} events" in out
    for source, figures in shown["by_source"].items():
        line = next(row for row in out.splitlines() if row.strip().startswith(source))
        assert any(block in line for block in BLOCKS) and line.endswith(f"{figures['events']:,}")
    assert "Busiest projects" in out and "Busiest sessions" in out
    assert shown["sessions"][0]["session"] in out


def test_a_wrong_window_or_source_is_refused_with_what_exists(env: dict[str, str]) -> None:
    result = CliRunner().invoke(app, ["activity", "--days", "0"], env=env)
    assert result.exit_code == 2 and "days must be between 1 and 3,650" in result.output
    result = CliRunner().invoke(app, ["activity", "--source", "claude"], env=env)
    assert result.exit_code == 2 and "those that have: claude-code" in result.output
    result = CliRunner().invoke(app, ["activity", "--days", DAYS, "--project", "demo-ap"], env=env)
    assert result.exit_code == 2 and "No activity in a project 'demo-ap'" in result.output
    assert "demo-app" in result.output  # the name meant, among those there are


@pytest.mark.parametrize(
    ("values", "top", "expected"),
    [([0, 1, 8], 8, " ▁█"), ([4, 8], 8, "▄█"), ([3, 9], 9, "▃█"), ([], 0, "")],
)
def test_sparkline(values: list[int], top: int, expected: str) -> None:
    assert sparkline(values, top) == expected


def test_a_year_is_added_up_into_columns() -> None:
    assert columns([1] * 365) == [5] * 73
    assert columns([1, 2, 3]) == [1, 2, 3]
