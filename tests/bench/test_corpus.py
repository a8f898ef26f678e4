"""The benchmark corpus generator, query mix and FTS5 baseline, on a tiny corpus."""

from __future__ import annotations

import fnmatch
import hashlib
import re
from collections import Counter
from pathlib import Path

import orjson
import pytest

from bench import corpus, fts5, queries, stats
from origin_store.model import EventRecord
from origin_store.parsers.registry import SOURCES

EVENTS = 2000
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
CLAUDE_ID = re.compile(rf"^claude-code:({UUID})$")
CLAUDE_BOOKKEEPING_ID = re.compile(
    rf"^claude-code:({UUID}):(permission-mode|ai-title):[0-9a-f]{{16}}$"
)
CODEX_ID = re.compile(rf"^codex:({UUID}):L([1-9][0-9]*)$")

#: sha256 of the tiny corpus (logs, events table uncompressed, corpus.json but its time taken) by
#: generator version. The benchmark caches corpora by version: output that changes on purpose
#: bumps GENERATOR_VERSION and pins its digest here; output that changes by accident fails.
PINNED = {
    "4": "ad1548d142ccc4158b3cd60b28d064fe3264160c32a42ec33ed652e01ba3ee1f",
    "5": "b25c863f089713eb7b9ef672d2cb51e53fb2cce9e569c2e2b60424e99ed51914",
}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    corpus.generate(out, EVENTS, seed=42, workers=1)
    return out


@pytest.fixture(scope="module")
def rows(tiny: Path) -> list[tuple]:
    return list(corpus.iter_events(tiny))


@pytest.fixture(scope="module")
def mix(tiny: Path) -> list[queries.Query]:
    return queries.query_mix(tiny)


def jsonl_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.jsonl"))


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_same_seed_gives_identical_bytes_whatever_the_worker_count(
    tiny: Path, tmp_path: Path
) -> None:
    again = tmp_path / "again"
    corpus.generate(again, EVENTS, seed=42, workers=2)
    first, second = tree(tiny), tree(again)
    first = {k: v for k, v in first.items() if not k.startswith("fts5-")}
    info_a, info_b = (orjson.loads(t.pop(corpus.INFO_FILE)) for t in (first, second))
    info_a.pop("seconds"), info_b.pop("seconds")
    assert info_a == info_b
    assert first.keys() == second.keys()
    assert all(first[k] == second[k] for k in first)


def corpus_digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in [*jsonl_files(root / "claude"), *jsonl_files(root / "codex")]:
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    for line in corpus.iter_event_lines(root):
        h.update(line)
    info = orjson.loads((root / corpus.INFO_FILE).read_bytes())
    info.pop("seconds")
    h.update(orjson.dumps(info, option=orjson.OPT_SORT_KEYS))
    return h.hexdigest()


def test_output_is_pinned_for_its_generator_version(tiny: Path) -> None:
    assert corpus_digest(tiny) == PINNED.get(corpus.GENERATOR_VERSION), (
        "the generator writes other bytes for the same size and seed: bump GENERATOR_VERSION "
        "and pin the new digest, or restore the old output"
    )


def test_another_seed_gives_another_corpus(tiny: Path, tmp_path: Path) -> None:
    corpus.generate(tmp_path / "other", 300, seed=43, workers=1)
    ids = {r[0] for r in corpus.iter_events(tmp_path / "other")}
    assert ids.isdisjoint(r[0] for r in corpus.iter_events(tiny))


def test_info_counts_what_was_written(tiny: Path, rows: list[tuple]) -> None:
    info = corpus.load_info(tiny)
    files = jsonl_files(tiny)
    assert info.events == EVENTS == len(rows)
    assert info.files == info.sessions == len(files)
    assert info.bytes == sum(p.stat().st_size for p in files)
    assert info.lines == sum(p.read_bytes().count(b"\n") for p in files)
    assert info.generator_version == corpus.GENERATOR_VERSION
    by_source = Counter(r[2] for r in rows)
    assert 0.65 < by_source["claude-code"] / EVENTS < 0.75
    assert set(by_source) == {"claude-code", "codex"}


