"""`python -m bench.redact`: what masking secrets costs ingest, on the benchmark corpus.

Two figures. The redactor alone: MB/s of log lines through `redact_lines` in ingest's batches
(with the multi-literal scan of `ahocorasick_rs`, and with the `bytes.find` per trigger used
without it), and how many of the corpus's lines it changed (the corpus plants no secret, so
every change is a false positive). Then ingest: the same files ingested into a fresh home by
one process, with redaction and with it switched off, interleaved so the machine's noise falls
on both alike; events/s of each and the difference; then once with worker processes, as
`origin ingest` shares a backfill (redaction on).

Not part of `make bench` (`python -m bench` does not run it); it reads the cached corpus of
`--events` (1M by default, generated at 100k with --quick when absent).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from pathlib import Path
from statistics import median
from typing import Any

from origin_store import Ingester, Settings, Store
from origin_store.ingest import BATCH_BYTES, BATCH_LINES, LogFile
from origin_store.parsers.registry import SOURCES
from origin_store.redaction import mask as redact
from origin_store.redaction.find import Engine, disabled

from . import corpus


def files(root: Path, megabytes: int) -> list[Path]:
    """Log files of the corpus drawn at random (a fixed seed), up to `megabytes`."""
    found = sorted(p for p in root.rglob("*.jsonl") if p.is_file())
    picked: list[Path] = []
    total = 0
    for path in random.Random(7).sample(found, len(found)):
        picked.append(path)
        total += path.stat().st_size
        if total >= megabytes << 20:
            break
    return picked


def _batches(paths: list[Path]) -> list[list[bytes]]:
    """Each file's lines in ingest's batches (BATCH_LINES lines or BATCH_BYTES bytes)."""
    out: list[list[bytes]] = []
    for path in paths:
        batch: list[bytes] = []
        size = 0
        for line in path.read_bytes().splitlines(keepends=True):
            batch.append(line)
            size += len(line)
            if len(batch) >= BATCH_LINES or size >= BATCH_BYTES:
                out.append(batch)
                batch, size = [], 0
        if batch:
            out.append(batch)
    return out


def redactor(paths: list[Path], slow_mb: int) -> dict[str, Any]:
    batches = _batches(paths)
    size = sum(len(line) for batch in batches for line in batch)
    best, changed, lines = float("inf"), 0, 0
    for _ in range(3):
        started = time.perf_counter()
        done = [redact.redact_lines(batch) for batch in batches]
        best = min(best, time.perf_counter() - started)
    for batch, result in zip(batches, done, strict=True):
        lines += len(batch)
        changed += sum(a is not b for a, b in zip(batch, result.lines, strict=True))
    slow = Engine(redact.PATTERNS, fast=False)
    part, taken = [], 0
    for batch in batches:
        part.append(batch)
        taken += sum(map(len, batch))
        if taken >= slow_mb << 20:
            break
    started = time.perf_counter()
    for batch in part:
        slow.lines(batch)
    slow_seconds = time.perf_counter() - started
    return {
        "bytes": size,
        "lines": lines,
        "lines_changed": changed,
        "mb_per_s": round(size / best / 1e6, 1),
        "mb_per_s_without_ahocorasick": round(taken / slow_seconds / 1e6, 1),
    }


def _ingest(
    corpus_dir: Path, paths: set[Path], *, masking: bool, workers: int | None = 1
) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="origin-bench-redact-"))
    try:
        settings = Settings.from_env(
            {
                "HOME": str(home / "user"),
                "ORIGIN_HOME": str(home / "origin"),
                "CLAUDE_CONFIG_DIR": str(corpus_dir / "claude"),
                "CODEX_HOME": str(corpus_dir / "codex"),
            }
        )
        with Store.open(settings.home, map_size=4 << 30) as store:
            ingester = Ingester(store, settings, SOURCES)
            logs: list[LogFile] = [log for log in ingester.discover() if log.path in paths]
            cpu = time.process_time()
            if masking:
                report = ingester.run(files=logs, workers=workers)
            else:
                with disabled():
                    report = ingester.run(files=logs, workers=workers)
            cpu = time.process_time() - cpu
        return {"events": report.events, "seconds": report.seconds, "cpu": cpu}
    finally:
        shutil.rmtree(home, ignore_errors=True)


def ingest(corpus_dir: Path, paths: list[Path], runs: int) -> dict[str, Any]:
    """Events/s of wall time, and of the process's CPU time: on a shared machine the wall time
    of one run moves by a third with the neighbours' load, its CPU time far less."""
    wanted = set(paths)
    rates: dict[str, list[float]] = {"with": [], "without": []}
    cpu: dict[str, list[float]] = {"with": [], "without": []}
    events = 0
    for _ in range(runs):
        for name, masking in (("with", True), ("without", False)):
            done = _ingest(corpus_dir, wanted, masking=masking)
            events = done["events"]
            rates[name].append(done["events"] / done["seconds"])
            cpu[name].append(done["cpu"])
    on, off = median(rates["with"]), median(rates["without"])
    cpu_on, cpu_off = median(cpu["with"]), median(cpu["without"])
    # As `origin ingest` runs a backfill: shared by worker processes (redaction on; the switch
    # that turns it off is this process's alone).
    shared = _ingest(corpus_dir, wanted, masking=True, workers=None)
    return {
        "events": events,
        "events_per_s_shared_with": round(shared["events"] / shared["seconds"]),
        "events_per_s_with": round(on),
        "events_per_s_without": round(off),
        "runs": {name: [round(r) for r in found] for name, found in rates.items()},
        "cost_percent": round((off - on) / off * 100, 1),
        "events_per_cpu_s_with": round(events / cpu_on),
        "events_per_cpu_s_without": round(events / cpu_off),
        "cpu_runs": {name: [round(c, 2) for c in found] for name, found in cpu.items()},
        "cpu_cost_percent": round((cpu_on - cpu_off) / cpu_off * 100, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.redact", description=__doc__)
    parser.add_argument("--events", type=int, default=1_000_000, help="the cached corpus's size")
    parser.add_argument("--quick", action="store_true", help="the 100,000-event corpus")
    parser.add_argument("--mb", type=int, default=300, help="megabytes of logs to measure")
    parser.add_argument("--runs", type=int, default=3, help="ingest runs of each kind")
    parser.add_argument("--no-ingest", action="store_true", help="the redactor alone")
    args = parser.parse_args()
    events = 100_000 if args.quick else args.events
    found = corpus.cache_dir(events)
    corpus_dir = found if (found / corpus.INFO_FILE).exists() else corpus.cached_corpus(100_000)
    paths = files(corpus_dir, args.mb)
    results: dict[str, Any] = {
        "corpus": corpus_dir.name,
        "files": len(paths),
        "redactor": redactor(paths, slow_mb=max(8, args.mb // 20)),
        "cpus": os.cpu_count(),
    }
    print(json.dumps(results, indent=2), flush=True)
    if not args.no_ingest:
        done = results["ingest"] = ingest(corpus_dir, paths, args.runs)
        # The redactor's own time as a share of one process's ingest CPU time.
        redacting = results["redactor"]["bytes"] / (results["redactor"]["mb_per_s"] * 1e6)
        done["redactor_share_percent"] = round(
            redacting / (done["events"] / done["events_per_cpu_s_with"]) * 100, 1
        )
        print(json.dumps(done, indent=2))


if __name__ == "__main__":
    main()
