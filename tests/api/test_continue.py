"""`origin continue`: each agent's own command that continues a session, quoted for a shell, and
`--run`, which becomes that command in the session's directory (a stand-in agent CLI on PATH
records what it was given)."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest
from helpers import fixture_env
from mcp_client import run_origin

from origin_api.continuing.commands import SessionFacts, continuation
from origin_api.runtime import Origin
from origin_store import Settings

ODD_CWD = '/home/dev/my app/it\'s "here"'
CASES = [
    # (facts, the command, or None and words of the reason)
    (SessionFacts("claude-code", "7f3c", ODD_CWD), ["claude", "--resume", "7f3c"], ""),
    (
        SessionFacts("claude-code", "7f3c/agent-a1", "/w", "7f3c"),
        ["claude", "--resume", "7f3c"],
        "",
    ),
    (SessionFacts("codex", "019a-5b", ODD_CWD), ["codex", "resume", "019a-5b"], ""),
    (SessionFacts("cursor", "5e6f", "/w"), ["cursor-agent", "--resume", "5e6f"], ""),
    (SessionFacts("cursor", "2a4c", "/w", ide_only=True), None, "Cursor IDE chat"),
    (
        SessionFacts("grok", "019b4c10-2e3f-7a41", "/w"),
        ["grok", "--resume", "019b4c10-2e3f-7a41"],
        "",
    ),
    (SessionFacts("grok", "5c2e8a1f9b30", "/w"), ["grok", "--session", "5c2e8a1f9b30"], ""),
    (SessionFacts("zcode", "sess_1", "/w"), ["zcode", "--resume", "sess_1"], ""),
    (
        SessionFacts("zcode", "sess_subagent_agent_9", "/w", "sess_1"),
        ["zcode", "--resume", "sess_1"],
        "",
    ),
    (SessionFacts("claude-code", "memory:/home/a/CLAUDE.md", "/home/a"), None, "memory file"),
    (SessionFacts("gemini", "8f1e-uuid", ODD_CWD), ["gemini", "--resume", "8f1e-uuid"], ""),
    (SessionFacts("gemini", "sub-1", "/w", "8f1e"), ["gemini", "--resume", "8f1e"], ""),
    (SessionFacts("qwen", "3c9a-uuid", "/w"), ["qwen", "--resume", "3c9a-uuid"], ""),
    (SessionFacts("opencode", "ses_5a", "/w"), ["opencode", "--session", "ses_5a"], ""),
    (SessionFacts("opencode", "ses_task", "/w", "ses_5a"), ["opencode", "--session", "ses_5a"], ""),
    (SessionFacts("copilot", "0cb9-uuid", "/w"), ["copilot", "--resume=0cb9-uuid"], ""),
    (SessionFacts("aider", "s1", "/w"), None, "no command of aider"),
]


@pytest.mark.parametrize(("facts", "argv", "reason"), CASES)
def test_each_agents_command(facts: SessionFacts, argv: list[str] | None, reason: str) -> None:
    found = continuation(facts)
    assert found.argv == argv
    if argv is None:
        assert reason in found.reason and found.shell == ""
        return
    # The shell's own parsing gives back the directory and the argv, however odd the path.
    words = shlex.split(found.shell)
    assert words[:3] == ["cd", facts.cwd, "&&"] and words[3:] == argv


def test_a_session_without_a_directory_is_the_bare_command() -> None:
    found = continuation(SessionFacts("codex", "019a", None))
    assert found.shell == "codex resume 019a"


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = fixture_env(tmp_path_factory.mktemp("continue"))
    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()
    return env


CLAUDE_SESSION = "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10"


@pytest.mark.parametrize(
    "given",
    [
        CLAUDE_SESSION,
        f"claude-code:{CLAUDE_SESSION}",
        "claude-code:a0000006-0000-4000-8000-000000000006",  # a search hit's event id
        CLAUDE_SESSION[:13],  # the start of the id
        f"http://127.0.0.1:8787/ui/session?source=claude-code&id={CLAUDE_SESSION}",
        f"{CLAUDE_SESSION}/agent-a3f9c2e1b7d40568",  # a sub-agent: its parent continues
    ],
)
def test_the_forms_people_paste(archive: dict[str, str], given: str) -> None:
    done = run_origin(archive, "continue", given)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"cd /home/dev/demo-app && claude --resume {CLAUDE_SESSION}\n"


def test_json_and_a_quoted_directory(archive: dict[str, str]) -> None:
    done = run_origin(archive, "continue", "019a0f2e-5b6c-7d81-9e02-a3b4c5d6e7f8", "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["argv"] == ["codex", "resume", "019a0f2e-5b6c-7d81-9e02-a3b4c5d6e7f8"]
    assert shown["cwd"] == "/home/dev/プロジェクト/web_ui"
    assert shown["command"] == f"cd '{shown['cwd']}' && codex resume {shown['argv'][2]}"


def test_nothing_to_continue_and_unknown_sessions(archive: dict[str, str]) -> None:
    ide = run_origin(archive, "continue", "2a4c6e8f-0b1d-4f3a-9c5e-7a9b1c3d5e7f")
    assert ide.returncode == 1 and ide.stdout == ""
    assert "Cursor IDE chat" in ide.stderr
    unknown = run_origin(archive, "continue", "no-such-session")
    assert unknown.returncode == 2 and "Unknown session no-such-session" in unknown.stderr
    entry = run_origin(archive, "continue", "ent_0123")
    assert entry.returncode == 2 and "is an entry, not a session" in entry.stderr


def _fake_agent(folder: Path, name: str, record: Path) -> None:
    """A stand-in for the agent's CLI: it writes down its argv and directory, and exits 7."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$PWD" "$@" > {shlex.quote(str(record))}\nexit 7\n'
    )
    script.chmod(0o755)