def test_claude_lines_have_the_real_envelope(tiny: Path) -> None:
    files = jsonl_files(tiny / "claude")
    assert files
    for path in files:
        assert fnmatch.fnmatch(
            path.relative_to(tiny / "claude").as_posix(), "projects/-home-dev-*/*.jsonl"
        )
        session = path.stem
        for raw in path.read_bytes().splitlines():
            line = orjson.loads(raw)
            kind = line["type"]
            assert kind in ("user", "assistant", "permission-mode", "ai-title")
            assert line["sessionId"] == session
            if kind not in ("user", "assistant"):
                continue
            for key in (
                "parentUuid",
                "isSidechain",
                "userType",
                "cwd",
                "version",
                "gitBranch",
                "uuid",
                "timestamp",
            ):
                assert key in line, key
            assert line["cwd"].startswith("/home/dev/")
            assert re.fullmatch(r"2026-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["timestamp"])
            message = line["message"]
            assert message["role"] == kind
            content = message["content"]
            if isinstance(content, str):
                assert kind == "user" and content
                continue
            assert len(content) == 1  # one block per line keeps ids plain
            block = content[0]
            if kind == "assistant":
                assert block["type"] in ("text", "thinking", "tool_use")
                if block["type"] == "tool_use":
                    assert (
                        block["id"].startswith("toolu_")
                        and block["name"]
                        and isinstance(block["input"], dict)
                    )
            else:
                assert block["type"] in ("tool_result", "image")
                if block["type"] == "tool_result":
                    assert block["tool_use_id"].startswith("toolu_")
                    assert isinstance(block["content"], str | list)


def test_codex_rollouts_have_the_real_envelope(tiny: Path) -> None:
    files = jsonl_files(tiny / "codex")
    assert files
    for path in files:
        rel = path.relative_to(tiny / "codex").as_posix()
        m = re.fullmatch(
            rf"sessions/(\d{{4}})/(\d\d)/(\d\d)/rollout-\1-\2-\3T\d\d-\d\d-\d\d-({UUID})\.jsonl",
            rel,
        )
        assert m, rel
        lines = [orjson.loads(raw) for raw in path.read_bytes().splitlines()]
        meta = lines[0]
        assert meta["type"] == "session_meta"
        assert meta["payload"]["id"] == m.group(4)
        for key in ("cwd", "cli_version", "git", "originator"):
            assert key in meta["payload"]
        for line in lines:
            assert set(line) == {"timestamp", "type", "payload"}
            assert line["type"] in ("session_meta", "turn_context", "response_item", "event_msg")
            if line["type"] == "response_item":
                assert line["payload"]["type"] in (
                    "message",
                    "reasoning",
                    "function_call",
                    "function_call_output",
                    "custom_tool_call",
                    "custom_tool_call_output",
                )


def test_event_ids_are_unique_and_point_at_their_lines(tiny: Path, rows: list[tuple]) -> None:
    ids = [r[0] for r in rows]
    assert len(set(ids)) == len(ids)
    codex_files = {re.search(UUID, p.name).group(0): p for p in jsonl_files(tiny / "codex")}
    claude_uuids = {
        orjson.loads(raw).get("uuid")
        for p in jsonl_files(tiny / "claude")
        for raw in p.read_bytes().splitlines()
    }
    for eid, text, source, project, session, kind, role, when in rows:
        assert kind in ("message", "tool_use", "tool_result", "meta", "system")
        assert role in ("user", "assistant", "system")
        assert isinstance(text, str) and text
        assert re.fullmatch(r"[a-z]+-[a-z]+", project)
        if source == "claude-code":
            m = CLAUDE_ID.match(eid)
            if m:
                assert m.group(1) in claude_uuids
                assert when > 0
            else:
                m = CLAUDE_BOOKKEEPING_ID.match(eid)
                assert m and m.group(1) == session and kind == "meta"
        else:
            m = CODEX_ID.match(eid)
            assert m and m.group(1) == session
            lines = codex_files[session].read_bytes().splitlines()
            assert lines[int(m.group(2)) - 1]  # a 1-based line number inside the file


def test_bookkeeping_ids_hash_the_line(tiny: Path, rows: list[tuple]) -> None:
    wanted = {r[0] for r in rows if CLAUDE_BOOKKEEPING_ID.match(r[0])}
    assert wanted
    found = set()
    for p in jsonl_files(tiny / "claude"):
        for raw in p.read_bytes().splitlines():
            line = orjson.loads(raw)
            if "uuid" not in line:
                found.add(
                    f"claude-code:{p.stem}:{line['type']}:{hashlib.sha256(raw).hexdigest()[:16]}"
                )
    assert wanted == found


def test_about_a_tenth_of_events_are_mostly_cjk(tiny: Path, rows: list[tuple]) -> None:
    measured = sum(corpus.mostly_cjk(r[1]) for r in rows) / len(rows)
    assert 0.04 < measured < 0.2
    assert corpus.load_info(tiny).cjk_fraction == pytest.approx(measured, abs=0.01)
    assert any(re.search(r"[\u3040-\u30ff]", r[1]) for r in rows)  # Japanese
    assert any(re.search(r"[\u4e00-\u9fff]", r[1]) for r in rows)  # Chinese


def test_text_lengths_have_a_long_tail(rows: list[tuple]) -> None:
    lengths = [len(r[1]) for r in rows]
    assert 80 < stats.percentile(lengths, 50) < 400
    assert 600 < stats.percentile(lengths, 90) < 3000
    assert max(lengths) <= corpus.MAX_TEXT


def test_events_table_matches_origins_parsers(tiny: Path, rows: list[tuple]) -> None:
    """The generator's copy of the event-id and text rules agrees with the parsers' own (its
    texts are the texts as the tools show them, Origin's labels included)."""
    parsed: dict[str, tuple] = {}
    for name, sub in (("claude-code", "claude"), ("codex", "codex")):
        base = tiny / sub
        kind = SOURCES[name].files[0]
        for path in jsonl_files(base):
            rel = path.relative_to(base).as_posix()
            state = kind.start(rel)
            for lineno, raw in enumerate(path.read_bytes().split(b"\n")[:-1], start=1):
                for record in kind.parse(raw, lineno, state):
                    if isinstance(record, EventRecord):
                        parsed.setdefault(
                            record.id,
                            (
                                record.id,
                                record.rendered,
                                record.source,
                                record.session,
                                record.kind,
                                record.role,
                                record.time,
                            ),
                        )
    table = {r[0]: (r[0], r[1], r[2], r[4], r[5], r[6], r[7]) for r in rows}
    assert parsed.keys() == table.keys()
    assert [k for k in table if parsed[k] != table[k]] == []


def test_query_mix_covers_every_category(
    tiny: Path, mix: list[queries.Query], rows: list[tuple]
) -> None:
    assert len(mix) >= 200
    counts = Counter(q.category for q in mix)
    assert set(counts) == set(queries.CATEGORIES)
    assert counts["cjk"] >= 30
    assert all(1 <= len(q.words) <= 3 for q in mix)
    assert len({q.text.lower() for q in mix}) == len(mix)
    filtered = [q for q in mix if q.filters]
    assert 0.15 * len(mix) < len(filtered) < 0.25 * len(mix)
    assert {k for q in filtered for k in q.filters} == {"source", "project", "since"}
    text = "\n".join(r[1] for r in rows)
    for q in queries.cjk_queries(mix):
        assert all(w in text for w in q.words), q
        assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]", q.text)
    assert queries.query_mix(tiny) == mix  # deterministic


