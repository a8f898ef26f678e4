"""`make bench`: Origin against SQLite FTS5 on the same generated corpus, in the same run.

Figures are printed with their ratios to the baseline because this machine is shared and noisy:
absolute numbers move between runs, ratios much less. The corpus and the FTS5 databases are
cached under bench/.cache (keyed by the generator's version), so a rerun pays only Origin's part.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import asdict

from . import corpus, fts5, origin_run, queries

CACHE = corpus.CACHE_ROOT


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="100,000 events instead of 1,000,000")
    parser.add_argument("--huge", action="store_true", help="10,000,000 events")
    parser.add_argument("--events", type=int, help="any corpus size")
    parser.add_argument(
        "--no-trigram", action="store_true", help="skip the FTS5 trigram baseline (slow to build)"
    )
    parser.add_argument(
        "--no-mcp", action="store_true", help="skip the measurements through origin mcp"
    )
    parser.add_argument("--no-hub", action="store_true", help="skip the hub load run")
    parser.add_argument("--hub-seconds", type=int, default=30)
    parser.add_argument(
        "--workers", type=int, default=0, help="ingest worker processes (0: Origin decides)"
    )
    args = parser.parse_args()
    events = args.events or (10_000_000 if args.huge else 100_000 if args.quick else 1_000_000)
    os.environ["TZ"] = "UTC"
    time.tzset()

    section(f"Corpus: {events:,} events (generator v{corpus.GENERATOR_VERSION})")
    started = time.perf_counter()
    corpus_dir = corpus.cached_corpus(events)
    info = corpus.load_info(corpus_dir)
    print(
        f"  {info.events:,} events, {info.lines:,} lines, {info.bytes / 1e6:,.1f} MB of JSONL in {info.files:,} files, "
        f"{info.cjk_fraction:.1%} mostly CJK ({time.perf_counter() - started:.1f} s, cached at {corpus_dir})"
    )
    mix = queries.query_mix(corpus_dir)
    cjk = queries.cjk_queries(mix)
    print(
        f"  query mix: {len(mix)} queries ({len(cjk)} CJK; {sum(1 for q in mix if q.filters)} with filters)"
    )

    results: dict = {"events": events, "corpus": asdict(info)}
    section("Baselines: SQLite FTS5 (cached per corpus)")
    baselines = {}
    for tokenizer in ("unicode61",) + (() if args.no_trigram else ("trigram",)):
        started = time.perf_counter()
        baselines[tokenizer] = fts5.run_baseline(corpus_dir, mix, tokenizer, fresh_query=mix[0])
        b = baselines[tokenizer]
        print(
            f"  {tokenizer:10} build {b['build']['seconds']:.1f} s ({b['build']['events_per_s']:,.0f} ev/s), "
            f"{b['build']['bytes'] / info.bytes:.2f}x raw; {fmt(b['latency_all'])}; CJK recall {b['cjk_recall']:.0%} "
            f"({time.perf_counter() - started:.0f} s)"
        )
    results["fts5"] = baselines

    section("Origin: ingest and index")
    home = CACHE / f"origin-{events}"
    built = origin_run.build(corpus_dir, home, workers=args.workers)
    ing, idx = built["ingest"], built["index"]
    print(
        f"  ingest   {ing['events']:,} events in {ing['seconds']:.1f} s: {ing['events_per_s']:,.0f} events/s, "
        f"{ing['mb_per_s']:.1f} MB/s (target >= 50,000 events/s); peak RSS {ing['peak_rss_bytes'] / 2**20:,.0f} MiB"
    )
    print(
        f"  store    {ing['store_bytes'] / 1e6:,.1f} MB = {ing['store_bytes'] / info.bytes:.2f}x raw; mirrors "
        f"{ing['mirror_bytes'] / 1e6:,.1f} MB = {ing['mirror_bytes'] / info.bytes:.1%} of raw (target <= 25%)"
    )
    print(
        f"  index    {idx['docs']:,} docs in {idx['seconds']:.1f} s: {idx['events_per_s']:,.0f} events/s "
        f"(target >= 15,000); "
        f"{idx['index_bytes'] / 1e6:,.1f} MB = {idx['index_bytes'] / info.bytes:.2f}x raw (target <= 0.8x); "
        f"peak RSS {idx['peak_rss_bytes'] / 2**20:,.0f} MiB"
    )
    base = baselines["unicode61"]["build"]
    print(
        f"           vs FTS5 unicode61 build: {idx['events_per_s'] / base['events_per_s']:.2f}x the rate, "
        f"{idx['index_bytes'] / base['bytes']:.2f}x the size"
    )
    results["origin_build"] = built

    section("Search latency (top 20, snippets, same queries)")
    ours = origin_run.in_process(corpus_dir, home, mix)
    ours["fresh_process_ms"] = origin_run.fresh_process(corpus_dir, home, mix[0].text)
    results["origin_search"] = ours
    print(
        f"  Origin           {fmt(ours['latency_all'])}  (target p50 <= 2, p95 <= 10, p99 <= 20 ms)"
    )
    print(
        f"                   CJK recall {ours['cjk_recall']:.0%} of {ours['cjk_queries']} (target >= 95%); "
        f"fresh process to first answer {ours['fresh_process_ms']:.0f} ms (target <= 150)"
    )
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
    for category, lat in ours["per_category"].items():
        print(f"    {category:8} {fmt(lat)}")

    if not args.no_mcp:
        section("Through origin mcp over stdio")
        mcp = origin_run.through_mcp(corpus_dir, home, mix)
        results["origin_mcp"] = mcp
        lat, mine = mcp["latency_all"], ours["latency_all"]
        print(f"  origin mcp       {fmt(lat)}")
        print(
            f"    overhead over in-process: p50 +{lat['p50'] - mine['p50']:.2f} ms (target <= 1 ms), "
            f"p95 +{lat['p95'] - mine['p95']:.2f}, p99 +{lat['p99'] - mine['p99']:.2f}"
        )
        print(
            f"  start to first answered search: {mcp['first_answer_ms']:.0f} ms (target <= 400 ms)"
        )

    if not args.no_hub:
        try:
            from . import hub_load
        except ImportError:
            hub_load = None  # type: ignore[assignment]
        if hub_load is not None:
            section(f"Hub load: 16 clients calling search for {args.hub_seconds} s on loopback")
            load = hub_load.load_run(home, mix, clients=16, seconds=args.hub_seconds)
            results["hub"] = load
            print(json.dumps(load, indent=2))

    out = CACHE / f"results-{events}.json"
    out.write_text(json.dumps(results, indent=2, default=str))
    section(f"Saved {out}")


def fmt(lat: dict) -> str:
    return f"p50 {lat['p50']:.2f} / p95 {lat['p95']:.2f} / p99 {lat['p99']:.2f} ms"


def section(title: str) -> None:
    print(f"\n== {title}", flush=True)


if __name__ == "__main__":
    main()
