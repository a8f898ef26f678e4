"""What a row log remembers of each row it read: a digest per row, in 24 to 48 bytes.

A database read through a row log is read whole at every change, and only the rows whose digest
differs from the last read are appended. Kept as a dict of identity strings to digests, that
memory was ~190 bytes a row, held by the process for the whole read: 190 MB for a database of a
million rows (zcode keeps every session in one). Here a row is an 8-byte hash of its identity
and an 8-byte digest of what was read, in two arrays used as one open-addressing table (a
third to two thirds full): 24 to 48 bytes a row, nothing allocated per row, loaded and saved as
two byte strings. A 64-bit identity hash that two rows of one database share (about 3 in 10^8 for a
million rows) would only make both rows be written again at each read, never lose one.
"""

from __future__ import annotations

import hashlib
from array import array
from typing import Any

#: Version of the saved form; 1 was a dict of identities to 12-byte digests.
VERSION = 2
_EMPTY = 0
_SMALLEST = 8


def identity_key(identity: str) -> int:
    """A row's identity as a non-zero 64-bit number (zero marks an empty slot)."""
    key = int.from_bytes(hashlib.blake2b(identity.encode(), digest_size=8).digest(), "big")
    return key or 1


def digest(data: bytes) -> int:
    """What tells that a row changed: the first 8 bytes of its 12-byte BLAKE2b digest, which
    is what version 1 kept whole, so an older row log's digests carry over unchanged."""
    return int.from_bytes(hashlib.blake2b(data, digest_size=12).digest()[:8], "big")


class Digests:
    """Each row's digest as last read."""

    __slots__ = ("_keys", "_values", "_count")

    def __init__(self, capacity: int = _SMALLEST) -> None:
        size = _SMALLEST
        while size * 2 < capacity * 3:
            size *= 2
        self._keys: array[int] = array("Q", bytes(8 * size))
        self._values: array[int] = array("Q", bytes(8 * size))
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def changed(self, identity: str, value: int) -> bool:
        """Whether `identity` was last read with another digest (or never); remembers `value`."""
        return self._put(identity_key(identity), value)

    def _put(self, key: int, value: int) -> bool:
        keys = self._keys
        mask = len(keys) - 1
        i = key & mask
        while True:
            found = keys[i]
            if found == key:
                if self._values[i] == value:
                    return False
                self._values[i] = value
                return True
            if found == _EMPTY:
                break
            i = (i + 1) & mask
        keys[i] = key
        self._values[i] = value
        self._count += 1
        if self._count * 3 > len(keys) * 2:
            self._grow()
        return True

    def _grow(self) -> None:
        old_keys, old_values = self._keys, self._values
        size = len(old_keys) * 2
        self._keys = array("Q", bytes(8 * size))
        self._values = array("Q", bytes(8 * size))
        self._count = 0
        for key, value in zip(old_keys, old_values, strict=True):
            if key != _EMPTY:
                self._put(key, value)

    def state(self) -> dict[str, Any]:
        """The saved form (marshal-able): the table as it is."""
        return {
            "version": VERSION,
            "keys": self._keys.tobytes(),
            "values": self._values.tobytes(),
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Digests | None:
        """The digests saved by `state`, or by version 1; None for anything else."""
        version = state.get("version")
        if version == VERSION:
            found = cls()
            keys, values = array("Q"), array("Q")
            try:
                keys.frombytes(state["keys"])
                values.frombytes(state["values"])
            except (KeyError, TypeError, ValueError):
                return None
            size = len(keys)
            if size != len(values) or size < _SMALLEST or size & (size - 1):
                return None
            count = size - keys.count(_EMPTY)
            if count * 3 > size * 2:
                return None
            found._keys, found._values, found._count = keys, values, count
            return found
        rows = state.get("rows")
        if version == 1 and isinstance(rows, dict):
            found = cls(len(rows))
            for identity, old in rows.items():
                if isinstance(identity, str) and isinstance(old, bytes) and len(old) >= 8:
                    found.changed(identity, int.from_bytes(old[:8], "big"))
            return found
        return None
