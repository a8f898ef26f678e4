"""What the parsers' fuzz tests share: hostile JSON values, and what every record a parser
gives back must be, whatever line it was given."""

from __future__ import annotations

from hypothesis import strategies as st

from origin_store.model import EVENT_KINDS, ROLES, EventRecord, ParseProblem, SessionFact

#: Any integer a JSON parser gives back (orjson's range).
INT = st.integers(min_value=-(2**63), max_value=2**63 - 1)
#: Any JSON value, small: where a line's field is expected, anything may come.
JSON = st.recursive(
    st.none() | st.booleans() | INT | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(), children, max_size=3)
    ),
    max_leaves=12,
)


def check_records(records: object, source: str) -> None:
    """Records of the store's shapes only, no parser error (a parser that raised), and events of
    `source` with a role, a kind, a text, a time and token counts that can be."""
    assert isinstance(records, list)
    for r in records:
        assert isinstance(r, EventRecord | SessionFact | ParseProblem)
        if isinstance(r, ParseProblem):
            assert r.reason != "parser-error", r
        if isinstance(r, EventRecord):
            assert r.role in ROLES and r.kind in EVENT_KINDS
            assert isinstance(r.text, str) and isinstance(r.time, int) and r.time >= 0
            assert isinstance(r.session, str) and r.id.startswith(f"{source}:")
            if r.usage is not None:
                assert min(r.usage) >= 0 and r.usage.cached <= r.usage.tokens_in