def test_fts5_builds_and_answers(
    tiny: Path, rows: list[tuple], mix: list[queries.Query], tmp_path: Path
) -> None:
    for tokenizer in fts5.TOKENIZERS:
        db = tmp_path / f"{tokenizer}.sqlite"
        built = fts5.build_fts5(iter(rows), db, tokenizer)
        assert built.events == len(rows) and built.bytes > 0 and built.seconds > 0
        conn = fts5.connect(db)
        try:

            def run(q: queries.Query, conn=conn) -> list[str]:
                return fts5.query_fts5(conn, q)

            non_cjk = [q for q in mix if q.category != "cjk"]
            assert stats.hit_rate(run, non_cjk) > 0.7
            by_id = {r[0]: r for r in rows}
            for q in mix:
                hits = run(q)
                assert len(hits) <= 20
                for hit in hits:
                    row = by_id[hit]
                    assert row[2] == q.filters.get("source", row[2])
                    assert row[3] == q.filters.get("project", row[3])
                    assert row[7] >= (q.since_ms or 0)
            cjk = queries.cjk_queries(mix)
            recall = stats.hit_rate(run, cjk)
            if tokenizer == "unicode61":
                assert recall < 0.5  # a CJK run is one token: substrings are not found
            else:
                assert 0.3 < recall < 1.0  # found when 3+ characters, never when 2
                assert run(queries.Query("数据", "cjk")) == []
            assert run(queries.Query('say "hi" AND NOT OR ( *', "common")) == []  # no syntax errors
        finally:
            conn.close()


