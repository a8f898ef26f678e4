"""Time arguments in, local ISO 8601 out: the contract's forms and readable errors."""

from __future__ import annotations

import os
import time
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from origin_api.errors import OriginError
from origin_api.timeargs import parse_time, render, render_event

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
    ("ms", "shown"), [(0, None), (-1, None), (1, render(1)), (NOW, render(NOW))]
)
def test_an_event_without_a_time_is_shown_without_one(ms, shown):
    """The store keeps an event whose line has no time at 0: never shown as 1970."""
    assert render_event(ms) == shown
