"""Ingest rates per source: each of the nine agents' formats alone, on corpora of one size.

The main corpus is Claude Code and Codex JSONL; Cursor, ZCode, grok-cli and OpenCode keep SQLite
databases read through row logs, Grok Build streams chunks that are joined, Gemini CLI restates
messages and whole histories in its JSONL, and Copilot CLI and Qwen Code log many records that
are not events, so each format costs something else per event. Each source gets the same
number of events, in sessions of the same sizes and text (origin_api.samples.formats; Claude
Code and Codex from their own writers, one source at a time, so the main corpus is untouched),
and is ingested alone into a fresh ORIGIN_HOME by one worker in its own process: the rates then
compare parsing and storing, not the number of cores. What is kept on disk counts the row logs
(ORIGIN_HOME/rows) beside the store and the mirrors: the blocks a row log still holds, which
are those its mirror does not (`rowlog.release` gives the others back; `disk_usage` counts
allocated blocks, as `du` does).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from origin_api.samples.common import GENERATOR_VERSION
from origin_api.samples.formats import (
    ALL_SOURCES,
    FORMATS_VERSION,
    HOME,
    INFO_FILE,
    OPENCODE_DATA,
    FormatInfo,
    generate_formats,
    load_formats,
)
from origin_store.reader import disk_usage

from .corpus import CACHE_ROOT, warm
from .memory import run_sampled

#: Part of the cache key with the generators' versions: bump it when this section's corpus
#: changes in another way (its layout, its sources).
SOURCES_VERSION = "2"
#: The checkout, so the child process finds `bench` from any working directory.
ROOT = Path(__file__).resolve().parents[1]


def cache_dir(events: int, seed: int = 42, root: Path = CACHE_ROOT) -> Path:
    key = f"v{SOURCES_VERSION}-g{GENERATOR_VERSION}-f{FORMATS_VERSION}-{events}-{seed}"
    return root / f"sources-{key}"


def cached_sources(events: int, seed: int = 42, root: Path = CACHE_ROOT) -> Path:
    """The sources' corpora of ``events`` events each, generated once; a half-written one
    is never visible."""
    final = cache_dir(events, seed, root)
    if (final / INFO_FILE).exists():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / f".tmp-{final.name}-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    generate_formats(tmp, events, seed, ALL_SOURCES)
    try:
        os.rename(tmp, final)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)  # another process finished first: keep theirs
        if not (final / INFO_FILE).exists():
            raise
    return final


def agent_env(corpus_dir: Path, origin_home: Path) -> dict[str, str]:
    """The environment of a user whose home is the corpus's, every agent where it looks."""
    home = corpus_dir / HOME
    return {
        **os.environ,
        "HOME": str(home),
        "ORIGIN_HOME": str(origin_home),
        "CLAUDE_CONFIG_DIR": str(home / "claude"),
        "CODEX_HOME": str(home / "codex"),
        "ZCODE_STORAGE_DIR": str(home / ".zcode"),
        "GROK_HOME": str(home / ".grok"),
        "GEMINI_CLI_HOME": str(home),  # the folder that holds `.gemini`
        "COPILOT_HOME": str(home / ".copilot"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "OPENCODE_DB": str(home / OPENCODE_DATA / "opencode.db"),
        "OPENCODE_CONFIG_DIR": str(home / ".config/opencode"),
        "QWEN_HOME": str(home / ".qwen"),
        "QWEN_RUNTIME_DIR": str(home / ".qwen"),
        "ORIGIN_WATCH_INTERVAL_MS": "0",
        "TZ": "UTC",
    }


def measure(events: int, seed: int = 42, root: Path = CACHE_ROOT) -> dict[str, Any]:
    """Generate (or reuse) the corpora under ``root``, ingest each source alone, and return the
    figures by source, with the corpus's events per source and its generation time."""
    started = time.perf_counter()
    corpus_dir = cached_sources(events, seed, root)
    infos = load_formats(corpus_dir)
    results: dict[str, Any] = {
        "events_per_source": events,
        "corpus": str(corpus_dir),
        "corpus_seconds": round(time.perf_counter() - started, 1),
    }
    for name, info in infos.items():
        results[name] = ingest_source(corpus_dir, name, info, root)
    return results


def ingest_source(
    corpus_dir: Path, name: str, info: FormatInfo, root: Path = CACHE_ROOT
) -> dict[str, Any]:
    """One source into a fresh ORIGIN_HOME by one worker in a new process, timed inside it,
    its logs first read into the page cache."""
    home = root / f"sources-origin-{info.events}" / name
    if home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True)
    env = agent_env(corpus_dir, home)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH"))))
    args = [sys.executable, "-m", "bench.sources", "ingest", name]
    warm(corpus_dir / HOME)  # as before the whole corpus's build (`corpus.warm`)
    step = run_sampled(args, env)
    child, peaks = json.loads(step.out), step.peaks
    seconds = child["seconds"]
    kept = {part: disk_usage(home / part) for part in ("store", "raw", "rows")}
    shutil.rmtree(home)  # measured; nothing reads it again, and five homes are a GB at 100k
    return {
        **asdict(info),
        "ingested": child["events"],
        "seconds": seconds,
        "events_per_s": child["events"] / seconds,
        "mb_per_s": info.bytes / seconds / 1e6,
        "store_bytes": kept["store"],
        "mirror_bytes": kept["raw"],
        "rows_bytes": kept["rows"],
        "disk_x_raw": sum(kept.values()) / info.bytes,
        "peak_anon_bytes": peaks["peak_anon_bytes"],
        "problems": child["problems"],
        "errors": child["errors"],
    }


