"""The session merge rules as a table: what a session holds after facts arrive in order."""

from __future__ import annotations

import pytest

from origin_store.model import SessionFact, merge_session, new_session, widen


def fact(**fields: object) -> SessionFact:
    return SessionFact(session="s1", source="claude-code", **fields)  # type: ignore[arg-type]


# (facts in arrival order, the fields expected afterwards)
CASES = [
    ([fact(title="ai", title_rank=20, time=5)], {"title": "ai", "title_rank": 20, "title_time": 5}),
    # A higher rank wins whatever the order.
    (
        [fact(title="custom", title_rank=30, time=1), fact(title="ai", title_rank=20, time=9)],
        {"title": "custom"},
    ),
    (
        [fact(title="ai", title_rank=20, time=9), fact(title="custom", title_rank=30, time=1)],
        {"title": "custom"},
    ),
    # Equal rank: the later wins, a tie goes to the newer fact, an earlier one loses.
    (
        [fact(title="a", title_rank=20, time=5), fact(title="b", title_rank=20, time=6)],
        {"title": "b", "title_time": 6},
    ),
    (
        [fact(title="a", title_rank=20, time=5), fact(title="b", title_rank=20, time=5)],
        {"title": "b"},
    ),
    (
        [fact(title="a", title_rank=20, time=5), fact(title="b", title_rank=20, time=4)],
        {"title": "a"},
    ),
    # A fact without a time counts as time 0; rank 0 beats no title at all (-1).
    ([fact(title="x")], {"title": "x", "title_rank": 0, "title_time": 0}),
    # The first prompt, cwd (with its project) and parent win; the prompt is cut to 2,000 characters.
    ([fact(prompt="first"), fact(prompt="second")], {"prompt": "first"}),
    ([fact(prompt="p" * 2500)], {"prompt": "p" * 2000}),
    (
        [fact(cwd="/home/dev/app"), fact(cwd="/home/dev/other")],
        {"cwd": "/home/dev/app", "project": "app"},
    ),
    ([fact(parent="p1"), fact(parent="p2")], {"parent": "p1"}),
    # A fact's time orders titles only: it does not widen the session's range.
    ([fact(title="t", time=7)], {"started": None, "ended": None}),
    # Empty fields change nothing.
    (
        [fact(prompt="", cwd="", title="", parent="")],
        {"prompt": None, "cwd": None, "title": None, "parent": None},
    ),
]


@pytest.mark.parametrize(("facts", "expected"), CASES)
def test_merge_session(facts: list[SessionFact], expected: dict[str, object]) -> None:
    session = new_session("claude-code", "s1")
    for one in facts:
        merge_session(session, one)
    assert {name: session[name] for name in expected} == expected  # type: ignore[literal-required]


@pytest.mark.parametrize(
    ("times", "started", "ended"),
    [([], None, None), ([5], 5, 5), ([5, 3, 9], 3, 9), ([0, -1], None, None), ([0, 4], 4, 4)],
)
def test_widen(times: list[int], started: int | None, ended: int | None) -> None:
    session = new_session("codex", "s2")
    for when in times:
        widen(session, when)
    assert (session["started"], session["ended"]) == (started, ended)
