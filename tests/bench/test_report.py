"""The benchmark's report: memory sampling per process, the closing table and its previous run."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from bench import memory, queries, summary
from bench.__main__ import fresh_queries

linux = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")

#: A results file as runs before the table saved it: no fresh search, no anonymous memory.
OLD = {
    "events": 1_000_000,
    "corpus": {"events": 1_000_000, "files": 1867, "bytes": 1_000},
    "fts5": {},
    "origin_build": {
        "ingest": {"seconds": 20.0, "store_bytes": 1500, "mirror_bytes": 200, "peak_rss_bytes": 9},
        "index": {"seconds": 40.0, "index_bytes": 300, "peak_rss_bytes": 7},
    },
    "origin_search": {"latency_all": {"p50": 1.1, "p95": 5.0, "p99": 12.5}},
}


def new_results() -> dict:
    return {
        "events": 1_000_000,
        "corpus": {"events": 1_000_000, "files": 8091, "bytes": 1_000},
        "fts5": {
            "unicode61": {
                "build": {
                    "seconds": 34.0,
                    "cpu_seconds": 33.5,
                    "bytes": 890,
                    "peak_rss_bytes": 2**27,
                },
                "latency_all": {"p50": 4.2, "p95": 60.0, "p99": 180.0},
                "fresh_search": {"p50": 31.0, "p95": 35.0, "p99": 40.0},
            }
        },
        "origin_build": {
            "ingest": {"seconds": 12.0, "cpu_seconds": 20.5},
            "index": {"seconds": 13.0, "cpu_seconds": 21.0},
            "seconds": 25.0,
            "disk_bytes": 700,
            "peak_anon_bytes": 600 * 2**20,
            "peak_rss_bytes": 900 * 2**20,
        },
        "origin_search": {
            "latency_all": {"p50": 0.9, "p95": 5.0, "p99": 11.0},
            "fresh_search": {"p50": 45.0, "p95": 70.0, "p99": 95.0},
        },
    }


def test_figures_read_old_results_files_too(tmp_path: Path) -> None:
    path = tmp_path / "results-1000000.json"
    path.write_text(json.dumps(OLD))
    before = summary.load_previous(path)
    assert before["files"] == 1867
    assert before["disk_x_raw"] == pytest.approx(2.0)
    assert before["build_seconds"] == 60.0
    assert before["peak_rss_bytes"] == 9
    assert before["fresh_p50_ms"] is None and before["peak_anon_bytes"] is None
    assert summary.load_previous(tmp_path / "missing.json") == {}
    (tmp_path / "bad.json").write_text("{not json")
    assert summary.load_previous(tmp_path / "bad.json") == {}


def test_table_has_a_row_per_figure_with_previous_peer_and_target() -> None:
    lines = summary.table(new_results(), summary.figures(OLD))
    text = "\n".join(lines)
    assert len(lines) == len(summary.ROWS)
    row = dict(zip([r.key for r in summary.ROWS], lines, strict=True))
    assert "8,091 (previous: 1,867)" in row["files"]
    assert "45.0 ms" in row["fresh_p50_ms"] and "FTS5 unicode61 31.0 ms" in row["fresh_p50_ms"]
    assert "target <= 50 ms met" in row["fresh_p50_ms"]
    assert "target <= 80 ms MISSED" in row["fresh_p99_ms"]
    assert "0.70x raw (previous: 2.00x raw)" in row["disk_x_raw"]
    assert "FTS5 unicode61 0.89x raw" in row["disk_x_raw"]
    assert "600 MiB" in row["peak_anon_bytes"] and "MISSED" in row["peak_anon_bytes"]
    assert "previous" not in row["peak_anon_bytes"]  # the old file has none
    assert "25.0 s (previous: 60.0 s)" in row["build_seconds"] and "30 s at 1M met" in text
    assert (
        "41.5 s" in row["build_cpu_seconds"] and "FTS5 unicode61 33.5 s" in row["build_cpu_seconds"]
    )
    assert "previous" not in row["build_cpu_seconds"]  # the old file has no CPU figures
    assert "0.9 ms (previous: 1.1 ms)" in row["search_p50_ms"]


def test_a_peoples_search_is_held_to_the_json_one() -> None:
    """The rows of `origin search` without --json: beside a running process under 50 ms, and
    alone no slower than --json alone (with 10 % for noise)."""
    results = new_results()
    results["origin_search"] |= {
        "fresh_search_alone": {"p50": 90.0, "p95": 95.0, "p99": 99.0},
        "human_search_alone": {"p50": 101.0, "p95": 110.0, "p99": 120.0},
        "human_search_served": {"p50": 21.0, "p95": 30.0, "p99": 40.0},
    }
    row = dict(zip([r.key for r in summary.ROWS], summary.table(results, {}), strict=True))
    assert "101 ms" in row["human_alone_p50_ms"] and "MISSED" in row["human_alone_p50_ms"]
    assert "--json alone (90.0 ms) + 10 %" in row["human_alone_p50_ms"]
    assert "21.0 ms" in row["human_served_p50_ms"]
    assert "target <= 50 ms met" in row["human_served_p50_ms"]
    results["origin_search"]["human_search_alone"]["p50"] = 92.0
    row = dict(zip([r.key for r in summary.ROWS], summary.table(results, {}), strict=True))
    assert row["human_alone_p50_ms"].endswith("met")


def test_targets_at_ten_million() -> None:
    assert summary.targets(10_000_000)["build_seconds"] == (480.0, "8 min at 10M")
    assert summary.targets(10_000_000)["peak_anon_bytes"][0] == 1e9
    assert summary.targets(1_000_000)["peak_anon_bytes"][0] == 0.5e9
    ten, one = summary.targets(10_000_000), summary.targets(1_000_000)
    assert [ten[f"search_{p}_ms"][0] for p in ("p50", "p95", "p99")] == [2.0, 8.0, 15.0]
    assert [one[f"search_{p}_ms"][0] for p in ("p50", "p99")] == [1.0, 5.0]


def test_fts5_sets_the_build_cpu_and_a_small_archives_search_targets() -> None:
    """At 1M the build's CPU is held to twice FTS5's; under 500k events the search's p50 to
    half FTS5's, both from the same run."""
    fts5 = {"unicode61": {"build": {"cpu_seconds": 40.0}, "latency_all": {"p50": 0.6}}}
    small = summary.table({"corpus": {"events": 100_000}, "fts5": fts5}, {})
    assert any("FTS5's / 2 (0.3 ms)" in line for line in small if "search p50" in line)
    large = summary.table({"corpus": {"events": 1_000_000}, "fts5": fts5}, {})
    assert any("2x FTS5's (40.0 s)" in line for line in large if "its CPU" in line)
    assert not any("FTS5's / 2" in line for line in large)


