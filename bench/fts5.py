"""SQLite FTS5: the baseline a user would reach for instead of Origin.

Built and queried exactly as research/perf-baselines.md did, so our figures can be checked
against those: a contentful table, one transaction, 10k-row ``executemany`` batches, journal and
sync off, then ``optimize`` and ``VACUUM`` counted in the build time; all-words queries ranked by
bm25 with a snippet per hit.

This module imports only the standard library at load time, so the fresh-process measurement
does not pay for anything the baseline itself would not load.
"""

from __future__ import annotations

import inspect
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from .corpus import EVENTS_FILE, warm
from .memory import Sampler
from .stats import Latency, hit_rate, measure_latency, median, summarize, time_calls

#: The event kinds a search without tools returns, as `origin_search.MESSAGE_KINDS` (this
#: module imports only the standard library: a test holds the two equal).
MESSAGE_KINDS = ("memory", "message")

#: Bump when the schema or the build changes, so cached databases are rebuilt.
FTS5_VERSION = "1"
TOKENIZERS: tuple[str, ...] = ("unicode61", "trigram")
BATCH = 10_000
REPO_ROOT = Path(__file__).resolve().parent.parent

__all__ = [
    "BuildResult",
    "Latency",
    "build_fts5",
    "cached_fts5",
    "fresh_process_first_query",
    "hit_rate",
    "measure_latency",
    "query_fts5",
    "run_baseline",
]


class QueryLike(Protocol):
    text: str
    filters: dict


@dataclass(slots=True)
class BuildResult:
    """Build wall time includes reading the events table, as a user's loader would."""

    seconds: float
    events_per_s: float
    bytes: int
    events: int = 0
    tokenizer: str = ""
    peak_rss_bytes: int | None = None
    peak_anon_bytes: int | None = None
    #: User and system CPU of the build's process.
    cpu_seconds: float | None = None
    sqlite_version: str = sqlite3.sqlite_version


