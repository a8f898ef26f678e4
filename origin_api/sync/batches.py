"""A push batch from this device's change feed: what the hub lacks, in feed order, bounded in
count and bytes, each event with its original file and raw mirror line, and the sessions its
events belong to (docs/sync.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import orjson

from origin_store import Store
from origin_store.reader import MirrorLines, mirror_info
from origin_store.replication.sync import (
    PUSH_KINDS,
    RAW_CHARS,
    change_items,
    session_doc,
    usable_items,
)
from origin_store.replication.wire import Item, batch_bytes, encode_item

#: A batch ends once it holds this many items or bytes: a request body just under the hub's
#: default limit (1 MiB), as fewer, fuller requests cost the hub fewer durable commits.
BATCH_ITEMS = 1000
BATCH_BYTES = 960 * 1024
#: A raw line is read after the feed's transaction ends, so its size is guessed while the batch
#: is gathered: the JSON around an event's text. A batch over the hub's limit is cut smaller.
RAW_GUESS = 600


@dataclass(slots=True)
class Batch:
    after: int
    last: int
    items: list[Item] = field(default_factory=list)
    size: int = 0
    #: Why each item the hub would refuse was left out (`next_batch` leaves them out).
    refused: list[str] = field(default_factory=list)

    def bodies(self, max_bytes: int) -> list[bytes]:
        """The batch as request bodies of at most about `max_bytes` each. Usually one; more when
        one feed item stands for more than that (an `update` of thousands of events): every part
        names the same `after` and `last`, all but the last are `partial`, and the device moves
        its cursor only once the last is acknowledged, so a cut part is sent again whole. Each
        item is serialized once, here: the wire's bytes are built from these (`batch_bytes`)."""
        parts: list[list[bytes]] = [[]]
        size = 0
        for item in self.items:
            raw = encode_item(item)
            if parts[-1] and size + len(raw) + 1 > max_bytes:
                parts.append([])
                size = 0
            parts[-1].append(raw)
            size += len(raw) + 1
        return [
            batch_bytes(self.after, self.last, part, partial=number < len(parts) - 1)
            for number, part in enumerate(parts)
        ]


def next_batch(
    store: Store,
    home: Path,
    after: int,
    *,
    max_items: int = BATCH_ITEMS,
    max_bytes: int = BATCH_BYTES,
) -> Batch:
    """The feed items after `after` as one batch; `last == after` when nothing is pending."""
    batch = Batch(after, after)
    sessions: dict[tuple[str, str], int] = {}
    lines: list[tuple[dict[str, Any], int, int]] = []  # event items, their mirror and line
    files: dict[int, str | None] = {}  # mirror id: original file
    reader = MirrorLines(store, home, RAW_CHARS)
    with store.read() as txn:
        for seq, change in store.feed_since(txn, after):
            if change["t"] == "session":  # described anew: sent with the sessions below
                source, _, name = change["id"].partition(":")
                sessions.setdefault((source, name), seq)
                batch.last = seq
                batch.size += RAW_GUESS
                continue
            items = change_items(store, txn, seq, change, events=True)
            for item in items:
                if item["kind"] == "event":
                    event = item.pop("event")
                    mirror_id = event.get("m") or 0
                    if mirror_id not in files:
                        mirror = mirror_info(store, txn, mirror_id) if mirror_id else None
                        files[mirror_id] = mirror["original_file"] if mirror else None
                    item["original_file"] = files[mirror_id]
                    lines.append((item, event.pop("m", 0), event["line"]))
                    kept_at = store.event_seq(txn, event["id"])
                    if kept_at is not None:  # its raw line needs its text: read already
                        reader.known[kept_at] = event["text"]
                    for extra in ("device", "raw", "raw_chars", "original_file"):
                        event.pop(extra, None)
                    item["event"] = event
                    sessions.setdefault((event["source"], event["session"]), seq)
                    batch.size += min(RAW_CHARS, len(event["text"]) + RAW_GUESS)
                batch.size += len(orjson.dumps(item)) + 1
            batch.items += cast(list[Item], items)
            batch.last = seq
            if len(batch.items) >= max_items or batch.size >= max_bytes:
                break
        for (source, name), seq in sessions.items():
            doc = session_doc(store, txn, source, name)
            if doc is not None:
                batch.items.append({"seq": seq, "kind": "session", "session": doc})
    for item, mirror_id, line in lines:
        raw = reader.text(mirror_id, line) if mirror_id else None
        item["raw"], item["raw_chars"] = (raw[0], raw[1]) if raw else (None, 0)
    # What the hub would refuse (a time no front door renders, kept by an earlier version)
    # would refuse the whole batch, every time: it is left out and counted instead.
    batch.items, batch.refused = usable_items(batch.items, PUSH_KINDS)
    return batch


def pending(store: Store, after: int) -> int:
    """How many feed items wait to be pushed."""
    with store.read() as txn:
        return max(0, store.feed_last(txn) - after)
