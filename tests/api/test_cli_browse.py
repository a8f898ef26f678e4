"""Browsing and the memory from the command line: `origin timeline`, `origin sources`, and people's
text for `get`, `remember`, `correct`, `forget` and `restore`, each with the tool's exact JSON
under --json; printed to a pipe, no line is wrapped, so ids and commands stay whole."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from helpers import fixture_env
from typer.testing import CliRunner, Result

from origin_api.cli.commands import app
from origin_api.cli.output import console
from origin_api.lingering import lean
from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_store import Settings

ORIGIN = str(Path(sys.executable).with_name("origin"))
#: Before every sample session, so that the tests do not depend on today's date.
LONG_AGO = "2000-01-01"
#: A Claude Code session of the samples, its first prompt's event, and words from that prompt.
SESSION = "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10"
PROMPT_EVENT = "claude-code:a0000001-0000-4000-8000-000000000001"
PROMPT_WORDS = "token-bucket rate limiter"
#: A grok-cli message, read from a database through its row log.
ROW_EVENT = "grok:9d41b7e0c6a5:2#0"


@pytest.fixture
def env(tmp_path: Path, fixtures_dir: Path) -> dict[str, str]:
    # COLUMNS=40: were anything still wrapped at a width, these tests would see it.
    values = {**fixture_env(tmp_path), "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0", "COLUMNS": "40"}
    with Origin.open(Settings.from_env(values)) as origin:
        origin.ingest()  # get and sources read what is stored; search and timeline ingest first
    return values


def cli(env: dict[str, str], *args: str) -> Result:
    return CliRunner().invoke(app, list(args), env=env)


def ok(env: dict[str, str], *args: str) -> str:
    result = cli(env, *args)
    assert result.exit_code == 0, (args, result.output)
    return result.stdout


def tool(env: dict[str, str], name: str, **args: Any) -> Any:
    """The tool's own answer, called as the CLI calls it (the user of this device)."""
    with Origin.open(Settings.from_env(env)) as origin:
        return call(origin, name, args, Caller("user", origin.settings.device))


def as_json(env: dict[str, str], *args: str) -> Any:
    return json.loads(ok(env, *args, "--json"))


def test_timeline_lists_sessions_newest_activity_first_as_the_tool_does(
    env: dict[str, str],
) -> None:
    text = ok(env, "timeline", "--since", LONG_AGO, "--limit", "500")
    wanted = tool(env, "timeline", since=LONG_AGO, limit=500)["sessions"]
    assert as_json(env, "timeline", "--since", LONG_AGO, "--limit", "500") == {"sessions": wanted}
    heads = [line for line in text.splitlines() if not line.startswith(" ")][: len(wanted)]
    assert [line.split("  ")[0] for line in heads] == [s["session"] for s in wanted]
    for line, session in zip(heads, wanted, strict=True):
        # One line each, however long: the id, the source, the count, the last activity.
        assert f"{session['source']} · " in line and f"last active {session['ended']}" in line
    first = text.splitlines()[1].strip()
    assert first in (wanted[0]["title"], f"“{wanted[0]['prompt']}”")
    assert "origin timeline --session ID" in text


@pytest.mark.parametrize(
    ("options", "arguments"),
    [
        ([], {}),  # the tool's default: since 7d
        (["--source", "codex", "--since", LONG_AGO], {"source": "codex", "since": LONG_AGO}),
        (
            ["--project", "demo-app", "--since", LONG_AGO, "--limit", "2"],
            {"project": "demo-app", "since": LONG_AGO, "limit": 2},
        ),  # fmt: skip
        (
            ["--since", LONG_AGO, "--until", "2026-11-01"],
            {"since": LONG_AGO, "until": "2026-11-01"},
        ),  # fmt: skip
    ],
)
def test_timeline_options_are_the_tools(
    env: dict[str, str], options: list[str], arguments: dict[str, Any]
) -> None:
    wanted = tool(env, "timeline", **arguments)
    assert as_json(env, "timeline", *options) == wanted
    text = ok(env, "timeline", *options)
    for session in wanted["sessions"]:
        assert re.search(rf"^{re.escape(session['session'])}  ", text, flags=re.M)
    if not wanted["sessions"]:
        assert text.startswith("no sessions active since")