def build_fts5(events_iter: Iterable[Sequence[Any]], db_path: Path, tokenizer: str) -> BuildResult:
    """Load ``(id, text, source, project, session, kind, role, time_ms)`` rows into a new DB."""
    if tokenizer not in TOKENIZERS:
        raise ValueError(f"tokenizer must be one of {TOKENIZERS}, got {tokenizer!r}")
    db_path = Path(db_path)
    db_path.unlink(missing_ok=True)
    t0 = time.perf_counter()
    conn = sqlite3.connect(db_path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute(
            "CREATE VIRTUAL TABLE ev USING fts5(text, id UNINDEXED, source UNINDEXED, "
            "project UNINDEXED, session UNINDEXED, kind UNINDEXED, role UNINDEXED, "
            f"ts UNINDEXED, tokenize='{tokenizer}')"
        )
        insert = "INSERT INTO ev(text, id, source, project, session, kind, role, ts) VALUES (?,?,?,?,?,?,?,?)"
        count = 0
        batch: list[tuple] = []
        conn.execute("BEGIN")
        for eid, text, source, project, session, kind, role, ts in events_iter:
            batch.append((text, eid, source, project, session, kind, role, ts))
            if len(batch) >= BATCH:
                conn.executemany(insert, batch)
                count += len(batch)
                batch.clear()
        if batch:
            conn.executemany(insert, batch)
            count += len(batch)
        conn.execute("COMMIT")
        conn.execute("INSERT INTO ev(ev) VALUES('optimize')")
        conn.execute("VACUUM")
    finally:
        conn.close()
    seconds = time.perf_counter() - t0
    return BuildResult(
        seconds=round(seconds, 3),
        events_per_s=round(count / seconds, 1) if seconds else 0.0,
        bytes=db_path.stat().st_size,
        events=count,
        tokenizer=tokenizer,
    )


def connect(db_path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)


# The next two functions are also copied verbatim into the fresh-process script: keep them
# free of anything but the standard library.


def match_expression(words: list[str]) -> str:
    """Every word a quoted FTS5 string, AND-ed: no user text reaches FTS5's query syntax."""
    return " ".join('"' + w.replace('"', '""') + '"' for w in words)


def search_sql(filters: dict, since: int | None, limit: int) -> tuple[str, list]:
    sql = "SELECT id, snippet(ev, 0, '[', ']', '…', 16) FROM ev WHERE ev MATCH ?"
    params: list = []
    if filters.get("source"):
        sql += " AND source = ?"
        params.append(filters["source"])
    if filters.get("project"):
        sql += " AND project = ?"
        params.append(filters["project"])
    if since is not None:
        sql += " AND ts >= ?"
        params.append(since)
    if filters.get("kinds"):
        sql += " AND kind IN (" + ",".join("?" * len(filters["kinds"])) + ")"
        params.extend(filters["kinds"])
    sql += " ORDER BY rank LIMIT ?"
    params.append(limit)
    return sql, params


def _since(query: QueryLike) -> int | None:
    since = getattr(query, "since_ms", None)
    return since if isinstance(since, int) else None


def query_fts5(
    conn: sqlite3.Connection, query: QueryLike, limit: int = 20, kinds: Sequence[str] = ()
) -> list[str]:
    """Ids of the top hits by bm25; snippets are computed (that cost is part of the baseline).

    With ``trigram`` a word under three characters matches nothing, so such queries come back
    empty and count as misses, as in the published baseline.
    """
    words = query.text.split()
    if not words:
        return []
    filters = {**query.filters, "kinds": list(kinds)} if kinds else query.filters
    sql, params = search_sql(filters, _since(query), limit)
    rows = conn.execute(sql, [match_expression(words), *params]).fetchall()
    return [row[0] for row in rows]


_FRESH_SCRIPT = """
import json, sqlite3, sys
{helpers}
words, filters, since = json.loads(sys.argv[2])
conn = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
sql, params = search_sql(filters, since, 20)
rows = conn.execute(sql, [match_expression(words), *params]).fetchall()
sys.stdout.write(str(len(rows)) + "\\n")
sys.stdout.flush()
"""


def fresh_process_first_query(db_path: Path, query: QueryLike, runs: int = 5) -> float:
    """Median ms from spawning a new Python to reading its answer (open DB, query, snippets).

    The script is the smallest a user could write (stdlib only), the most favourable case for
    the baseline. The page cache is whatever it is: call after a warm-up for warm figures.
    """
    helpers = inspect.getsource(match_expression) + "\n" + inspect.getsource(search_sql)
    script = _FRESH_SCRIPT.format(helpers=helpers)
    arg = json.dumps([query.text.split(), query.filters, _since(query)])
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", script, str(db_path), arg],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None
        answer = proc.stdout.readline()
        elapsed = (time.perf_counter() - t0) * 1000
        _, err = proc.communicate()
        if proc.returncode != 0 or not answer.strip():
            raise RuntimeError(f"fresh-process query failed: {err.decode(errors='replace')[-500:]}")
        times.append(elapsed)
    return median(times)


def fresh_process_samples(db_path: Path, queries: Sequence[Any]) -> list[float]:
    """Ms from spawn to answer for each query in a new process, after one untimed run that
    warms the page cache: the peer of a fresh `origin search` per query."""
    fresh_process_first_query(db_path, queries[0], runs=1)
    return [fresh_process_first_query(db_path, q, runs=1) for q in queries]


def build_in_subprocess(corpus_dir: Path, db_path: Path, tokenizer: str) -> BuildResult:
    """Build in a child process so its peak RSS (``ru_maxrss`` from ``wait4``) is the build's own."""
    code = (
        "import json, sys\n"
        "from dataclasses import asdict\n"
        "from pathlib import Path\n"
        "from bench.corpus import iter_events\n"
        "from bench.fts5 import build_fts5\n"
        "r = build_fts5(iter_events(Path(sys.argv[1])), Path(sys.argv[2]), sys.argv[3])\n"
        "print(json.dumps(asdict(r)))\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    warm(corpus_dir / EVENTS_FILE)  # as Origin's build starts: input cached, nothing to flush
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", code, str(corpus_dir), str(db_path), tokenizer],
            stdout=out,
            stderr=err,
            env=env,
        )
        # wait4 rather than Popen.wait: it returns this child's own rusage.
        with Sampler(proc.pid) as sampler:
            _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"FTS5 build failed: {err.read().decode(errors='replace')[-2000:]}")
        result = BuildResult(**json.loads(out.read().decode().strip().splitlines()[-1]))
    result.peak_rss_bytes = usage.ru_maxrss * 1024  # Linux reports KiB
    result.cpu_seconds = usage.ru_utime + usage.ru_stime
    result.peak_anon_bytes = sampler.peaks.summary()["peak_anon_bytes"]
    return result


