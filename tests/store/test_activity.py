"""Activity figures kept at ingest: equal to a recount of the records, whatever path stored them,
however often a log is read, and built once for a store from before them."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import fixture_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from origin_store import Ingester, Settings, Store, activity
from origin_store.activity.build import BACKFILL
from origin_store.activity.tally import DAY_MS
from origin_store.care.verify import verify
from origin_store.parsers.registry import SOURCES
from origin_store.replication.sync import apply_items, prepare_items


def _recount(store: Store) -> dict[str, Any]:
    """Events and tokens per source and sessions per source, from every record (no figures)."""
    out: dict[str, Any] = {}
    with store.read() as txn:
        for key, value in store.iter_events(txn):
            record = store.codec.decode(txn, key, value)
            row = out.setdefault(record["source"], {"events": 0, "in": 0, "out": 0, "s": set()})
            row["events"] += 1
            tin, _, tout = activity.usage_of(record)
            row["in"] += tin
            row["out"] += tout
            row["s"].add(record["session"])
    return {k: {**v, "s": len(v["s"])} for k, v in out.items()}


def _figures(store: Store, last_day: int = 25_000) -> dict[str, Any]:
    """The same, from the figures kept (every day to `last_day`, day 0 without a time
    included)."""
    found = activity.activity(store, last_day + 1, now_ms=DAY_MS * last_day)
    return {
        source: {"events": f.events, "in": f.tokens_in, "out": f.tokens_out, "s": f.sessions}
        for source, f in found.by_source.items()
    }


@pytest.fixture
def home(tmp_path: Path):
    settings = Settings.from_env(fixture_env(tmp_path, copy=True))
    store = Store.open(settings.home)
    yield settings, store
    store.close()


def test_figures_equal_a_recount_after_ingest_and_a_reread_adds_nothing(home) -> None:
    settings, store = home
    report = Ingester(store, settings, SOURCES).run()
    assert report.events > 100
    counted = _recount(store)
    assert _figures(store) == counted
    assert counted["claude-code"]["in"] > 0 and counted["claude-code"]["out"] > 0
    assert verify(store, settings.home).ok
    # The same logs read again from the start (their cursors gone): every event is known.
    store.write(lambda txn: txn.drop(store.dbs["files"], delete=False))
    Ingester(store, settings, SOURCES).run()
    assert _figures(store) == counted


def test_a_copied_log_counts_nothing_twice(home, tmp_path: Path) -> None:
    settings, store = home
    Ingester(store, settings, SOURCES).run()
    before = _figures(store)
    projects = tmp_path / "agents" / "claude-code" / "projects"
    for path in list(projects.rglob("*.jsonl"))[:3]:
        shutil.copy(path, path.with_name("copy-" + path.name))
    Ingester(store, settings, SOURCES).run()
    assert _figures(store)["claude-code"]["events"] == before["claude-code"]["events"]
    assert _figures(store)["claude-code"]["in"] == before["claude-code"]["in"]


def test_verify_names_figures_that_differ_from_a_recount(home) -> None:
    settings, store = home
    Ingester(store, settings, SOURCES).run()
    with store.read() as txn:
        key = next(k for k, _ in txn.cursor(db=store.dbs["activity"]) if k[:1] == b"d")
    store.write(lambda txn: txn.delete(key, db=store.dbs["activity"]))
    problems = verify(store, settings.home).problems
    assert any(p.startswith("activity of") for p in problems), problems


def _event_item(seq: int, event_id: str, session: str, time: int, usage: list[int] | None):
    event: dict[str, Any] = {
        "id": f"claude-code:{event_id}",
        "time": time,
        "source": "claude-code",
        "project": "hubbed",
        "session": session,
        "role": "assistant",
        "kind": "message",
        "text": "pushed words",
        "cwd": "/w/hubbed",
        "git_branch": None,
        "agent_version": None,
        "line": seq,
    }
    if usage:
        event["usage"] = usage
    return {"seq": seq, "kind": "event", "original_file": "/x.jsonl", "event": event, "raw": "{}"}


def test_events_applied_by_sync_count_once(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "hub")
    day = 20_000 * DAY_MS
    items: list[Any] = [
        _event_item(1, "a", "s1", day + 5, [100, 40, 7]),
        _event_item(2, "b", "s1", day + 9, None),
        _event_item(3, "c", "s2", day + DAY_MS, [1, 0, 2]),
    ]
    for _ in range(2):  # a batch applied twice changes nothing the second time
        prepare_items(store, items)
        store.write(lambda txn: apply_items(store, txn, items, "laptop"))
    found = activity.activity(store, 2, now_ms=day + DAY_MS)
    assert (found.totals.events, found.totals.sessions) == (3, 2)
    assert (found.totals.tokens_in, found.totals.tokens_cached, found.totals.tokens_out) == (
        101,
        40,
        9,
    )
    assert [f.events for f in found.per_day["claude-code"]] == [2, 1]
    assert found.projects[0][0] == "hubbed"
    assert [(s.session, s.events) for s in found.sessions] == [("s1", 2), ("s2", 1)]
    assert activity.activity(store, 2, project="elsewhere", now_ms=day + DAY_MS).sessions == []
    assert found.sessions[0].tokens_in == 100 and found.sessions[0].project == "hubbed"
    store.close()


def test_a_store_without_figures_builds_them_once(home) -> None:
    settings, store = home
    Ingester(store, settings, SOURCES).run()
    counted = _figures(store)

    def forget_figures(txn: Any) -> None:
        txn.drop(store.dbs["activity"], delete=False)
        last = store.next_event_seq(txn)
        store.meta_put(txn, BACKFILL, {"upto": int.from_bytes(last, "big") - 1, "done": 0})

    store.write(forget_figures)
    assert not verify(store, settings.home).problems  # being built: not compared yet
    assert _figures(store) == counted
    with store.read() as txn:
        assert store.meta_get(txn, BACKFILL) is None
    assert verify(store, settings.home).ok


_IDS = st.sampled_from([f"e{n}" for n in range(12)])
_EVENTS = st.tuples(
    _IDS,
    st.sampled_from(["s1", "s2", "s3"]),
    st.integers(min_value=0, max_value=5 * DAY_MS),  # 0: an event without a time
    st.one_of(st.none(), st.lists(st.integers(0, 10**6), min_size=3, max_size=3)),
    st.sampled_from(["one", "two"]),
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batches=st.lists(st.lists(_EVENTS, min_size=1, max_size=6), min_size=1, max_size=5))
def test_any_order_of_pushes_and_newer_versions_keeps_figures_equal_to_a_recount(
    tmp_path_factory: pytest.TempPathFactory, batches: list[list[Any]]
) -> None:
    """Events pushed in batches, repeated, or in newer versions (another time, session,
    project or usage): the figures always equal a recount of what is stored."""
    store = Store.open(tmp_path_factory.mktemp("hub"))
    try:
        for number, batch in enumerate(batches):
            items: list[Any] = []
            for seq, (event_id, session, time, usage, project) in enumerate(batch, start=1):
                item = _event_item(number * 10 + seq, event_id, session, time, usage)
                item["event"]["project"] = project
                items.append(item)
            prepare_items(store, items)
            store.write(lambda txn, items=items: apply_items(store, txn, items, "laptop"))
        recount = activity.Recount()
        with store.read() as txn:
            for key, value in store.iter_events(txn):
                recount.add(store.codec.decode(txn, key, value))
            assert activity.compare(store, txn, recount) == []
        per_session: dict[str, int] = {}
        with store.read() as txn:
            for key, value in store.iter_events(txn):
                name = store.codec.decode(txn, key, value)["session"]
                per_session[name] = per_session.get(name, 0) + 1
        busiest = activity.activity(store, 7, now_ms=6 * DAY_MS).sessions
        assert [(s.session, s.events) for s in busiest] == sorted(
            per_session.items(), key=lambda item: (-item[1], item[0])
        )
        figures, counted = _figures(store, 6), _recount(store)
        for source in figures:  # a session emptied by newer versions stays started
            assert figures[source]["s"] >= counted[source].pop("s")
            figures[source].pop("s")
        assert figures == counted
    finally:
        store.close()


def test_a_store_of_schema_7_is_marked_on_upgrade_and_built_on_first_read(home) -> None:
    settings, store = home
    Ingester(store, settings, SOURCES).run()
    counted = _figures(store)

    def as_schema_7(txn: Any) -> None:  # as an Origin before the figures left it
        txn.drop(store.dbs["activity"], delete=False)
        txn.put(b"schema", b"7", db=store.dbs["meta"])

    store.write(as_schema_7)
    store.close()
    store = Store.open(settings.home)
    try:
        with store.read() as txn:
            mark = store.meta_get(txn, BACKFILL)
            assert mark is not None and mark["done"] == 0 and mark["upto"] > 100
            assert store.meta_get(txn, "schema") == 8
        assert _figures(store) == counted
        assert verify(store, settings.home).ok
    finally:
        store.close()
