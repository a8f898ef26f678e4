"""Ephemeral mode end to end, over copies of the project's own Claude Code, Codex and zcode
samples, with the real store, index, mirrors and row logs: what agents write during a pause is
never recorded by `origin ingest`, a search's freshness pass or a running `origin mcp`; `origin
resume` leaves it out with every later line keeping its number; `--backfill` records it; a
pause that ends by itself leaves out what was seen written during it and records what follows."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
from helpers import fixture_env
from mcp_client import stdio_client, tool_json

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_api.service import pause as recording
from origin_store import Settings
from origin_store.care.verify import verify
from origin_store.ingest import rowlog
from origin_store.pause import marks as pause_marks

ORIGIN = str(Path(sys.executable).with_name("origin"))
CLAUDE_LOG = "projects/-home-dev-demo-app/7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10.jsonl"
CODEX_LOG = (
    "sessions/2026/10/21/rollout-2026-10-21T11-05-11-019a0f2e-5b6c-7d81-9e02-a3b4c5d6e7f8.jsonl"
)
ZCODE_DB = "cli/db/db.sqlite"
CALLER = Caller("test-agent", "testbox")


def claude_line(word: str, n: int) -> bytes:
    uuid = f"f00dcafe-0000-4000-8000-{n:012d}"
    return orjson.dumps(
        {
            "parentUuid": None,
            "isSidechain": False,
            "type": "user",
            "cwd": "/home/dev/demo-app",
            "sessionId": "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10",
            "version": "2.1.241",
            "uuid": uuid,
            "timestamp": f"2026-10-20T11:{n % 60:02d}:00.000Z",
            "message": {"role": "user", "content": f"the {word} limiter, take {n}"},
        }
    )


def codex_line(word: str) -> bytes:
    return orjson.dumps(
        {
            "timestamp": "2026-10-22T01:31:00.000Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": f"Noted: {word} is done."}],
            },
        }
    )


def append(path: Path, *lines: bytes) -> None:
    with open(path, "ab") as out:
        out.write(b"".join(line + b"\n" for line in lines))


def found(origin: Origin, word: str) -> set[str]:
    result = call(origin, "search", {"query": word, "include_tools": True}, CALLER)
    return {event["id"] for event in result["events"]}


def cli(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [ORIGIN, *args], env={**os.environ, **env}, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout


class Agents:
    """The copies of the samples a test writes to, as their agents would."""

    def __init__(self, env: dict[str, str]) -> None:
        self.claude = Path(env["CLAUDE_CONFIG_DIR"]) / CLAUDE_LOG
        self.codex = Path(env["CODEX_HOME"]) / CODEX_LOG
        self.zcode = Path(env["ZCODE_STORAGE_DIR"]) / ZCODE_DB

    def text_part(self, origin: Origin) -> tuple[str, dict[str, Any], str]:
        """A zcode text part that became an event: (part id, its data, the event's id)."""
        with origin.store.read() as txn:
            texts = {
                origin.store.codec.decode(txn, key, value)["text"]: key.decode()
                for key, value in origin.store.iter_events(txn)
                if key.startswith(b"zcode:")
            }
        with sqlite3.connect(self.zcode) as db:
            for part_id, data in db.execute("SELECT id, data FROM part ORDER BY id"):
                loaded = json.loads(data)
                if loaded.get("type") == "text" and loaded.get("text") in texts:
                    return part_id, loaded, texts[loaded["text"]]
        raise AssertionError("no zcode text part became an event")

    def change_part(self, part_id: str, data: dict[str, Any], text: str) -> None:
        db = sqlite3.connect(self.zcode, isolation_level=None)
        try:
            db.execute(
                "UPDATE part SET data = ?, time_updated = time_updated + 1 WHERE id = ?",
                (json.dumps({**data, "text": text}), part_id),
            )
        finally:
            db.close()


def recorded(origin: Origin, agents: Agents) -> tuple[Any, ...]:
    """Everything a pass could change: events and feed, the logs' cursors (their mirrors'
    state), the zcode row log."""
    store = origin.store
    with store.read() as txn:
        count, feed = store.event_count(txn), store.feed_last(txn)
        cursors = [store.get(txn, "files", str(p).encode()) for p in (agents.claude, agents.codex)]
    row_log = rowlog.row_log_path(origin.home / "rows", "zcode", agents.zcode).read_bytes()
    return count, feed, cursors, row_log


@pytest.fixture
def env(tmp_path: Path, fixtures_dir: Path) -> dict[str, str]:
    return {**fixture_env(tmp_path, copy=True), "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0"}


@pytest.mark.e2e
def test_a_pause_records_nothing_and_resume_leaves_it_out(env: dict[str, str]) -> None:
    agents = Agents(env)
    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()
        part_id, data, event_id = agents.text_part(origin)
        recording.pause(origin, for_ms=None, reason="a private call")
        before = recorded(origin, agents)
        append(agents.claude, claude_line("quokkaprivate", 1), claude_line("quokkaprivate", 2))
        append(agents.codex, codex_line("quokkaprivate"))
        agents.change_part(part_id, data, "changed during the quokkaprivate call")

        report = json.loads(cli(env, "ingest", "--json"))
        assert report["paused"] and report["lines"] == report["events"] == 0
        assert cli(env, "ingest").startswith("Recording is paused (ephemeral mode): nothing")
        assert found(origin, "quokkaprivate") == set()  # the search's own freshness pass
        assert recorded(origin, agents) == before

        said = cli(env, "resume")
        assert "Left out what the agents wrote during the pause: 3 log lines, 1 database" in said
        assert found(origin, "quokkaprivate") == set()
        assert pause_marks.count(origin.store) == 0

        append(agents.claude, claude_line("quokkaafter", 3))
        agents.change_part(part_id, data, "changed again once quokkaafter resumed")
        after = found(origin, "quokkaafter")
        assert len(after) == 2 and event_id in after
        later = next(i for i in after if i != event_id)
        [source] = call(origin, "sources", {"id": later}, CALLER)
        original = agents.claude.read_bytes().splitlines()
        assert source["line"] == len(original) and source["raw"] == original[-1].decode()
        with origin.store.read() as txn:
            cursor = origin.store.get(txn, "files", str(agents.claude).encode())
        assert cursor["lines"] == len(original)
        assert verify(origin.store, origin.home).ok


@pytest.mark.e2e
def test_resume_with_backfill_records_what_the_pause_held_back(env: dict[str, str]) -> None:
    agents = Agents(env)
    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()
        recording.pause(origin, for_ms=None, reason=None)
        append(agents.claude, claude_line("quokkaheld", 1))
        append(agents.codex, codex_line("quokkaheld"))
        assert found(origin, "quokkaheld") == set()
        resumed = recording.resume(origin, backfill=True)
        assert resumed is not None and resumed.ingested is not None
        assert resumed.ingested.lines == 2
        assert len(found(origin, "quokkaheld")) == 2
        assert verify(origin.store, origin.home).ok


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.anyio
async def test_a_running_mcp_marks_a_pause_that_then_ends_by_itself(env: dict[str, str]) -> None:
    """The watcher of an `origin mcp` reads nothing during the pause but marks what grew, so
    when `--for` runs out what was written during the pause stays out and what follows is in."""
    agents = Agents(env)
    watching = {**os.environ, **env, "ORIGIN_WATCH_INTERVAL_MS": "150"}
    async with stdio_client(watching) as agent:
        assert (await tool_json(agent, "search", {"query": "quokkaseen"}))["events"] == []
        cli(env, "pause", "--for", "3s")
        started = time.monotonic()
        append(agents.claude, claude_line("quokkaseen", 1))
        await anyio.sleep(1.0)  # several watch intervals: the marks are taken
        assert (await tool_json(agent, "search", {"query": "quokkaseen"}))["events"] == []
        await anyio.sleep(max(0.0, 3.3 - (time.monotonic() - started)))
        append(agents.claude, claude_line("quokkalate", 2))
        await anyio.sleep(0.6)
        assert (await tool_json(agent, "search", {"query": "quokkaseen"}))["events"] == []
        late = (await tool_json(agent, "search", {"query": "quokkalate"}))["events"]
        assert len(late) == 1
    assert '"unrecorded_lines": 0' in cli(env, "resume", "--json")  # settled by the watcher
    with Origin.open(Settings.from_env(env)) as origin:
        original = agents.claude.read_bytes().splitlines()
        [source] = call(origin, "sources", {"id": late[0]["id"]}, CALLER)
        assert source["line"] == len(original) and source["raw"] == original[-1].decode()
        assert verify(origin.store, origin.home).ok


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_a_relay_device_pauses_and_resumes_without_an_archive(tmp_path: Path) -> None:
    """A relay keeps no store: its pause is the flag alone, with nothing read before it or left
    out after it."""
    from test_merge import connect, dead_url, device_env

    environ = device_env(tmp_path, samples=False)
    connect(environ, dead_url(), "ogn_unused", relay=True)
    with Origin.open(Settings.from_env(environ)) as relay:
        made = recording.pause(relay, for_ms=None, reason="relay")
        assert recording.in_force(relay) == made
        resumed = recording.resume(relay, backfill=False)
        assert resumed is not None and resumed.pause == made and resumed.lines == 0
        assert recording.in_force(relay) is None and recording.resume(relay, backfill=True) is None
