"""How far the layers above have got, kept in the store's meta beside what they read.

The search index records how far into the feed it has committed (`indexed`) and how far a commit
in progress may reach (`indexing`, kept durably before the index's writer commits: a kill between
the two leaves documents up to there that the next catch-up replaces). The front door records
its last ingest pass of any process, so another process's freshness check can count on it. The
key names are the store's: a caller reads and writes these through the functions below.
"""

from __future__ import annotations

from typing import Any

import lmdb

from .core.db import Store

_INDEXED = "indexed_seq"
_INDEXING = "indexing_seq"
_LAST_PASS = "last_pass"


def indexed_seq(store: Store, txn: lmdb.Transaction) -> int:
    """The feed position the search index has committed everything up to."""
    return int(store.meta_get(txn, _INDEXED) or 0)


def indexing_seq(store: Store, txn: lmdb.Transaction) -> int:
    """The feed position a commit of the index in progress covers (0 when none has begun)."""
    return int(store.meta_get(txn, _INDEXING) or 0)


def note_indexed(store: Store, txn: lmdb.Transaction, seq: int) -> None:
    store.meta_put(txn, _INDEXED, seq)


def note_indexing(store: Store, txn: lmdb.Transaction, seq: int) -> None:
    store.meta_put(txn, _INDEXING, seq)


def last_pass(store: Store, txn: lmdb.Transaction) -> dict[str, Any] | None:
    """The record the last ingest pass of any process left, or None when none is recorded."""
    record = store.meta_get(txn, _LAST_PASS)
    return record if isinstance(record, dict) else None


def note_pass(store: Store, txn: lmdb.Transaction, record: dict[str, Any]) -> None:
    store.meta_put(txn, _LAST_PASS, record)
