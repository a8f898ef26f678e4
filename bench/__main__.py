"""`make bench`: Origin against SQLite FTS5 on the same generated corpus, in the same run.

Figures are printed with their ratios to the baseline because this machine is shared and noisy:
absolute numbers move between runs, ratios much less. The corpus and the FTS5 databases are
cached under bench/.cache (keyed by the generator's version). The FTS5 unicode61 database is
built again in every run all the same, so that Origin's build is compared with a build timed on
the machine as it is now (--cached-baseline reuses it: ~30 s saved at 1M, ~7 min at 10M).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import asdict
from pathlib import Path

from . import corpus, fts5, origin_run, queries, sources, summary, ui_page
from . import sync as sync_section

CACHE = corpus.CACHE_ROOT


def main() -> None:
    """Run every section in report order and save all figures together, so one results file
    holds a whole comparable run."""
    args = _parse_args()
    events = args.events or (10_000_000 if args.huge else 100_000 if args.quick else 1_000_000)
    os.environ["TZ"] = "UTC"
    time.tzset()

    if args.sources_only:  # this section alone, saved apart from the whole run's figures
        measured = sources.report(events // 10, section)
        (CACHE / f"sources-{events}.json").write_text(json.dumps(measured, indent=2))
        return
    if args.sync_only:  # this section alone, over the cached home the build section made
        report_sync_only(events)
        return

    out = CACHE / f"results-{events}.json"
    previous = summary.load_previous(out)  # before this run overwrites it

    corpus_dir, info, mix = report_corpus(events, previous)
    results: dict = {"events": events, "corpus": asdict(info)}
    fresh = fresh_queries(mix)
    baselines = report_baselines(
        corpus_dir, info, mix, fresh, trigram=not args.no_trigram, rebuild=not args.cached_baseline
    )
    results["fts5"] = baselines

    home = CACHE / f"origin-{events}"
    results["origin_build"] = report_build(corpus_dir, home, info, baselines, args.workers)
    ours = report_search_latency(corpus_dir, home, info, mix, fresh, baselines)
    results["origin_search"] = ours

    if not args.no_mcp:
        results["origin_mcp"] = report_origin_mcp(corpus_dir, home, info, mix, ours)

    if not args.no_hub:
        load = report_hub_load(home, info, mix, args.hub_seconds)
        if load is not None:
            results["hub"] = load

    results["redaction"] = report_redaction(corpus_dir, info)

    if not args.no_ui:
        results["ui"] = ui_page.report(home, mix, section)
        results["ui_session"] = ui_page.report_session_at(home, section)
        results["ui_activity"] = ui_page.report_activity(home, section)

    if not args.no_sources:
        results["sources"] = sources.report(events // 10, section)

    if not args.no_sync:
        results["sync"] = sync_section.report(home, mix, section)

    results["figures"] = summary.figures(results)
    section(f"Origin against its previous run, FTS5 and its targets ({scale(info)})")
    print("\n".join(summary.table(results, previous)))
    out.write_text(json.dumps(results, indent=2, default=str))
    section(f"Saved {out}")


def _parse_args() -> argparse.Namespace:
    """The command line: corpus size and which slow sections to skip, so a quick look at one
    part does not pay for all of them."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="100,000 events instead of 1,000,000")
    parser.add_argument("--huge", action="store_true", help="10,000,000 events")
    parser.add_argument("--events", type=int, help="any corpus size")
    parser.add_argument(
        "--no-trigram", action="store_true", help="skip the FTS5 trigram baseline (slow to build)"
    )
    parser.add_argument(
        "--cached-baseline",
        action="store_true",
        help="reuse the cached FTS5 unicode61 build and its figures instead of timing it again",
    )
    parser.add_argument(
        "--no-mcp", action="store_true", help="skip the measurements through origin mcp"
    )
    parser.add_argument("--no-hub", action="store_true", help="skip the hub load run")
    parser.add_argument("--hub-seconds", type=int, default=30)
    parser.add_argument(
        "--no-sources", action="store_true", help="skip the ingest rates per source"
    )
    parser.add_argument(
        "--sources-only", action="store_true", help="only the ingest rates per source"
    )
    parser.add_argument("--no-sync", action="store_true", help="skip the device-to-hub sync")
    parser.add_argument("--no-ui", action="store_true", help="skip the admin UI's search page")
    parser.add_argument(
        "--sync-only",
        action="store_true",
        help="only the sync section, over the cached Origin home of this size",
    )
    parser.add_argument(
        "--workers", type=int, default=0, help="ingest worker processes (0: Origin decides)"
    )
    return parser.parse_args()