def _paths(corpus_dir: Path, tokenizer: str) -> tuple[Path, Path]:
    stem = f"fts5-{tokenizer}-v{FTS5_VERSION}"
    return Path(corpus_dir) / f"{stem}.sqlite", Path(corpus_dir) / f"{stem}.json"


def _cached(corpus_dir: Path, tokenizer: str) -> bool:
    """Whether a whole build is cached: its figures are written last."""
    return all(path.exists() for path in _paths(corpus_dir, tokenizer))


def cached_fts5(corpus_dir: Path, tokenizer: str, *, rebuild: bool = False) -> Path:
    """The FTS5 database for a (cached) corpus, built once, or again when asked to `rebuild`
    (so that its build is timed in the same run as Origin's); its figures sit next to it.

    The JSON is written last, so a database without one is an interrupted build and is redone.
    """
    db, figures = _paths(corpus_dir, tokenizer)
    if _cached(corpus_dir, tokenizer) and not rebuild:
        return db
    tmp = db.with_name(db.name + f".tmp-{os.getpid()}")
    result = build_in_subprocess(Path(corpus_dir), tmp, tokenizer)
    os.replace(tmp, db)
    figures.write_text(json.dumps(asdict(result), indent=2))
    return db


def build_figures(db_path: Path) -> BuildResult:
    return BuildResult(**json.loads(Path(db_path).with_suffix(".json").read_text()))


def run_baseline(
    corpus_dir: Path,
    queries: Sequence[Any],
    tokenizer: str,
    fresh_query: Any = None,
    fresh_queries: Sequence[Any] = (),
    *,
    rebuild: bool = False,
) -> dict:
    """Everything the report needs for one tokenizer: build (timed in this run when asked to
    `rebuild` or when none was cached), latency (all and per category), CJK recall, queries
    without hits, the fresh-process time of one query and the fresh-process latency over
    ``fresh_queries``."""
    built_now = rebuild or not _cached(corpus_dir, tokenizer)
    db = cached_fts5(corpus_dir, tokenizer, rebuild=rebuild)
    conn = connect(db)
    try:

        def run(q: Any) -> list[str]:
            return query_fts5(conn, q)

        samples = time_calls(run, queries)
        # The contract's default search: messages only (`origin_search.MESSAGE_KINDS`).
        messages = time_calls(lambda q: query_fts5(conn, q, kinds=MESSAGE_KINDS), queries)
        per_category: dict[str, Latency] = {}
        for category in dict.fromkeys(q.category for q in queries):
            picked = [s for s, q in zip(samples, queries, strict=True) if q.category == category]
            per_category[category] = summarize(picked)
        cjk = [q for q in queries if q.category == "cjk"]
        non_cjk = [q for q in queries if q.category != "cjk"]
        zero = [q.text for q in non_cjk if not run(q)]
        result = {
            "tokenizer": tokenizer,
            "build": asdict(build_figures(db)),
            "built_in_run": built_now,
            "latency": asdict(
                summarize([s for s, q in zip(samples, queries, strict=True) if q.category != "cjk"])
            ),
            "latency_all": asdict(summarize(samples)),
            "latency_messages": asdict(summarize(messages)),
            "per_category": {k: asdict(v) for k, v in per_category.items()},
            "cjk_recall": hit_rate(run, cjk),
            "cjk_queries": len(cjk),
            "no_hits": len(zero),
            "no_hits_examples": zero[:10],
        }
    finally:
        conn.close()
    if fresh_query is not None:
        fresh_process_first_query(db, fresh_query, runs=1)  # warm the page cache
        result["fresh_process_ms"] = fresh_process_first_query(db, fresh_query)
    if fresh_queries:
        result["fresh_search"] = asdict(summarize(fresh_process_samples(db, fresh_queries)))
    return result
