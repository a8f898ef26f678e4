"""What a sync batch is and how a store applies one (docs/sync.md).

A batch is checked whole before anything is written, then applied in one LMDB write transaction:
a hostile or malformed batch changes nothing, and a batch applied twice changes nothing the second
time (events and versions are kept by id, tombstones merge by union). Applying appends to this
store's feed only what was new to it, so a device that pulls back its own pushes, or a hub that is
sent a device's pull again, does not echo them forever.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

import lmdb

from .. import bounds
from ..activity import Tally
from ..core import keys
from ..core.codec import Encoder
from ..core.db import Store, loads
from ..core.lmdbio import prefixed, raw_get
from ..entries import versions as entries
from ..entries.versions import get_entry, lineage, put_version
from ..model import new_session, widen
from ..records import EntryVersion, FeedItem, SessionDoc, TombstoneDoc
from .check import (
    PULL_KINDS,
    PUSH_KINDS,
    RAW_CHARS,
    BatchRefused,
    check_items,
    check_tombstone,
    check_version,
    usable_items,
)

if TYPE_CHECKING:
    from .wire import EventItem, Item, SessionItem

#: What an event says: a newer version that changes none of these changes nothing.
_COMPARED = ("text", "text_chars", "label", "time", "session", "role", "kind", "cwd")


# -- applying ----------------------------------------------------------------------------------


def prepare_items(store: Store, items: list[Item]) -> None:
    """Before the write transaction that applies `items`: the dictionaries their events are
    kept with (a hub keeps pushed events compressed, as ingest does; a record with its raw line
    kept plain would often outgrow an LMDB page)."""
    from ..core.migrate import recompress

    for source in sorted({i["event"]["source"] for i in items if i["kind"] == "event"}):
        store.codec.prepare(source)
    if store.codec.recompress_due:  # a first dictionary: the records kept plain before it
        store.codec.recompress_due = False
        recompress(store)


def apply_items(
    store: Store, txn: lmdb.Transaction, items: list[Item], device: str | None = None
) -> int:
    """Apply checked items in one transaction; returns how many changed something. `device`
    names the device whose events these are (a hub keeps it with each event)."""
    applier = _Applier(store, txn, device)
    changed = sum(1 for item in items if applier.apply(item))
    applier.flush()
    return changed


class _Applier:
    def __init__(self, store: Store, txn: lmdb.Transaction, device: str | None) -> None:
        self.store = store
        self.txn = txn
        self.device = device
        self.sessions: dict[bytes, SessionDoc] = {}
        self.encoders: dict[str, Encoder] = {}
        self.tally = Tally()  # the activity figures of the events kept, flushed with them

    def apply(self, item: Item) -> bool:
        if item["kind"] == "event":
            return self.event(item)
        if item["kind"] == "session":
            return self.session_item(item)
        if item["kind"] == "entry":
            return apply_version(self.store, self.txn, item["version"])
        return apply_tombstone(self.store, self.txn, item["tombstone"])

    def session(self, source: str, name: str) -> SessionDoc:
        key = keys.session_key(source, name)
        found = self.sessions.get(key)
        if found is None:
            found = self.store.get(self.txn, "sessions", key) or new_session(source, name)
            self.sessions[key] = found
        return found

    def session_item(self, item: SessionItem) -> bool:
        doc = item["session"]
        sess = self.session(doc["source"], doc["session"])
        before = dict(sess)
        if doc.get("cwd") and not sess["cwd"]:
            sess["cwd"], sess["project"] = doc["cwd"], doc.get("project")
        rank, when = doc.get("title_rank", -1), doc.get("title_time", 0)
        if doc.get("title") and (
            rank > sess["title_rank"] or (rank == sess["title_rank"] and when >= sess["title_time"])
        ):
            sess["title"], sess["title_rank"], sess["title_time"] = doc["title"], rank, when
        for name in ("prompt", "parent"):
            if doc.get(name) and not sess[name]:
                sess[name] = doc[name]
        return sess != before

    def event(self, item: EventItem) -> bool:
        store, txn = self.store, self.txn
        record: dict[str, Any] = dict(item["event"])
        record.update(
            m=0,  # no mirror of this store's: `sources` reads the fields below instead
            device=self.device,
            original_file=item.get("original_file"),
            raw=item.get("raw"),
            raw_chars=item.get("raw_chars", 0),
        )
        key = record["id"].encode()
        hidden = txn.get(key, db=store.dbs["hidden"]) is not None
        old_raw = store.event_value(txn, key)
        sess_db = store.sess_db
        sess = self.session(record["source"], record["session"])
        encode = self.encoders.get(record["source"])
        if encode is None:
            encode = self.encoders[record["source"]] = store.codec.encoder(record["source"])
        if old_raw is None:
            seq = store.put_event_value(txn, key, encode(record))
            value = store.session_value(record["time"], key, seq)
            txn.put(keys.session_key(record["source"], record["session"]), value, db=sess_db)
            if not hidden:
                sess["events"] += 1
            widen(sess, record["time"])
            store.feed_append(txn, [store.event_feed_item(key, seq)])
            self.tally.add(record)
            return True
        old = store.codec.decode(txn, key, old_raw)
        if hidden or all(old.get(f) == record.get(f) for f in _COMPARED):
            return False  # the same event again, or forgotten: its content is not stored again
        self.tally.add(old, -1)  # the figures follow the newer version
        self.tally.add(record)
        seq = store.put_event_value(txn, key, encode(record))
        value = store.session_value(record["time"], key, seq)
        old_key = keys.session_key(old["source"], old["session"])
        txn.delete(old_key, store.session_value(old["time"], key, seq), db=sess_db)
        txn.put(keys.session_key(record["source"], record["session"]), value, db=sess_db)
        if old["session"] != record["session"]:
            self.session(old["source"], old["session"])["events"] -= 1
            sess["events"] += 1
        widen(sess, record["time"])
        update: FeedItem = {"t": "update", "ids": [record["id"]]}
        store.feed_append(txn, [update])
        return True

    def flush(self) -> None:
        for key, sess in self.sessions.items():
            self.store.put(self.txn, "sessions", key, sess)
            if sess["cwd"] and bounds.cwd_fits(sess["cwd"]):
                self.txn.put(sess["cwd"].encode(), b"", db=self.store.dbs["cwds"])
        self.tally.flush(self.store, self.txn)


def apply_version(store: Store, txn: lmdb.Transaction, version: EntryVersion) -> bool:
    """Keep a version (by id: once). A version of an entry forgotten here is forgotten with it,
    under the tombstone that hid its other versions, so a correction made elsewhere before the
    forget arrived does not bring the entry back."""
    if get_entry(store, txn, version["id"]) is not None:
        return False
    put_version(store, txn, version)
    if txn.get(version["id"].encode(), db=store.dbs["hidden"]) is not None:
        return True
    for other in lineage(store, txn, version["root"]).versions:
        mark = raw_get(txn, other["id"].encode(), store.dbs["hidden"])
        tombstone = store.get(txn, "tombstones", mark) if mark else None
        if tombstone is not None and tombstone["restored"] is None:
            tombstone["entries"].append(version["id"])
            store.put(txn, "tombstones", tombstone["id"].encode(), tombstone)
            _hide(store, txn, tombstone["id"], [version["id"]], False)
            break
    return True


def apply_tombstone(store: Store, txn: lmdb.Transaction, doc: TombstoneDoc) -> bool:
    """Merge a tombstone into this store's: ids by union, `restored` once set stays set. An id
    is hidden while some tombstone that is not restored covers it."""
    key = doc["id"].encode()
    mine: TombstoneDoc | None = store.get(txn, "tombstones", key)
    fresh = mine is None
    if mine is None:
        mine = {**doc, "entries": [], "events": [], "restored": None}
    new_entries = [e for e in dict.fromkeys(doc["entries"]) if e not in mine["entries"]]
    new_events = [e for e in dict.fromkeys(doc["events"]) if e not in mine["events"]]
    mine["entries"] += new_entries
    mine["events"] += new_events
    restoring = mine["restored"] is None and doc["restored"] is not None
    if mine["restored"] is None and not restoring:
        # Every version of a forgotten entry, those it got here meanwhile included: the same
        # closure `apply_version` keeps, so the order things arrive in does not matter.
        more = _other_versions(store, txn, new_entries, set(mine["entries"]))
        mine["entries"] += more
        new_entries += more
        # Announced even when nothing more is hidden here (another forget hides it all
        # already): a device that pulls from this store must still get this tombstone.
        _hide(
            store, txn, doc["id"], new_entries + new_events, fresh or bool(new_entries + new_events)
        )
    if restoring:
        mine["restored"] = doc["restored"]
        entries.unhide(store, txn, mine)
    if fresh or new_entries or new_events or restoring:
        store.put(txn, "tombstones", key, mine)
        return True
    return False


def _other_versions(
    store: Store, txn: lmdb.Transaction, entry_ids: list[str], known: set[str]
) -> list[str]:
    roots = {v["root"] for v in (get_entry(store, txn, e) for e in entry_ids) if v}
    return [
        v["id"]
        for root in sorted(roots)
        for v in lineage(store, txn, root).versions
        if v["id"] not in known
    ]


def _hide(
    store: Store, txn: lmdb.Transaction, tombstone: str, ids: list[str], announce: bool
) -> None:
    hidden = store.dbs["hidden"]
    new = [i for i in ids if txn.get(i.encode(), db=hidden) is None]
    if not new and not announce:
        return
    for item in new:
        txn.put(item.encode(), tombstone.encode(), db=hidden)
    entries.count_visible(store, txn, [i for i in new if not i.startswith("ent_")], -1)
    change: FeedItem = {"t": "hide", "tombstone": tombstone, "ids": new}
    store.feed_append(txn, [change])


# -- what a pull carries -------------------------------------------------------------------------


#: Feed items one pull looks at, at most: a pull passes over the events a hub's feed announces
#: (devices reach other devices' events through merged answers), so counting only the items it
#: returns would make a device walk a million pushed events 500 at a time.
PULL_SCAN = 50_000


def pull_items(store: Store, after: int, limit: int) -> tuple[list[Item], int, bool]:
    """This store's entry versions and tombstones that changed after feed position `after`: at
    most `limit` of them, from at most PULL_SCAN feed items; the items, the position to ask
    after next, and whether there is more."""
    items: list[dict[str, Any]] = []
    last = after
    with store.read() as txn:
        for seq, change in store.feed_since(txn, after, PULL_SCAN):
            found = change_items(store, txn, seq, change, events=False)
            if items and len(items) + len(found) > limit:
                break  # the next pull starts at this item
            items.extend(found)
            last = seq
            if len(items) >= limit:
                break
        more = store.feed_last(txn) > last
    return cast("list[Item]", items), last, more


def change_items(
    store: Store, txn: lmdb.Transaction, seq: int, change: FeedItem, *, events: bool
) -> list[dict[str, Any]]:
    """The sync items one feed item stands for: versions and tombstones, and with `events` the
    events it announces (without their mirror lines, which the device side adds)."""
    kind = change["t"]
    if kind == "entry":
        version = get_entry(store, txn, change["id"])
        return [{"seq": seq, "kind": "entry", "version": version}] if version else []
    if kind in ("hide", "unhide"):
        doc = store.get(txn, "tombstones", change["tombstone"].encode())
        return [{"seq": seq, "kind": "tombstone", "tombstone": doc}] if doc else []
    if not events:
        return []
    ids = [change["id"]] if kind == "event" else change.get("ids", []) if kind == "update" else []
    out = []
    for event_id in ids:
        event = store.event(txn, event_id)
        if event is not None and txn.get(event_id.encode(), db=store.dbs["hidden"]) is None:
            out.append({"seq": seq, "kind": "event", "event": event})
    return out


def session_doc(store: Store, txn: lmdb.Transaction, source: str, session: str) -> Any:
    return store.get(txn, "sessions", keys.session_key(source, session))


# A device's cursors into its own feed (pushed) and its hub's (pulled), its last sync's record,
# and on a hub what each device's last complete push left: kept in meta under these keys.
_PUSHED = "sync.pushed"
_PULLED = "sync.pulled"
_LAST = "sync.last"
_DEVICE = "sync.device."


def pushed_seq(store: Store, txn: lmdb.Transaction) -> int:
    """How far into this device's feed the hub has acknowledged."""
    return int(store.meta_get(txn, _PUSHED) or 0)


