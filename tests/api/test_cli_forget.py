"""`origin forget` shows its reach before it acts: it lists every entry version and event the
forget will hide, asks on a terminal, refuses off one without --yes, and --yes skips the
question (scripts)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time
from pathlib import Path

import pytest
from helpers import fixture_env
from mcp_client import ORIGIN
from typer.testing import CliRunner

from origin_api.cli.commands import app
from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_api.service.writing import forget_reach
from origin_store import Settings

PROMPT_EVENT = "claude-code:a0000001-0000-4000-8000-000000000001"


@pytest.fixture
def env(tmp_path: Path, fixtures_dir: Path) -> dict[str, str]:
    values = {**os.environ, **fixture_env(tmp_path), "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0"}
    with Origin.open(Settings.from_env(values)) as origin:
        origin.ingest()
    return values


def _remember(env: dict[str, str], text: str) -> str:
    with Origin.open(Settings.from_env(env)) as origin:
        made = call(
            origin,
            "remember",
            {
                "kind": "memory",
                "text": text,
                "sources": [{"event_id": PROMPT_EVENT}],
                "confidence": 0.9,
            },
            Caller("user", "testbox"),
        )
    return str(made["entry"]["id"])


def _hidden(env: dict[str, str], item_id: str) -> bool:
    with Origin.open(Settings.from_env(env)) as origin:
        return bool(forget_reach(origin, item_id) == [])


def test_the_reach_is_the_forgets_own_rule(env: dict[str, str]):
    entry = _remember(env, "Rate limits use a token bucket.")
    other = _remember(env, "The limiter lives in the gateway.")
    with Origin.open(Settings.from_env(env)) as origin:
        of_event = forget_reach(origin, PROMPT_EVENT)
        of_entry = forget_reach(origin, entry)
    assert {(r["kind"], r["id"], r["target"]) for r in of_event[:2]} == {
        ("entry", entry, False),
        ("entry", other, False),
    }
    assert (of_event[2]["kind"], of_event[2]["id"], of_event[2]["target"]) == (
        "event",
        PROMPT_EVENT,
        True,
    )
    texts = {r["id"]: r["text"] for r in of_event}
    assert texts[entry] == "Rate limits use a token bucket."
    assert of_event[2]["source"] == "claude-code" and of_event[2]["session"]
    assert [(r["kind"], r["id"]) for r in of_entry] == [("entry", entry), ("event", PROMPT_EVENT)]
    # and the forget hides exactly that
    with Origin.open(Settings.from_env(env)) as origin:
        gone = call(origin, "forget", {"id": entry, "reason": "x"}, Caller("user", "t"))
    assert gone["forgotten_entries"] == [entry] and gone["excluded_events"] == 1


def test_off_a_terminal_it_lists_the_reach_and_refuses_without_yes(env: dict[str, str]):
    entry = _remember(env, "Releases are cut on Fridays.")
    refused = CliRunner().invoke(app, ["forget", entry, "--reason", "no"], env=env)
    assert refused.exit_code == 2
    assert "pass --yes" in refused.stderr
    assert f"forget {entry} hides 1 entry and 1 event:" in refused.stderr
    assert f"  entry  {entry}  Releases are cut on Fridays." in refused.stderr
    assert f"  event  {PROMPT_EVENT}  " in refused.stderr
    assert not _hidden(env, entry)  # nothing was forgotten
    done = CliRunner().invoke(app, ["forget", entry, "--reason", "no", "--yes"], env=env)
    assert done.exit_code == 0 and done.stdout.startswith(f"forgot {entry}: 1 entry and 1 event")
    assert _hidden(env, entry)


def _at_a_terminal(env: dict[str, str], args: list[str], answer: bytes) -> tuple[int, str]:
    """`origin ARGS` with a terminal for its input and output, answering its question."""
    main, tty = pty.openpty()
    process = subprocess.Popen([ORIGIN, *args], stdin=tty, stdout=tty, stderr=tty, env=env)
    os.close(tty)
    said = b""
    deadline = time.monotonic() + 120
    answered = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(main, 4096)
            except OSError:
                break  # the process ended: its terminal closed
            if not chunk:
                break
            said += chunk
            if not answered and b"Forget all of this?" in said:
                os.write(main, answer)
                answered = True
        elif process.poll() is not None:
            break
    code = process.wait(timeout=60)
    os.close(main)
    return code, said.decode(errors="replace").replace("\r\n", "\n")


def test_at_a_terminal_it_asks_and_no_keeps_everything(env: dict[str, str]):
    entry = _remember(env, "Deploys need two approvals.")
    code, said = _at_a_terminal(env, ["forget", entry, "--reason", "asked"], b"n\n")
    assert code == 1 and "Forget all of this? [y/N]" in said and "nothing forgotten" in said
    assert f"  entry  {entry}  Deploys need two approvals." in said
    assert not _hidden(env, entry)
    code, said = _at_a_terminal(env, ["forget", entry, "--reason", "asked"], b"y\n")
    assert code == 0 and f"forgot {entry}: 1 entry and 1 event" in said
    assert _hidden(env, entry)


def test_nothing_left_to_hide_needs_no_question(env: dict[str, str]):
    entry = _remember(env, "Staging resets nightly.")
    assert (
        CliRunner().invoke(app, ["forget", entry, "--reason", "x", "--yes"], env=env).exit_code == 0
    )
    again = CliRunner().invoke(app, ["forget", entry, "--reason", "x"], env=env)
    assert (
        again.exit_code == 0 and again.stdout == f"{entry} was already forgotten: nothing changed\n"
    )
