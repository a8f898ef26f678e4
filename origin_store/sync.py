"""What a sync batch is and how a store applies one (docs/sync.md).

A batch is checked whole before anything is written, then applied in one LMDB write transaction:
a hostile or malformed batch changes nothing, and a batch applied twice changes nothing the second
time (events and versions are kept by id, tombstones merge by union). Applying appends to this
store's feed only what was new to it, so a device that pulls back its own pushes, or a hub that is
sent a device's pull again, does not echo them forever.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import Any, TypeGuard

import lmdb

from . import bounds, entries, keys
from .codec import Encoder
from .db import Store
from .entries import get_entry, lineage, put_version
from .lmdbio import raw_get
from .model import EVENT_KINDS, ROLES, new_session, widen
from .records import FeedItem, SessionDoc
from .textclip import STORED_CHARS

#: Item kinds of a push; a pull carries only entries and tombstones.
PUSH_KINDS = frozenset({"event", "session", "entry", "tombstone"})
PULL_KINDS = frozenset({"entry", "tombstone"})
#: The longest raw mirror line a push carries (what `sources` shows of it).
RAW_CHARS = 4_000
#: Longest texts of an entry version and of a name (author, project, path, reason).
ENTRY_TEXT_CHARS = 100_000
NAME_CHARS = 4_096
ENTRY_KINDS = frozenset({"memory", "knowledge", "cognition"})
_ENTRY_ID = re.compile(r"ent_[0-9a-f]{12,32}")
_TOMBSTONE_ID = re.compile(r"tmb_[0-9a-f]{6,32}")
#: What an event says: a newer version that changes none of these changes nothing.
_VALIDITY = ("valid_from", "valid_to")
_COMPARED = ("text", "text_chars", "label", "time", "session", "role", "kind", "cwd")


class BatchRefused(ValueError):
    """A batch refused whole: the message names the item and what is wrong with it."""


# -- checking ----------------------------------------------------------------------------------


class _Known(frozenset[str]):
    """The agents' names, and any recorded source id (the `ingest` tool's: a device's journal)."""

    def __contains__(self, name: object) -> bool:
        from .parsers.journal import is_recorded_id

        return super().__contains__(name) or (isinstance(name, str) and is_recorded_id(name))


def _known_sources() -> frozenset[str]:
    from .parsers.registry import SOURCES  # the parsers only when a batch is checked

    return _Known(SOURCES)


def _text(value: Any, limit: int = NAME_CHARS, *, null: bool = True) -> bool:
    return (value is None and null) or (isinstance(value, str) and len(value) <= limit)


def _int(value: Any, *, null: bool = False) -> bool:
    return (value is None and null) or (type(value) is int and -(2**62) < value < 2**62)


def _time(value: Any, *, null: bool = False) -> bool:
    """A time every front door can render (`bounds`): a stored one is shown by every read."""
    return (value is None and null) or (type(value) is int and bounds.time_fits(value))


def _one_of(value: Any, names: Collection[str]) -> TypeGuard[str]:
    """`value in names` for a value of any type (a list or an object is not hashable)."""
    return isinstance(value, str) and value in names


def _check_event(item: dict[str, Any], sources: frozenset[str]) -> str | None:
    event = item.get("event")
    if not isinstance(event, dict):
        return "event must be an object"
    event_id, source = event.get("id"), event.get("source")
    if not _one_of(source, sources):
        return (
            f"source must be one of {', '.join(sorted(sources))}, or a recorded source id "
            "(a-z, 0-9 and -, at most 40 characters)"
        )
    if not isinstance(event_id, str) or not event_id.startswith(f"{source}:"):
        return "id must be <source>:<id in the source>, with the event's source"
    if not _text(event.get("text"), STORED_CHARS, null=False):
        return f"text must be a string of at most {STORED_CHARS:,} characters"
    if not (_one_of(event.get("role"), ROLES) and _one_of(event.get("kind"), EVENT_KINDS)):
        return "role and kind must be the contract's"
    if not isinstance(event.get("session"), str):
        return "session must be a string"
    if not (type(event.get("time")) is int and _int(event.get("line"))):
        return "time and line must be integers"
    problem = bounds.unstorable(event_id, source, event["session"], event["time"])
    if problem:
        return f"the event cannot be stored: {problem}"
    if not all(
        _text(event.get(name)) for name in ("project", "cwd", "git_branch", "agent_version")
    ):
        return "project, cwd, git_branch and agent_version must be strings or null"
    if "text_chars" in event and not _int(event["text_chars"]):
        return "text_chars must be an integer"
    label = event.get("label")
    if label is not None and not (
        isinstance(label, list)
        and all(
            isinstance(p, list) and len(p) == 2 and _int(p[0]) and _text(p[1], null=False)
            for p in label
        )
    ):
        return "label must be [offset, words] pairs"
    if not (_text(item.get("original_file")) and _text(item.get("raw"), RAW_CHARS)):
        return f"original_file and raw must be strings (raw at most {RAW_CHARS:,} characters)"
    if not _int(item.get("raw_chars", 0)):
        return "raw_chars must be an integer"
    return None


