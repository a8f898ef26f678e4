"""The headline table: each figure beside its previous run's, its FTS5 peer and its target.

The previous figures come from the results file the last run saved for the same corpus size
(read before this run overwrites it); an older file lacking a figure just shows none. Figures
are flat, so one function reads this run's results and a saved one alike.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GB = 1e9
MIB = 2**20


def load_previous(path: Path) -> dict[str, Any]:
    """The figures of the results file at ``path``; empty when there is none or it is unreadable."""
    try:
        return figures(json.loads(path.read_text()))
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def _get(results: dict, *keys: str) -> Any:
    value: Any = results
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def figures(results: dict) -> dict[str, Any]:
    """The table's figures from a whole results dict; None where the run did not measure one."""
    raw = _get(results, "corpus", "bytes")
    build = _get(results, "origin_build") or {}
    disk = build.get("disk_bytes")
    if disk is None and raw:
        parts = [
            _get(build, "ingest", "store_bytes"),
            _get(build, "ingest", "mirror_bytes"),
            _get(build, "index", "index_bytes"),
        ]
        disk = sum(parts) if None not in parts else None
    seconds = build.get("seconds")
    if seconds is None:
        parts = [_get(build, "ingest", "seconds"), _get(build, "index", "seconds")]
        seconds = sum(parts) if None not in parts else None
    cpu = [_get(build, "ingest", "cpu_seconds"), _get(build, "index", "cpu_seconds")]
    rss = build.get("peak_rss_bytes")
    if rss is None:
        parts = [_get(build, "ingest", "peak_rss_bytes"), _get(build, "index", "peak_rss_bytes")]
        rss = max(p for p in parts if p is not None) if any(parts) else None
    return {
        "events": _get(results, "corpus", "events"),
        "files": _get(results, "corpus", "files"),
        "fresh_p50_ms": _get(results, "origin_search", "fresh_search", "p50"),
        "fresh_p99_ms": _get(results, "origin_search", "fresh_search", "p99"),
        "fresh_alone_p50_ms": _get(results, "origin_search", "fresh_search_alone", "p50"),
        "fresh_alone_p99_ms": _get(results, "origin_search", "fresh_search_alone", "p99"),
        "fresh_served_p50_ms": _get(results, "origin_search", "fresh_search_served", "p50"),
        "fresh_served_p99_ms": _get(results, "origin_search", "fresh_search_served", "p99"),
        "human_alone_p50_ms": _get(results, "origin_search", "human_search_alone", "p50"),
        "human_served_p50_ms": _get(results, "origin_search", "human_search_served", "p50"),
        "disk_x_raw": disk / raw if disk is not None and raw else None,
        "peak_anon_bytes": build.get("peak_anon_bytes"),
        "peak_rss_bytes": rss,
        "build_seconds": seconds,
        "build_cpu_seconds": sum(cpu) if None not in cpu else None,
        "serving_rss_bytes": _get(results, "origin_mcp", "serving_peak_rss_bytes"),
        "search_p50_ms": _get(results, "origin_search", "latency_all", "p50"),
        "search_p95_ms": _get(results, "origin_search", "latency_all", "p95"),
        "search_p99_ms": _get(results, "origin_search", "latency_all", "p99"),
        "messages_p50_ms": _get(results, "origin_search", "latency_messages", "p50"),
        "messages_p99_ms": _get(results, "origin_search", "latency_messages", "p99"),
        **_source_figures(results),
        **_sync_figures(results),
    }


#: The sources of the per-source ingest section (bench/sources.py), in its order.
SOURCE_NAMES = (
    "claude-code",
    "codex",
    "cursor",
    "zcode",
    "grok",
    "gemini",
    "opencode",
    "copilot",
    "qwen",
)


def _source_figures(results: dict[str, Any]) -> dict[str, Any]:
    """Each source's ingest rate alone, one worker (None where the section did not run)."""
    return {
        f"ingest_{name}_per_s": _get(results, "sources", name, "events_per_s")
        for name in SOURCE_NAMES
    }


def _sync_figures(results: dict[str, Any]) -> dict[str, Any]:
    """The sync section's figures (bench/sync.py) and the admin UI's search page
    (bench/ui_page.py); None where they did not run."""
    return {
        "sync_first_per_s": _get(results, "sync", "first", "events_per_s"),
        "sync_first_bytes": _get(results, "sync", "first", "bytes_sent"),
        "sync_incremental_ms": _get(results, "sync", "incremental", "ms"),
        "merged_search_p50_ms": _get(results, "sync", "search", "merged", "p50"),
        "merged_search_p95_ms": _get(results, "sync", "search", "merged", "p95"),
        "alone_search_p95_ms": _get(results, "sync", "search", "alone", "p95"),
        "redactor_mb_per_s": _get(results, "redaction", "mb_per_s"),
        "ui_search_p50_ms": _get(results, "ui", "/ui/search", "p50"),
        "ui_search_p99_ms": _get(results, "ui", "/ui/search", "p99"),
        "ui_session_at_p50_ms": _get(results, "ui_session", "at", "p50"),
        "ui_session_at_p99_ms": _get(results, "ui_session", "at", "p99"),
        "ui_activity_p50_ms": _get(results, "ui_activity", "read", "p50"),
        "ui_activity_p99_ms": _get(results, "ui_activity", "read", "p99"),
    }


