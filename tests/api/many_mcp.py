"""Many real `origin mcp` processes on one store while an agent's log grows: the harness of
tests/api/test_many_mcp.py, also run alone (`python tests/api/many_mcp.py SECONDS PROCESSES`)
to look for damage over longer runs.

Each process is spoken to by the SDK's client through its stdio, with a mix of every tool
(search, timeline, get, sources, remember, correct, forget); a writer appends Claude Code lines
to a session meanwhile, enough of them that each process's freshness passes store new events
and the source's dictionaries fall due while the processes run. Each process's stderr is kept
in a file of its own, so a process that ends mid-run says why."""

from __future__ import annotations

import asyncio
import json
import random
import shlex
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.types import Implementation
from mcp_client import ORIGIN, run_origin

SESSION = "5e55a000-0000-4000-8000-000000000001"
WORDS = [
    "lexer",
    "parser",
    "token",
    "budget",
    "limiter",
    "bucket",
    "refill",
    "window",
    "cache",
    "shard",
    "replica",
    "quorum",
    "migration",
    "schema",
    "index",
    "cursor",
    "snapshot",
    "rollback",
    "deploy",
    "canary",
    "metric",
    "latency",
    "retry",
    "backoff",
    "jitter",
    "queue",
    "worker",
    "lease",
    "fence",
    "epoch",
    "ledger",
    "journal",
    "checksum",
    "frame",
]


def line(n: int, rng: random.Random) -> bytes:
    """A Claude Code line: a user prompt or an assistant answer, with the word w<n> in it."""
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 60)))
    role = "user" if n % 2 == 0 else "assistant"
    record: dict[str, Any] = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/stress",
        "sessionId": SESSION,
        "version": "2.1.330",
        "gitBranch": "main",
        "type": role,
        "message": {"role": role, "content": f"w{n} {words} w{n}"},
        "uuid": str(uuid.UUID(int=(0x5E55 << 112) + n, version=4)),
        "timestamp": f"2026-11-{1 + n // 86400 % 28:02d}T{n // 3600 % 24:02d}:"
        f"{n // 60 % 60:02d}:{n % 60:02d}.000Z",
    }
    if role == "assistant":
        record["message"] = {
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-5",
            "content": [{"type": "text", "text": f"w{n} {words} w{n}"}],
        }
    return json.dumps(record).encode() + b"\n"


def session_log(config: Path) -> Path:
    folder = config / "projects" / "-home-dev-stress"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{SESSION}.jsonl"


def environment(tmp: Path) -> dict[str, str]:
    config = tmp / "claude"
    session_log(config)
    env = {
        "HOME": str(tmp / "home"),
        "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
        "ORIGIN_HOME": str(tmp / "origin"),
        "CLAUDE_CONFIG_DIR": str(config),
        "CODEX_HOME": str(tmp / "none"),
        "ZCODE_STORAGE_DIR": str(tmp / "none"),
        "GROK_HOME": str(tmp / "none"),
        "ORIGIN_DEVICE": "stressbox",
        "ORIGIN_WATCH_INTERVAL_MS": "500",
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "300",
        "ORIGIN_CLI_LINGER_S": "0",
        "LANG": "C.UTF-8",
    }
    (tmp / "home").mkdir(exist_ok=True)
    return env


@dataclass
class Tally:
    """What one client saw: calls made, tool errors by message, and whether its connection
    ended before the run did."""

    calls: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    closed: str | None = None

    def error(self, text: str) -> None:
        key = next((known for known in EXPECTED if known in text), text[:160])
        self.errors[key] = self.errors.get(key, 0) + 1

    def unexpected(self) -> dict[str, int]:
        return {key: n for key, n in self.errors.items() if key not in EXPECTED}


#: Tool errors a client's mix can meet in a healthy store: an event or entry another process
#: forgot, an entry another process corrected first, a quote cited from a hit just forgotten.
EXPECTED = ("has been forgotten", "was already corrected", "Quote not found", "No event contains")


async def _one(client: Client, name: str, args: dict[str, Any], tally: Tally) -> Any:
    tally.calls += 1
    result = await client.call_tool(name, args)
    text = result.content[0].text if result.content else ""
    if result.is_error:
        tally.error(text)
        return None
    return json.loads(text)


