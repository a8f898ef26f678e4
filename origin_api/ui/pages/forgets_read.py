"""The forgets as the store records them: tombstones, what each hid, and what still hides.

No tool lists forgets (the contract leaves undoing them to the user, from `origin restore` or
this UI), so these read the store's tombstones directly. What a tombstone hid is shown by id
only, never by text: a forget is often of something that should not be on a screen (a pasted
key), and its ids are enough to restore it and then open it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

import lmdb

from origin_store import Store
from origin_store.entries import versions as store_entries
from origin_store.records import TombstoneDoc

from ...contract.timeargs import render
from ...runtime import Origin

#: Tombstones on one page of the forgets list.
PAGE_SIZE = 100
#: The most ids of each kind a tombstone's page lists (an entry citing thousands of events).
MAX_IDS = 500


class TombstoneView(TypedDict):
    """A forget as the list shows it: times rendered, what it hid counted."""

    id: str
    target: str | None
    reason: str
    author: str
    created: str | None
    restored: str | None
    entries: int
    events: int


class IdState(TypedDict):
    """An id a forget hid, and the forget hiding it now (None: visible again)."""

    id: str
    hidden_by: str | None


class TombstoneDetail(TombstoneView):
    """A forget's own page: the ids it hid, each with what hides it now."""

    entry_ids: list[IdState]
    event_ids: list[IdState]


@dataclass(frozen=True)
class ForgetPage:
    tombstones: list[TombstoneView]  # newest first
    page: int
    pages: int
    total: int


def _view(record: TombstoneDoc) -> TombstoneView:
    return {
        "id": record["id"],
        "target": record.get("target"),
        "reason": record.get("reason") or "",
        "author": record.get("author") or "",
        "created": render(record.get("created")),
        "restored": render(record.get("restored")),
        "entries": len(record.get("entries") or []),
        "events": len(record.get("events") or []),
    }


def forget_page(origin: Origin, page: int = 1, size: int = PAGE_SIZE) -> ForgetPage:
    """Page `page` (1-based; past the end is the last) of the tombstones, newest first."""
    store = origin.store
    with store.read() as txn:
        records = store_entries.tombstones(store, txn)
    records.sort(key=lambda r: (r.get("created") or 0, r["id"]), reverse=True)
    pages = max(1, -(-len(records) // size))
    page = min(max(1, page), pages)
    shown = [_view(r) for r in records[(page - 1) * size : page * size]]
    return ForgetPage(shown, page, pages, len(records))


def tombstone(origin: Origin, tombstone_id: str) -> TombstoneDetail | None:
    """One tombstone with the ids it hid, each with the forget hiding it now (None: visible
    again; another tombstone's id: still hidden by that one)."""
    store = origin.store
    with store.read() as txn:
        record = store_entries.get_tombstone(store, txn, tombstone_id)
        if record is None:
            return None

        def states(ids: list[str]) -> list[IdState]:
            return [{"id": i, "hidden_by": _mark(txn, store, i)} for i in ids[:MAX_IDS]]

        return {
            **_view(record),
            "entry_ids": states(record.get("entries") or []),
            "event_ids": states(record.get("events") or []),
        }


def _mark(txn: lmdb.Transaction, store: Store, item_id: str) -> str | None:
    return store_entries.hidden_by(store, txn, item_id)


def hiding_tombstone(origin: Origin, item_id: str) -> str | None:
    """The forget that hides this entry or event now, if one does."""
    store = origin.store
    with store.read() as txn:
        if not store_entries.is_hidden(store, txn, item_id):
            return None
        return _mark(txn, store, item_id)