def test_timeline_of_a_session_lists_its_events_in_order(env: dict[str, str]) -> None:
    messages = tool(env, "timeline", session=SESSION)
    everything = tool(env, "timeline", session=SESSION, include_tools=True, limit=500)
    assert as_json(env, "timeline", "--session", SESSION) == messages
    assert (
        as_json(env, "timeline", "--session", SESSION, "--include-tools", "--limit", "500")
        == everything
    )
    text = ok(env, "timeline", "--session", SESSION)
    listed = re.findall(r"^(claude-code:\S+)  ", text, flags=re.M)
    assert listed == [e["id"] for e in messages["events"]]
    assert text.startswith(f"{SESSION}  claude-code · demo-app · ")
    assert "--include-tools also lists tool calls and results" in text
    whole = ok(env, "timeline", "--session", SESSION, "--include-tools", "--limit", "500")
    assert re.findall(r"^(claude-code:\S+)  ", whole, flags=re.M) == [
        e["id"] for e in everything["events"]
    ]
    assert any(e["kind"] == "tool_use" for e in everything["events"])
    assert "--include-tools" not in whole
    first = ok(env, "timeline", "--session", SESSION, "--include-tools", "--limit", "2")
    assert len(re.findall(r"^claude-code:", first, flags=re.M)) == 2
    assert "the first 2 events; --limit 500 shows more" in first


def test_sources_name_the_file_and_line_or_the_row_as_read(env: dict[str, str]) -> None:
    [line] = tool(env, "sources", id=PROMPT_EVENT)
    assert as_json(env, "sources", PROMPT_EVENT) == [line]
    text = ok(env, "sources", PROMPT_EVENT).splitlines()
    assert text[0] == f"{PROMPT_EVENT}  {line['time']}"
    assert text[1] == f"  {line['original_file']}:{line['line']}"
    assert text[2] == f"  mirror {line['mirror_file']}"
    assert text[3] == f"  {line['raw']}"  # the raw line, one line however long
    [row] = tool(env, "sources", id=ROW_EVENT)
    shown = ok(env, "sources", ROW_EVENT).splitlines()
    assert (
        shown[1] == f"  {row['original_file']} (a row as read: line {row['line']} of its row log)"
    )
    assert shown[3] == f"  {row['raw']}"


def test_get_shows_an_event_with_its_whole_text(env: dict[str, str]) -> None:
    event = tool(env, "get", id=PROMPT_EVENT)
    assert as_json(env, "get", PROMPT_EVENT) == event
    text = ok(env, "get", PROMPT_EVENT)
    assert text.splitlines()[:3] == [
        f"{PROMPT_EVENT}  {event['time']} · user message",
        f"  claude-code · project demo-app · session {SESSION}",
        f"  cwd {event['cwd']} · branch {event['git_branch']} · agent {event['agent_version']}",
    ]
    assert text.endswith("\n\n" + event["text"] + "\n")


def test_the_memory_commands_print_text_and_the_tools_json(env: dict[str, str]) -> None:
    said = ok(env, "remember", "We rate-limit with a token bucket.", "--quote", PROMPT_WORDS)
    entry_id = re.findall(r"^(ent_\w+)  memory · active · confidence 0.9$", said, flags=re.M)[0]
    assert said.startswith("remembered:\n")
    assert "  We rate-limit with a token bucket.\n" in said and "by user@testbox · " in said
    fixed = ok(env, "correct", entry_id, "We rate-limit with a token bucket, 10 req/s.")
    current = re.findall(r"^(ent_\w+)  memory · active", fixed, flags=re.M)[0]
    assert fixed.startswith("corrected:\n") and f"supersedes {entry_id}" in fixed
    shown = ok(env, "get", current)
    assert as_json(env, "get", current) == tool(env, "get", id=current)
    assert f"\nsources (1):\n  {PROMPT_EVENT}  " in shown
    assert f'    quote "{PROMPT_WORDS}"\n' in shown
    assert "\nhistory (2 versions, oldest first):\n" in shown
    assert f"  {entry_id}  superseded · by user@testbox · " in shown
    gone = ok(env, "forget", current, "--reason", "the user asked", "--yes")
    tombstone = re.findall(r"\((tmb_\w+)\)$", gone.splitlines()[0])[0]
    assert gone.splitlines()[0].startswith(f"forgot {current}: 2 entries and 1 event hidden")
    assert gone.splitlines()[-1] == f"undo: origin restore {tombstone}"
    assert ok(env, "forget", current, "--reason", "again") == (
        f"{current} was already forgotten: nothing changed\n"
    )
    assert as_json(env, "forget", current, "--reason", "again") == {
        "tombstone": None,
        "forgotten_entries": [],
        "excluded_events": 0,
    }
    back = ok(env, "restore", tombstone)
    assert back.splitlines() == [
        f"restored {tombstone}: 2 entries and 1 event visible again",
        f"  {entry_id}",
        f"  {current}",
    ]
    assert ok(env, "restore", tombstone) == f"{tombstone} was already restored: nothing changed\n"
    assert as_json(env, "restore", tombstone) == {
        "tombstone": tombstone,
        "restored_entries": [],
        "restored_events": 0,
    }


