"""Times in the agents' formats: the cached fast path agrees with the general parser."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from origin_store.model import ParseProblem
from origin_store.parsers.base import load_object, parse_time


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-10-20T09:14:03.118Z", 1792487643118),
        ("2026-10-20T09:14:03.118+08:00", 1792458843118),
        ("2026-10-20T09:14:03Z", 1792487643000),
        ("2026-13-20T09:14:03.118Z", None),
        ("2026-10-20T09:14:03.1x8Z", None),
        ("2026-10-20T09:60:03.118Z", None),
        ("2026-10-20T09:14:60.118Z", None),
        ("2026-10-20T24:14:03.118Z", None),
        ("2026-10-20T09:1\u0663:03.118Z", None),  # a non-ASCII digit
        ("1969-12-31T23:59:59.999Z", -1),
        (1792487643, 1792487643000),
        (1792487643118, 1792487643118),
        ("", None),
        (None, None),
        (True, None),
    ],
)
def test_parse_time_table(value, expected):
    assert parse_time(value) == expected


@given(st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2999, 12, 31)))
def test_fast_path_agrees_with_fromisoformat(moment):
    text = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    whole = datetime.fromisoformat(text[:19]).replace(tzinfo=UTC)
    expected = (
        int(whole.timestamp()) * 1000 + moment.microsecond // 1000
    )  # exact, no float rounding
    assert parse_time(text) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b"", None),
        (b"   ", None),
        (b"\t \r", None),
        (b"{}", {}),
        (b' {"a": 1} ', {"a": 1}),
        (b"[1]", ParseProblem("not-an-object", "list")),
        (b"{", "invalid-json"),
        (b'{"a": "\xff"}', {"a": "\ufffd"}),  # a stray byte inside a string: kept, replaced
        (b"\xff\xfe garbage", "invalid-json"),
    ],
)
def test_load_object_table(line, expected):
    got = load_object(line)
    if isinstance(expected, str):
        assert isinstance(got, ParseProblem) and got.reason == expected
    else:
        assert got == expected