def pulled_seq(store: Store, txn: lmdb.Transaction) -> int:
    """How far into the hub's feed this device has applied."""
    return int(store.meta_get(txn, _PULLED) or 0)


def advance_pushed(store: Store, txn: lmdb.Transaction, seq: int) -> None:
    """Moves the push cursor forward only (another process may have moved it further)."""
    if seq > pushed_seq(store, txn):
        store.meta_put(txn, _PUSHED, seq)


def advance_pulled(store: Store, txn: lmdb.Transaction, seq: int) -> None:
    """Moves the pull cursor forward only (another process may have moved it further)."""
    if seq > pulled_seq(store, txn):
        store.meta_put(txn, _PULLED, seq)


def last_sync(store: Store, txn: lmdb.Transaction) -> Any | None:
    return store.meta_get(txn, _LAST)


def note_sync(store: Store, txn: lmdb.Transaction, record: dict[str, Any]) -> None:
    store.meta_put(txn, _LAST, record)


def note_device_push(
    store: Store, txn: lmdb.Transaction, device: str, pushed: int, at: int
) -> None:
    """On a hub: `device`'s push up to feed position `pushed` is in whole, at `at` (ms)."""
    store.meta_put(txn, _DEVICE + device, {"pushed": pushed, "time": at})


def device_pushes(store: Store, txn: lmdb.Transaction) -> Iterator[tuple[str, Any]]:
    """On a hub, each device that pushed and the record its last push left, by name."""
    prefix = _DEVICE.encode()
    for key, value in prefixed(txn.cursor(db=store.dbs["meta"]), prefix):
        yield key.decode()[len(prefix) :], loads(value)


__all__ = [
    "PULL_KINDS",
    "PUSH_KINDS",
    "RAW_CHARS",
    "BatchRefused",
    "apply_items",
    "apply_tombstone",
    "prepare_items",
    "apply_version",
    "change_items",
    "check_items",
    "check_tombstone",
    "check_version",
    "usable_items",
    "advance_pulled",
    "advance_pushed",
    "device_pushes",
    "last_sync",
    "note_device_push",
    "note_sync",
    "pulled_seq",
    "pushed_seq",
    "pull_items",
    "session_doc",
]