def targets(events: int) -> dict[str, tuple[float, str]]:
    """Each figure's ceiling and how it reads; the 10M ceilings from 5M events on."""
    if events >= 5_000_000:
        anon, build, at = (1 * GB, "1 GB per process"), (480.0, "8 min"), "at 10M"
        search = (2.0, 8.0, 15.0)
    else:
        anon, build, at = (0.5 * GB, "0.5 GB per process"), (30.0, "30 s"), "at 1M"
        search = (1.0, 10.0, 5.0)
    return {
        "fresh_p50_ms": (50.0, "50 ms"),
        "fresh_p99_ms": (80.0, "80 ms"),
        "fresh_alone_p50_ms": (50.0, "50 ms"),
        "fresh_alone_p99_ms": (80.0, "80 ms"),
        "fresh_served_p50_ms": (50.0, "50 ms"),
        "fresh_served_p99_ms": (80.0, "80 ms"),
        "human_served_p50_ms": (50.0, "50 ms"),
        "disk_x_raw": (0.8, "0.8x raw"),
        "peak_anon_bytes": (anon[0], f"{anon[1]} {at}"),
        "build_seconds": (build[0], f"{build[1]} {at}"),
        "serving_rss_bytes": (1 * GB, "1 GB"),
        "search_p50_ms": (search[0], f"{search[0]:g} ms"),
        "search_p95_ms": (search[1], f"{search[1]:g} ms"),
        "search_p99_ms": (search[2], f"{search[2]:g} ms"),
        "ui_search_p50_ms": (50.0, "50 ms"),
        "ui_search_p99_ms": (50.0, "50 ms"),
        "ui_session_at_p99_ms": (50.0, "50 ms"),
        "ui_activity_p99_ms": (50.0, "50 ms"),
    }


@dataclass(frozen=True, slots=True)
class Row:
    label: str
    key: str
    show: Callable[[float], str]


def _ms(v: float) -> str:
    return f"{v:,.1f} ms" if v < 100 else f"{v:,.0f} ms"


def _mib(v: float) -> str:
    return f"{v / MIB:,.0f} MiB"


ROWS = (
    Row("files", "files", lambda v: f"{v:,.0f}"),
    Row("fresh origin search p50 (as installed)", "fresh_p50_ms", _ms),
    Row("fresh origin search p99 (as installed)", "fresh_p99_ms", _ms),
    Row("  nothing running, no search server p50", "fresh_alone_p50_ms", _ms),
    Row("  nothing running, no search server p99", "fresh_alone_p99_ms", _ms),
    Row("  the same, origin mcp running p50", "fresh_served_p50_ms", _ms),
    Row("  the same, origin mcp running p99", "fresh_served_p99_ms", _ms),
    Row("people's origin search p50 (alone)", "human_alone_p50_ms", _ms),
    Row("  the same, origin mcp running p50", "human_served_p50_ms", _ms),
    Row("on disk, all of it", "disk_x_raw", lambda v: f"{v:.2f}x raw"),
    Row("peak anonymous (build)", "peak_anon_bytes", _mib),
    Row("peak RSS (build)", "peak_rss_bytes", _mib),
    Row("ingest + index", "build_seconds", lambda v: f"{v:,.1f} s"),
    Row("  its CPU, all processes", "build_cpu_seconds", lambda v: f"{v:,.1f} s"),
    Row("serving process RSS", "serving_rss_bytes", _mib),
    Row("search p50", "search_p50_ms", _ms),
    Row("search p95", "search_p95_ms", _ms),
    Row("search p99", "search_p99_ms", _ms),
    Row("  messages only (the default) p50", "messages_p50_ms", _ms),
    Row("  messages only (the default) p99", "messages_p99_ms", _ms),
    *(
        Row(f"ingest {name} alone", f"ingest_{name}_per_s", lambda v: f"{v:,.0f} events/s")
        for name in SOURCE_NAMES
    ),
    Row("first sync to a hub", "sync_first_per_s", lambda v: f"{v:,.0f} events/s"),
    Row("first sync, bytes sent", "sync_first_bytes", lambda v: f"{v / 1e6:,.0f} MB"),
    Row("sync of 1,000 new events", "sync_incremental_ms", _ms),
    Row("merged search p50", "merged_search_p50_ms", _ms),
    Row("merged search p95", "merged_search_p95_ms", _ms),
    Row("search alone p95 (device)", "alone_search_p95_ms", _ms),
    Row("secret redaction alone", "redactor_mb_per_s", lambda v: f"{v:,.0f} MB/s"),
    Row("admin UI search page p50", "ui_search_p50_ms", _ms),
    Row("admin UI search page p99", "ui_search_p99_ms", _ms),
    Row("admin UI session at a hit p50", "ui_session_at_p50_ms", _ms),
    Row("admin UI session at a hit p99", "ui_session_at_p99_ms", _ms),
    Row("admin UI activity page p50", "ui_activity_p50_ms", _ms),
    Row("admin UI activity page p99", "ui_activity_p99_ms", _ms),
)


