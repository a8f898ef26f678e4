"""The bounds in `origin_store.bounds` against a real LMDB store: a name at its bound is kept
in every key it becomes part of, one byte more is refused, and the times at the bounds are
years 1 to 9999 in any zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import lmdb
import pytest

from origin_store import Store, bounds
from origin_store.core import keys

LONGEST_ENTRY = "ent_" + "f" * 32


def _put(store: Store, db: str, key: bytes, value: bytes = b"") -> None:
    store.write(lambda txn: txn.put(key, value, db=store.dbs[db]))


@pytest.fixture
def store(tmp_path: Path):
    opened = Store.open(tmp_path, map_size=1 << 22)
    yield opened
    opened.close()


def test_the_longest_event_id_is_kept_and_cited(store: Store) -> None:
    event_id = "claude-code:" + "é" * ((bounds.EVENT_ID_BYTES - len("claude-code:")) // 2)
    assert bounds.utf8(event_id) == bounds.EVENT_ID_BYTES and bounds.event_id_fits(event_id)
    assert len(LONGEST_ENTRY) == bounds.ENTRY_ID_BYTES
    _put(store, "hidden", keys.text_key(event_id))
    _put(store, "cites", keys.cite_key(event_id, LONGEST_ENTRY))
    _put(store, "sess_events", b"s", keys.session_event_value(1, event_id.encode()))
    longer = event_id + "a"
    assert not bounds.event_id_fits(longer)
    with pytest.raises(lmdb.BadValsizeError):
        _put(store, "cites", keys.cite_key(longer, LONGEST_ENTRY))


@pytest.mark.parametrize("source", ["mcp", "claude-code", "s" * 40])
def test_the_longest_session_is_kept_and_one_byte_more_is_not(store: Store, source: str) -> None:
    session = "漢" * (bounds.session_bytes(source) // 3)
    session += "a" * (bounds.session_bytes(source) - bounds.utf8(session))
    assert bounds.session_fits(source, session)
    _put(store, "sessions", keys.session_key(source, session), b"{}")
    _put(store, "sess_seqs", keys.session_key(source, session), keys.session_seq_value(1, 1))
    assert not bounds.session_fits(source, session + "a")
    with pytest.raises(lmdb.BadValsizeError):
        _put(store, "sessions", keys.session_key(source, session + "a"), b"{}")


def test_a_cwd_fits_a_key_up_to_511_bytes(store: Store) -> None:
    cwd = "/" + "d" * (bounds.KEY_BYTES - 1)
    assert bounds.cwd_fits(cwd) and not bounds.cwd_fits(cwd + "d")
    _put(store, "cwds", cwd.encode())


@pytest.mark.parametrize("hours", [-24, -12, 0, 14, 24])
def test_the_time_bounds_are_years_1_to_9999_at_any_offset(hours: int) -> None:
    offset = timedelta(hours=hours)
    for ms in (bounds.TIME_MIN_MS, bounds.TIME_MAX_MS):
        moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms) + offset
        assert 1 <= moment.year <= 9999
    assert not bounds.time_fits(bounds.TIME_MIN_MS - 1)
    assert not bounds.time_fits(bounds.TIME_MAX_MS + 1)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("a:" + "i" * 500, "a", "s", 0), "its id is 502 bytes"),
        (("a:1", "a", "漢" * 200, 0), "its session is 600 bytes"),
        (("a:1", "a", "s", 2**62), "its time must be between"),
        (("a:1", "a", "s", 0), None),
    ],
)
def test_why_an_event_cannot_be_stored(args: tuple[str, str, str, int], words: str | None):
    found = bounds.unstorable(*args)
    assert found is None if words is None else found is not None and words in found