def _check_session(item: dict[str, Any], sources: frozenset[str]) -> str | None:
    doc = item.get("session")
    if not isinstance(doc, dict):
        return "session must be an object"
    source, name = doc.get("source"), doc.get("session")
    if not (_one_of(source, sources) and isinstance(name, str)):
        return "session and source must name a known source's session"
    if not bounds.session_fits(source, name):
        return (
            f"the session is {bounds.utf8(name):,} bytes of UTF-8; with its source, at most "
            f"{bounds.session_bytes(source)} fit"
        )
    if not all(_text(doc.get(name)) for name in ("title", "prompt", "cwd", "project", "parent")):
        return "title, prompt, cwd, project and parent must be strings or null"
    if not (_int(doc.get("title_rank", -1)) and _int(doc.get("title_time", 0))):
        return "title_rank and title_time must be integers"
    return None


def check_version(version: Any) -> str | None:
    """What is wrong with an entry version, or None."""
    if not isinstance(version, dict):
        return "version must be an object"
    if not all(
        isinstance(version.get(name), str) and _ENTRY_ID.fullmatch(version[name])
        for name in ("id", "root")
    ):
        return "id and root must be entry ids (ent_ and 12 to 32 hex characters)"
    supersedes = version.get("supersedes")
    if supersedes is not None and not (
        isinstance(supersedes, str) and _ENTRY_ID.fullmatch(supersedes)
    ):
        return "supersedes must be an entry id or null"
    if not _one_of(version.get("kind"), ENTRY_KINDS):
        return "kind must be memory, knowledge or cognition"
    if not _text(version.get("text"), ENTRY_TEXT_CHARS, null=False):
        return f"text must be a string of at most {ENTRY_TEXT_CHARS:,} characters"
    confidence = version.get("confidence")
    if not isinstance(confidence, int | float) or isinstance(confidence, bool):
        return "confidence must be a number"
    if not 0 <= confidence <= 1:
        return "confidence must be between 0 and 1"
    if not (_text(version.get("project")) and _text(version.get("author"), null=False)):
        return "project and author must be strings"
    if not (
        _int(version.get("created"))
        and _int(version.get("valid_from"), null=True)
        and _int(version.get("valid_to"), null=True)
    ):
        return "created, valid_from and valid_to must be integers (milliseconds)"
    if not all(_time(version.get(n), null=n != "created") for n in ("created", *_VALIDITY)):
        return f"created, valid_from and valid_to must be times {bounds.TIME_RANGE}"
    if not isinstance(version.get("imported", False), bool):
        return "imported must be true or false"
    cited = version.get("sources")
    if not isinstance(cited, list) or not all(
        isinstance(s, dict) and isinstance(s.get("event_id"), str) and _text(s.get("quote"))
        for s in cited
    ):
        return "sources must be a list of {event_id, quote}"
    if not all(bounds.event_id_fits(s["event_id"]) for s in cited):
        return f"a source's event_id must be at most {bounds.EVENT_ID_BYTES} bytes of UTF-8"
    return None


def check_tombstone(doc: Any) -> str | None:
    if not isinstance(doc, dict):
        return "tombstone must be an object"
    if not (isinstance(doc.get("id"), str) and _TOMBSTONE_ID.fullmatch(doc["id"])):
        return "id must be a tombstone id (tmb_ and hex characters)"
    entries, events = doc.get("entries"), doc.get("events")
    if not isinstance(entries, list) or not all(
        isinstance(e, str) and _ENTRY_ID.fullmatch(e) for e in entries
    ):
        return "entries must be a list of entry ids"
    if not isinstance(events, list) or not all(
        isinstance(e, str) and ":" in e and bounds.event_id_fits(e) for e in events
    ):
        return f"events must be a list of event ids (at most {bounds.EVENT_ID_BYTES} bytes each)"
    if not all(_text(doc.get(name), null=False) for name in ("target", "reason", "author")):
        return "target, reason and author must be strings"
    if not (_int(doc.get("created")) and _int(doc.get("restored"), null=True)):
        return "created and restored must be integers (restored may be null)"
    if not (_time(doc["created"]) and _time(doc["restored"], null=True)):
        return f"created and restored must be times {bounds.TIME_RANGE}"
    return None


