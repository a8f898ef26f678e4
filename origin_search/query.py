"""User queries become clauses, never parsed: no character a user types is query syntax.

tantivy's query parser reads ``:`` as a field name, ``*`` as "every document", ``-`` as NOT and
raises on ordinary log text such as ``KeyError: 'x'`` or ``C:\\path``. So a query is split on
whitespace, every word is run through the same analyzer as the indexed text, and each word must
occur: a word with one token is a term, a word with several (``parse_query``, ``数据库``,
``foo.bar``, a Thai word's clusters) is a phrase of them. Words are NFKC-normalised by the
analyzer, so ``ﾃﾞｰﾀ`` and ``データ`` are one query. The clauses are plain data, so the same clauses drive the
tantivy query (index.py), snippets (snippet.py) and :func:`matches` for not yet indexed events.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .analyzer import GAP, tokens
from .errors import QueryError

#: One word of the query: its tokens in order; ``""`` stands for a dropped over-long token, or
#: for the punctuation between two CJK characters or clusters (``数据、库``), and matches any
#: single position. Never starts or ends with ``""``.
Clause = tuple[str, ...]

#: More words than this is almost certainly pasted text, and every word is a posting list to
#: intersect, so such queries are refused with a message rather than run slowly.
MAX_CLAUSES = 64
#: Bound on all tokens of all clauses: a pasted 10,000-character CJK paragraph is one phrase
#: of 10,000 terms otherwise.
MAX_QUERY_TOKENS = 256


def clauses(user_query: str) -> list[Clause]:
    """The clauses that must all occur; ``[]`` when nothing in the query is searchable.

    Words that yield no token (pure punctuation such as ``-v``'s dash alone, ``*``, ``"``) are
    dropped, identical clauses are kept once. ``[]`` means "no results", not "list everything":
    the caller tells a missing query (``None``) from an empty one.
    """
    if not isinstance(user_query, str):
        raise QueryError("The query must be text.")
    out: list[Clause] = []
    seen: set[Clause] = set()
    total = 0
    for word in user_query.split():
        toks = tokens(word)
        lo, hi = 0, len(toks)
        while lo < hi and toks[lo] == GAP:
            lo += 1
        while hi > lo and toks[hi - 1] == GAP:
            hi -= 1
        if lo == hi:
            continue
        clause = tuple(toks[lo:hi])
        if clause in seen:
            continue
        seen.add(clause)
        out.append(clause)
        total += len(clause)
        if len(out) > MAX_CLAUSES:
            raise QueryError(
                f"The query has more than {MAX_CLAUSES} words; search with at most {MAX_CLAUSES}."
            )
        if total > MAX_QUERY_TOKENS:
            raise QueryError(
                f"The query is too long: it has more than {MAX_QUERY_TOKENS} searchable terms "
                f"(each CJK character or Thai, Lao, Khmer or Myanmar letter with its marks counts "
                f"as one); shorten it."
            )
    return out


def occurrences(
    toks: list[str], clause: Clause, lo: int = 0, hi: int | None = None
) -> Iterator[int]:
    """Token indexes in ``toks[lo:hi]`` where ``clause`` starts and ends inside that range."""
    end = len(toks) if hi is None else hi
    n = len(clause)
    first = clause[0]
    last_start = end - n
    if last_start < lo:
        return  # also keeps list.index from reading a negative stop as "from the end"
    i = lo - 1
    while True:
        try:
            i = toks.index(first, i + 1, last_start + 1)
        except ValueError:
            return
        if n == 1 or all(c == GAP or toks[i + k] == c for k, c in enumerate(clause) if k):
            yield i


def matches(text: str, clause_list: Sequence[Clause]) -> bool:
    """True when the index would return ``text`` for these clauses (every clause occurs).

    Used on events that are stored but not yet indexed, so it must agree with tantivy exactly;
    the tests check that on random corpora. ``[]`` matches nothing, like an empty query.
    """
    if not clause_list:
        return False
    toks = tokens(text)
    present: set[str] | None = None
    for clause in clause_list:
        if len(clause) == 1:
            if present is None:
                present = set(toks)
            if clause[0] not in present:
                return False
        elif next(occurrences(toks, clause), None) is None:
            return False
    return True