def report(events: int, section: Callable[[str], None]) -> dict[str, Any]:
    """The section: measure, print its table under ``section``'s heading, return the figures."""
    section(f"Ingest per source: {events:,} events each, one worker, a fresh store each")
    results = measure(events)
    print("\n".join(table(results)), flush=True)
    return results


_HEAD = "  {:12} {:>6} {:>8} {:>8} {:>6} {:>9} {:>6} {:>8}  {:18} {:>9}"


def table(results: dict[str, Any]) -> list[str]:
    """One line per source, then how far apart the rates are."""
    lines = [
        _HEAD.format(
            "source", "files", "raw MB", "events", "s", "events/s", "MB/s", "on disk",
            "store+mirror+rows", "peak anon",
        )
    ]  # fmt: skip
    rates = {}
    for name in ALL_SOURCES:
        r = results.get(name)
        if not isinstance(r, dict):
            continue
        rates[name] = r["events_per_s"]
        parts = "+".join(
            f"{r[key] / r['bytes']:.2f}" for key in ("store_bytes", "mirror_bytes", "rows_bytes")
        )
        anon = r["peak_anon_bytes"]
        lines.append(
            _HEAD.format(
                name, f"{r['files']:,}", f"{r['bytes'] / 1e6:,.1f}", f"{r['ingested']:,}",
                f"{r['seconds']:.1f}", f"{r['events_per_s']:,.0f}", f"{r['mb_per_s']:.1f}",
                f"{r['disk_x_raw']:.2f}x", parts, f"{anon / 2**20:,.0f} MiB" if anon else "n/a",
            )
        )  # fmt: skip
        if r["ingested"] != r["events"] or r["problems"] or r["errors"]:
            lines.append(
                f"    ! {r['ingested']:,} of the {r['events']:,} events written were stored;"
                f" problems {r['problems']}, errors {r['errors']}"
            )
    if rates:
        slowest, fastest = min(rates, key=rates.__getitem__), max(rates, key=rates.__getitem__)
        lines.append(
            f"  slowest: {slowest}, at {rates[slowest] / rates[fastest]:.2f}x the rate of {fastest}"
        )
    return lines


def _child_ingest(name: str) -> dict[str, Any]:
    from origin_store import Ingester, Settings, Store
    from origin_store.parsers.registry import SOURCES

    settings = Settings.from_env()
    store = Store.open(settings.home, map_size=settings.map_size)
    try:
        started = time.perf_counter()
        report = Ingester(store, settings, {name: SOURCES[name]}).run(workers=1)
        seconds = time.perf_counter() - started
    finally:
        store.close()
    return {
        "events": report.events,
        "seconds": seconds,
        "problems": dict(report.problems),
        "errors": report.errors[:5],
    }


if __name__ == "__main__":
    if sys.argv[1:2] != ["ingest"] or len(sys.argv) != 3:
        raise SystemExit("usage: python -m bench.sources ingest <source>")
    print(json.dumps(_child_ingest(sys.argv[2])))