def test_the_write_commands_json_is_the_tools_result(env: dict[str, str]) -> None:
    made = as_json(env, "remember", "Releases are tagged.", "--event", PROMPT_EVENT, "--kind", "knowledge")  # fmt: skip
    entry = made["entry"]
    assert set(made) == {"entry"} and entry["kind"] == "knowledge"
    assert tool(env, "get", id=entry["id"])["entry"] == entry
    fixed = as_json(env, "correct", entry["id"], "Releases are tagged, signed.", "--confidence", "0.5")  # fmt: skip
    assert fixed["entry"]["supersedes"] == entry["id"] and fixed["entry"]["confidence"] == 0.5
    gone = as_json(env, "forget", PROMPT_EVENT, "--reason", "the user asked", "--yes")
    assert gone["tombstone"].startswith("tmb_") and gone["excluded_events"] == 1
    assert set(gone["forgotten_entries"]) == {entry["id"], fixed["entry"]["id"]}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["get", "claude-code:nothing"], "Unknown entry or event claude-code:nothing."),
        (["get", "ent_nothing", "--json"], "Unknown entry or event ent_nothing."),
        (["sources", "ent_nothing"], "Unknown entry or event ent_nothing."),
        (["timeline", "--session", "nothing"], "Unknown session nothing."),
        (["timeline", "--since", "someday"], "since is not a time: 'someday'."),
        (["correct", "ent_nothing", "text"], "Unknown entry or event ent_nothing."),
        (["correct", PROMPT_EVENT, "text"], f"{PROMPT_EVENT} is an event; only entries"),
        (["forget", "ent_nothing", "--reason", "r"], "Unknown entry or event ent_nothing."),
        (["restore", "tmb_nothing", "--json"], "Unknown tombstone tmb_nothing."),
        (
            ["remember", "x", "--quote", "words no log has"],
            'No event contains the quote "words no log has".',
        ),  # fmt: skip
    ],
)
def test_bad_ids_give_the_contracts_message_on_one_line_and_exit_2(
    env: dict[str, str], args: list[str], message: str
) -> None:
    result = cli(env, *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: {message}")


def test_get_is_answered_without_typer_with_the_same_text(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for args in (["get", PROMPT_EVENT], ["get", PROMPT_EVENT, "--json"], ["get", "--json", ROW_EVENT]):  # fmt: skip
        out = io.StringIO()
        with redirect_stdout(out):
            assert lean.run(args)
        assert out.getvalue() == ok(env, *args), args


def test_rich_wraps_only_in_a_terminal(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    line = "origin timeline --session " + "x" * 100
    piped = type(console)(file=io.StringIO(), highlight=False)
    piped.print(line)
    assert piped.file.getvalue() == line + "\n"  # type: ignore[attr-defined]
    terminal = type(console)(file=io.StringIO(), force_terminal=True, width=40, color_system=None)
    terminal.print(line)
    assert terminal.file.getvalue() != line + "\n"  # type: ignore[attr-defined]


@pytest.mark.e2e
def test_printed_to_a_pipe_nothing_is_wrapped(env: dict[str, str]) -> None:
    """Real processes, stdout a pipe, a terminal 40 columns wide as far as COLUMNS says."""

    def run(*args: str) -> str:
        done = subprocess.run(
            [ORIGIN, *args], env={**os.environ, **env}, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    sessions = run("timeline", "--since", LONG_AGO, "--limit", "500")
    for found in tool(env, "timeline", since=LONG_AGO, limit=500)["sessions"]:
        pattern = rf"^{re.escape(found['session'])}  .* · last active {re.escape(found['ended'])}$"
        assert re.search(pattern, sessions, flags=re.M), found["session"]
    said = run("search", "token bucket", "--source", "claude-code")
    assert re.search(r"^claude-code:\S+  \S+ · claude-code · demo-app · ", said, flags=re.M)
    [raw] = tool(env, "sources", id=PROMPT_EVENT)
    assert f"\n  {raw['raw']}\n" in run("sources", PROMPT_EVENT)
    text = run("get", PROMPT_EVENT)
    assert f"  claude-code · project demo-app · session {SESSION}\n" in text
    entry = json.loads(run("remember", "We tag releases.", "--event", PROMPT_EVENT, "--json"))
    gone = run(
        "forget", entry["entry"]["id"], "--reason", "the user asked in a long sentence", "--yes"
    )
    assert re.search(r"^undo: origin restore tmb_\w+$", gone, flags=re.M)


def test_text_from_the_archive_is_printed_as_it_is(env: dict[str, str]) -> None:
    """Brackets and colons in a statement are its words, not rich markup or emoji codes."""
    statement = "Config lives in [/etc/app] and [red]x[/red] means :warning: here."
    made = as_json(env, "remember", statement, "--event", PROMPT_EVENT)
    found = ok(env, "search", "Config lives", "--scope", "entries")
    assert f"{made['entry']['id']}  memory · " in found and f"  {statement}\n" in found
    assert f"  {statement}\n" in ok(env, "get", made["entry"]["id"])