def test_run_becomes_the_agent_in_the_sessions_directory(
    archive: dict[str, str], tmp_path: Path
) -> None:
    # The session's directory must exist on this machine: a copy of the sample whose cwd is one.
    workdir = tmp_path / "work dir's"
    workdir.mkdir()
    env = fixture_env(tmp_path / "home", copy=True)
    sample = Path(env["CLAUDE_CONFIG_DIR"]) / "projects/-home-dev-demo-app"
    transcript = sample / f"{CLAUDE_SESSION}.jsonl"
    transcript.write_text(transcript.read_text().replace("/home/dev/demo-app", str(workdir)))
    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()
    record = tmp_path / "argv.txt"
    _fake_agent(tmp_path / "bin", "claude", record)
    env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"
    done = run_origin(env, "continue", CLAUDE_SESSION, "--run")
    assert done.returncode == 7, done.stderr
    assert record.read_text().splitlines() == [str(workdir), "--resume", CLAUDE_SESSION]


def test_run_without_the_agents_cli(archive: dict[str, str]) -> None:
    env = {**archive, "PATH": "/nonexistent"}
    done = run_origin(env, "continue", CLAUDE_SESSION, "--run")
    assert done.returncode == 127
    assert "claude is not on PATH" in done.stderr and "claude --resume" in done.stderr


@pytest.mark.parametrize("command", ["continue", "export"])
@pytest.mark.parametrize(
    "session",
    ["語" * 200, "😀" * 150, "x" * 10_000, "-", "'; rm -rf / #", "\t", "claude-code:"],
    ids=[
        "600 bytes of 3-byte letters",
        "600 bytes of emoji",
        "10,000",
        "dash",
        "shell",
        "tab",
        "source only",
    ],
)
def test_a_hostile_session_id_is_refused_in_a_line(
    archive: dict[str, str], command: str, session: str
) -> None:
    """`origin continue` and `origin export` read the id a person pasted: anything that names
    no session is one line on stderr and exit 2, nothing printed, nothing run."""
    done = run_origin(archive, command, "--", session)
    assert done.returncode == 2, (done.stdout, done.stderr[-300:])
    assert done.stdout == "" and done.stderr.startswith("error: ")
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
