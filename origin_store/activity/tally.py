"""Activity figures kept at ingest: per day, source and project, and per session.

Why at ingest: the activity page answers from a few hundred small records instead of a scan of
every event (a million at the benchmark's size). Every writer of a new event (ingest's commit,
a sync batch's apply) adds it to a `Tally` and flushes it in the same write transaction as the
event, so a kill loses or repeats nothing, and an event already stored (a re-read, a copy, a
batch applied twice) is never tallied because its writer never stores it again.

What is counted is what was stored: a forgotten event stays counted (a forget hides words, not
the fact that work happened), and an event replaced by a newer version of its row moves from
its old figures to its new ones. Keys (database `activity`):

- `d` + day (u32, days since 1970-01-01 UTC; 0 for an event without a time) + source \\0
  project → events, sessions started, tokens in, of them cached, tokens out (5 × i64).
- `s` + source \\0 session → events, tokens in, cached, out, first and last time (6 × i64),
  then its project (UTF-8, as its first counted event named it).
- `e` + (2^63 - 1 - events) (u64) + source \\0 session → nothing: the sessions with most
  events first, so the busiest of a window are found by reading from the top, not every one.

A session is started on the day of the first of its events this store kept.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import lmdb

from ..core.db import Store
from ..core.lmdbio import raw_get

DAY_MS = 86_400_000
DAY = b"d"
SESSION = b"s"
#: The sessions by events, most first: `e` + (RANK_TOP - events) (u64) + source \0 session.
BUSY = b"e"
RANK = struct.Struct(">Q")
RANK_TOP = 2**63 - 1
#: Bytes of a project kept in a key (LMDB keys take at most 511).
PROJECT_BYTES = 300
_DAY = DAY_VALUE = struct.Struct("<5q")
_SESS = struct.Struct("<6q")
#: A session record's events and last time, read without the rest (the busiest sessions).
SESSION_HEAD = struct.Struct("<q32xq")
U32 = struct.Struct(">I")


def day_of(time: int) -> int:
    """Days since 1970-01-01 UTC; 0 for an unknown time (<= 0); a time past what a key holds
    (only a store's damaged record) on the last day it does."""
    return min(time // DAY_MS, 0xFFFFFFFF) if time > 0 else 0


def day_label(day: int) -> str:
    """A day (days since 1970-01-01 UTC) as 2026-11-02."""
    return (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(days=day)).strftime("%Y-%m-%d")


def day_key(day: int, source: str, project: str | None) -> bytes:
    name = (project or "").encode()[:PROJECT_BYTES]
    return DAY + U32.pack(day) + source.encode() + b"\0" + name


def split_day_key(key: bytes) -> tuple[int, str, str | None]:
    """(day, source, project or None) from a day key."""
    (day,) = U32.unpack(key[1:5])
    source, _, project = key[5:].partition(b"\0")
    return day, source.decode(), project.decode(errors="replace") or None


def session_key(source: str, session: str) -> bytes | None:
    """The session's key, or None for one whose name fills a key already (never counted)."""
    key = SESSION + f"{source}\0{session}".encode()
    return key if len(key) <= 511 else None


def unpack_day(value: bytes) -> tuple[int, int, int, int, int]:
    found: tuple[int, int, int, int, int] = _DAY.unpack(value)
    return found


def unpack_session(value: bytes) -> tuple[tuple[int, int, int, int, int, int], str | None]:
    """A session's figures and its project."""
    found: tuple[int, int, int, int, int, int] = _SESS.unpack_from(value)
    return found, value[_SESS.size :].decode(errors="replace") or None


def rank_key(events: int, skey: bytes) -> bytes | None:
    """A session's place among the busiest: most events first (None: no room in a key)."""
    key = BUSY + RANK.pack(RANK_TOP - events) + skey[1:]
    return key if len(key) <= 511 else None


def _rank(txn: lmdb.Transaction, db: Any, skey: bytes, before: int, after: int) -> None:
    """Move a session's `BUSY` key from its old count of events to its new one."""
    old = rank_key(before, skey) if before > 0 else None
    if old is not None:
        txn.delete(old, db=db)
    new = rank_key(after, skey) if after > 0 else None
    if new is not None:
        txn.put(new, b"", db=db)


def usage_of(record: Mapping[str, Any]) -> tuple[int, int, int]:
    """(in, cached, out) tokens an event record carries; zeros when it carries none."""
    usage = record.get("usage")
    if isinstance(usage, list) and len(usage) == 3 and all(type(n) is int for n in usage):
        return usage[0], usage[1], usage[2]
    return 0, 0, 0


class Tally:
    """What one write transaction adds to the figures, flushed into it once at the end."""

    def __init__(self) -> None:
        self.days: dict[bytes, list[int]] = {}
        #: session key -> [events, in, cached, out, first, last, the day key of its first
        #: event, its project]
        self.sessions: dict[bytes, list[Any]] = {}
        self._rows: dict[tuple[Any, ...], tuple[list[int], list[Any] | None]] = {}

    def add(self, record: Mapping[str, Any], sign: int = 1) -> None:
        """Count an event record (`sign` -1: take back a version a newer one replaces)."""
        time = record.get("time")
        when = time if type(time) is int and time > 0 else 0
        source, session, project = (
            record.get("source"),
            record.get("session"),
            record.get("project"),
        )
        # Most events of a batch share their day and session: their rows are made once.
        found = self._rows.get((when // DAY_MS, source, session, project))
        if found is None:
            found = self._rows[when // DAY_MS, source, session, project] = self._row(when, record)
        day, sess = found
        usage = record.get("usage")
        tin, cached, out = usage_of(record) if usage is not None else (0, 0, 0)
        day[0] += sign
        if sess is not None:
            sess[0] += sign
        if tin or cached or out:
            for row, at in ((day, 2), (sess, 1)):
                if row is not None:
                    row[at] += sign * tin
                    row[at + 1] += sign * cached
                    row[at + 2] += sign * out
        if sess is not None and sign > 0 and when:
            sess[4] = when if not sess[4] else min(sess[4], when)
            sess[5] = max(sess[5], when)

    def _row(self, when: int, record: Mapping[str, Any]) -> tuple[list[int], list[Any] | None]:
        """The day's and the session's rows an event adds to."""
        source, project = str(record.get("source")), record.get("project")
        key = day_key(day_of(when), source, project if isinstance(project, str) else None)
        day = self.days.setdefault(key, [0, 0, 0, 0, 0])
        skey = session_key(source, str(record.get("session")))
        if skey is None:
            return day, None
        sess = self.sessions.get(skey)
        if sess is None:
            sess = self.sessions[skey] = [0, 0, 0, 0, 0, 0, key, key[5:].partition(b"\0")[2]]
        return day, sess

    def flush(self, store: Store, txn: lmdb.Transaction) -> None:
        """Add what was tallied to the stored figures (in the events' own transaction)."""
        db = store.dbs["activity"]
        for skey, found in self.sessions.items():
            events, tin, cached, out, first, last, first_day, project = found
            raw = raw_get(txn, skey, db)
            if raw is None:
                self.days.setdefault(first_day, [0, 0, 0, 0, 0])[1] += 1
                kept = (0, 0, 0, 0, 0, 0)
            else:
                kept, project = _SESS.unpack_from(raw), raw[_SESS.size :]
            first = min(first, kept[4]) if first and kept[4] else first or kept[4]
            if events:
                _rank(txn, db, skey, kept[0], kept[0] + events)
            txn.put(
                skey,
                _SESS.pack(
                    kept[0] + events,
                    kept[1] + tin,
                    kept[2] + cached,
                    kept[3] + out,
                    first,
                    max(last, kept[5]),
                )
                + project,
                db=db,
            )
        for key, add in self.days.items():
            raw = raw_get(txn, key, db)
            kept_day = unpack_day(raw) if raw is not None else (0, 0, 0, 0, 0)
            txn.put(key, _DAY.pack(*(a + b for a, b in zip(kept_day, add, strict=True))), db=db)
        self.days.clear()
        self.sessions.clear()
        self._rows.clear()
