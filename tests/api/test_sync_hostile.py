"""Hostile pushes and pulls against a real hub on loopback: values of the wrong type, names that
fit the checks in characters but not an LMDB key in bytes, Unicode digits and times no front door
can render. Each is refused with 400 in the hub's shape, nothing applied, and afterwards the
store verifies and every read still answers."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hub_support import Hub, running_hub

from origin_store import bounds
from origin_store.care.verify import verify

SOURCE = "claude-code"
EVENT_ID = f"{SOURCE}:hostile-probe-1"
ENTRY_ID = "ent_" + "a" * 24
BIG = 2**62 - 1
NOW = int(time.time() * 1000) - 3_600_000  # within timeline's default window


def _event(**changes: Any) -> dict[str, Any]:
    event = {
        "id": EVENT_ID,
        "source": SOURCE,
        "session": "hostile-session",
        "time": NOW,
        "line": 1,
        "role": "user",
        "kind": "message",
        "text": "a hostile probe of the hub",
        "project": None,
        "cwd": "/home/dev/hostile",
        "git_branch": None,
        "agent_version": None,
    }
    return {"seq": 1, "kind": "event", "event": {**event, **changes}, "raw": "{}"}


def _entry(**changes: Any) -> dict[str, Any]:
    version = {
        "id": ENTRY_ID,
        "root": ENTRY_ID,
        "supersedes": None,
        "kind": "knowledge",
        "text": "The hub refuses what it cannot store.",
        "confidence": 0.9,
        "project": None,
        "author": "probe@laptop",
        "created": 1_760_000_000_000,
        "valid_from": None,
        "valid_to": None,
        "sources": [{"event_id": EVENT_ID, "quote": None}],
    }
    return {"seq": 2, "kind": "entry", "version": {**version, **changes}}


def _session(**changes: Any) -> dict[str, Any]:
    doc = {"source": SOURCE, "session": "hostile-session", "title": "probe", "cwd": None}
    return {"seq": 3, "kind": "session", "session": {**doc, **changes}}


def _tombstone(**changes: Any) -> dict[str, Any]:
    doc = {
        "id": "tmb_" + "b" * 12,
        "entries": [],
        "events": [],
        "target": EVENT_ID,
        "reason": "probe",
        "author": "probe@laptop",
        "created": 1_760_000_000_000,
        "restored": None,
    }
    return {"seq": 4, "kind": "tombstone", "tombstone": {**doc, **changes}}


def _with(item: dict[str, Any], where: str, value: Any) -> dict[str, Any]:
    """`item` with the field at `where` ("event.source", "kind") set to `value`."""
    changed = copy.deepcopy(item)
    *path, last = where.split(".")
    target = changed
    for part in path:
        target = target[part]
    target[last] = value
    return changed


CJK_512 = "漢" * 512  # 512 characters, 1,536 bytes
LONG_ID = f"{SOURCE}:" + "x" * (512 - len(SOURCE) - 1)  # 512 characters

#: (what, the item pushed, words of the refusal)
HOSTILE: list[tuple[str, dict[str, Any], str]] = [
    ("kind a list", _with(_event(), "kind", ["event"]), "has the kind"),
    ("kind an object", _with(_event(), "kind", {"a": 1}), "has the kind"),
    ("source a list", _with(_event(), "event.source", [SOURCE]), "source must be one of"),
    ("source an object", _with(_event(), "event.source", {}), "source must be one of"),
    ("role a list", _with(_event(), "event.role", ["user"]), "role and kind"),
    ("event kind a list", _with(_event(), "event.kind", ["message"]), "role and kind"),
    ("session a list", _with(_event(), "event.session", ["s"]), "session must be a string"),
    ("time a string", _with(_event(), "event.time", "1760000000000"), "time and line"),
    ("time a float", _with(_event(), "event.time", 1.5), "time and line"),
    ("time 2^62-1", _with(_event(), "event.time", BIG), "time must be between 0001"),
    ("time -2^62+1", _with(_event(), "event.time", -BIG), "time must be between 0001"),
    ("time past 9999", _with(_event(), "event.time", bounds.TIME_MAX_MS + 1), "between 0001"),
    ("time before 0001", _with(_event(), "event.time", bounds.TIME_MIN_MS - 1), "between 0001"),
    ("time 2^100", _with(_event(), "event.time", 2**100), "time"),
    ("session of 512 CJK", _with(_event(), "event.session", CJK_512), "bytes of UTF-8"),
    ("event id of 512", _with(_event(), "event.id", LONG_ID), "bytes of UTF-8"),
    ("entry kind a list", _with(_entry(), "version.kind", ["memory"]), "kind must be memory"),
    ("entry kind an object", _with(_entry(), "version.kind", {}), "kind must be memory"),
    ("valid_from 2^62-1", _with(_entry(), "version.valid_from", BIG), "must be times between"),
    ("valid_to -2^62+1", _with(_entry(), "version.valid_to", -BIG), "must be times between"),
    ("created 2^62-1", _with(_entry(), "version.created", BIG), "must be times between"),
    (
        "cites a 512-character id",
        _with(_entry(), "version.sources", [{"event_id": LONG_ID, "quote": None}]),
        "event_id must be at most 474 bytes",
    ),
    ("session doc of 512 CJK", _with(_session(), "session.session", CJK_512), "bytes of UTF-8"),
    ("session doc source a list", _with(_session(), "session.source", [SOURCE]), "known source"),
    ("tombstone event of 512", _with(_tombstone(), "tombstone.events", [LONG_ID]), "474 bytes"),
    ("tombstone created 2^62-1", _with(_tombstone(), "tombstone.created", BIG), "must be times"),
    ("restored -2^62+1", _with(_tombstone(), "tombstone.restored", -BIG), "must be times"),
]


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    """One hub for the table: each refusal must leave it as it was, which the next row relies
    on as much as the checks after each row do."""
    with running_hub(tmp_path_factory.mktemp("hub"), ingest=False) as running:
        pushed = _push(running, [_event(), _session(), _entry()])
        assert pushed.status == 200, pushed.body
        yield running


def _push(hub: Hub, items: list[dict[str, Any]]) -> Any:
    last = max((item["seq"] for item in items), default=0)
    return hub.raw(json.dumps({"last": last, "items": items}).encode(), path="/sync/push")


def _state(hub: Hub) -> tuple[int, int]:
    assert hub.origin is not None
    store = hub.origin.store
    with store.read() as txn:
        return store.feed_last(txn), sum(1 for _ in store.iter_events(txn))


def assert_hub_sound(hub: Hub) -> None:
    """The store verifies, and every read answers with what the first push stored."""
    assert hub.origin is not None
    report = verify(hub.origin.store, hub.origin.home)
    assert report.ok, report.problems
    assert "hostile-session" in [s["session"] for s in hub.ok("timeline", {})["sessions"]]
    found = hub.ok("timeline", {"session": "hostile-session"})["events"]
    assert EVENT_ID in [e["id"] for e in found]
    assert EVENT_ID in [e["id"] for e in hub.ok("search", {"query": "hostile probe"})["events"]]
    assert hub.ok("get", {"id": EVENT_ID})["id"] == EVENT_ID
    assert hub.ok("get", {"id": ENTRY_ID})["entry"]["id"] == ENTRY_ID
    assert hub.ok("search", {"query": "refuses what it cannot store"})["entries"]
    pulled = hub.raw(method="GET", path="/sync/pull?after=0", content_type=None)
    assert pulled.status == 200 and pulled.json()["items"], pulled.body


@pytest.mark.parametrize(("what", "item", "words"), HOSTILE, ids=[row[0] for row in HOSTILE])
def test_a_hostile_push_is_refused_whole_and_breaks_nothing(
    hub: Hub, what: str, item: dict[str, Any], words: str
) -> None:
    before = _state(hub)
    # The hostile item after a good one: the good one must not be applied either.
    good = _event(id=f"{SOURCE}:hostile-probe-2", text="applied only with its batch")
    answer = _push(hub, [{**good, "seq": 0}, item])
    assert answer.status == 400, (what, answer.status, answer.body[:300])
    message = answer.error()["message"]
    assert "refused whole, nothing applied" in message and words in message, message
    assert _state(hub) == before
    assert_hub_sound(hub)


#: Names at the bounds in bytes are stored, and read back, just as short ones are.
AT_THE_BOUNDS: list[tuple[str, Callable[[], dict[str, Any]]]] = [
    (
        "session of the most bytes",
        lambda: _event(id=f"{SOURCE}:bound-1", session="é" * (bounds.session_bytes(SOURCE) // 2)),
    ),
    (
        "event id of the most bytes",
        lambda: _event(id=f"{SOURCE}:" + "y" * (bounds.EVENT_ID_BYTES - len(SOURCE) - 1)),
    ),
    ("the latest time", lambda: _event(id=f"{SOURCE}:bound-2", time=bounds.TIME_MAX_MS)),
    ("the earliest time", lambda: _event(id=f"{SOURCE}:bound-3", time=bounds.TIME_MIN_MS)),
    (
        "validity at both ends",
        lambda: _entry(
            id="ent_" + "c" * 24,
            root="ent_" + "c" * 24,
            valid_from=bounds.TIME_MIN_MS,
            valid_to=bounds.TIME_MAX_MS,
        ),
    ),
    ("a cwd longer than a key", lambda: _session(session="long-cwd", cwd="/" + "d" * 600)),
]


@pytest.mark.parametrize(("what", "make"), AT_THE_BOUNDS, ids=[row[0] for row in AT_THE_BOUNDS])
def test_names_and_times_at_the_bounds_are_stored_and_read(
    hub: Hub, what: str, make: Callable[[], dict[str, Any]]
) -> None:
    item = make()
    answer = _push(hub, [item])
    assert answer.status == 200, (what, answer.body[:300])
    assert_hub_sound(hub)
    if item["kind"] == "event":
        shown = hub.ok("get", {"id": item["event"]["id"]})
        assert shown["time"][:4] in ("0001", "9999", str(time.gmtime(NOW / 1000).tm_year))
        assert hub.ok("timeline", {"session": item["event"]["session"]})["events"]


@pytest.mark.parametrize(
    "query",
    ["after=%C2%B2", "limit=%C2%B2", "after=%D9%A3", "after=%EF%BC%91", "after=-1", "after=1e3"],
)
def test_a_pull_with_other_than_ascii_digits_is_refused(hub: Hub, query: str) -> None:
    answer = hub.raw(method="GET", path=f"/sync/pull?{query}", content_type=None)
    assert answer.status == 400, answer.body
    assert "must be" in answer.error()["message"]
    assert_hub_sound(hub)
