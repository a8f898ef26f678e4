"""Event records that cannot be read: counted and reported, never the end of what reads them.

A record that no longer decodes (a damaged frame, a dictionary that is gone) must not stop the
index's catch-up, a search, a timeline or the process serving them: the readers that meet one
pass over it and note its id here, in `meta`, where `origin status` and `origin doctor` show
it; `origin verify` reads every record and names each damaged one, and clears the note when it
finds none."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict

import lmdb

from ..core.db import Store

KEY = "damaged_records"
#: Ids kept in the note; past this many, only the count grows.
KEPT = 100


class Noted(TypedDict):
    count: int
    ids: list[str]


def note(store: Store, ids: Iterable[str]) -> None:
    """Add these records' ids to the note (each counted once while it is among those kept)."""
    found = list(dict.fromkeys(ids))
    if found:
        store.write(lambda txn: _add(store, txn, found))


def _add(store: Store, txn: lmdb.Transaction, ids: list[str]) -> None:
    noted = noted_in(store, txn) or {"count": 0, "ids": []}
    new = [i for i in ids if i not in noted["ids"]]
    if not new:
        return
    noted["count"] += len(new)
    noted["ids"] = (noted["ids"] + new)[:KEPT]
    store.meta_put(txn, KEY, noted)


def noted_in(store: Store, txn: lmdb.Transaction) -> Noted | None:
    """The note: how many damaged records readers met, and the first ids; None when none."""
    found = store.meta_get(txn, KEY)
    if not isinstance(found, dict) or not isinstance(found.get("ids"), list):
        return None
    return {"count": int(found.get("count", 0)), "ids": [str(i) for i in found["ids"]]}


def clear(store: Store) -> None:
    """Forget the note (a full verify found no damaged record)."""
    store.write(lambda txn: txn.delete(KEY.encode(), db=store.dbs["meta"]))
