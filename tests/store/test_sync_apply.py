"""Applying sync batches to a store: idempotent, refused whole when hostile, and convergent
whatever order corrections, forgets and syncs happen in (docs/sync.md)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from origin_store import Store
from origin_store.core.db import loads
from origin_store.core.lmdbio import pairs
from origin_store.entries import versions as E
from origin_store.replication.sync import (
    PULL_KINDS,
    PUSH_KINDS,
    BatchRefused,
    apply_items,
    change_items,
    check_items,
    pull_items,
)

EVENT_ID = "codex:evt-1"


def _event(**over: Any) -> dict[str, Any]:
    event = {
        "id": EVENT_ID,
        "time": 1_700_000_000_000,
        "source": "codex",
        "project": "demo",
        "session": "s-1",
        "role": "user",
        "kind": "message",
        "text": "ship the release on friday",
        "cwd": "/home/dev/demo",
        "git_branch": None,
        "agent_version": None,
        "line": 7,
    }
    event.update(over)
    return event


def _event_item(seq: int = 1, **over: Any) -> dict[str, Any]:
    return {
        "seq": seq,
        "kind": "event",
        "event": _event(**over),
        "original_file": "/home/dev/.codex/sessions/a.jsonl",
        "raw": '{"type":"message"}',
        "raw_chars": 18,
    }


def _session_item(seq: int = 1, **over: Any) -> dict[str, Any]:
    doc = {
        "session": "s-1",
        "source": "codex",
        "project": "demo",
        "cwd": "/home/dev/demo",
        "title": "Release",
        "title_rank": 2,
        "title_time": 5,
        "prompt": "ship it",
        "parent": None,
        "started": 1,
        "ended": 2,
        "events": 1,
    }
    doc.update(over)
    return {"seq": seq, "kind": "session", "session": doc}


def _version(text: str = "the release ships on fridays", **over: Any) -> dict[str, Any]:
    version = E.new_version(
        kind="knowledge",
        text=text,
        confidence=0.9,
        project="demo",
        author="codex@laptop",
        created=1_700_000_000_000,
        sources=[{"event_id": EVENT_ID, "quote": None}],
    )
    version.update(over)
    return version


@pytest.fixture
def store(tmp_path: Path):
    opened = Store.open(tmp_path / "s")
    yield opened
    opened.close()


def _apply(store: Store, items: list[dict[str, Any]], kinds: frozenset[str] = PUSH_KINDS) -> int:
    checked = check_items(items, kinds)
    return store.write(lambda txn: apply_items(store, txn, checked, "laptop"))


def _feed(store: Store) -> int:
    with store.read() as txn:
        return store.feed_last(txn)


def test_events_and_sessions_are_kept_once_with_the_device_file_and_line(store: Store) -> None:
    batch = [_session_item(), _event_item()]
    assert _apply(store, batch) == 2
    after = _feed(store)
    assert _apply(store, copy.deepcopy(batch)) == 0  # the same batch again changes nothing
    assert _feed(store) == after
    with store.read() as txn:
        event = store.event(txn, EVENT_ID)
        session = store.get(txn, "sessions", b"codex\0s-1")
    assert event is not None
    assert (event["m"], event["device"], event["original_file"], event["raw"]) == (
        0,
        "laptop",
        "/home/dev/.codex/sessions/a.jsonl",
        '{"type":"message"}',
    )
    assert session["events"] == 1 and session["title"] == "Release"
    assert (session["started"], session["ended"]) == (1_700_000_000_000, 1_700_000_000_000)


def test_a_later_version_of_an_event_replaces_it(store: Store) -> None:
    _apply(store, [_event_item()])
    assert _apply(store, [_event_item(seq=2, text="ship the release on monday")]) == 1
    with store.read() as txn:
        assert store.event(txn, EVENT_ID)["text"] == "ship the release on monday"
        assert list(store.feed_since(txn, 1))[-1][1] == {"t": "update", "ids": [EVENT_ID]}


def test_versions_are_idempotent_by_id(store: Store) -> None:
    version = _version()
    item = {"seq": 3, "kind": "entry", "version": version}
    assert _apply(store, [item]) == 1
    assert _apply(store, [copy.deepcopy(item)]) == 0
    with store.read() as txn:
        assert E.lineage(store, txn, version["root"]).current == version["id"]


HOSTILE = [
    ("not a list", "items", "items must be a list"),
    ("not an object", ["x"], "Item 1 is not an object"),
    ("unknown kind", [{"seq": 1, "kind": "drop_table"}], "has the kind 'drop_table'"),
    ("seq a string", [{**_event_item(), "seq": "1"}], "seq must be a whole number"),
    ("seq a bool", [{**_event_item(), "seq": True}], "seq must be a whole number"),
    ("id without its source", [_event_item(id="evt-1")], "id must be <source>:"),
    ("id of another source", [_event_item(id="grok:evt-1")], "id must be <source>:"),
    ("unknown source", [_event_item(source="Nope!", id="Nope!:1")], "source must be one of"),
    ("oversized text", [_event_item(text="x" * 20_001)], "at most 20,000 characters"),
    ("a role not the contract's", [_event_item(role="root")], "role and kind"),
    ("time as text", [_event_item(time="yesterday")], "time and line must be integers"),
    ("raw too long", [{**_event_item(), "raw": "x" * 4_001}], "raw at most 4,000"),
    ("session not an object", [{"seq": 1, "kind": "session", "session": []}], "must be an object"),
    (
        "entry id not an entry's",
        [{"seq": 1, "kind": "entry", "version": _version(id="ent_zz")}],
        "id and root must be entry ids",
    ),
    (
        "confidence past 1",
        [{"seq": 1, "kind": "entry", "version": _version(confidence=3)}],
        "between 0 and 1",
    ),
    (
        "entry text oversized",
        [{"seq": 1, "kind": "entry", "version": _version(text="y" * 100_001)}],
        "at most 100,000",
    ),
    (
        "tombstone without an id",
        [{"seq": 1, "kind": "tombstone", "tombstone": {"id": "x", "entries": [], "events": []}}],
        "tombstone id",
    ),
]


@pytest.mark.parametrize(("name", "items", "message"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_batch_is_refused_whole(
    store: Store, name: str, items: Any, message: str
) -> None:
    # A good item first: nothing of the batch is applied when a later one is refused.
    batch = [_session_item(), *items] if isinstance(items, list) else items
    with pytest.raises(BatchRefused, match=message.replace("(", r"\(")):
        _apply(store, batch)
    assert _feed(store) == 0
    with store.read() as txn:
        assert store.get(txn, "sessions", b"codex\0s-1") is None


def test_a_pull_carries_no_events(store: Store) -> None:
    with pytest.raises(BatchRefused, match="known: entry, tombstone"):
        check_items([_event_item()], PULL_KINDS)


def test_a_tombstone_hides_what_arrives_later_and_a_restore_unhides(store: Store) -> None:
    version = _version()
    tomb = {
        "id": "tmb_0123456789ab",
        "target": version["id"],
        "reason": "wrong",
        "author": "user@phone",
        "created": 5,
        "entries": [version["id"]],
        "events": [EVENT_ID],
        "restored": None,
    }
    _apply(store, [{"seq": 1, "kind": "tombstone", "tombstone": tomb}])
    _apply(store, [_event_item(), {"seq": 2, "kind": "entry", "version": version}])
    with store.read() as txn:
        assert E.is_hidden(store, txn, EVENT_ID) and E.is_hidden(store, txn, version["id"])
        assert store.get(txn, "sessions", b"codex\0s-1")["events"] == 0
    _apply(store, [{"seq": 3, "kind": "tombstone", "tombstone": {**tomb, "restored": 9}}])
    with store.read() as txn:
        assert not E.is_hidden(store, txn, EVENT_ID)
        assert not E.is_hidden(store, txn, version["id"])
        assert store.get(txn, "sessions", b"codex\0s-1")["events"] == 1
        kinds = [item["t"] for _, item in store.feed_since(txn, 0)]
    assert kinds == ["hide", "event", "entry", "unhide"]


# -- convergence: two devices and a hub, any interleaving ----------------------------------------


class Place:
    """A store with its cursors on the hub, as a device keeps them."""

    def __init__(self, path: Path) -> None:
        self.store = Store.open(path)
        self.pushed = 0
        self.pulled = 0


def _push(device: Place, hub: Place) -> None:
    with device.store.read() as txn:
        items = [
            item
            for seq, change in device.store.feed_since(txn, device.pushed)
            for item in change_items(device.store, txn, seq, change, events=False)
        ]
        last = device.store.feed_last(txn)
    _apply(hub.store, copy.deepcopy(items))
    device.pushed = last


def _pull(device: Place, hub: Place) -> None:
    while True:
        items, last, more = pull_items(hub.store, device.pulled, 3)
        caught_up = device.pushed >= _feed(device.store)
        _apply(device.store, copy.deepcopy(items), PULL_KINDS)
        device.pulled = last
        if caught_up:  # as the device does: what a pull added came from the hub
            device.pushed = _feed(device.store)
        if not more:
            return


def _sync(device: Place, hub: Place) -> None:
    _push(device, hub)
    _pull(device, hub)


def _state(place: Place, root: str) -> Any:
    store = place.store
    with store.read() as txn:
        line = E.lineage(store, txn, root)
        return (
            line.current,
            sorted((v["id"], tuple(sorted(line.status_of(v).items()))) for v in line.versions),
            sorted(v["id"] for v in line.versions if E.is_hidden(store, txn, v["id"])),
        )


def _correct(place: Place, root: str, created: int) -> None:
    store = place.store

    def work(txn: Any) -> None:
        line = E.lineage(store, txn, root)
        if line.current is None or E.is_hidden(store, txn, line.current):
            return
        after = E.get_entry(store, txn, line.current)
        version = E.new_version(
            kind="knowledge",
            text=f"corrected at {created}",
            confidence=0.5,
            project=None,
            author="user@dev",
            created=created,
            sources=[],
            after=after,
        )
        E.put_version(store, txn, version)

    store.write(work)


def _forget(place: Place, root: str) -> None:
    store = place.store

    def work(txn: Any) -> None:
        if E.get_entry(store, txn, root) is not None:
            E.forget(store, txn, root, "no longer true", "user@dev")

    store.write(work)


def _restore(place: Place) -> None:
    """`origin restore` of the oldest forget still in force on this store, if any."""
    store = place.store

    def work(txn: Any) -> None:
        for key, value in pairs(txn.cursor(db=store.dbs["tombstones"])):
            if not loads(value)["restored"]:
                E.restore(store, txn, key.decode())
                return

    store.write(work)


OPS = st.lists(
    st.tuples(
        st.sampled_from(["correct", "forget", "restore", "sync"]),
        st.integers(0, 1),
        st.integers(1_700_000_000_000, 1_700_000_000_004),  # few times: ties happen
    ),
    max_size=12,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS)
# Both devices forget; B's forget reaches the hub first and B restores it: A's forget, which hides
# nothing more on the hub, must still reach B.
@example(
    ops=[
        ("forget", 0, 1_700_000_000_000),
        ("forget", 1, 1_700_000_000_000),
        ("sync", 1, 1_700_000_000_000),
        ("restore", 1, 1_700_000_000_000),
    ]
)
def test_any_interleaving_converges(tmp_path_factory: pytest.TempPathFactory, ops: list) -> None:
    base = tmp_path_factory.mktemp("converge")
    hub, a, b = Place(base / "hub"), Place(base / "a"), Place(base / "b")
    try:
        first = _version(text="v1", sources=[])
        a.store.write(lambda txn: E.put_version(a.store, txn, first))
        _sync(a, hub)
        _sync(b, hub)
        devices = (a, b)
        for op, who, created in ops:
            device = devices[who]
            if op == "correct":
                _correct(device, first["root"], created)
            elif op == "forget":
                _forget(device, first["root"])
            elif op == "restore":
                _restore(device)
            else:
                _sync(device, hub)
        for _ in range(6):  # until a round changes nothing anywhere
            before = [_feed(place.store) for place in (hub, a, b)]
            for device in devices:
                _sync(device, hub)
            if [_feed(place.store) for place in (hub, a, b)] == before:
                break
        else:
            raise AssertionError("syncing never settled")
        states = [_state(place, first["root"]) for place in (hub, a, b)]
        assert states[0] == states[1] == states[2], states
        current, versions, hidden = states[0]
        corrections = sum(1 for op, _, _ in ops if op == "correct")
        assert len(versions) <= corrections + 1
        # The fork rule: the current version is the newest head, ties to the larger id.
        if hidden:
            assert sorted(hidden) == sorted(v for v, _ in versions)
    finally:
        for place in (hub, a, b):
            place.store.close()


def test_a_pull_passes_over_many_events_in_one_go_and_pages_what_it_returns(store: Store) -> None:
    """A hub's feed is mostly events the devices pushed: one pull looks past thousands of them
    to the entries and tombstones after, and returns at most `limit` of those."""
    from origin_store.core.db import event_feed_item
    from origin_store.replication.sync import pull_items

    store.write(
        lambda txn: store.feed_append(txn, [event_feed_item(b"codex:e%d" % i) for i in range(3000)])
    )
    versions = [dict(_version(), id=f"ent_{i:012x}", root=f"ent_{i:012x}") for i in range(3)]
    _apply(store, [{"seq": i + 1, "kind": "entry", "version": v} for i, v in enumerate(versions)])
    items, last, more = pull_items(store, 0, 2)
    assert [item["version"]["id"] for item in items] == [v["id"] for v in versions[:2]]
    assert more
    rest, end, more = pull_items(store, last, 2)
    assert [item["version"]["id"] for item in rest] == [versions[2]["id"]] and not more
    with store.read() as txn:
        assert end == store.feed_last(txn)
