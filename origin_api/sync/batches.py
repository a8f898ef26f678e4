"""A push batch from this device's change feed: what the hub lacks, in feed order, bounded in
count and bytes, each event with its original file and raw mirror line, and the sessions its
events belong to (docs/sync.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from origin_store import Store
from origin_store.reader import mirror_info, read_mirror_text
from origin_store.sync import RAW_CHARS, change_items, session_doc

#: A batch ends once it holds this many items or bytes (a feed item is never split).
BATCH_ITEMS = 500
BATCH_BYTES = 512 * 1024


@dataclass(slots=True)
class Batch:
    after: int
    last: int
    items: list[dict[str, Any]] = field(default_factory=list)
    size: int = 0

    def body(self) -> dict[str, Any]:
        return {"after": self.after, "last": self.last, "items": self.items}


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
    lines: list[tuple[dict[str, Any], int, int]] = []
    with store.read() as txn:
        for seq, change in store.feed_since(txn, after):
            items = change_items(store, txn, seq, change, events=True)
            for item in items:
                if item["kind"] == "event":
                    event = item.pop("event")
                    mirror = mirror_info(store, txn, event["m"]) if event.get("m") else None
                    item["original_file"] = mirror["original_file"] if mirror else None
                    lines.append((item, event.pop("m", 0), event["line"]))
                    for extra in ("device", "raw", "raw_chars", "original_file"):
                        event.pop(extra, None)
                    item["event"] = event
                    sessions.setdefault((event["source"], event["session"]), seq)
                batch.size += len(orjson.dumps(item)) + 1
            batch.items += items
            batch.last = seq
            if len(batch.items) >= max_items or batch.size >= max_bytes:
                break
        for (source, name), seq in sessions.items():
            doc = session_doc(store, txn, source, name)
            if doc is not None:
                batch.items.append({"seq": seq, "kind": "session", "session": doc})
    for item, mirror_id, line in lines:
        raw = read_mirror_text(store, home, mirror_id, line, RAW_CHARS) if mirror_id else None
        item["raw"], item["raw_chars"] = (raw[0], raw[1]) if raw else (None, 0)
        batch.size += len(item["raw"] or "")
    return batch


def pending(store: Store, after: int) -> int:
    """How many feed items wait to be pushed."""
    with store.read() as txn:
        return max(0, store.feed_last(txn) - after)
