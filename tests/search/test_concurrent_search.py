"""Two processes ingesting and searching one store at once; a search while another process
holds the index writer still finds what was ingested a moment ago."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from origin_search import SearchIndex

pytestmark = pytest.mark.e2e
HERE = Path(__file__).parent
ORIGIN = str(Path(sys.executable).with_name("origin"))


def _env(tmp_path: Path) -> dict[str, str]:
    claude = tmp_path / "claude"
    (claude / "projects" / "-home-dev-two-procs").mkdir(parents=True, exist_ok=True)
    return {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "ORIGIN_HOME": str(tmp_path / "origin"),
        "CLAUDE_CONFIG_DIR": str(claude),
        "CODEX_HOME": str(tmp_path / "codex"),
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0",
        "ORIGIN_WATCH_INTERVAL_MS": "0",
    }


def test_two_processes_ingest_and_search_at_once(tmp_path: Path):
    env = _env(tmp_path)
    logs = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-home-dev-two-procs"
    count = 25
    procs = {
        name: subprocess.Popen(
            [
                sys.executable,
                str(HERE / "two_process_worker.py"),
                name,
                str(logs / f"{name}.jsonl"),
                str(count),
                other,
            ],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name, other in (("alpha", "beta"), ("beta", "alpha"))
    }
    results = {name: json.loads(proc.communicate(timeout=240)[0]) for name, proc in procs.items()}
    assert all(proc.returncode == 0 for proc in procs.values())
    for name, result in results.items():
        assert result["missing"] == [], (
            f"{name} did not find its own fresh lines: {result['missing']}"
        )
        assert result["seen_other"] == count, (
            f"{name} saw {result['seen_other']} of the other's {count} lines"
        )


def test_search_finds_fresh_events_while_another_process_holds_the_writer(tmp_path: Path):
    env = _env(tmp_path)
    log = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-home-dev-two-procs" / "s.jsonl"

    def append(uuid: str, text: str) -> None:
        with log.open("ab") as f:
            f.write(
                orjson.dumps(
                    {
                        "type": "user",
                        "uuid": uuid,
                        "sessionId": "s",
                        "cwd": "/home/dev/two-procs",
                        "timestamp": "2026-11-01T10:00:00.000Z",
                        "message": {"role": "user", "content": text},
                    }
                )
                + b"\n"
            )

    append("u1", "first line okapi")
    subprocess.run([ORIGIN, "ingest"], env=env, check=True, capture_output=True)  # the archive
    subprocess.run(
        [ORIGIN, "search", "okapi"], env=env, check=True, capture_output=True
    )  # creates the index
    writer = SearchIndex.open(Path(env["ORIGIN_HOME"]) / "index").try_writer()
    assert writer is not None
    try:
        append("u2", "second line narwhal")
        out = subprocess.run(
            [ORIGIN, "search", "narwhal", "--json"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        assert [e["id"] for e in json.loads(out.stdout)["events"]] == ["claude-code:u2"]
    finally:
        writer.close()
    out = subprocess.run(
        [ORIGIN, "search", "narwhal", "--json"], env=env, check=True, capture_output=True, text=True
    )
    assert [e["id"] for e in json.loads(out.stdout)["events"]] == ["claude-code:u2"]
