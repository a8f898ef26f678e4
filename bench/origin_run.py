"""Origin's side of the benchmark: ingest, index, search in-process, through `origin mcp`,
and a fresh process's first answer. Heavy steps run in subprocesses so peak memory is theirs.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from origin_api import lingering
from origin_store.reader import disk_usage

from . import memory
from .corpus import logs_of, warm
from .memory import run_sampled
from .stats import hit_rate, median, summarize, time_calls

ORIGIN = str(Path(sys.executable).with_name("origin"))


def corpus_env(corpus_dir: Path, home: Path) -> dict[str, str]:
    claude, codex = logs_of(corpus_dir)
    return {
        **os.environ,
        "HOME": str(home / "user"),
        "ORIGIN_HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(claude),
        "CODEX_HOME": str(codex),
        "ORIGIN_WATCH_INTERVAL_MS": "0",
        "TZ": "UTC",
    }


def build(corpus_dir: Path, home: Path, workers: int | None = None) -> dict:
    """Ingest the corpus into a fresh home, then build the index: each in its own process,
    every process of a step sampled for its peak anonymous memory and RSS and counted for its
    CPU (`memory`)."""
    if home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True)
    env = corpus_env(corpus_dir, home)
    warmed, warm_seconds = warm(*logs_of(corpus_dir))
    steps = {}
    for name, args in (("ingest", ["ingest", str(workers or 0)]), ("index", ["index"])):
        os.sync()  # nothing still being written back competes with the step's reads
        step = run_sampled([sys.executable, "-m", "bench.origin_run", *args], env)
        steps[name] = {
            **json.loads(step.out),
            "wall_seconds": step.seconds,
            "cpu_seconds": step.cpu_seconds,
            "memory": step.peaks,
        }
    ingest, index = steps["ingest"], steps["index"]
    ingest["store_bytes"] = disk_usage(home / "store")
    ingest["mirror_bytes"] = disk_usage(home / "raw")
    index["index_bytes"] = disk_usage(home / "index")
    return {
        "ingest": ingest,
        "index": index,
        "warmed": {"bytes": warmed, "seconds": warm_seconds},
        # From nothing to searchable: both steps' own time, as one `origin run` pays it (the
        # two processes' start-up, in wall_seconds, is the bench's and not a user's).
        "seconds": ingest["seconds"] + index["seconds"],
        "wall_seconds": ingest["wall_seconds"] + index["wall_seconds"],
        "disk_bytes": ingest["store_bytes"] + ingest["mirror_bytes"] + index["index_bytes"],
        "peak_anon_bytes": _largest(p["memory"]["peak_anon_bytes"] for p in (ingest, index)),
        "peak_rss_bytes": _largest(p["memory"]["peak_rss_bytes"] for p in (ingest, index)),
    }


def _largest(values: Iterable[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None


def _child_ingest(workers: int) -> dict:
    from origin_store import Ingester, Settings, Store
    from origin_store.parsers.registry import SOURCES

    settings = Settings.from_env()
    store = Store.open(settings.home, map_size=settings.map_size)
    try:
        started = time.perf_counter()
        report = Ingester(store, settings, SOURCES).run(workers=workers or None)
        seconds = time.perf_counter() - started
    finally:
        store.close()
    return {
        "events": report.events,
        "lines": report.lines,
        "raw_bytes": report.bytes,
        "seconds": seconds,
        "events_per_s": report.events / seconds,
        "mb_per_s": report.bytes / seconds / 1e6,
        "skipped": dict(report.problems),
        "errors": report.errors[:5],
        "peak_rss_bytes": _peak_rss(),
    }


def _child_index() -> dict:
    from origin_search import catchup
    from origin_search.index import SearchIndex
    from origin_store import Settings, Store

    settings = Settings.from_env()
    store = Store.open(settings.home, map_size=settings.map_size)
    try:
        index = SearchIndex.open(settings.home / "index")
        started = time.perf_counter()
        result = catchup.catch_up(store, index)
        seconds = time.perf_counter() - started
        index.close() if hasattr(index, "close") else None
    finally:
        store.close()
    return {
        "docs": result.docs,
        "seconds": seconds,
        "events_per_s": result.docs / seconds,
        "peak_rss_bytes": _peak_rss(),
    }


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def search_args(query: Any) -> dict:
    """The tool arguments for one benchmark query: tools included, as FTS5 indexes them too."""
    args: dict[str, Any] = {"query": query.text, "include_tools": True, "limit": 20}
    for key in ("source", "project", "since"):
        if query.filters.get(key):
            args[key] = query.filters[key]
    return args


def in_process(corpus_dir: Path, home: Path, queries: list) -> dict:
    """p50/p95/p99 of `search` with snippets in a process that has Origin open."""
    os.environ.update(corpus_env(corpus_dir, home))
    from origin_api.runtime import Origin
    from origin_api.service import Caller, call

    with Origin.open() as origin:
        caller = Caller("bench", "bench")

        def run(query: Any) -> list:
            return call(origin, "search", search_args(query), caller)["events"]

        samples = time_calls(run, queries)

        def messages(query: Any) -> list:  # the contract's default: tools left out
            args = {**search_args(query), "include_tools": False}
            return call(origin, "search", args, caller)["events"]

        default = time_calls(messages, queries)
        cjk = [q for q in queries if q.category == "cjk"]
        per_category = {}
        for category in dict.fromkeys(q.category for q in queries):
            picked = [s for s, q in zip(samples, queries, strict=True) if q.category == category]
            per_category[category] = asdict(summarize(picked))
        return {
            "latency_all": asdict(summarize(samples)),
            "latency_messages": asdict(summarize(default)),
            "latency": asdict(
                summarize([s for s, q in zip(samples, queries, strict=True) if q.category != "cjk"])
            ),
            "per_category": per_category,
            "cjk_recall": hit_rate(run, cjk),
            "cjk_queries": len(cjk),
            "no_hits": sum(1 for q in queries if q.category != "cjk" and not run(q)),
        }


FIRST_QUERY = (
    "import sys, time; t0 = time.perf_counter()\n"
    "from origin_api.runtime import Origin\nfrom origin_api.service import Caller, call\n"
    "o = Origin.open(); r = call(o, 'search', {'query': sys.argv[1], 'include_tools': True}, Caller('b', 'b'))\n"
    "print(len(r['events']))\n"
)


def byte_compile() -> None:
    """Write Origin's bytecode, as installing the package does, before timing process starts.

    With PYTHONDONTWRITEBYTECODE set (as in this repository's environment) a checkout never
    gets .pyc files, so every new process would compile Origin's modules from source, about
    40 ms that no installed Origin pays. compileall writes them regardless of that setting,
    into the __pycache__ directories git ignores.
    """
    import importlib.util

    dirs = []
    for package in ("origin_store", "origin_search", "origin_api"):
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            dirs.extend(spec.submodule_search_locations)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *dirs], check=True, capture_output=True
    )


def fresh_process(corpus_dir: Path, home: Path, query: str, runs: int = 5) -> float:
    """Wall time for a new Python process to open Origin and answer one search (page cache
    warm, modules byte-compiled as installed)."""
    byte_compile()
    env = corpus_env(corpus_dir, home)
    times = []
    for _ in range(runs + 1):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", FIRST_QUERY, query], env=env, check=True, capture_output=True
        )
        times.append((time.perf_counter() - started) * 1000)
    return median(times[1:])


def cli_args(query: Any, *, human: bool = False) -> list[str]:
    """`origin search` as a user types it, the query's filters as options; `human`: a
    person's, without --json (plain text, each hit with its session)."""
    args = [ORIGIN, "search", *([] if human else ["--json"]), "--include-tools"]
    for key in ("source", "project", "since"):
        if query.filters.get(key):
            args += [f"--{key}", str(query.filters[key])]
    return [*args, query.text]


def fresh_search(
    corpus_dir: Path, home: Path, queries: list, *, linger: bool = True, human: bool = False
) -> dict:
    """Wall times of `origin search --json` in a new process per query, start to exit, as a
    user runs it: the freshness check over every log file included, page cache warm (one
    untimed run first), modules byte-compiled as installed.

    With `linger` (as installed), the first command answers alone and leaves a search server
    (origin_api/lingering/process.py) that answers the timed ones; `first_ms` is that first
    command's time.
    Without, nothing is running and each command answers alone: the floor of a fresh process.
    `human`: the command a person types, without --json (`cli_args`)."""
    byte_compile()
    linger_s = lingering.LINGER_DEFAULT if linger else 0
    env = {**corpus_env(corpus_dir, home), lingering.LINGER_SETTING: str(linger_s)}
    pid_file = home / lingering.PID_FILE
    lingering.stop_lingering(home)
    if linger:
        subprocess.run(cli_args(queries[0], human=human), env=env, check=True, capture_output=True)
        lingering.stop_lingering(
            home
        )  # that run warmed the page cache; the timed first starts afresh
    started = time.perf_counter()
    subprocess.run(cli_args(queries[0], human=human), env=env, check=True, capture_output=True)
    first_ms = (time.perf_counter() - started) * 1000
    if linger:
        deadline = time.monotonic() + 60
        while not pid_file.exists():
            if time.monotonic() > deadline:
                raise RuntimeError("the first `origin search` left no search server")
            time.sleep(0.02)
    samples = []
    try:
        for query in queries:
            started = time.perf_counter()
            subprocess.run(cli_args(query, human=human), env=env, check=True, capture_output=True)
            samples.append((time.perf_counter() - started) * 1000)
    finally:
        lingering.stop_lingering(home)
    return {**asdict(summarize(samples)), "first_ms": first_ms}


def fresh_search_served(
    corpus_dir: Path, home: Path, queries: list, *, human: bool = False
) -> dict:
    """`fresh_search` while an `origin mcp` runs over the same home, as it does wherever an
    agent is at work: the new process hands the command to it (origin_api/lingering/server.py)."""
    env = corpus_env(corpus_dir, home)
    socket = home / "cli.sock"
    server = subprocess.Popen(
        [ORIGIN, "mcp"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not socket.exists():
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError("origin mcp did not start serving fresh commands")
            time.sleep(0.05)
        time.sleep(2)  # its start-up pass over the logs settles
        return fresh_search(corpus_dir, home, queries, linger=False, human=human)
    finally:
        assert server.stdin is not None
        server.stdin.close()  # end of input: the server exits
        server.wait(timeout=60)


class _StdioPeer:
    """A raw JSON-RPC peer of `origin mcp`: measures the server, not a client library."""

    def __init__(self, env: dict[str, str]) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [ORIGIN, "mcp"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 0

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(
            json.dumps(
                {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
            ).encode()
            + b"\n"
        )
        self.proc.stdin.flush()
        while True:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == self.next_id:
                return reply

    def handshake(self) -> None:
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        )
        assert self.proc.stdin
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.proc.stdin.flush()

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def through_mcp(corpus_dir: Path, home: Path, queries: list, starts: int = 5) -> dict:
    """`origin mcp` as an agent starts it, on the settings a user has: its watcher's interval
    decides how much of the archive a start-up pass checks (origin_api/freshness.py)."""
    byte_compile()
    env = corpus_env(corpus_dir, home)
    del env["ORIGIN_WATCH_INTERVAL_MS"]
    first: list[float] = []
    for _ in range(starts + 1):
        peer = _StdioPeer(env)
        peer.handshake()
        peer.request("tools/call", {"name": "search", "arguments": {"query": "connection timeout"}})
        first.append((time.perf_counter() - peer.started) * 1000)
        peer.close()
    peer = _StdioPeer(env)
    peer.handshake()
    try:

        def run(query: Any) -> dict:
            reply = peer.request("tools/call", {"name": "search", "arguments": search_args(query)})
            assert not reply["result"]["isError"], reply
            return reply

        samples = time_calls(run, queries)
        serving = memory.status(peer.proc.pid) or {}
    finally:
        peer.close()
    return {
        "latency_all": asdict(summarize(samples)),
        "first_answer_ms": median(first[1:]),
        # A serving process after every query: its peak RSS (the store's and index's mapped
        # pages it touched included) and the anonymous memory it holds itself.
        "serving_peak_rss_bytes": serving.get("hwm"),
        "serving_anon_bytes": serving.get("anon"),
    }


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "ingest":
        print(json.dumps(_child_ingest(int(sys.argv[2]))))
    elif command == "index":
        print(json.dumps(_child_index()))
    else:
        raise SystemExit(f"unknown command {command}")