def test_the_default_search_without_tools_is_a_row_of_its_own() -> None:
    from bench import fts5
    from origin_search import MESSAGE_KINDS

    assert set(fts5.MESSAGE_KINDS) == MESSAGE_KINDS
    results = {"events": 10, "origin_search": {"latency_messages": {"p50": 0.4, "p99": 1.5}}}
    assert summary.figures(results)["messages_p50_ms"] == 0.4
    sql, params = fts5.search_sql({"kinds": ["memory", "message"]}, None, 20)
    assert "kind IN (?,?)" in sql and params == ["memory", "message", 20]


def test_fresh_queries_spread_over_the_mix() -> None:
    mix = [queries.Query(f"{c} {i}", c) for c in queries.CATEGORIES for i in range(40)]
    picked = fresh_queries(mix)
    assert len(picked) == 20 and len(set(q.text for q in picked)) == 20
    assert {q.category for q in picked} == set(queries.CATEGORIES)
    assert fresh_queries(mix[:5]) == mix[:5]


@linux
def test_status_and_descendants_of_this_process() -> None:
    mine = memory.status(os.getpid())
    assert mine and mine["anon"] > 0 and mine["hwm"] >= mine["anon"]
    assert memory.descendants(os.getpid())[0] == os.getpid()
    assert memory.status(2**22 + 12345) is None


@linux
def test_run_sampled_sees_a_childs_anonymous_memory() -> None:
    code = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; b = bytearray(150 << 20);"
        ' b[::4096] = b"x" * len(b[::4096]); time.sleep(0.6)\'])\n'
        "child.wait(); print('done')\n"
    )
    step = memory.run_sampled([sys.executable, "-c", code], dict(os.environ))
    peaks = step.peaks
    assert step.out.strip() == "done" and step.seconds > 0.5
    assert peaks["processes"] == 2  # the grandchild was found and sampled
    assert peaks["peak_anon_bytes"] > 140 << 20
    assert peaks["peak_rss_bytes"] >= peaks["peak_anon_bytes"]


@linux
def test_run_sampled_counts_the_cpu_of_the_processes_a_step_waits_for() -> None:
    # The child only waits; its child spins ~0.4 s of CPU: a step's figure is its whole tree's.
    spin = "import time\nwhile time.process_time() < 0.4: pass"
    code = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {spin!r}], check=True)"
    step = memory.run_sampled([sys.executable, "-c", code], dict(os.environ))
    assert 0.4 <= step.cpu_seconds < 0.4 + step.seconds
