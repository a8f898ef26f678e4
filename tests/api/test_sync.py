"""Sync against a real hub on loopback: the endpoints' edge (auth, device name, 400, 413) and a
device's push and pull through `origin_api.sync` (docs/sync.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import fixture_env
from hub_support import Hub, running_hub

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_api.sync import SyncError, cursors, sync_now
from origin_api.sync import connection as hub_connection
from origin_store import Settings
from origin_store.entries import versions as E
from origin_store.reader import iter_sessions


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    with running_hub(tmp_path / "hub", ingest=False, ORIGIN_HUB_MAX_BODY="300000") as running:
        yield running


@pytest.fixture
def device(tmp_path: Path, hub: Hub) -> Iterator[Origin]:
    env = {**fixture_env(tmp_path / "dev", copy=True), "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0"}
    settings = Settings.from_env(env)
    hub_connection.save(
        settings.home, hub_connection.Connection(hub.url, "laptop", False, hub.tokens["laptop"])
    )
    with Origin.open(settings) as origin:
        origin.ingest()
        yield origin


def _feed(origin: Origin) -> int:
    with origin.store.read() as txn:
        return origin.store.feed_last(txn)


def _event_ids(origin: Origin) -> set[str]:
    with origin.store.read() as txn:
        return {key.decode() for key, _ in origin.store.iter_events(txn)}


def _remember(origin: Origin, text: str) -> dict[str, Any]:
    store = origin.store
    with store.read() as txn:
        cited = next(key.decode() for key, _ in store.iter_events(txn))
    version = E.new_version(
        kind="knowledge",
        text=text,
        confidence=0.8,
        project=None,
        author="user@laptop",
        created=E.now_ms(),
        sources=[{"event_id": cited, "quote": None}],
    )
    store.write(lambda txn: E.put_version(store, txn, version))
    return version


# -- the endpoints' edge --------------------------------------------------------------------------


def test_pull_needs_the_token_and_the_tokens_own_device_name(hub: Hub) -> None:
    missing = hub.raw(method="GET", path="/sync/pull?after=0", token=None, content_type=None)
    assert missing.status == 401 and "Authorization" in missing.error()["message"]
    other = hub.raw(
        method="GET",
        path="/sync/pull?after=0",
        content_type=None,
        extra=[(b"X-Origin-Device", b"desktop")],
    )
    assert other.status == 403
    assert "belongs to laptop" in other.error()["message"]
    ok = hub.raw(method="GET", path="/sync/pull?after=0&limit=5", content_type=None)
    assert ok.status == 200 and ok.headers["x-request-id"].startswith("req_")
    assert ok.json() == {"items": [], "next": 0, "more": False, "device": "laptop"}


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "message"),
    [
        ("GET", "/sync/pull?after=x", b"", 400, "after must be one whole number"),
        ("GET", "/sync/pull?limit=0", b"", 400, "limit must be between 1 and 1000"),
        ("POST", "/sync/pull", b"{}", 405, "use GET"),
        ("GET", "/sync/push", b"", 405, "use POST"),
        ("GET", "/sync/other", b"", 404, "POST /sync/push and GET /sync/pull"),
        ("POST", "/sync/push", b"{not json", 400, "not JSON"),
        ("POST", "/sync/push", b"[]", 400, "must be an object"),
        (
            "POST",
            "/sync/push",
            json.dumps({"last": 1, "items": [{"seq": 1, "kind": "drop"}]}).encode(),
            400,
            "refused whole, nothing applied: Item 0 has the kind 'drop'",
        ),
        (
            "POST",
            "/sync/push",
            json.dumps({"last": 0, "items": [{"seq": 5, "kind": "tombstone"}]}).encode(),
            400,
            "Item 0 (tombstone): tombstone must be an object",
        ),
        (
            "POST",
            "/sync/push",
            json.dumps({"last": 0, "items": [], "partial": "yes"}).encode(),
            400,
            "partial must be true or false",
        ),
        ("POST", "/sync/push", b"x" * 300_001, 413, "larger than the hub's limit of 300,000"),
    ],
)
def test_refusals_have_the_hubs_error_shape(
    hub: Hub, method: str, path: str, body: bytes, status: int, message: str
) -> None:
    before = _feed_of_hub(hub)
    answer = hub.raw(body, method=method, path=path)
    assert answer.status == status, answer.body
    assert message in answer.error()["message"]
    assert _feed_of_hub(hub) == before


def _feed_of_hub(hub: Hub) -> int:
    assert hub.origin is not None
    return _feed(hub.origin)


def test_a_read_only_token_pulls_but_cannot_push(hub: Hub) -> None:
    body = json.dumps({"last": 0, "items": []}).encode()
    refused = hub.raw(body, path="/sync/push", token="reader")
    assert refused.status == 403 and "read-only" in refused.error()["message"]
    pulled = hub.raw(method="GET", path="/sync/pull", token="reader", content_type=None)
    assert pulled.status == 200 and pulled.json()["device"] == "reader"


# -- a device's sync ------------------------------------------------------------------------------


def test_a_push_brings_events_with_their_file_and_raw_line(device: Origin, hub: Hub) -> None:
    assert hub.origin is not None
    mine = _event_ids(device)
    assert mine and not _event_ids(hub.origin)
    report = sync_now(device)
    assert report.error is None and report.pushed > 0
    assert _event_ids(hub.origin) == mine
    state = cursors(device)
    assert state["pending"] == 0 and state["last"]["pushed"] == report.pushed
    # `sources` on the hub: the device's file and the raw line, as on the device.
    event_id = sorted(mine)[0]
    caller = Caller("test", "hub")
    on_hub = call(hub.origin, "sources", {"id": event_id}, caller)
    here = call(device, "sources", {"id": event_id}, caller)
    assert on_hub[0]["original_file"] == here[0]["original_file"] is not None
    assert on_hub[0]["raw"] == here[0]["raw"] and on_hub[0]["line"] == here[0]["line"]
    assert on_hub[0]["mirror_file"] is None
    # Sessions too: titles, prompts and counts of visible events as the device has them, those
    # titled after their events were stored and those without events among them.
    assert _sessions(hub.origin) == _sessions(device)


def _sessions(origin: Origin) -> dict[tuple[str, str], tuple[Any, ...]]:
    with origin.store.read() as txn:
        return {
            (s["source"], s["session"]): (s["title"], s["prompt"], s["events"], s["started"])
            for s in iter_sessions(origin.store, txn)
        }


def test_a_batch_pushed_again_changes_nothing(device: Origin, hub: Hub) -> None:
    assert hub.origin is not None
    sync_now(device)
    settled = _feed_of_hub(hub)
    # The cursor lost (as if the acknowledgement never arrived): everything is sent again.
    device.store.write(lambda txn: device.store.meta_put(txn, "sync.pushed", 0))
    again = sync_now(device)
    assert again.pushed > 0
    assert _feed_of_hub(hub) == settled
    assert len(_event_ids(hub.origin)) == len(_event_ids(device))


def test_small_bodies_are_sent_in_smaller_batches(tmp_path: Path) -> None:
    with running_hub(tmp_path / "hub", ingest=False, ORIGIN_HUB_MAX_BODY="40000") as small:
        env = fixture_env(tmp_path / "dev", copy=True)
        settings = Settings.from_env(env)
        connection = hub_connection.Connection(small.url, "laptop", False, small.tokens["laptop"])
        hub_connection.save(settings.home, connection)
        with Origin.open(settings) as origin:
            origin.ingest()
            sync_now(origin)
            assert small.origin is not None
            assert _event_ids(small.origin) == _event_ids(origin)


def test_one_feed_item_larger_than_a_request_goes_in_parts(tmp_path: Path) -> None:
    """A rewritten database can replace thousands of events in one `update` feed item: it goes
    in parts under the hub's body limit, and the cursor moves once the last is in."""
    with running_hub(tmp_path / "hub", ingest=False, ORIGIN_HUB_MAX_BODY="40000") as small:
        settings = Settings.from_env(fixture_env(tmp_path / "dev", copy=True))
        connection = hub_connection.Connection(small.url, "laptop", False, small.tokens["laptop"])
        hub_connection.save(settings.home, connection)
        with Origin.open(settings) as origin:
            origin.ingest()
            store = origin.store
            ids = sorted(_event_ids(origin))

            def rewritten(txn: Any) -> int:
                store.meta_put(txn, "sync.pushed", store.feed_last(txn))  # as if all were sent
                return store.feed_append(txn, [{"t": "update", "ids": ids}])

            seq = store.write(rewritten)
            report = sync_now(origin)
            assert small.origin is not None
            assert _event_ids(small.origin) == set(ids)
            assert report.pushed >= len(ids) and cursors(origin)["pushed"] >= seq
            with small.origin.store.read() as txn:
                assert small.origin.store.meta_get(txn, "sync.device.laptop")["pushed"] == seq


