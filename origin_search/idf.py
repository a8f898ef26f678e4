"""One index's term statistics over partitions: each clause's score scaled to the whole's IDF.

tantivy scores a term by BM25 with the statistics of the index it searches, and tantivy-py
offers no way to pass others in; a partition's are its own. A term rare among messages but
common among tool results then ranks a message above a result that one index would rank
higher, and merging partitions' top hits by score mixes two scales. BM25 is the IDF of a
clause's terms (summed, for a phrase) times a factor of the document's term frequency and
length: scaling each clause's query by the whole index's IDF over the partition's gives every
partition the whole's IDF. The length factor still divides by the partition's own average
length, which no boost can replace (docs/search.md has what is left, measured).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .query import Clause
from .schema import clause_terms


def _idf(doc_freq: int, docs: int) -> float:
    """tantivy's BM25 IDF (`bm25.rs`), from a term's document frequency among `docs` (which
    tantivy counts with deleted documents, as it counts frequencies: never fewer here)."""
    docs = max(docs, doc_freq)
    return math.log(1.0 + (docs - doc_freq + 0.5) / (doc_freq + 0.5))


def boosts(
    clause_list: Sequence[Clause], searchers: Sequence[Any], reads: Sequence[int]
) -> list[list[float]]:
    """For each partition in `reads` (places in `searchers`, which holds every partition's),
    one boost a clause: the IDF of the clause's terms over every partition, over the IDF
    within that partition (1.0 where the partition's is 0: the term is in none of it)."""
    docs = [s.num_docs for s in searchers]
    total = sum(docs)
    out: list[list[float]] = [[] for _ in reads]
    for clause in clause_list:
        field, terms = clause_terms(clause)
        freqs = [[s.doc_freq(field, t) for _, t in terms] for s in searchers]
        whole = sum(_idf(sum(f[k] for f in freqs), total) for k in range(len(terms)))
        for n, p in enumerate(reads):
            own = sum(_idf(f, docs[p]) for f in freqs[p]) if docs[p] else 0.0
            out[n].append(whole / own if own > 0 else 1.0)
    return out
