"""Time arguments in (`30m`, `24h`, `7d`, `2w`, a date, ISO 8601) and times out (local ISO 8601).

Inside Origin every time is UTC epoch milliseconds; only these two functions see anything else.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, date, datetime, timedelta, timezone

from origin_store import bounds

from ..errors import invalid

_RELATIVE = re.compile(r"^(\d{1,7})\s*([mhdw])$")
_UNIT_MS = {"m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 7 * 86_400_000}


def parse_time(value: str, name: str, *, now_ms: int | None = None) -> int:
    """UTC epoch ms for a time argument; a readable error naming the argument otherwise."""
    if not isinstance(value, str) or not value.strip():
        raise invalid(
            f"{name} must be a time such as 30m, 24h, 7d, 2w, 2026-10-20 or 2026-10-20T09:12:30+08:00."
        )
    text = value.strip()
    try:
        result = _parsed(text, now_ms)
    except (ValueError, OverflowError, OSError):
        raise invalid(
            f"{name} is not a time: {value[:80]!r}. Use 30m, 24h, 7d or 2w (back from now), "
            "a date such as 2026-10-20, or ISO 8601 such as 2026-10-20T09:12:30+08:00."
        ) from None
    if not bounds.time_fits(result):  # kept, it would break every read that shows it
        raise invalid(f"{name} must be a time {bounds.TIME_RANGE}; got {value[:80]!r}.")
    return result


def _parsed(text: str, now_ms: int | None) -> int:
    match = _RELATIVE.match(text)
    if match:
        now = int(time.time() * 1000) if now_ms is None else now_ms
        return now - int(match.group(1)) * _UNIT_MS[match.group(2)]
    if len(text) == 10 and text[4] == "-":
        day = date.fromisoformat(text)
        return int(datetime(day.year, day.month, day.day).astimezone().timestamp() * 1000)
    parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    if parsed.tzinfo is None:
        parsed = parsed.astimezone()  # a naive time is the server's local time
    return int(parsed.timestamp() * 1000)


def optional_time(value: str | None, name: str, now_ms: int) -> int | None:
    """A time argument the caller may leave out (blank ones are refused when validated)."""
    return parse_time(value, name, now_ms=now_ms) if value else None


#: Per zone and quarter hour: the UTC offset in ms and how ISO 8601 spells it ("+08:00").
_OFFSETS: dict[tuple[tuple[str, str], int], tuple[int, str]] = {}
#: Day number since 1970-01-01 (local) → "YYYY-MM-DD".
_DAYS: dict[int, str] = {}
_QUARTER_HOUR_MS = 900_000
_DAY_MS = 86_400_000
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def render(ms: int | None) -> str | None:
    """ISO 8601 in the server's local time zone, milliseconds and offset, e.g.
    2026-10-20T09:12:30.000+08:00 (TZ honoured).

    Every result renders its times, so the zone's offset is looked up once per quarter hour of
    time (zone transitions fall on quarter hours) instead of once per value, and the rest is
    integer arithmetic: 1.2 µs a value instead of 1.9 µs for a datetime, with the same
    text (a test compares the two).
    """
    if ms is None:
        return None
    bucket = ms // _QUARTER_HOUR_MS
    key = (time.tzname, bucket)  # a TZ change (time.tzset) must not reuse offsets
    zone = _OFFSETS.get(key)
    if zone is None:
        zone = _OFFSETS[key] = _zone_at(bucket * _QUARTER_HOUR_MS)
    offset_ms, suffix = zone
    day, rest = divmod(ms + offset_ms, _DAY_MS)
    day_text = _DAYS.get(day)
    if day_text is None:
        if len(_DAYS) > 100_000:
            _DAYS.clear()
        day_text = _DAYS[day] = date.fromordinal(day + _EPOCH_ORDINAL).isoformat()
    hours, rest = divmod(rest, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    return f"{day_text}T{hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}{suffix}"


#: An event whose log line carries no time (Claude Code's `mode` and `permission-mode` lines
#: before any other) is kept at this time or before, and its session's range leaves it out
#: (`model.widen`): it is shown with no time, never as 1 January 1970.
NO_TIME = 0


def render_event(ms: int) -> str | None:
    """An event's time as `render` writes it, or None for an event without one (kept at 0;
    a time before 1970 is a time like any other)."""
    return None if ms == NO_TIME else render(ms)


def _zone_at(ms: int) -> tuple[int, str]:
    if len(_OFFSETS) > 100_000:
        _OFFSETS.clear()
    local = datetime.fromtimestamp(ms / 1000, tz=UTC).astimezone()
    offset = local.utcoffset() or timedelta(0)
    # The offset as datetime.isoformat writes it, including seconds where a zone has them.
    suffix = local.replace(tzinfo=timezone(offset)).isoformat(timespec="milliseconds")[23:]
    return offset // timedelta(milliseconds=1), suffix
