"""The README's commands work as shown: each `origin …` line of its ```sh blocks runs with the
installed `origin` on the demo archive a first `origin run` makes on a machine without logs.

An id written with an ellipsis (`codex:…`, `ent_…`) stands for one the reader has just been
shown: it is filled with the first such id in the latest output that has one, as a reader
copies it from the line above.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from helpers import ROOT

from origin_api import admin
from origin_api.settings import Settings

ORIGIN = str(Path(sys.executable).with_name("origin"))
#: Commands that serve until stopped: started, seen to answer, then stopped.
SERVERS = ("hub", "run")
PLACEHOLDER = re.compile(r"^(.*?)…$")


def readme_commands(text: str) -> list[list[str]]:
    """The words of every `origin …` line in the ```sh blocks (continued lines joined, comments
    dropped)."""
    found = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, flags=re.M | re.S):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words and Path(words[0]).name == "origin":
                found.append(words)
    return found


def test_the_commands_are_read_from_the_readme_as_a_reader_sees_them():
    text = (
        '```sh\nmake run   # not origin\n.venv/bin/origin search "数据库 migration"  # words\n'
        'origin remember "x" \\\n  --quote "y # z"\n```\nprose `origin ingest`\n'
        "```toml\norigin = 1\n```\n"
    )
    assert readme_commands(text) == [
        [".venv/bin/origin", "search", "数据库 migration"],
        ["origin", "remember", "x", "--quote", "y # z"],
    ]
    outputs = ["ent_1 and codex:s:L2", "nothing here", "supersedes ent_2"]
    assert [_filled(w, outputs) for w in ("ent_…", "codex:…", "plain")] == [
        "ent_2",
        "codex:s:L2",
        "plain",
    ]


def _filled(word: str, outputs: list[str]) -> str:
    """A placeholder replaced by the id it stands for, from the latest output showing one."""
    found = PLACEHOLDER.match(word)
    if found is None or not found.group(1):
        return word
    pattern = re.compile(re.escape(found.group(1)) + r"[\w:.-]+")
    for output in reversed(outputs):
        shown = pattern.search(output)
        if shown:
            return shown.group(0)
    raise AssertionError(f"{word}: no earlier command printed such an id")


@pytest.fixture(scope="module")
def demo_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A machine without agent logs after its first `origin run`, pointed at the demo archive.
    PATH holds Origin's own bin and the system's, so no agent's CLI is reached."""
    root = tmp_path_factory.mktemp("readme")
    base = {
        "PATH": os.pathsep.join([str(Path(ORIGIN).parent), os.defpath]),
        "HOME": str(root / "home"),
        "ORIGIN_HOME": str(root / "origin"),
        "LANG": "C.UTF-8",
        "ORIGIN_WATCH_INTERVAL_MS": "0",
        "ORIGIN_CLI_LINGER_S": "0",
    }
    first = subprocess.run(
        [ORIGIN, "run", "--no-hub"], env=base, capture_output=True, text=True, timeout=300
    )
    assert first.returncode == 0, first.stderr
    settings = Settings.from_env(base)
    return {**base, **admin.demo_of(settings).settings(settings).environ}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serves(argv: list[str], env: dict[str, str]) -> str:
    """Start a serving command on a free port, wait until /health answers, stop it."""
    port = _free_port()
    proc = subprocess.Popen(
        argv,
        env={**env, "ORIGIN_HUB_PORT": str(port)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
                    assert r.status == 200
                    break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        else:
            raise AssertionError(f"{shlex.join(argv)} did not serve (exit {proc.returncode})")
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    return out


@pytest.mark.e2e
def test_every_readme_command_works_as_shown_on_the_demo(demo_env: dict[str, str]):
    commands = readme_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(commands) >= 10, commands
    outputs: list[str] = []
    for words in commands:
        argv = [ORIGIN, *(_filled(word, outputs) for word in words[1:])]
        shown = shlex.join(words)
        if len(words) > 1 and words[1] in SERVERS and "--no-hub" not in words:
            outputs.append(_serves(argv, demo_env))
            continue
        done = subprocess.run(argv, env=demo_env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"README: {shown}\n{done.stdout}\n{done.stderr}"
        assert "Traceback" not in done.stderr, shown
        if words[1] == "search":
            assert re.search(r"^\S+:\S+", done.stdout, flags=re.M), f"{shown} found nothing"
        outputs.append(done.stdout)
