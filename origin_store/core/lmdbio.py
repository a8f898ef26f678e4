"""LMDB's values as bytes: the store begins its transactions with buffers=False, so LMDB hands
out bytes, never memoryviews; these helpers say so once, for the type checker, at no cost.

A module of its own so that what reads LMDB below the store (the upgrade of older layouts)
needs nothing of `db`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import lmdb

Pairs = Iterator[tuple[bytes, bytes]]


def pairs(cursor: lmdb.Cursor) -> Pairs:
    """A cursor's (key, value) pairs from where it stands."""
    return cast(Pairs, iter(cursor))


def cursor_key(cursor: lmdb.Cursor) -> bytes:
    return cast(bytes, cursor.key())


def cursor_value(cursor: lmdb.Cursor) -> bytes:
    return cast(bytes, cursor.value())


def raw_get(txn: lmdb.Transaction, key: bytes, db: Any) -> bytes | None:
    """A value's bytes, or None."""
    return cast("bytes | None", txn.get(key, db=db))


def prefixed(cursor: lmdb.Cursor, prefix: bytes) -> Pairs:
    """The pairs whose keys start with `prefix`, in key order."""
    if not cursor.set_range(prefix):
        return
    for key, value in pairs(cursor):
        if not key.startswith(prefix):
            return
        yield key, value