def _check_item(kind: str, item: dict[str, Any], sources: frozenset[str]) -> str | None:
    if kind == "event":
        return _check_event(item, sources)
    if kind == "session":
        return _check_session(item, sources)
    if kind == "entry":
        return check_version(item.get("version"))
    return check_tombstone(item.get("tombstone"))


def check_items(items: Any, kinds: frozenset[str]) -> list[dict[str, Any]]:
    """The batch's items if every one is well formed; raises `BatchRefused` naming the first
    that is not."""
    if not isinstance(items, list):
        raise BatchRefused("items must be a list.")
    sources = _known_sources() if "event" in kinds else frozenset()
    for number, item in enumerate(items):
        problem = _item_problem(number, item, kinds, sources)
        if problem:
            raise BatchRefused(problem)
    return items


def usable_items(items: Any, kinds: frozenset[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """A pull's well-formed items, and what is wrong with each of the others: a device keeps
    what it can of a hub's answer, so an item it cannot keep (one a hub of an earlier version
    stored) is counted and passed over instead of stopping every pull after it."""
    if not isinstance(items, list):
        raise BatchRefused("items must be a list.")
    sources = _known_sources() if "event" in kinds else frozenset()
    kept, refused = [], []
    for number, item in enumerate(items):
        problem = _item_problem(number, item, kinds, sources)
        if problem:
            refused.append(problem)
        else:
            kept.append(item)
    return kept, refused


def _item_problem(
    number: int, item: Any, kinds: frozenset[str], sources: frozenset[str]
) -> str | None:
    if not isinstance(item, dict):
        return f"Item {number} is not an object."
    kind = item.get("kind")
    if not _one_of(kind, kinds):
        return f"Item {number} has the kind {str(kind)[:40]!r}; known: {', '.join(sorted(kinds))}."
    if not _int(item.get("seq")) or item["seq"] < 0:
        return f"Item {number} ({kind}): seq must be a whole number."
    problem = _check_item(kind, item, sources)
    return f"Item {number} ({kind}): {problem}." if problem else None


# -- applying ----------------------------------------------------------------------------------


def prepare_items(store: Store, items: list[dict[str, Any]]) -> None:
    """Before the write transaction that applies `items`: the dictionaries their events are
    kept with (a hub keeps pushed events compressed, as ingest does; a record with its raw line
    kept plain would often outgrow an LMDB page)."""
    from .migrate import recompress

    for source in sorted({i["event"]["source"] for i in items if i["kind"] == "event"}):
        store.codec.prepare(source)
    if store.codec.recompress_due:  # a first dictionary: the records kept plain before it
        store.codec.recompress_due = False
        recompress(store)


def apply_items(
    store: Store, txn: lmdb.Transaction, items: list[dict[str, Any]], device: str | None = None
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

    def apply(self, item: dict[str, Any]) -> bool:
        handler: Callable[[dict[str, Any]], bool] = {
            "event": self.event,
            "session": self.session_item,
            "entry": lambda i: apply_version(self.store, self.txn, i["version"]),
            "tombstone": lambda i: apply_tombstone(self.store, self.txn, i["tombstone"]),
        }[item["kind"]]
        return handler(item)

    def session(self, source: str, name: str) -> SessionDoc:
        key = keys.session_key(source, name)
        found = self.sessions.get(key)
        if found is None:
            found = self.store.get(self.txn, "sessions", key) or new_session(source, name)
            self.sessions[key] = found
        return found

    def session_item(self, item: dict[str, Any]) -> bool:
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

    def event(self, item: dict[str, Any]) -> bool:
        store, txn = self.store, self.txn
        record = dict(item["event"])
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
            return True
        old = store.codec.decode(txn, key, old_raw)
        if hidden or all(old.get(f) == record.get(f) for f in _COMPARED):
            return False  # the same event again, or forgotten: its content is not stored again
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


def apply_version(store: Store, txn: lmdb.Transaction, version: dict[str, Any]) -> bool:
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


def apply_tombstone(store: Store, txn: lmdb.Transaction, doc: dict[str, Any]) -> bool:
    """Merge a tombstone into this store's: ids by union, `restored` once set stays set. An id
    is hidden while some tombstone that is not restored covers it."""
    key = doc["id"].encode()
    mine = store.get(txn, "tombstones", key)
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


def pull_items(store: Store, after: int, limit: int) -> tuple[list[dict[str, Any]], int, bool]:
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
    return items, last, more


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
    "pull_items",
    "session_doc",
]