def test_warm_reads_every_file_of_the_corpus(tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    logs = corpus.logs_of(tiny)
    read, seconds = corpus.warm(*logs)
    assert read == sum(p.stat().st_size for d in logs for p in d.rglob("*") if p.is_file()) > 0
    events = tiny / corpus.EVENTS_FILE
    assert corpus.warm(events)[0] == events.stat().st_size > 0 and seconds >= 0
    monkeypatch.setattr(corpus, "WARM_MAX_BYTES", events.stat().st_size - 1)
    assert corpus.warm(events)[0] == 0  # too large to stay cached: not read


def test_fts5_cache_fresh_process_and_peak_memory(tiny: Path) -> None:
    db = fts5.cached_fts5(tiny, "unicode61")
    figures = fts5.build_figures(db)
    assert (
        figures.events == EVENTS and figures.peak_rss_bytes and figures.peak_rss_bytes > 10_000_000
    )
    assert figures.cpu_seconds and 0 < figures.cpu_seconds < 60
    mtime = db.stat().st_mtime_ns
    assert fts5.cached_fts5(tiny, "unicode61") == db and db.stat().st_mtime_ns == mtime
    # Asked to, it builds again (timed in the run that compares with it), in the same place.
    assert fts5.cached_fts5(tiny, "unicode61", rebuild=True) == db
    assert db.stat().st_mtime_ns != mtime and fts5.build_figures(db).events == EVENTS
    ms = fts5.fresh_process_first_query(db, queries.Query("error", "common"), runs=2)
    assert 0 < ms < 5000


def test_cached_corpus_is_generated_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(corpus, "CACHE_ROOT", tmp_path)
    path = corpus.cached_corpus(300, seed=5)
    assert path.name == f"corpus-v{corpus.GENERATOR_VERSION}-300-5"
    stamp = (path / corpus.INFO_FILE).stat().st_mtime_ns
    assert corpus.cached_corpus(300, seed=5) == path
    assert (path / corpus.INFO_FILE).stat().st_mtime_ns == stamp
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temp dir left behind


def test_percentiles_are_nearest_rank() -> None:
    values = [15, 20, 35, 40, 50]
    assert stats.percentile(values, 30) == 20
    assert stats.percentile(values, 40) == 20
    assert stats.percentile(values, 50) == 35
    assert stats.percentile(values, 100) == 50
    hundred = list(range(100, 0, -1))
    assert (
        stats.percentile(hundred, 50),
        stats.percentile(hundred, 95),
        stats.percentile(hundred, 99),
    ) == (50, 95, 99)
    lat = stats.summarize([3.0, 1.0, 2.0])
    assert (lat.p50, lat.p95, lat.p99, lat.n, lat.max) == (2.0, 3.0, 3.0, 3, 3.0)
    assert stats.median([4, 1, 3, 2]) == 2.5
    with pytest.raises(ValueError):
        stats.percentile([], 50)


def test_measure_latency_warms_up_then_times_each_query() -> None:
    calls: list[int] = []
    lat = stats.measure_latency(calls.append, [1, 2, 3])
    assert calls == [1, 2, 3, 1, 2, 3]
    assert lat.n == 3 and lat.p50 >= 0
    calls.clear()
    stats.measure_latency(calls.append, [1, 2], warmup=False)
    assert calls == [1, 2]


def test_session_sizes_are_many_short_and_a_long_tail() -> None:
    """As in real archives (~100-150 events per file): 1M events in about 8,000 files."""
    from origin_api.samples.corpus import SESSION_MAX, plan_sessions

    sizes = [p.events for p in plan_sessions(1_000_000, 42, 12, [1.0] * 12)]
    assert sum(sizes) == 1_000_000
    assert 7_000 < len(sizes) < 9_000
    assert 45 <= stats.median(sizes) <= 75
    assert 110 <= sum(sizes) / len(sizes) <= 140
    assert max(sizes) <= SESSION_MAX + 6
    assert sum(1 for s in sizes if s >= 1000) > 40  # the long tail is there


def test_short_sessions_write_no_bookkeeping_line_the_table_lacks() -> None:
    """A short session's budget often runs out right at the end of its first turn, where the
    title line comes: each distinct id-less line written must be a row of the table."""
    from origin_api.samples.claude_code import ClaudeSession
    from origin_api.samples.common import BASE_MS
    from origin_api.samples.context import build_context
    from origin_api.samples.session import Plan

    ctx = build_context(42)
    for i in range(300):
        s = ClaudeSession(ctx, Plan("claude-code", i, 2 + i % 30, 0, "en", BASE_MS), 42)
        s.generate()
        written = {line for line in s.lines if b'"uuid"' not in line}
        rows = [r for r in s.rows if b":ai-title:" in r or b":permission-mode:" in r]
        assert len(written) == len(rows), i
