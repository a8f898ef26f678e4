"""The index in partitions finds what one index over the same documents finds.

A real archive (the benchmark's generator, ingested into a real store, entries remembered
through the service) is indexed in partitions by the catch-up, and the same documents, read
from the same feed, into one tantivy index of the same fields, as the index was kept before
partitions. Every query of the bench's mix (each category) runs under every filter the tools
can set, on both: the sets of ids found must be equal, and in order wherever hits are ordered
by time or no more than a page are found. Only the ranking of a longer list may differ, since
each partition ranks by its own statistics (docs/search.md has the figures).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from bench import corpus, queries, ranking
from bench.origin_run import corpus_env
from origin_search import MESSAGE_KINDS, PARTITIONS, Filters, clauses

EVENTS = 3000
#: More than every document of the archive: a search this long returns every match.
ALL = 5_000


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    """An Origin over the benchmark's corpus, entries added, indexed in partitions; beside it
    one index of every document of its feed, and the bench's query mix."""
    from origin_api.runtime import Origin
    from origin_api.service import Caller, call

    root = tmp_path_factory.mktemp("partitioned")
    corpus.generate(root / "corpus", EVENTS, seed=42, workers=1)
    mix = queries.query_mix(root / "corpus")
    saved = dict(os.environ)
    os.environ.update(corpus_env(root / "corpus", root / "home"))
    try:
        with Origin.open() as origin:
            caller = Caller("test", "test")
            call(origin, "search", {"query": "anything"}, caller)  # ingests and indexes
            some = call(origin, "search", {"query": "the", "include_tools": True}, caller)
            for n, hit in enumerate(some["events"][:6]):
                call(
                    origin,
                    "remember",
                    {
                        "kind": ("memory", "knowledge", "cognition")[n % 3],
                        "text": f"{mix[n].text} is kept as an entry {n}",
                        "confidence": 0.9,
                        "sources": [{"event_id": hit["id"]}],
                        **({"valid_to": "2000-01-01"} if n == 5 else {}),
                    },
                    caller,
                )
            origin.searcher.catch_up()
            yield origin, ranking.one_index(origin.store, root / "one"), mix
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _filters(q: queries.Query) -> Iterator[Filters]:
    """Every filter a tool can set, alone and with the query's own (source, project, since)."""
    own = {
        "source": q.filters.get("source"),
        "project": q.filters.get("project"),
        "since_ms": q.since_ms,
    }
    for kinds in (None, MESSAGE_KINDS, frozenset({"message"}), frozenset({"tool_result"})):
        yield Filters(doc="event", kinds=kinds, **own)
    yield Filters(doc="event", until_ms=1_790_000_000_000, **own)
    yield Filters(doc="event", kinds=frozenset({"tool_use", "meta"}), newest_first=True, **own)
    yield Filters(doc="entry", valid_at_ms=1_700_000_000_000)
    yield Filters(doc="entry", kinds=frozenset({"knowledge"}))
    yield Filters(kinds=frozenset({"memory", "knowledge"}))
    yield Filters(**own)


def test_every_partition_is_used(archive: tuple) -> None:
    origin, one, _ = archive
    assert 0 < one.searcher().num_docs < ALL
    counts = [part.searcher().num_docs for part in origin.index._parts]
    assert len(counts) == len(PARTITIONS) and all(counts), counts


def test_partitions_find_what_one_index_finds(archive: tuple) -> None:
    origin, one, mix = archive
    assert {q.category for q in mix} == set(queries.CATEGORIES)
    index = origin.index
    compared = ranked = 0
    listed: set[Filters] = set()  # a listing does not depend on the words: once per filter
    for q in mix:
        found = clauses(q.text)
        for filters in _filters(q):
            for clause_list in (found, None):
                if clause_list is None and filters in listed:
                    continue
                listed.add(filters)
                expected = ranking.one_search(origin.store, one, clause_list, filters, ALL)
                got = [hit.id for hit in index.hits(clause_list, filters, ALL)]
                assert sorted(got) == sorted(expected), (q, filters, clause_list is None)
                page = [hit.id for hit in index.hits(clause_list, filters, 20)]
                one_page = ranking.one_search(origin.store, one, clause_list, filters, 20)
                if clause_list is None or filters.newest_first:
                    assert _times(origin, page) == _times(origin, one_page), (q, filters)
                elif len(expected) <= 20:
                    assert sorted(page) == sorted(one_page), (q, filters)
                else:
                    assert set(page) <= set(expected)
                    ranked += 1
                compared += 1
    assert compared >= len(mix) * 10
    assert ranked  # some queries find more than a page: their ranking is measured in bench


def _times(origin: object, ids: list[str]) -> list[int]:
    """The hits' times in order: documents of one time may come in any order."""
    from origin_store.reader import get_event

    store = origin.store  # type: ignore[attr-defined]
    with store.read() as txn:
        return [
            event["time"] if (event := get_event(store, txn, i)) else _entry_time(store, txn, i)
            for i in ids
        ]


def _entry_time(store: object, txn: object, entry_id: str) -> int:
    from origin_store.entries.versions import get_entry

    version = get_entry(store, txn, entry_id)  # type: ignore[arg-type]
    assert version is not None, entry_id
    return version["created"]
