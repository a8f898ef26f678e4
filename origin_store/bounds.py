"""What the store can hold: names in bytes of UTF-8 and times in milliseconds, in one place.

LMDB refuses a key (and a value of a database with sorted duplicates) longer than 511 bytes,
and it refuses it only when the write transaction that puts it runs: a name that passed a check
counted in characters then fails every write of the batch it is in. So every name that becomes
part of a key is bounded here in bytes, from the layouts in `keys`:

- an event id is a key (`hidden`, `ev_ids`) and the head of a `cites` key, event id \\0 entry
  id, whose entry id takes up to ENTRY_ID_BYTES: EVENT_ID_BYTES is what is left of 511;
- a session is `sessions`' and `sess_events`' key, source \\0 session;
- a cwd is a `cwds` key (where project memory files are looked for): one that does not fit is
  kept with its session and events but not listed there.

Times are bounded to what every front door renders: years 1 to 9999 in UTC and in any local
time zone (a day's margin at each end, so an offset of up to a day cannot leave the range).
"""

from __future__ import annotations

from datetime import UTC, datetime

#: LMDB's longest key (and value of a database with sorted duplicates), in bytes.
KEY_BYTES = 511
#: An entry id: `ent_` and at most 32 hex characters.
ENTRY_ID_BYTES = 36
#: An event id, so that any entry can cite it (`keys.cite_key`).
EVENT_ID_BYTES = KEY_BYTES - 1 - ENTRY_ID_BYTES
#: The earliest and the latest time kept: 0001-01-02T00:00:00.000Z and 9999-12-30T23:59:59.999Z.
TIME_MIN_MS = int(datetime(1, 1, 2, tzinfo=UTC).timestamp() * 1000)
TIME_MAX_MS = int(datetime(9999, 12, 31, tzinfo=UTC).timestamp() * 1000) - 1
#: How the bounds read in a message.
TIME_RANGE = "between 0001-01-02 and 9999-12-30 (UTC)"


def utf8(text: str) -> int:
    """The bytes `text` takes in a key (a lone surrogate counts as the 3 bytes it escapes to)."""
    return len(text.encode("utf-8", "surrogatepass"))


def event_id_fits(event_id: str) -> bool:
    return utf8(event_id) <= EVENT_ID_BYTES


def session_bytes(source: str) -> int:
    """The longest session name, in bytes, a session of `source` can have."""
    return KEY_BYTES - 1 - utf8(source)


def session_fits(source: str, session: str) -> bool:
    if (len(source) + len(session)) * 4 < KEY_BYTES:  # at most 4 bytes a character
        return True
    return utf8(session) <= session_bytes(source)


def cwd_fits(cwd: str) -> bool:
    return utf8(cwd) <= KEY_BYTES


def time_fits(ms: int) -> bool:
    return TIME_MIN_MS <= ms <= TIME_MAX_MS


def unstorable(event_id: str, source: str, session: str, time: int) -> str | None:
    """Why an event cannot be stored as it is, or None (what ingest and a push both check).
    Ingest asks this once per event: names short enough in characters (at most 4 bytes each)
    are not encoded."""
    if (
        len(event_id) * 4 <= EVENT_ID_BYTES
        and (len(source) + len(session)) * 4 < KEY_BYTES
        and TIME_MIN_MS <= time <= TIME_MAX_MS
    ):
        return None
    if not event_id_fits(event_id):
        return f"its id is {utf8(event_id):,} bytes of UTF-8; at most {EVENT_ID_BYTES} fit"
    if not session_fits(source, session):
        return (
            f"its session is {utf8(session):,} bytes of UTF-8; with its source, at most "
            f"{session_bytes(source)} fit"
        )
    if not time_fits(time):
        return f"its time must be {TIME_RANGE}"
    return None
