"""The Searcher over a real store and index: the unindexed tail and the index admit the same
documents for every filter, boundaries included (since inclusive, until exclusive, valid_to at
the moment asked excluded)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from origin_search import VALID_FOREVER, Filters, Searcher, clauses, open_searcher
from origin_store import Store
from origin_store.entries.versions import put_version

T = 1_000_000
NOW = 2_000_000


def _event(n: int, time: int, **kw: Any) -> dict[str, Any]:
    event = {
        "id": f"ev{n}",
        "kind": "message",
        "role": "user",
        "source": "claude-code",
        "project": "demo",
        "session": "s1",
        "time": time,
        "text": f"boundary event {n}",
    }
    event.update(kw)
    return event


def _entry(n: int, valid_to: int | None, **kw: Any) -> dict[str, Any]:
    entry_id = f"ent_{n}"
    version = {
        "id": entry_id,
        "kind": "knowledge",
        "text": f"boundary entry {n}",
        "confidence": 1.0,
        "project": "demo",
        "author": "test",
        "created": T + n,
        "valid_from": None,
        "valid_to": valid_to,
        "supersedes": None,
        "root": entry_id,
        "imported": False,
        "sources": [],
    }
    version.update(kw)
    return version


EVENTS = [
    _event(1, T - 1),
    _event(2, T),
    _event(3, T + 1),
    _event(4, T, kind="tool_result", role="assistant"),
    _event(5, T, source="codex", project="other"),
]
ENTRIES = [
    _entry(1, NOW - 1),
    _entry(2, NOW),  # valid_to == the moment asked: no longer valid
    _entry(3, NOW + 1),
    _entry(4, None, kind="memory", project=None),
]

#: Each filter with what it admits, read off the boundaries by hand.
CASES: list[tuple[Filters, set[str]]] = [
    (Filters(), {"ev1", "ev2", "ev3", "ev4", "ev5", "ent_1", "ent_2", "ent_3", "ent_4"}),
    (Filters(doc="event", since_ms=T), {"ev2", "ev3", "ev4", "ev5"}),
    (Filters(doc="event", until_ms=T), {"ev1"}),
    (Filters(doc="event", since_ms=T, until_ms=T + 1), {"ev2", "ev4", "ev5"}),
    (Filters(doc="event", since_ms=T + 1, until_ms=T + 1), set()),
    (Filters(doc="entry", valid_at_ms=NOW), {"ent_3", "ent_4"}),
    (Filters(doc="entry", valid_at_ms=NOW - 1), {"ent_2", "ent_3", "ent_4"}),
    (Filters(valid_at_ms=VALID_FOREVER), set()),
    (Filters(doc="event", valid_at_ms=NOW), {"ev1", "ev2", "ev3", "ev4", "ev5"}),
    (Filters(kinds=frozenset({"tool_result", "memory"})), {"ev4", "ent_4"}),
    (Filters(kinds=frozenset()), set()),
    (Filters(doc="note"), set()),
    (Filters(source="codex"), {"ev5"}),
    (Filters(project="other"), {"ev5"}),
    (Filters(doc="entry", project="demo", since_ms=T + 2, valid_at_ms=NOW), {"ent_3"}),
]


def _fill(store: Store) -> None:
    def work(txn: Any) -> None:
        for event in EVENTS:
            store.put(txn, "events", event["id"].encode(), event)
            store.feed_append(txn, [{"t": "event", "id": event["id"]}])
        for version in ENTRIES:
            put_version(store, txn, version)

    store.write(work)


@pytest.fixture
def searcher(tmp_path: Path) -> Iterator[Searcher]:
    with Store.open(tmp_path) as store:
        yield open_searcher(store, tmp_path / "index")


def _answers(searcher: Searcher) -> list[tuple[set[str], set[str]]]:
    """What each case finds with the query "boundary" and with none (a listing)."""
    seen = searcher.snapshot()
    return [
        (set(seen.find(clauses("boundary"), filters, 100)), set(seen.find(None, filters, 100)))
        for filters, _ in CASES
    ]


def test_the_tail_and_the_index_agree_on_every_filter_boundary(searcher: Searcher) -> None:
    writer = searcher.index.writer()  # held: everything stays in the unindexed tail
    try:
        _fill(searcher.store)
        assert len(searcher.snapshot().tail) == len(EVENTS) + len(ENTRIES)
        from_tail = _answers(searcher)
    finally:
        writer.close()
    assert searcher.index.count() == 0
    assert searcher.snapshot().tail == []  # caught up: everything is in the index now
    assert searcher.index.count() == len(EVENTS) + len(ENTRIES)
    from_index = _answers(searcher)
    for (filters, expected), tail, index in zip(CASES, from_tail, from_index, strict=True):
        assert tail == (expected, expected), filters
        assert index == (expected, expected), filters


def test_fresh_documents_come_first_each_once(searcher: Searcher) -> None:
    _fill(searcher.store)
    searcher.catch_up()
    with searcher.index.writer():
        # ev1 again (a re-announced event is both indexed and in the tail) and a new one.
        def work(txn: Any) -> None:
            for event in (EVENTS[0], _event(9, T - 5)):
                searcher.store.put(txn, "events", event["id"].encode(), event)
                searcher.store.feed_append(txn, [{"t": "event", "id": event["id"]}])

        searcher.store.write(work)
        found = searcher.find(clauses("boundary event"), Filters(doc="event"), 20)
        assert found[:2] == ["ev9", "ev1"]  # the tail, newest announcement first
        assert sorted(found) == ["ev1", "ev2", "ev3", "ev4", "ev5", "ev9"]
        assert searcher.find(clauses("boundary"), Filters(doc="event"), 3) == [
            "ev9",
            "ev1",
            found[2],
        ]
        assert searcher.find([], Filters(), 20) == []


def test_a_commit_whose_position_was_not_recorded_is_not_indexed_twice(searcher: Searcher) -> None:
    """Killed between the writer's commit and recording the indexed position: the next catch-up
    indexes those events again, and replaces them (the indexing position says they may be there)
    rather than adding them twice; events past that position are only added."""
    from origin_store import marks

    store = searcher.store
    _fill(store)
    searcher.catch_up()
    count = searcher.index.count()
    with store.read() as txn:
        assert marks.indexing_seq(store, txn) == marks.indexed_seq(store, txn) > 0
    store.write(lambda txn: marks.note_indexed(store, txn, 0))  # the kill

    def more(txn: Any) -> None:
        event = _event(9, T - 5)
        store.put(txn, "events", b"ev9", event)
        store.feed_append(txn, [{"t": "event", "id": "ev9"}])

    store.write(more)
    searcher.catch_up()
    assert searcher.index.count() == count + 1
    found = searcher.find(clauses("boundary event"), Filters(doc="event"), 20)
    assert sorted(found) == ["ev1", "ev2", "ev3", "ev4", "ev5", "ev9"]
    searcher.rebuild()
    assert searcher.index.count() == count + 1
