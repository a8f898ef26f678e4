"""Partitions rank by the whole index's IDF: where every document has one length (so every
partition's average length is the whole's), a search over partitions scores each hit exactly
as one index of the same documents does."""

from __future__ import annotations

from typing import Any

import pytest
from tantivy import Index

from origin_search import Filters, SearchIndex, clauses
from origin_search.analyzer import ANALYZER_NAME, build_analyzer
from origin_search.schema import build_query, build_schema
from origin_search.writer import prepared

WORDS = ["alpha", "beta", "gamma", "delta"]


def docs() -> list[dict[str, Any]]:
    """Messages and tool results of four tokens each, the words spread unevenly over kinds."""
    out = []
    for n in range(60):
        kind = ("message", "tool_use", "tool_result")[n % 3]
        words = [WORDS[(n * k) % 4] for k in (1, 2, 3)] + ["gamma" if n % 7 else "omega"]
        text = " ".join(words)
        if n % 11 == 0:
            text = "read file now please"
        out.append(
            {
                "id": f"ev-{n}",
                "doc": "event",
                "kind": kind,
                "role": "user",
                "source": "codex",
                "project": "p",
                "session": "s",
                "time": n,
                "valid_to": None,
                "text": text,
            }
        )
    return out


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[SearchIndex, Index]:
    root = tmp_path_factory.mktemp("idf")
    parts = SearchIndex.open(root / "parts")
    with parts.writer() as w:
        w.add(docs())
        w.commit()
    (root / "one").mkdir()
    one = Index(build_schema(), path=str(root / "one"), reuse=False)
    one.register_tokenizer(ANALYZER_NAME, build_analyzer())
    writer = one.writer(heap_size=15_000_000, num_threads=1)
    for d in docs():
        writer.add_json(prepared(d)[2])
    writer.commit()
    writer.wait_merging_threads()
    one.reload()
    return parts, one


@pytest.mark.parametrize("query", ["alpha", "gamma beta", "omega", "read file", "delta"])
def test_scores_over_partitions_are_one_index_scores(both: tuple, query: str) -> None:
    parts, one = both
    found = clauses(query)
    assert {len(d["text"].split()) for d in docs()} == {4}  # the averages are the whole's
    mine = {hit.id: hit.score for hit in parts.hits(found, Filters(), 100)}
    searcher = one.searcher()
    result = searcher.search(build_query(one.schema, found, Filters(), None), limit=100)
    theirs = {searcher.doc(address)["named"][0]: score for score, address in result.hits}
    assert mine and set(mine) == set(theirs)
    for doc_id, score in theirs.items():
        assert mine[doc_id] == pytest.approx(score, rel=1e-5), doc_id