def report_sync_only(events: int) -> None:
    """The sync section alone, saved into the size's results (under "sync") so the headline
    table keeps every other figure of the last whole run."""
    home = CACHE / f"origin-{events}"
    if not home.is_dir():
        raise SystemExit(f"no cached Origin home at {home}: run the whole bench once first")
    out = CACHE / f"results-{events}.json"
    results = json.loads(out.read_text()) if out.exists() else {"events": events}
    mix = queries.query_mix(corpus.cached_corpus(events))
    results["sync"] = sync_section.report(home, mix, section)
    results["figures"] = summary.figures(results)
    out.write_text(json.dumps(results, indent=2, default=str))
    section(f"Saved {out}")


def scale(info: corpus.CorpusInfo) -> str:
    """The corpus's size in every section heading: per-file costs depend on the file count."""
    return f"{info.events:,} events in {info.files:,} files"


def fresh_queries(mix: list[queries.Query], n: int = 20) -> list[queries.Query]:
    """``n`` queries spread evenly over the mix (every category, filters included), each run in
    a new process by the fresh-search measurement."""
    count = min(n, len(mix))
    return [mix[i * len(mix) // count] for i in range(count)]


def report_corpus(
    events: int, previous: dict
) -> tuple[Path, corpus.CorpusInfo, list[queries.Query]]:
    """Generate (or reuse) the corpus and its query mix, and print what they hold: every later
    figure is relative to this corpus's size and shape, the file count included."""
    section(f"Corpus: {events:,} events (generator v{corpus.GENERATOR_VERSION})")
    started = time.perf_counter()
    corpus_dir = corpus.cached_corpus(events)
    info = corpus.load_info(corpus_dir)
    print(
        f"  {info.events:,} events, {info.lines:,} lines, {info.bytes / 1e6:,.1f} MB of JSONL in {info.files:,} files, "
        f"{info.cjk_fraction:.1%} mostly CJK ({time.perf_counter() - started:.1f} s, cached at {corpus_dir})"
    )
    print(
        f"  {info.events / max(1, info.files):,.0f} events per file on average"
        + (f" (previous run: {previous['files']:,} files)" if previous.get("files") else "")
    )
    mix = queries.query_mix(corpus_dir)
    cjk = queries.cjk_queries(mix)
    print(
        f"  query mix: {len(mix)} queries ({len(cjk)} CJK; {sum(1 for q in mix if q.filters)} with filters)"
    )
    return corpus_dir, info, mix


def report_baselines(
    corpus_dir: Path,
    info: corpus.CorpusInfo,
    mix: list[queries.Query],
    fresh: list[queries.Query],
    *,
    trigram: bool,
    rebuild: bool,
) -> dict:
    """Build (or reuse) the SQLite FTS5 baselines and print their build cost and latency: the
    reference every Origin figure is divided by. unicode61 is built again when asked to
    `rebuild`, trigram only when not cached (only its searches are compared)."""
    section(f"Baselines: SQLite FTS5 ({scale(info)})")
    baselines = {}
    for tokenizer in ("unicode61",) + (("trigram",) if trigram else ()):
        started = time.perf_counter()
        baselines[tokenizer] = fts5.run_baseline(
            corpus_dir,
            mix,
            tokenizer,
            fresh_query=mix[0],
            fresh_queries=fresh,
            rebuild=rebuild and tokenizer == "unicode61",
        )
        b = baselines[tokenizer]
        when = "built in this run" if b["built_in_run"] else "as cached from an earlier run"
        print(
            f"  {tokenizer:10} build {b['build']['seconds']:.1f} s{_cpu(b['build'].get('cpu_seconds'))} "
            f"({b['build']['events_per_s']:,.0f} ev/s, {when}), "
            f"{b['build']['bytes'] / info.bytes:.2f}x raw, peak RSS {_mib(b['build']['peak_rss_bytes'])} "
            f"(anonymous {_mib(b['build'].get('peak_anon_bytes'))}); {fmt(b['latency_all'])}; "
            f"CJK recall {b['cjk_recall']:.0%} ({time.perf_counter() - started:.0f} s)"
        )
        print(f"             fresh process per query {fmt(b['fresh_search'])}")
    return baselines


def report_build(
    corpus_dir: Path, home: Path, info: corpus.CorpusInfo, baselines: dict, workers: int
) -> dict:
    """Ingest and index the corpus with Origin and print rates, sizes and peak memory against
    their targets and against the FTS5 unicode61 build."""
    section(f"Origin: ingest and index ({scale(info)})")
    built = origin_run.build(corpus_dir, home, workers=workers)
    ing, idx = built["ingest"], built["index"]
    warmed = built["warmed"]
    print(
        f"  (first the corpus into the page cache, as before the FTS5 build: "
        f"{warmed['bytes'] / 1e6:,.0f} MB read in {warmed['seconds']:.1f} s, not counted)"
        if warmed["bytes"]
        else "  (the corpus is not read into the page cache first: it is larger than this machine "
        "keeps cached through a build)"
    )
    print(
        f"  ingest   {ing['events']:,} events in {ing['seconds']:.1f} s{_cpu(ing.get('cpu_seconds'))}: "
        f"{ing['events_per_s']:,.0f} events/s, "
        f"{ing['mb_per_s']:.1f} MB/s (target >= 50,000 events/s); {_memory(ing['memory'])}"
    )
    print(
        f"  store    {ing['store_bytes'] / 1e6:,.1f} MB = {ing['store_bytes'] / info.bytes:.2f}x raw; mirrors "
        f"{ing['mirror_bytes'] / 1e6:,.1f} MB = {ing['mirror_bytes'] / info.bytes:.1%} of raw (target <= 25%)"
    )
    print(
        f"  index    {idx['docs']:,} docs in {idx['seconds']:.1f} s{_cpu(idx.get('cpu_seconds'))}: "
        f"{idx['events_per_s']:,.0f} events/s "
        f"(target >= 15,000); "
        f"{idx['index_bytes'] / 1e6:,.1f} MB = {idx['index_bytes'] / info.bytes:.2f}x raw; "
        f"{_memory(idx['memory'])}"
    )
    print(
        f"  all      {built['seconds']:.1f} s from nothing ({built['wall_seconds']:.1f} s with both "
        f"processes' start); on disk "
        f"{built['disk_bytes'] / 1e6:,.1f} MB = {built['disk_bytes'] / info.bytes:.2f}x raw "
        f"(store + mirrors + index)"
    )
    base = baselines["unicode61"]["build"]
    when = "in this run" if baselines["unicode61"]["built_in_run"] else "cached"
    cpu = [ing.get("cpu_seconds"), idx.get("cpu_seconds"), base.get("cpu_seconds")]
    print(
        f"           vs FTS5 unicode61 build ({when}): {built['seconds'] / base['seconds']:.2f}x its time"
        + (f", {(cpu[0] + cpu[1]) / cpu[2]:.2f}x its CPU" if None not in cpu else "")
        + f"; the index step alone {idx['events_per_s'] / base['events_per_s']:.2f}x its rate, "
        f"{idx['index_bytes'] / base['bytes']:.2f}x its size"
    )
    return built


def _cpu(seconds: float | None) -> str:
    """A step's CPU beside its wall time: with 2 cores, half of it is the least the step
    could take on this machine however its work were spread."""
    return "" if seconds is None else f" ({seconds:.1f} s of CPU)"


def _mib(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 2**20:,.0f} MiB"


def _memory(peaks: dict) -> str:
    """A step's peaks: its largest process's anonymous memory and RSS, sampled per process."""
    n = peaks["processes"] or 0
    return (
        f"peak anonymous {_mib(peaks['peak_anon_bytes'])}, RSS {_mib(peaks['peak_rss_bytes'])} "
        + (f"(the largest of {n} processes)" if n > 1 else "(one process)")
    )


def report_search_latency(
    corpus_dir: Path,
    home: Path,
    info: corpus.CorpusInfo,
    mix: list[queries.Query],
    fresh: list[queries.Query],
    baselines: dict,
) -> dict:
    """Time the same queries in process and from a fresh process, and print them beside each
    FTS5 baseline with the speed-up, then per query category: latency is Origin's main claim."""
    section(f"Search latency (top 20, snippets, same queries; {scale(info)})")
    ours = origin_run.in_process(corpus_dir, home, mix)
    ours["fresh_process_ms"] = origin_run.fresh_process(corpus_dir, home, mix[0].text)
    ours["fresh_search"] = origin_run.fresh_search(corpus_dir, home, fresh)
    ours["fresh_search_alone"] = origin_run.fresh_search(corpus_dir, home, fresh, linger=False)
    ours["fresh_search_served"] = origin_run.fresh_search_served(corpus_dir, home, fresh)
    ours["human_search_alone"] = origin_run.fresh_search(
        corpus_dir, home, fresh, linger=False, human=True
    )
    ours["human_search_served"] = origin_run.fresh_search_served(
        corpus_dir, home, fresh, human=True
    )
    print(
        f"  Origin           {fmt(ours['latency_all'])}  (target p50 <= 2, p95 <= 10, p99 <= 20 ms)"
    )
    print(
        f"                   CJK recall {ours['cjk_recall']:.0%} of {ours['cjk_queries']} (target >= 95%); "
        f"fresh process to first answer {ours['fresh_process_ms']:.0f} ms (target <= 150)"
    )
    print(
        f"  fresh `origin search --json`, one process per query: {fmt(ours['fresh_search'])} "
        f"(target p50 <= 50, p99 <= 80 ms)"
    )
    print(
        f"    as installed: the first ({ours['fresh_search']['first_ms']:.0f} ms) answers alone "
        f"and leaves a search server that answers the rest (ORIGIN_CLI_LINGER_S)"
    )
    print(
        f"    nothing running, no search server (ORIGIN_CLI_LINGER_S=0): "
        f"{fmt(ours['fresh_search_alone'])}"
    )
    print(f"    while an `origin mcp` runs (it answers them): {fmt(ours['fresh_search_served'])}")
    print(
        f"  a person's `origin search` (no --json, plain text): nothing running "
        f"{fmt(ours['human_search_alone'])} (target: no slower than --json alone)"
    )
    print(
        f"    while an `origin mcp` runs: {fmt(ours['human_search_served'])} (target p50 <= 50 ms)"
    )
    _print_versus_baselines(ours, baselines)
    for category, lat in ours["per_category"].items():
        print(f"    {category:8} {fmt(lat)}")
    return ours


def _print_versus_baselines(ours: dict, baselines: dict) -> None:
    """One pair of lines per FTS5 baseline: its own latency and recall, then how many times
    faster Origin is at each percentile (the ratio is what stays stable between runs)."""
    for tokenizer, b in baselines.items():
        lat, mine = b["latency_all"], ours["latency_all"]
        print(
            f"  FTS5 {tokenizer:10}  {fmt(lat)}; CJK recall {b['cjk_recall']:.0%}; "
            f"fresh process {b.get('fresh_process_ms', 0):.0f} ms"
        )
        print(
            f"    Origin is {lat['p50'] / mine['p50']:.1f}x / {lat['p95'] / mine['p95']:.1f}x"
            f" / {lat['p99'] / mine['p99']:.1f}x "
            f"faster (p50 / p95 / p99)"
        )


def report_origin_mcp(
    corpus_dir: Path, home: Path, info: corpus.CorpusInfo, mix: list[queries.Query], ours: dict
) -> dict:
    """Run the same queries through `origin mcp` over stdio and print what the protocol adds
    over the in-process figures, and how long a client waits for its first answer."""
    section(f"Through origin mcp over stdio ({scale(info)})")
    mcp = origin_run.through_mcp(corpus_dir, home, mix)
    lat, mine = mcp["latency_all"], ours["latency_all"]
    print(f"  origin mcp       {fmt(lat)}")
    print(
        f"    overhead over in-process: p50 +{lat['p50'] - mine['p50']:.2f} ms (target <= 1 ms), "
        f"p95 +{lat['p95'] - mine['p95']:.2f}, p99 +{lat['p99'] - mine['p99']:.2f}"
    )
    print(f"  start to first answered search: {mcp['first_answer_ms']:.0f} ms (target <= 400 ms)")
    if mcp.get("serving_peak_rss_bytes") is not None:
        print(
            f"  the serving process after {len(mix)} searches: peak RSS "
            f"{_mib(mcp['serving_peak_rss_bytes'])} (the store's and index's mapped pages it "
            f"read included), anonymous {_mib(mcp['serving_anon_bytes'])} (target <= 1 GB RSS)"
        )
    return mcp


def report_redaction(corpus_dir: Path, info: corpus.CorpusInfo) -> dict:
    """The redactor alone over 200 MB of the corpus in ingest's batches (the build above ran
    with it on, as every ingest does): its speed, and the lines it changed, every one a false
    positive since the corpus plants no secret. `python -m bench.redact` measures more."""
    from . import redact as redaction

    section(f"Redaction: the secret masker alone, in ingest's batches ({scale(info)})")
    found = redaction.redactor(redaction.files(corpus_dir, 200), slow_mb=8)
    print(
        f"  {found['bytes'] / 1e6:,.0f} MB, {found['lines']:,} lines: {found['mb_per_s']:,.0f} MB/s "
        f"({found['mb_per_s_without_ahocorasick']:,.0f} MB/s without ahocorasick-rs); "
        f"{found['lines_changed']:,} lines changed (false positives: the corpus has no secret)"
    )
    return found


def report_hub_load(
    home: Path, info: corpus.CorpusInfo, mix: list[queries.Query], seconds: int
) -> dict | None:
    """Load the hub with 16 concurrent clients and print the raw figures; None (and nothing
    printed) when the hub's dependencies are not installed, so the rest of the run still counts."""
    try:
        from . import hub_load
    except ImportError:
        return None
    section(f"Hub load: 16 clients calling search for {seconds} s on loopback ({scale(info)})")
    load = hub_load.load_run(home, mix, clients=16, seconds=seconds)
    print(json.dumps(load, indent=2))
    return load


def fmt(lat: dict) -> str:
    """p50 / p95 / p99 in milliseconds, the one latency format of the whole report."""
    return f"p50 {lat['p50']:.2f} / p95 {lat['p95']:.2f} / p99 {lat['p99']:.2f} ms"


def section(title: str) -> None:
    """A section heading, flushed so progress shows while the next slow part runs."""
    print(f"\n== {title}", flush=True)


if __name__ == "__main__":
    main()
