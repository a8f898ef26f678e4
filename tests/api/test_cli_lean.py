"""`origin search --json` and `origin get` answered without typer: the same JSON (and, for `get`,
the same text) as the typer commands, anything unusual left to typer, and neither typer nor rich
imported."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest
import typer
from helpers import fixture_env, ingested_store
from typer.testing import CliRunner

from origin_api.cli import main
from origin_api.cli.commands import app
from origin_api.lingering import lean
from origin_api.lingering.lean import errors

SEARCHES = [
    ["search", "--json", "limiter"],
    ["search", "limiter", "--json", "--limit", "3"],
    ["search", "--json", "--limit=2", "--scope", "events", "--include-tools", "limiter"],
    ["search", "--json", "--source", "codex", "--since", "2020-01-01", "test"],
    ["search", "--json", "--project=demo-app", "--until", "2030-01-01", "rate limit"],
]


@pytest.fixture
def env(tmp_path: Path, fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    values = {**fixture_env(tmp_path), "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0"}
    ingested_store(tmp_path).close()  # a read makes no archive
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return values


def _lean_text(args: list[str]) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert lean.run(args)
    return out.getvalue()


def _lean(args: list[str]) -> object:
    return json.loads(_lean_text(args))


def _typer(env: dict[str, str], args: list[str]) -> object:
    result = CliRunner().invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("args", SEARCHES)
def test_search_gives_the_typer_commands_json(env: dict[str, str], args: list[str]) -> None:
    assert _lean(args) == _typer(env, args)


def test_get_gives_the_typer_commands_json(env: dict[str, str]) -> None:
    found = _lean(["search", "--json", "limiter"])
    assert isinstance(found, dict) and found["events"]
    item = found["events"][0]["id"]
    assert _lean(["get", item, "--json"]) == _typer(env, ["get", item, "--json"])
    assert _lean(["get", "--json", item]) == _typer(env, ["get", item, "--json"])
    people = CliRunner().invoke(app, ["get", item], env=env)
    assert people.exit_code == 0 and _lean_text(["get", item]) == people.stdout
    assert people.stdout.startswith(f"{item}  ")


def test_both_parsers_read_the_one_table() -> None:
    """The typer command's options are the table's, with its defaults; the lean parser reads
    every one of them into the argument typer would pass."""
    params = typer.main.get_command(app).commands["search"].params  # type: ignore[attr-defined]
    options = {param.opts[0]: param.default for param in params if param.opts[0].startswith("--")}
    assert options == {option.flag: option.default for option in lean.SEARCH_OPTIONS}
    for option in lean.SEARCH_OPTIONS:
        if option.key == lean.JSON:
            continue
        given, read = (
            ([], True)
            if isinstance(option.default, bool)
            else (["12"], 12)
            if isinstance(option.default, int)
            else (["some value"], "some value")
        )
        parsed = lean.parse(["search", "--json", option.flag, *given, "x"])
        assert parsed is not None and parsed[1][option.key] == read, option
        assert (
            lean.parse(["search", "--json", option.flag, *given, option.flag, *given, "x"]) is None
        )


@pytest.mark.parametrize(
    "args",
    [
        ["search", "--help"],
        ["search", "-h", "--json", "x"],
        ["search", "--json"],
        ["search", "--json", "--limit", "ten", "x"],
        ["search", "--json", "--limit", "+5", "x"],
        ["search", "--json", "--limit"],
        ["search", "--json", "--kind", "--json", "x"],
        ["search", "--json", "--unknown", "x"],
        ["search", "--json", "--", "-x"],
        ["search", "--json", "--json", "x"],
        ["search", "--json=1", "x"],
        ["search", "--json", "-"],
        ["get"],
        ["get", "--help"],
        ["get", "a", "b"],
        ["get", "a", "--json", "--json"],
        ["get", "a", "--jsonx"],
        ["get", "--json"],
        ["status"],
        [],
    ],
)
def test_anything_unusual_is_left_to_typer(args: list[str]) -> None:
    assert lean.parse(args) is None


@pytest.mark.parametrize(
    "args",
    [
        ["get", "no-such-id"],
        ["search", "--source", "claude", "limiter"],
        ["search", "--json", "--limit", "0", "limiter"],
    ],
)
def test_an_error_is_said_as_typer_says_it(
    env: dict[str, str], capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    """The lean path leaves an error to the CLI's edge, which says what typer's command says
    (its text, exit code 2, nothing on stdout), without importing typer first."""
    with pytest.raises(errors()):
        lean.run(args)
    assert capsys.readouterr().out == ""
    with pytest.raises(SystemExit) as exit_:
        main(args)
    said = capsys.readouterr()
    assert exit_.value.code == 2 and said.out == ""
    typed = CliRunner().invoke(app, args, env=env)
    assert typed.exit_code == 2 and said.err == typed.stderr, (said.err, typed.stderr)
    assert said.err.startswith("error: ") and said.err.count("\n") == 1


@pytest.mark.e2e
def test_a_fresh_process_imports_neither_typer_nor_rich(env: dict[str, str]) -> None:
    script = (
        "import io, json, sys\n"
        "from contextlib import redirect_stdout\n"
        "from origin_api.cli import main\n"
        "found = io.StringIO()\n"
        "with redirect_stdout(found):\n"
        "    main(['search', '--json', 'limiter'])\n"
        "item = json.loads(found.getvalue())['events'][0]['id']\n"
        "main(['search', 'rate', 'limiter', '--limit', '1'])\n"
        "main(['get', item])\n"
        "main(['get', item, '--json'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'rich', 'click'))\n"
        "print(heavy, file=sys.stderr)\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    text, _, whole = done.stdout.partition("\n{\n")
    event = json.loads("{\n" + whole)
    hit, _, text = text.partition(
        "a session: origin timeline --session SESSION (its events), origin continue SESSION (resume it in its agent)\n"
    )
    assert "[rate] [limiter]" in hit and "\n  session " in hit, hit
    assert text.startswith(f"{event['id']}  {event['time']} · ")


@pytest.mark.e2e
def test_a_search_after_a_recent_pass_imports_no_parser(env: dict[str, str]) -> None:
    """Within the ingest interval of another process's pass, a fresh search neither walks the
    logs nor loads the ingest machinery or any parser: it is start-up, a read and the index."""
    origin = str(Path(sys.executable).with_name("origin"))
    first = [origin, "search", "--json", "limiter"]  # its pass is recorded for every process
    subprocess.run(first, env={**os.environ, **env}, check=True, capture_output=True)
    script = (
        "import io, sys\n"
        "from contextlib import redirect_stdout\n"
        "from origin_api.cli import main\n"
        "with redirect_stdout(io.StringIO()):\n"
        "    main(['search', '--json', 'limiter'])\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('origin_store.parsers.registry',"
        " 'origin_store.parsers.base', 'origin_store.parsers.claude_code.transcript', 'origin_store.ingest',"
        " 'secrets')))\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, **env, "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "3600000"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
