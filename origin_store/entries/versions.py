"""Entries: versions with provenance, forks, forgetting and restoring, all in LMDB.

An entry is a chain of versions sharing a `root`. Each version names the version it corrects
(`supersedes`). Versions nobody supersedes are heads; the newest head (ties: the larger id) is the
current version and the other heads lost a concurrent correction. Because this is computed from
the versions alone, every store reaches the same answer whatever order versions arrive in.

Forgetting writes a tombstone and marks every hidden id in `hidden`; restoring removes those
marks. Nothing is deleted, and every change goes to the change feed for the index and the hub.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypedDict

import lmdb

from ..core import keys
from ..core.db import Store, loads
from ..core.lmdbio import pairs, prefixed, raw_get
from ..errors import NotFound
from ..records import Citation, EntryVersion, FeedItem, TombstoneDoc


class Restored(TypedDict):
    """What `restore` did: the tombstone, and what became visible again."""

    tombstone: str
    restored_entries: list[str]
    restored_events: int


class Standing(TypedDict):
    """Where a version stands in its lineage."""

    status: str
    concurrent: bool
    superseded_by: str | None


class Forgotten(TypedDict):
    """What `forget` did: the tombstone (None when all was hidden already), the entry versions
    it hid, and the number of events it hid (the contract's result of the tool)."""

    tombstone: str | None
    forgotten_entries: list[str]
    excluded_events: int


def new_entry_id() -> str:
    import secrets  # imported on first write: reading (every search) never needs it

    return "ent_" + secrets.token_hex(8)


def new_tombstone_id() -> str:
    import secrets

    return "tmb_" + secrets.token_hex(6)


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(slots=True)
class Lineage:
    """An entry's versions, oldest first, with which one is current."""

    versions: list[EntryVersion]
    current: str | None
    heads: frozenset[str]  # versions nobody corrects: the current one and concurrent losers

    def status_of(self, version: EntryVersion) -> Standing:
        superseded = version["id"] != self.current
        return {
            "status": "superseded" if superseded else "active",
            "concurrent": superseded and version["id"] in self.heads,
            "superseded_by": self.current if superseded else None,
        }


def lineage(store: Store, txn: lmdb.Transaction, root: str) -> Lineage:
    record = store.get(txn, "roots", root.encode()) or {"versions": []}
    versions = [
        v for v in (store.get(txn, "entries", vid.encode()) for vid in record["versions"]) if v
    ]
    versions.sort(key=lambda v: (v["created"], v["id"]))
    corrected = {v["supersedes"] for v in versions if v.get("supersedes")}
    heads = [v for v in versions if v["id"] not in corrected]
    current = max(heads, key=lambda v: (v["created"], v["id"]))["id"] if heads else None
    return Lineage(versions, current, frozenset(v["id"] for v in heads))


def author_of(agent: str, device: str | None) -> str:
    """Who wrote a version: `<agent>@<device>`, the agent alone where no device is known."""
    return f"{agent}@{device}" if device else agent


def new_version(
    *,
    kind: str,
    text: str,
    confidence: float,
    project: str | None,
    author: str,
    created: int,
    sources: list[Citation],
    valid_from: int | None = None,
    valid_to: int | None = None,
    imported: bool = False,
    after: EntryVersion | None = None,
) -> EntryVersion:
    """A version as `remember`, `correct` and memory imports write it: a new entry, or with
    `after` the version that supersedes it, in its chain and dated after it, so that the
    newest-head rule makes it current."""
    entry_id = new_entry_id()
    return {
        "id": entry_id,
        "kind": kind,
        "text": text.strip(),
        "confidence": float(confidence),
        "project": project,
        "author": author,
        "created": created if after is None else max(created, after["created"] + 1),
        "valid_from": valid_from,
        "valid_to": valid_to,
        "supersedes": None if after is None else after["id"],
        "root": entry_id if after is None else after["root"],
        "imported": imported,
        "sources": sources,
    }


def get_entry(store: Store, txn: lmdb.Transaction, entry_id: str) -> EntryVersion | None:
    return store.get(txn, "entries", entry_id.encode())


def is_hidden(store: Store, txn: lmdb.Transaction, item_id: str) -> bool:
    return txn.get(item_id.encode(), db=store.dbs["hidden"]) is not None


def anything_hidden(store: Store, txn: lmdb.Transaction) -> bool:
    """Whether any forget is in force: readers skip their hidden-item checks until one is."""
    return txn.stat(store.dbs["hidden"])["entries"] > 0


def entry_count(store: Store, txn: lmdb.Transaction) -> int:
    """How many entries there are (lineages, forgotten ones too): the roots table's size."""
    return int(txn.stat(store.dbs["roots"])["entries"])


def root_ids(store: Store, txn: lmdb.Transaction) -> Iterator[str]:
    """Every entry's root, in key order: one per entry, whatever its versions (the UI's list)."""
    for key, _ in pairs(txn.cursor(db=store.dbs["roots"])):
        yield key.decode()


def tombstones(store: Store, txn: lmdb.Transaction) -> list[TombstoneDoc]:
    """Every tombstone as recorded, in key order; restored ones too (they say when)."""
    return [loads(value) for _, value in pairs(txn.cursor(db=store.dbs["tombstones"]))]


def get_tombstone(store: Store, txn: lmdb.Transaction, tombstone_id: str) -> TombstoneDoc | None:
    found: TombstoneDoc | None = store.get(txn, "tombstones", tombstone_id.encode())
    return found


def hidden_by(store: Store, txn: lmdb.Transaction, item_id: str) -> str | None:
    """The tombstone whose forget hides this entry or event now, or None when it is visible."""
    mark = raw_get(txn, item_id.encode(), store.dbs["hidden"])
    return None if mark is None else mark.decode()


def hidden_event_count(store: Store, txn: lmdb.Transaction) -> int:
    """How many stored events a forget hides: the hidden marks that name an event kept here
    (a mark for an entry, or for an event this store never had, is not one)."""
    return sum(
        1
        for key, _ in pairs(txn.cursor(db=store.dbs["hidden"]))
        if store.event_value(txn, key) is not None
    )


def put_version(store: Store, txn: lmdb.Transaction, version: EntryVersion) -> None:
    """Store one entry version with its citations and announce it on the change feed."""
    key = version["id"].encode()
    if txn.get(key, db=store.dbs["entries"]) is not None:
        return  # idempotent: a version arriving twice (sync) changes nothing
    store.put(txn, "entries", key, version)
    root_key = version["root"].encode()
    record = store.get(txn, "roots", root_key) or {"versions": []}
    record["versions"].append(version["id"])
    store.put(txn, "roots", root_key, record)
    for source in version["sources"]:
        txn.put(keys.cite_key(source["event_id"], version["id"]), b"", db=store.dbs["cites"])
    item: FeedItem = {"t": "entry", "id": version["id"], "root": version["root"]}
    store.feed_append(txn, [item])


def citing_entries(store: Store, txn: lmdb.Transaction, event_id: str) -> list[str]:
    prefix = keys.cites_prefix(event_id)
    return [
        keys.cite_entry_id(prefix, key)
        for key, _ in prefixed(txn.cursor(db=store.dbs["cites"]), prefix)
    ]


@dataclass(frozen=True)
class Reach:
    """What a forget of `target` would hide now: the entry versions and events not hidden
    already, in the order the forget records them (an entry's versions, then its sources; an
    event, then the versions of every entry citing it)."""

    entries: list[str]
    events: list[str]


def reach(store: Store, txn: lmdb.Transaction, target: str) -> Reach:
    """The rule of `forget`, without the forget: an entry hides every version of it and the
    events they cite; an event hides itself and every version of each entry citing it. Raises
    `NotFound` for an id this store never had that no forget hides."""
    entry_ids: list[str] = []
    event_ids: list[str] = []
    if target.startswith("ent_"):
        version = get_entry(store, txn, target)
        if version is None:
            _hidden_already(store, txn, target)
            return Reach([], [])
        for v in lineage(store, txn, version["root"]).versions:
            entry_ids.append(v["id"])
            event_ids.extend(s["event_id"] for s in v["sources"])
    else:
        if store.event(txn, target) is None:
            _hidden_already(store, txn, target)
            return Reach([], [])
        event_ids.append(target)
        roots: set[str] = set()
        for entry_id in citing_entries(store, txn, target):
            version = get_entry(store, txn, entry_id)
            if version and version["root"] not in roots:
                roots.add(version["root"])
                entry_ids.extend(v["id"] for v in lineage(store, txn, version["root"]).versions)
    return Reach(
        [e for e in dict.fromkeys(entry_ids) if not is_hidden(store, txn, e)],
        [e for e in dict.fromkeys(event_ids) if not is_hidden(store, txn, e)],
    )


def forget(store: Store, txn: lmdb.Transaction, target: str, reason: str, author: str) -> Forgotten:
    """Hide an entry (every version and the events it cites) or an event (and every entry
    citing it), as `reach` says. Returns the contract's result; records nothing when all was
    hidden already, which an id this store never had but a synced forget hid (another
    device's event) is."""
    found = reach(store, txn, target)
    new_entries, new_events = found.entries, found.events
    if not new_entries and not new_events:
        return _nothing_forgotten()
    tombstone = new_tombstone_id()
    store.put(
        txn,
        "tombstones",
        tombstone.encode(),
        {
            "id": tombstone,
            "target": target,
            "reason": reason,
            "author": author,
            "created": now_ms(),
            "entries": new_entries,
            "events": new_events,
            "restored": None,
        },
    )
    _hide(store, txn, tombstone, new_entries, new_events)
    return {
        "tombstone": tombstone,
        "forgotten_entries": new_entries,
        "excluded_events": len(new_events),
    }


def _nothing_forgotten() -> Forgotten:
    """What `forget` returns when everything was hidden already."""
    return {"tombstone": None, "forgotten_entries": [], "excluded_events": 0}


def _hidden_already(store: Store, txn: lmdb.Transaction, target: str) -> Forgotten:
    """An id this store does not have: unknown, unless a forget synced from elsewhere hid it
    (another device's event), which leaves nothing more to hide."""
    if not is_hidden(store, txn, target):
        raise NotFound(target)
    return _nothing_forgotten()


def forget_more(
    store: Store,
    txn: lmdb.Transaction,
    tombstone: str,
    entry_ids: list[str],
    event_ids: list[str],
) -> None:
    """Hide more under a forget still in force: what an imported entry gains while forgotten
    (its memory file's later versions) stays hidden with it, and a restore brings it all back."""
    record = get_tombstone(store, txn, tombstone)
    if record is None or record["restored"]:
        return
    new_entries = [e for e in dict.fromkeys(entry_ids) if not is_hidden(store, txn, e)]
    new_events = [e for e in dict.fromkeys(event_ids) if not is_hidden(store, txn, e)]
    if not new_entries and not new_events:
        return
    record["entries"] += new_entries
    record["events"] += new_events
    store.put(txn, "tombstones", tombstone.encode(), record)
    _hide(store, txn, tombstone, new_entries, new_events)


def _hide(
    store: Store, txn: lmdb.Transaction, tombstone: str, entry_ids: list[str], event_ids: list[str]
) -> None:
    for item in entry_ids + event_ids:
        txn.put(item.encode(), tombstone.encode(), db=store.dbs["hidden"])
    count_visible(store, txn, event_ids, -1)
    change: FeedItem = {"t": "hide", "tombstone": tombstone, "ids": entry_ids + event_ids}
    store.feed_append(txn, [change])


def restore(store: Store, txn: lmdb.Transaction, tombstone: str) -> Restored:
    record = get_tombstone(store, txn, tombstone)
    if record is None:
        raise NotFound(f"Unknown tombstone {tombstone}.")
    if record["restored"]:
        return {"tombstone": tombstone, "restored_entries": [], "restored_events": 0}
    back = unhide(store, txn, record)
    events = [e for e in record["events"] if e in back]
    record["restored"] = now_ms()
    store.put(txn, "tombstones", tombstone.encode(), record)
    return {
        "tombstone": tombstone,
        "restored_entries": [e for e in record["entries"] if e in back],
        "restored_events": len(events),
    }


def unhide(store: Store, txn: lmdb.Transaction, tombstone: TombstoneDoc) -> list[str]:
    """Lift a restored tombstone's marks; returns the ids visible again. An id another forget
    in force covers stays hidden, marked with that one, whichever of them this store happened
    to record first: so every store that has the same tombstones shows the same things, however
    they arrived (a restore made here, or one that came by sync)."""
    hidden = store.dbs["hidden"]
    others: list[TombstoneDoc] = [
        loads(value)
        for _, value in pairs(txn.cursor(db=store.dbs["tombstones"]))
        if loads(value)["id"] != tombstone["id"]
    ]
    others = [t for t in others if t["restored"] is None]
    back: list[str] = []
    for item in tombstone["entries"] + tombstone["events"]:
        if txn.get(item.encode(), db=hidden) != tombstone["id"].encode():
            continue
        cover = next((t for t in others if item in t["entries"] or item in t["events"]), None)
        if cover is not None:
            txn.put(item.encode(), cover["id"].encode(), db=hidden)
        else:
            txn.delete(item.encode(), db=hidden)
            back.append(item)
    count_visible(store, txn, [i for i in back if not i.startswith("ent_")], +1)
    change: FeedItem = {"t": "unhide", "tombstone": tombstone["id"], "ids": back}
    store.feed_append(txn, [change])
    return back


def count_visible(store: Store, txn: lmdb.Transaction, event_ids: list[str], delta: int) -> None:
    """Keep each session's count of visible events right as events are hidden and restored."""
    for event_id in event_ids:
        event = store.event(txn, event_id)
        if event is None:
            continue
        key = keys.session_key(event["source"], event["session"])
        session = store.get(txn, "sessions", key)
        if session is not None:
            session["events"] = max(0, session["events"] + delta)
            store.put(txn, "sessions", key, session)


__all__ = [
    "Lineage",
    "anything_hidden",
    "author_of",
    "citing_entries",
    "forget",
    "forget_more",
    "get_entry",
    "is_hidden",
    "lineage",
    "new_entry_id",
    "new_version",
    "now_ms",
    "put_version",
    "restore",
]
