"""The fields of every partition of the index, and the tantivy query for clauses and filters.

Apart from index.py (the partitions, searching them side by side, naming hits) because both
are the same in every partition: a query is built here once per partition it reads.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tantivy import FieldType, Occur, Query, Schema, SchemaBuilder

from .analyzer import ANALYZER_NAME, ANALYZER_VERSION, is_alone, pair_tokens
from .errors import QueryError
from .filters import Filters
from .query import Clause
from .writer import RAW_FIELDS

#: Bump when fields or partitions change; with the analyzer version it decides whether an
#: index is reusable. 3: the pairs field (adjacent CJK characters as one term); 4: ids stored
#: only where no ``seq`` names the document (``named``); 5: ``seq`` stored rather than a fast
#: field; 6: the index in partitions (partitions.py), each an index of these fields, and no
#: fast field but ``time`` and ``valid_to``.
SCHEMA_VERSION = 6
VERSION = f"origin-search schema {SCHEMA_VERSION} analyzer {ANALYZER_VERSION}\n"


def build_schema() -> Schema:
    sb = SchemaBuilder()
    # Indexed to delete and replace a document by its id; stored (``named``) only where no
    # ``seq`` names it: an entry, an event indexed without one. Stored for every event, the
    # ids were a tenth of the index (33 of 316 MB at 1M events) for what the feed names.
    sb.add_text_field("id", tokenizer_name="raw")
    sb.add_text_field("named", stored=True, index_option="basic", tokenizer_name="raw")
    # Filters read these as terms; none is a fast field (a column per segment): no search
    # reads one, and at 10M events the columns' merges in four partitions at once held
    # most of a build's 988 MiB of anonymous memory.
    for name in RAW_FIELDS:
        sb.add_text_field(name, tokenizer_name="raw")
    sb.add_integer_field("time", indexed=True, fast=True)
    sb.add_integer_field("valid_to", indexed=True, fast=True)
    # Where the store announced the document (its change-feed sequence), left out when
    # unknown: a hit is named through it. Stored, not a fast field: tantivy opens a fast
    # field's column in every segment on each read, which at 10M events (24 segments) cost
    # 0.4-0.9 ms a search however few hits were read, against ~1 us a hit for a stored one.
    sb.add_integer_field("seq", stored=True)
    sb.add_text_field("text", tokenizer_name=ANALYZER_NAME, index_option="position")
    # Each two CJK characters at adjacent positions of `text`, as one term (analyzer.pairs):
    # a CJK word is searched here, not as a phrase of its characters.
    sb.add_text_field("pairs", tokenizer_name=ANALYZER_NAME, index_option="position")
    return sb.build()


def build_query(
    schema: Schema,
    clause_list: Sequence[Clause] | None,
    filters: Filters,
    kinds: frozenset[str] | None,
    boosts: Sequence[float] | None = None,
) -> Query:
    """The query of one partition: every clause must occur, the filters score 0. The
    document type is the partition's, so only `kinds` (what the partition holds beyond
    what the search asks for; None: nothing) is filtered on for kind. `boosts`, one a
    clause, scale each clause's score (`idf.boosts`: the whole index's statistics)."""
    subs: list[tuple[Occur, Query]] = []
    if clause_list is None:
        subs.append((Occur.Must, Query.all_query()))
    else:
        for n, c in enumerate(clause_list):
            q = _clause_query(schema, c)
            if boosts is not None and boosts[n] != 1.0:
                q = Query.boost_query(q, boosts[n])
            subs.append((Occur.Must, q))
    subs.extend(_filter(q) for q in _field_filters(schema, filters, kinds))
    return subs[0][1] if len(subs) == 1 else Query.boolean_query(subs)


def _filter(query: Query) -> tuple[Occur, Query]:
    # Under Must a filter would add its own score; a constant 0 keeps ranking pure BM25.
    return Occur.Must, Query.const_score_query(query, 0.0)


def _field_filters(
    schema: Schema, filters: Filters, kinds: frozenset[str] | None
) -> Iterator[Query]:
    """The filters besides the document type, read from the fields :meth:`Filters.admits`
    reads: since inclusive, until exclusive, ``valid_to`` after ``valid_at_ms``."""
    if kinds is not None:
        yield Query.term_set_query(schema, "kind", sorted(kinds))
    if filters.source is not None:
        yield Query.term_query(schema, "source", filters.source)
    if filters.project is not None:
        yield Query.term_query(schema, "project", filters.project)
    since, until = filters.since_ms, filters.until_ms
    if since is not None or until is not None:
        yield Query.range_query(
            schema,
            "time",
            FieldType.Integer,
            lower_bound=since,
            upper_bound=until,
            include_lower=True,
            include_upper=until is None,
        )
    if filters.valid_at_ms is not None:
        yield Query.range_query(
            schema,
            "valid_to",
            FieldType.Integer,
            lower_bound=filters.valid_at_ms,
            include_lower=False,
        )


def clause_terms(clause: Clause) -> tuple[str, list[tuple[int, str]]]:
    """The field a clause is searched in and its terms at their positions."""
    if not clause or not clause[0] or not clause[-1] or not all(isinstance(t, str) for t in clause):
        raise QueryError(f"Not a search clause: {clause!r}; build clauses with clauses().")
    if len(clause) > 1 and all(is_alone(t) for t in clause):
        # A CJK word: the same documents as the phrase of its characters, from rarer terms.
        return "pairs", list(enumerate(pair_tokens(clause)))
    # Offsets keep the gap of a dropped over-long token, as tantivy left one when indexing.
    return "text", [(i, t) for i, t in enumerate(clause) if t]


def _clause_query(schema: Schema, clause: Clause) -> Query:
    field, terms = clause_terms(clause)
    if len(terms) == 1:
        return Query.term_query(schema, field, terms[0][1])
    return Query.phrase_query(schema, field, list[str | tuple[int, str]](terms))