def peers(results: dict, raw: int) -> dict[str, str]:
    """What FTS5 measured in the same run, per figure, as printed text."""
    out: dict[str, list[str]] = {}
    for tokenizer, b in (results.get("fts5") or {}).items():
        build = b.get("build") or {}
        fresh = b.get("fresh_search") or {}
        pairs = {
            "fresh_p50_ms": fresh.get("p50") and _ms(fresh["p50"]),
            "fresh_p99_ms": fresh.get("p99") and _ms(fresh["p99"]),
            "disk_x_raw": build.get("bytes") and raw and f"{build['bytes'] / raw:.2f}x raw",
            "peak_anon_bytes": build.get("peak_anon_bytes") and _mib(build["peak_anon_bytes"]),
            "peak_rss_bytes": build.get("peak_rss_bytes") and _mib(build["peak_rss_bytes"]),
            "build_seconds": build.get("seconds") and f"{build['seconds']:,.1f} s",
            "build_cpu_seconds": build.get("cpu_seconds") and f"{build['cpu_seconds']:,.1f} s",
            "search_p50_ms": _get(b, "latency_all", "p50") and _ms(b["latency_all"]["p50"]),
            "search_p95_ms": _get(b, "latency_all", "p95") and _ms(b["latency_all"]["p95"]),
            "search_p99_ms": _get(b, "latency_all", "p99") and _ms(b["latency_all"]["p99"]),
            "messages_p50_ms": _get(b, "latency_messages", "p50")
            and _ms(b["latency_messages"]["p50"]),
            "messages_p99_ms": _get(b, "latency_messages", "p99")
            and _ms(b["latency_messages"]["p99"]),
        }
        for key, text in pairs.items():
            if text:
                out.setdefault(key, []).append(f"{tokenizer} {text}")
    return {key: "FTS5 " + ", ".join(texts) for key, texts in out.items()}


def table(results: dict, previous: dict[str, Any]) -> list[str]:
    """One line per figure: Origin (previous run), FTS5 in this run, the target and whether
    it is met."""
    now = figures(results)
    fts5 = peers(results, _get(results, "corpus", "bytes") or 0)
    ceilings = targets(now["events"] or 0)
    alone = now.get("fresh_alone_p50_ms")
    if alone is not None:  # a person's search is no slower than a script's (10 % for noise)
        ceilings["human_alone_p50_ms"] = (alone * 1.1, f"--json alone ({_ms(alone)}) + 10 %")
    unicode61 = (results.get("fts5") or {}).get("unicode61") or {}
    cpu = _get(unicode61, "build", "cpu_seconds")
    if cpu and (now["events"] or 0) < 5_000_000:  # the build's CPU within 2x FTS5's
        ceilings["build_cpu_seconds"] = (2 * cpu, f"2x FTS5's ({cpu:,.1f} s)")
    p50 = _get(unicode61, "latency_all", "p50")
    if p50 and (now["events"] or 0) < 500_000:  # a small archive: twice as fast as FTS5
        ceilings["search_p50_ms"] = (p50 / 2, f"FTS5's / 2 ({_ms(p50 / 2)})")
    lines = []
    for row in ROWS:
        value = now.get(row.key)
        text = "n/a" if value is None else row.show(value)
        before = previous.get(row.key)
        if before is not None:
            text += f" (previous: {row.show(before)})"
        target = ""
        if row.key in ceilings:
            ceiling, label = ceilings[row.key]
            verdict = "" if value is None else (" met" if value <= ceiling else " MISSED")
            target = f"target <= {label}{verdict}"
        lines.append(f"  {row.label:24} {text:40} {fts5.get(row.key, ''):44} {target}".rstrip())
    return lines
