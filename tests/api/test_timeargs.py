"""Time arguments in, local ISO 8601 out: the contract's forms and readable errors."""

from __future__ import annotations

import os
import time
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from origin_api.contract.timeargs import parse_time, render, render_event
from origin_api.errors import OriginError
from origin_store import bounds

NOW = 1_800_000_000_000


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("30m", NOW - 30 * 60_000),
        ("24h", NOW - 24 * 3_600_000),
        ("7d", NOW - 7 * 86_400_000),
        ("2w", NOW - 14 * 86_400_000),
        ("2026-10-20T09:12:30+08:00", 1792458750000),
        ("2026-10-20T01:12:30Z", 1792458750000),
        ("2026-10-20T01:12:30.500Z", 1792458750500),
    ],
)
def test_time_forms(value, expected):
    assert parse_time(value, "since", now_ms=NOW) == expected


@pytest.mark.parametrize(
    "value", ["yesterday", "7x", "-3d", "2026-13-01", "", "   ", "1e9", "7 days"]
)
def test_bad_times_are_readable_errors(value):
    with pytest.raises(OriginError) as caught:
        parse_time(value, "since", now_ms=NOW)
    assert caught.value.message.startswith("since ")


@pytest.fixture(
    params=["America/New_York", "Asia/Kathmandu", "America/St_Johns", "Europe/Dublin", "UTC"]
)
def zone(request):
    """Daylight saving, quarter- and half-hour offsets, and an offset with seconds (Dublin's
    mean time before 1916)."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = request.param
    time.tzset()
    yield
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=-2_500_000_000_000, max_value=4_000_000_000_000))
def test_render_matches_the_local_zone_across_daylight_saving(zone, ms):
    assert render(ms) == datetime.fromtimestamp(ms / 1000).astimezone().isoformat(
        timespec="milliseconds"
    )


def test_render_shape():
    assert render(None) is None
    text = render(1792458750000)
    assert len(text) == 29 and text[19] == "." and text[23] in "+-"


@pytest.mark.parametrize(
    ("ms", "shown"), [(0, None), (-1, render(-1)), (1, render(1)), (NOW, render(NOW))]
)
def test_an_event_without_a_time_is_shown_without_one(ms, shown):
    """The store keeps an event whose line has no time at 0: never shown as 1970."""
    assert render_event(ms) == shown


@pytest.fixture(params=["Pacific/Kiritimati", "Etc/GMT+12", "America/St_Johns", "Asia/Kolkata"])
def far_zone(request):
    """The zones furthest from UTC either way (+14:00, -12:00), and half-hour ones."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = request.param
    time.tzset()
    yield request.param
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()


def test_the_bounds_render_in_every_zone(far_zone):
    """Every time the store keeps renders in any local zone: the bounds are a day inside the
    years 1 to 9999, which an offset of up to a day cannot leave."""
    earliest, latest = render(bounds.TIME_MIN_MS), render(bounds.TIME_MAX_MS)
    assert earliest is not None and earliest.startswith("0001-01-0"), earliest
    assert latest is not None and latest.startswith("9999-12-3"), latest
    assert parse_time(latest, "valid_to") == bounds.TIME_MAX_MS
    assert parse_time(earliest, "valid_from") == bounds.TIME_MIN_MS


@pytest.mark.parametrize(
    "value",
    [
        "9999-12-31T12:00:00Z",
        "9999-12-31T23:59:59-14:00",
        "0001-01-01T00:00:00+14:00",
        "0001-01-01",
        "9999999w",
        "9999-12-30T23:59:59.999-00:01",
    ],
)
def test_times_no_front_door_can_render_are_refused(value, far_zone):
    """Kept as a valid_from, such a time broke every read that showed it (year 10000)."""
    with pytest.raises(OriginError) as caught:
        parse_time(value, "valid_from", now_ms=NOW)
    message = caught.value.message
    assert message.startswith("valid_from "), message
    assert "0001-01-02 and 9999-12-30" in message or "is not a time" in message, message
