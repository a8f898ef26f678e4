"""The store's change feed read as index documents: what to upsert, what to delete.

Shared by the catch-up (`catchup`), the reader process of a large one (`feeder`) and the scan
of the unindexed end; it reads the store and never the index.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NotRequired, TypedDict

from origin_store import Store
from origin_store.care import damage
from origin_store.entries.versions import get_entry, is_hidden, lineage
from origin_store.reader import readable_event
from origin_store.records import EntryVersion, EventDoc

from .writer import Prepared, prepared

#: Feed items read in one transaction.
READ_BATCH = 5_000


class Doc(TypedDict):
    """An index document, of an event or of an entry's current version; `seq` is the feed item
    that announced an event, when known (the tail's order)."""

    id: str
    doc: str  # "event" or "entry"
    kind: str
    role: str | None
    source: str | None
    project: str | None
    session: str | None
    time: int
    valid_to: int | None
    text: str
    seq: NotRequired[int]


def event_doc(event: EventDoc, seq: int = 0) -> Doc:
    """The index document of an event; `seq` is the feed item announcing it, if known."""
    return {
        "id": event["id"],
        "doc": "event",
        "kind": event["kind"],
        "role": event["role"],
        "source": event["source"],
        "project": event["project"],
        "session": event["session"],
        "time": event["time"],
        "valid_to": None,
        "text": event["text"],
        "seq": seq,
    }


def entry_doc(entry: EntryVersion) -> Doc:
    return {
        "id": entry["id"],
        "doc": "entry",
        "kind": entry["kind"],
        "role": None,
        "source": None,
        "project": entry.get("project"),
        "session": None,
        "time": entry["created"],
        "valid_to": entry.get("valid_to"),
        "text": entry["text"],
    }


#: One batch of the feed, ready for the writer: documents to upsert, ids to delete, the last
#: feed sequence read, and how many feed items that was.
Batch = tuple[list[Prepared], list[str], int, int]


def read_batches(store: Store, after: int, limit: int = READ_BATCH) -> Iterator[Batch]:
    """The feed after `after`, batch by batch, each read in its own transaction."""
    while True:
        upserts, deletes, last, count = read_changes(store, after, limit)
        if not count:
            return
        yield [prepared(d) for d in upserts], deletes, last, count
        after = last


def read_changes(store: Store, after: int, limit: int) -> tuple[list[Doc], list[str], int, int]:
    """Documents to upsert and ids to delete for the next `limit` feed items. An event whose
    record cannot be read is left out of the index and noted (`damage`), never the end of the
    catch-up."""
    upserts: dict[str, Doc] = {}
    deletes: list[str] = []
    unreadable: list[str] = []
    last = after
    count = 0
    with store.read() as txn:
        for seq, item, record in store.feed_since_events(txn, after, limit):
            last, count = seq, count + 1
            kind = item["t"]
            if kind == "event":
                event = record or readable_event(store, txn, item["id"], unreadable)
                if event is not None and not is_hidden(store, txn, event["id"]):
                    upserts[event["id"]] = event_doc(event, seq)
            elif kind == "entry":
                _entry_changes(store, txn, item["root"], upserts, deletes)
            elif kind in ("hide", "unhide", "update"):
                for target in item["ids"]:
                    if target.startswith("ent_"):
                        version = get_entry(store, txn, target)
                        if version:
                            _entry_changes(store, txn, version["root"], upserts, deletes)
                    elif kind == "hide":
                        upserts.pop(target, None)
                        deletes.append(target)
                    else:
                        event = readable_event(store, txn, target, unreadable)
                        if event is not None and not is_hidden(store, txn, target):
                            upserts[target] = event_doc(event)
    damage.note(store, unreadable)
    return list(upserts.values()), deletes, last, count


def _entry_changes(
    store: Store, txn: Any, root: str, upserts: dict[str, Doc], deletes: list[str]
) -> None:
    """An entry is indexed by its current version only; older versions leave the index."""
    line = lineage(store, txn, root)
    for version in line.versions:
        if version["id"] != line.current or is_hidden(store, txn, version["id"]):
            upserts.pop(version["id"], None)
            deletes.append(version["id"])
        else:
            upserts[version["id"]] = entry_doc(version)
