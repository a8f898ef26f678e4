"""Ephemeral mode's switch: while it is on, nothing new is recorded on this device.

The switch is a file, `ORIGIN_HOME/paused`, so that every process over the home (each agent's
`origin mcp`, the hub, a CLI command) sees it at once and it survives restarts: JSON
`{"since": <ISO 8601>, "until": <ISO 8601 or null>, "reason": <text or null>}`. Tools and ingest
passes ask `paused(home)` on every call, which costs one `stat` while the file is unchanged (what
was read is kept by the file's identity and mtime). A pause with an `until` ends by itself when
that time passes: `paused` stops answering it, and the file stays as the record of the window
until `origin resume` (or the next pause) replaces it, so whoever skips what was written during
the pause can still read when it was (`last`).

A flag that cannot be read (cut short, not JSON) counts as a pause with no end: someone asked
for nothing to be recorded, and recording anyway is the one mistake that cannot be undone.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import orjson

from ..system.durable import sync_dir, write_whole

#: The flag's file name under ORIGIN_HOME.
FLAG = "paused"
#: Why a flag that cannot be read counts as a pause.
UNREADABLE = "the pause flag could not be read"


@dataclass(frozen=True, slots=True)
class Pause:
    """One pause: from `since` to `until` (UTC epoch ms; None: until resumed), and why."""

    since: int
    until: int | None
    reason: str | None = None

    def active(self, now_ms: int | None = None) -> bool:
        now = _now() if now_ms is None else now_ms
        return self.until is None or now < self.until

    def as_dict(self) -> dict[str, str | None]:
        return {"since": iso(self.since), "until": iso(self.until), "reason": self.reason}


def iso(ms: int | None) -> str | None:
    """UTC ISO 8601 with milliseconds, as the flag keeps times."""
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")


def _ms(value: object) -> int | None:
    if not isinstance(value, str):
        raise ValueError("a time must be an ISO 8601 string")
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return int(parsed.timestamp() * 1000)


def _now() -> int:
    return int(time.time() * 1000)


def flag(home: Path) -> Path:
    return home / FLAG


#: Per flag path: the identity and mtime it was read at, and what it said.
_seen: dict[str, tuple[tuple[int, int, int, int], Pause | None]] = {}
_seen_lock = threading.Lock()


def last(home: Path) -> Pause | None:
    """The pause the flag records, in force or past its `until`; None without a flag."""
    where = flag(home)
    try:
        st = os.stat(where)
    except (FileNotFoundError, NotADirectoryError):
        return None  # no flag, or no home at all (a file in its place)
    except OSError:
        return Pause(_now(), None, UNREADABLE)
    stamp = (st.st_ino, st.st_dev, st.st_mtime_ns, st.st_size)
    key = str(where)
    cached = _seen.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    found = _read(where, st.st_mtime_ns // 1_000_000)
    with _seen_lock:
        _seen[key] = (stamp, found)
    return found


def _read(where: Path, mtime_ms: int) -> Pause | None:
    try:
        data = orjson.loads(where.read_bytes())
        if not isinstance(data, dict):
            raise ValueError("not an object")
        since = _ms(data.get("since"))
        until = _ms(data["until"]) if data.get("until") is not None else None
        reason = data.get("reason")
        return Pause(since or mtime_ms, until, reason if isinstance(reason, str) else None)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, OverflowError):
        return Pause(mtime_ms, None, UNREADABLE)


def paused(home: Path, now_ms: int | None = None) -> Pause | None:
    """The pause in force on this home, or None: what every recording path asks first."""
    found = last(home)
    return found if found is not None and found.active(now_ms) else None


def pause(
    home: Path, *, for_ms: int | None = None, reason: str | None = None, now_ms: int | None = None
) -> Pause:
    """Pause recording until resumed, or for `for_ms`. Pausing again while paused keeps when the
    pause began and sets its new end (and reason, when given)."""
    now = _now() if now_ms is None else now_ms
    current = paused(home, now)
    since = current.since if current is not None else now
    if reason is None and current is not None and current.reason != UNREADABLE:
        reason = current.reason
    made = Pause(since, now + for_ms if for_ms is not None else None, reason)
    _write(flag(home), orjson.dumps(made.as_dict()))
    _forget(home)
    return made


def resume(home: Path) -> Pause | None:
    """End the pause (in force or past its end): the flag is removed. Returns what it recorded."""
    found = last(home)
    try:
        os.unlink(flag(home))
    except FileNotFoundError:
        return None
    finally:
        _forget(home)
    sync_dir(home)
    return found


def _forget(home: Path) -> None:
    """This process changed the flag: its next look reads it, whatever the clock's tick."""
    with _seen_lock:
        _seen.pop(str(flag(home)), None)


def _write(where: Path, data: bytes) -> None:
    """Whole or not at all, on disk before this returns (`durable.write_whole`)."""
    where.parent.mkdir(parents=True, exist_ok=True)
    write_whole(where, data)
