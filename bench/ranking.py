"""The index in partitions against one index of the same documents: what ranks differently, and
what searching side by side gains.

    python -m bench.ranking [--events N]

Reads the Origin home `make bench` left for the size (`bench/.cache/origin-<N>`), builds once
one tantivy index of every document of its feed with the same fields (as the index was kept
before partitions; cached beside it), then runs the query mix on both, with tools (as the
bench's search rows) and without (the contract's default): top 20, named, each timed. Each
partition ranks by its own statistics, so a page of a query finding more than 20 may differ;
every match is the same (tests/bench/test_partitioned_search.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tantivy import Index, Occur, Order, Query

from . import corpus, queries
from .origin_run import corpus_env
from .stats import summarize

CACHE = Path(__file__).resolve().parent / ".cache"


def one_index(store: Any, path: Path) -> Index:
    """One index of every document the store's feed announces, as catch-up feeds partitions."""
    from origin_search.analyzer import ANALYZER_NAME, build_analyzer
    from origin_search.feed import read_batches
    from origin_search.schema import build_schema

    path.mkdir(parents=True)
    one = Index(build_schema(), path=str(path), reuse=False)
    one.register_tokenizer(ANALYZER_NAME, build_analyzer())
    writer = one.writer(heap_size=128_000_000, num_threads=1)
    for docs, deletes, _, _ in read_batches(store, 0):
        for doc_id in deletes:
            writer.delete_documents_by_term("id", doc_id)
        for _, _, json, _ in docs:
            writer.add_json(json)
    writer.commit()
    writer.wait_merging_threads()
    one.reload()
    return one


def open_one(store: Any, path: Path) -> Index:
    from origin_search.analyzer import ANALYZER_NAME, build_analyzer

    if not path.is_dir():
        return one_index(store, path)
    one = Index.open(str(path))
    one.register_tokenizer(ANALYZER_NAME, build_analyzer())
    return one


def one_search(
    store: Any, one: Index, clause_list: Sequence[Any] | None, filters: Any, limit: int
) -> list[str]:
    """The search as one index answered it: the document type a filter of its own, hits
    named through the feed as the partitions' are."""
    from origin_search.schema import build_query
    from origin_store.reader import events_at

    schema = one.schema
    query = build_query(schema, clause_list, filters, filters.kinds)
    if filters.doc is not None:
        only = Query.const_score_query(Query.term_query(schema, "doc", filters.doc), 0.0)
        query = Query.boolean_query([(Occur.Must, query), (Occur.Must, only)])
    searcher = one.searcher()
    if clause_list is None or filters.newest_first:
        result = searcher.search(
            query, limit=limit, count=False, order_by_field="time", order=Order.Desc
        )
    else:
        result = searcher.search(query, limit=limit, count=False)
    stored = [searcher.doc(address) for _, address in result.hits]
    seqs = [int(doc["seq"][0]) if doc["seq"] else 0 for doc in stored]
    named = events_at(store, seqs)
    return [
        name[0] if name else str(doc["named"][0]) for doc, name in zip(stored, named, strict=True)
    ]


def _filters(q: queries.Query, tools: bool) -> Any:
    from origin_search import MESSAGE_KINDS, Filters

    return Filters(
        doc="event",
        kinds=None if tools else MESSAGE_KINDS,
        source=q.filters.get("source"),
        project=q.filters.get("project"),
        since_ms=q.since_ms,
    )


def compare(origin: Any, one: Index, mix: list[queries.Query], tools: bool) -> dict:
    from origin_search import clauses

    index, store = origin.index, origin.store
    same_list = same_set = 0
    overlaps: list[float] = []
    within: list[float] = []
    timed: dict[str, list[float]] = {"partitions": [], "one": []}
    for _ in range(2):  # the first pass warms both
        for k in timed:
            timed[k].clear()
        same_list = same_set = 0
        overlaps.clear()
        within.clear()
        for q in mix:
            found, filters = clauses(q.text), _filters(q, tools)
            started = time.perf_counter()
            mine = [hit.id for hit in index.hits(found, filters, 20)]
            timed["partitions"].append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            theirs = one_search(store, one, found, filters, 20)
            timed["one"].append((time.perf_counter() - started) * 1000)
            same_list += mine == theirs
            same_set += set(mine) == set(theirs)
            if theirs:
                overlaps.append(len(set(mine) & set(theirs)) / len(theirs))
                longer = set(one_search(store, one, found, filters, 100))
                within.append(len(set(mine) & longer) / len(mine))
    return {
        "queries": len(mix),
        "same_page": same_list,
        "same_set": same_set,
        "overlap_mean": sum(overlaps) / max(1, len(overlaps)),
        "overlap_min": min(overlaps, default=1.0),
        "within_100": sum(within) / max(1, len(within)),
        "partitions_ms": summarize(timed["partitions"]),
        "one_ms": summarize(timed["one"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ranking", description=__doc__)
    parser.add_argument("--events", type=int, default=1_000_000)
    events = parser.parse_args().events
    home = CACHE / f"origin-{events}"
    if not home.is_dir():
        raise SystemExit(f"no cached Origin home at {home}: run `make bench` at this size first")
    corpus_dir = corpus.cached_corpus(events)
    os.environ.update(corpus_env(corpus_dir, home))
    from origin_api.runtime import Origin

    mix = queries.query_mix(corpus_dir)
    with Origin.open() as origin:
        origin.searcher.catch_up()
        started = time.perf_counter()
        one = open_one(origin.store, CACHE / f"one-index-{events}")
        print(
            f"one index: {one.searcher().num_docs:,} documents ({time.perf_counter() - started:.1f} s)"
        )
        for tools in (True, False):
            r = compare(origin, one, mix, tools)
            p, o = r["partitions_ms"], r["one_ms"]
            print(
                f"{'with tools' if tools else 'messages only (the default)'}: of {r['queries']} "
                f"queries' top 20, {r['same_page']} identical in order, {r['same_set']} as sets; "
                f"overlap mean {r['overlap_mean']:.1%}, least {r['overlap_min']:.0%}; "
                f"{r['within_100']:.1%} of its hits in one index's top 100\n"
                f"  top 20 named, partitions p50 / p95 / p99 {p.p50:.2f} / {p.p95:.2f} / "
                f"{p.p99:.2f} ms; one index {o.p50:.2f} / {o.p95:.2f} / {o.p99:.2f} ms"
            )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
