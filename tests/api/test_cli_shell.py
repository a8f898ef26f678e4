"""The shell forgives and explains: a search's words need no quotes, a people's search prints
each hit with its session, a filter that names nothing says what exists and the nearest name,
and a read on a home without an archive says so and creates nothing."""

from __future__ import annotations

import io
import os
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from helpers import fixture_env, ingested_store
from mcp_client import run_origin
from typer.testing import CliRunner

from origin_api.cli import main
from origin_api.cli.commands import app
from origin_api.lingering import lean

SOURCES = "claude-code, codex, copilot, cursor, gemini, grok, opencode, qwen, zcode"
#: The samples' projects, the first twelve by name (a long list is cut so).
PROJECTS = (
    "demo-app, harbor-map, harbor-ui, inventory-api, lighthouse-api, notes-app, orchard-api,"
    " queue-svc, sync-service, tide, web_ui, wiki and 2 more"
)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    values = {**fixture_env(tmp_path), "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0"}
    ingested_store(tmp_path).close()
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return values


def _lean(args: list[str]) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert lean.run(args), args
    return out.getvalue()


@pytest.mark.parametrize(
    "args",
    [
        ["search", "rate", "limiter"],
        ["search", "rate limiter"],
        ["search", "--limit", "5", "rate", "limiter"],
        ["search", "rate", "--limit=5", "limiter"],
        ["search", "rate", "limiter", "--limit", "5", "--json"],
    ],
)
def test_bare_words_are_one_query(args: list[str]) -> None:
    parsed = lean.parse(args)
    assert parsed is not None and parsed[1]["query"] == "rate limiter", parsed
    assert parsed[2] == ("--json" in args)


def test_bare_words_in_typer_and_lean_give_the_same_text(env: dict[str, str]) -> None:
    for args in (["search", "rate", "limiter"], ["search", "--limit", "1", "rate", "limiter"]):
        typed = CliRunner().invoke(app, args, env=env)
        assert typed.exit_code == 0, typed.output
        assert typed.stdout == _lean(args)
        assert "[rate] [limiter]" in typed.stdout


def test_each_hit_says_its_session_plainly(env: dict[str, str]) -> None:
    import json

    found = json.loads(_lean(["search", "--json", "limiter"]))
    text = _lean(["search", "limiter"]).splitlines()
    events = found["events"]
    assert events
    for event in events:
        head = text.index(
            f"{event['id']}  "
            + " · ".join(
                part for part in (event["time"], event["source"], event["project"]) if part
            )
            + f" · {event['role']} {event['kind']}"
        )
        assert f"  session {event['session']}" in text[head + 1 : head + 12]
    assert (
        text[-1]
        == "a session: origin timeline --session SESSION (its events), origin continue SESSION (resume it in its agent)"
    )
    # the session id as printed is what `origin timeline --session` takes
    shown = next(line for line in text if line.startswith("  session ")).split()[1]
    listed = CliRunner().invoke(app, ["timeline", "--session", shown], env=env)
    assert listed.exit_code == 0 and listed.stdout.startswith(shown), listed.output


def test_nothing_found_when_the_filters_exist(env: dict[str, str]) -> None:
    assert _lean(["search", "--source", "codex", "zzzqqqnothing"]) == "nothing found\n"


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["search", "--source", "claude", "limiter"],
            f"No source claude. Sources: {SOURCES}. Did you mean claude-code?",
        ),
        (
            ["search", "--json", "--source", "claud-code", "limiter"],
            f"No source claud-code. Sources: {SOURCES}. Did you mean claude-code?",
        ),
        (
            ["search", "--project", "demo", "limiter"],
            f"No project demo. Nearest: demo-app. Projects: {PROJECTS}.",
        ),
        (
            ["search", "--project", "zzz", "limiter"],
            f"No project zzz. Projects: {PROJECTS}.",
        ),
        (
            ["timeline", "--since", "3650d", "--source", "claude"],
            f"No source claude. Sources: {SOURCES}. Did you mean claude-code?",
        ),
        (
            ["timeline", "--since", "3650d", "--project", "notes"],
            f"No project notes. Nearest: notes-app, 旅行-notes. Projects: {PROJECTS}.",
        ),
    ],
)
def test_a_filter_that_names_nothing_says_what_exists(
    env: dict[str, str], args: list[str], said: str
) -> None:
    done = run_origin({**os.environ, **env}, *args, timeout=60)
    assert done.returncode == 2, done
    assert done.stdout == ""
    assert done.stderr == f"error: {said}\n"


READS = [
    ["search", "limiter"],
    ["search", "--json", "limiter"],
    ["get", "claude-code:x"],
    ["get", "claude-code:x", "--json"],
    ["timeline"],
    ["timeline", "--session", "x"],
    ["sources", "claude-code:x"],
    ["status"],
    ["status", "--json"],
    ["verify"],
]


@pytest.mark.parametrize("argv", READS, ids=" ".join)
@pytest.mark.parametrize("where", ["missing", "empty dir"])
def test_a_read_makes_no_archive(
    argv: list[str],
    where: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = tmp_path / "typo" / "origni"
    if where == "empty dir":
        home.mkdir(parents=True)
    for name, value in {**fixture_env(tmp_path), "ORIGIN_HOME": str(home)}.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as exited:
        main(argv)
    out, err = capsys.readouterr()
    assert exited.value.code == 2 and out == ""
    assert err == (
        f"error: No archive at {home}: `origin ingest` or `origin run` makes one "
        "(ORIGIN_HOME chooses where it is).\n"
    )
    if where == "missing":
        assert not (tmp_path / "typo").exists()
    else:
        assert list(home.iterdir()) == []


def test_a_write_still_makes_the_archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "new"
    for name, value in {**fixture_env(tmp_path), "ORIGIN_HOME": str(home)}.items():
        monkeypatch.setenv(name, value)
    done = CliRunner().invoke(app, ["ingest", "--json"])
    assert done.exit_code == 0, done.output
    assert (home / "store" / "data.mdb").is_file()
    assert CliRunner().invoke(app, ["status"]).exit_code == 0


def test_no_archive_beside_the_demo_names_the_demo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """After `origin run` showed the demo, ORIGIN_HOME holds only the demo: a read says where
    the demo is rather than only that there is no archive."""
    from origin_api.settings import DEMO_MARK

    home = tmp_path / "origin"
    (home / "demo").mkdir(parents=True)
    (home / "demo" / DEMO_MARK).write_text("{}")
    for name, value in {**fixture_env(tmp_path), "ORIGIN_HOME": str(home)}.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit):
        main(["search", "limiter"])
    assert capsys.readouterr().err == (
        f"error: No archive at {home}: `origin ingest` or `origin run` makes one; the demo "
        f"`origin run` shows is {home / 'demo'} (ORIGIN_HOME={home / 'demo'} reads it).\n"
    )
    assert sorted(p.name for p in home.iterdir()) == ["demo"]
