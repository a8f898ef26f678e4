"""The sync wire format round-trips: a batch built as a device builds it is the bytes the hub
parses back into the same batch, which a real store applies and gives back as it was sent; bad
bodies get the hub's 400 messages (docs/sync.md)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from origin_store import Store
from origin_store.entries import versions as E
from origin_store.replication.sync import BatchRefused, apply_items, change_items
from origin_store.replication.wire import (
    EventItem,
    Item,
    PushBatch,
    batch_bytes,
    encode_batch,
    encode_item,
    parse_batch,
)

TIME = 1_700_000_000_000
EVENT: EventItem = {
    "seq": 1,
    "kind": "event",
    "original_file": "/home/dev/.codex/sessions/a.jsonl",
    "event": {
        "id": "codex:evt-1",
        "time": TIME,
        "source": "codex",
        "project": "demo",
        "session": "s-1",
        "role": "user",
        "kind": "message",
        "text": 'ship "the" release — on friday',
        "cwd": "/home/dev/demo",
        "git_branch": None,
        "agent_version": "0.9",
        "line": 7,
        "text_chars": 31,
        "label": [[0, "ship"]],  # type: ignore[list-item]  # JSON has no tuples
    },
    "raw": '{"type":"message"}',
    "raw_chars": 18,
}


def _items() -> list[Item]:
    version = E.new_version(
        kind="knowledge",
        text="the release ships on fridays",
        confidence=0.9,
        project="demo",
        author="codex@laptop",
        created=TIME,
        sources=[{"event_id": "codex:evt-1", "quote": None}],
    )
    tombstone = {
        "id": "tmb_00c0ffee",
        "target": version["id"],
        "reason": "wrong day",
        "author": "codex@laptop",
        "created": TIME + 1,
        "restored": None,
        "entries": [version["id"]],
        "events": [],
    }
    session = {
        "session": "s-1",
        "source": "codex",
        "project": "demo",
        "cwd": "/home/dev/demo",
        "title": "Release",
        "title_rank": 2,
        "title_time": 5,
        "prompt": "ship it",
        "parent": None,
        "started": TIME,
        "ended": TIME,
        "events": 1,
    }
    return [
        EVENT,
        {"seq": 2, "kind": "entry", "version": version},
        {"seq": 3, "kind": "tombstone", "tombstone": tombstone},
        {"seq": 1, "kind": "session", "session": session},  # type: ignore[typeddict-item]
    ]


@pytest.mark.parametrize("partial", [False, True])
def test_a_batch_round_trips_and_a_store_gives_back_what_was_sent(
    tmp_path: Path, partial: bool
) -> None:
    batch: PushBatch = {"after": 0, "last": 3, "items": _items()}
    if partial:
        batch = {"after": 0, "last": 3, "partial": True, "items": _items()}
    body = encode_batch(batch)
    assert body == orjson.dumps(batch)  # the bytes every earlier device sent for it
    assert body == batch_bytes(0, 3, [encode_item(i) for i in batch["items"]], partial=partial)
    parsed = parse_batch(body)
    assert parsed == batch
    store = Store.open(tmp_path / "hub")
    try:
        assert store.write(lambda txn: apply_items(store, txn, parsed["items"], "laptop")) == 4
        with store.read() as txn:
            kept = store.event(txn, "codex:evt-1")
            fed = [change_items(store, txn, s, c, events=True) for s, c in store.feed_since(txn, 0)]
    finally:
        store.close()
    assert kept is not None
    assert {k: kept[k] for k in EVENT["event"]} == EVENT["event"]
    assert (kept["original_file"], kept["raw"], kept["raw_chars"], kept["device"]) == (
        EVENT["original_file"],
        EVENT["raw"],
        EVENT["raw_chars"],
        "laptop",
    )
    # What a pull would give of them: the version and the tombstone as sent (a session is no
    # feed item of its own; the event's is read above).
    given = [item for items in fed for item in items]
    assert [item["kind"] for item in given] == ["event", "entry", "tombstone"]
    assert given[1]["version"] == batch["items"][1]["version"]  # type: ignore[typeddict-item]
    assert given[2]["tombstone"] == batch["items"][2]["tombstone"]  # type: ignore[typeddict-item]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{cut", "The batch is not JSON: "),
        (b"[]", "The batch must be an object {after, last, items}."),
        (b'{"last":1}', "The batch was refused whole, nothing applied: items must be a list."),
        (
            b'{"last":1,"items":[{"seq":1,"kind":"drop"}]}',
            "The batch was refused whole, nothing applied: Item 0 has the kind 'drop'; known: "
            "entry, event, session, tombstone.",
        ),
        (b'{"last":"1","items":[]}', "last must be a whole number at least every item's seq."),
        (encode_batch({"after": 0, "last": 0, "items": [EVENT]}), "last must be a whole number"),
        (b'{"last":0,"items":[],"partial":"yes"}', "partial must be true or false."),
    ],
)
def test_a_bad_body_is_refused_with_the_hubs_message(body: bytes, message: str) -> None:
    with pytest.raises(BatchRefused) as refused:
        parse_batch(body)
    assert str(refused.value).startswith(message)