def test_entries_and_forgets_reach_the_hub_and_come_back(device: Origin, hub: Hub) -> None:
    assert hub.origin is not None
    version = _remember(device, "the deploy key rotates monthly")
    sync_now(device)
    hub_store = hub.origin.store
    with hub_store.read() as txn:
        assert E.get_entry(hub_store, txn, version["id"]) == version
    # Forgotten on the hub (as another device's forget arrives there): hidden here after a pull.
    result = hub_store.write(
        lambda txn: E.forget(hub_store, txn, version["id"], "wrong", "user@desktop")
    )
    applied = sync_now(device)
    assert applied.applied >= 1
    with device.store.read() as txn:
        assert E.is_hidden(device.store, txn, version["id"])
        for event_id in (s["event_id"] for s in version["sources"]):
            assert E.is_hidden(device.store, txn, event_id)
    # Restored on the device: the hub shows it again after the push.
    device.store.write(lambda txn: E.restore(device.store, txn, result["tombstone"]))
    sync_now(device)
    with hub_store.read() as txn:
        assert not E.is_hidden(hub_store, txn, version["id"])
    # What the device pulls back of its own pushes changes nothing.
    assert sync_now(device).applied == 0


def test_an_unreachable_hub_is_one_readable_error(device: Origin, hub: Hub) -> None:
    connection = hub_connection.Connection(
        "http://127.0.0.1:9/mcp", "laptop", False, hub.tokens["laptop"]
    )
    device.connection = connection
    with pytest.raises(SyncError, match="cannot be reached"):
        sync_now(device)
    assert cursors(device)["pushed"] == 0