async def _client_loop(env: dict[str, str], log: Path, until: float, seed: int) -> Tally:
    rng = random.Random(seed)
    tally = Tally()
    command = f"exec {shlex.quote(ORIGIN)} mcp 2>>{shlex.quote(str(log))}"
    params = StdioServerParameters(command="/bin/sh", args=["-c", command], env=env)
    entries: list[str] = []
    hits: list[dict[str, Any]] = []
    try:
        async with Client(
            params,
            client_info=Implementation(name="claude-code", version="1.0"),
            read_timeout_seconds=120,
        ) as client:
            while time.monotonic() < until:
                await _step(client, rng, tally, entries, hits)
    except Exception as error:  # the connection ended: what the harness is there to see
        tally.closed = f"{type(error).__name__}: {error}"
    return tally


async def _step(
    client: Client,
    rng: random.Random,
    tally: Tally,
    entries: list[str],
    hits: list[dict[str, Any]],
) -> None:
    roll = rng.random()
    if roll < 0.35 or not hits:
        found = await _one(client, "search", {"query": rng.choice(WORDS)}, tally)
        if found:
            hits[:] = found.get("events", [])[:10] or hits
    elif roll < 0.5:
        await _one(client, "timeline", {}, tally)
    elif roll < 0.65:
        await _one(client, "get", {"id": rng.choice(hits)["id"]}, tally)
    elif roll < 0.72:
        await _one(client, "sources", {"id": rng.choice(hits)["id"]}, tally)
    elif roll < 0.85:
        hit = rng.choice(hits)
        args = {
            "kind": "knowledge",
            "text": f"The stress run saw {hit['id']}.",
            "confidence": 0.5,
            "sources": [{"event_id": hit["id"]}],
        }
        made = await _one(client, "remember", args, tally)
        if made:
            entries.append(made["entry"]["id"])
    elif roll < 0.95 and entries:
        args = {"id": entries.pop(), "text": f"Corrected at {time.time()}."}
        made = await _one(client, "correct", args, tally)
        if made:
            entries.append(made["entry"]["id"])
    elif roll >= 0.97:
        await _one(client, "forget", {"id": hits.pop()["id"], "reason": "stress run"}, tally)


async def _writer(path: Path, until: float, start: int, per_second: int) -> int:
    rng = random.Random(7)
    n = start
    with path.open("ab") as f:
        while time.monotonic() < until:
            for _ in range(max(1, per_second // 20)):
                f.write(line(n, rng))
                n += 1
            f.flush()
            await asyncio.sleep(0.05)
    return n


def seed_log(path: Path, count: int) -> None:
    rng = random.Random(3)
    with path.open("ab") as f:
        for n in range(count):
            f.write(line(n, rng))


async def run(
    tmp: Path, *, seconds: float, processes: int, seeded: int = 15_000, per_second: int = 300
) -> tuple[list[Tally], int]:
    """Seed the log, start `processes` clients for `seconds` while the writer appends; the
    clients' tallies and how many lines the log holds."""
    env = environment(tmp)
    path = session_log(Path(env["CLAUDE_CONFIG_DIR"]))
    seed_log(path, seeded)
    until = time.monotonic() + seconds
    logs = [tmp / f"mcp-{i}.stderr" for i in range(processes)]
    tallies = await asyncio.gather(
        *(_client_loop(env, logs[i], until, seed=i) for i in range(processes)),
        _writer(path, until, seeded, per_second),
    )
    return list(tallies[:-1]), int(tallies[-1])


def verify(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_origin(env, "verify", timeout=600)


def main() -> None:
    import tempfile

    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60
    processes = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    tmp = Path(tempfile.mkdtemp(prefix="origin-many-mcp-"))
    tallies, lines = asyncio.run(run(tmp, seconds=seconds, processes=processes))
    for i, tally in enumerate(tallies):
        print(i, tally.calls, tally.errors, tally.closed)
    checked = verify(environment(tmp))
    print(
        "lines", lines, "verify", checked.returncode, checked.stdout[-2000:], checked.stderr[-2000:]
    )
    for log in sorted(tmp.glob("mcp-*.stderr")):
        text = log.read_text(errors="replace")
        if text.strip():
            print(f"--- {log.name}\n{text[-3000:]}")
    print(tmp)


if __name__ == "__main__":
    main()
