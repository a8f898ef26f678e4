"""Key layouts: what is built parses back, and keys sort the way the readers rely on."""

from __future__ import annotations

import pytest

from origin_store.core import keys


def test_session_event_keys_sort_by_time_within_their_session() -> None:
    prefix = keys.session_events_prefix("codex", "s1")
    made = [
        keys.session_event_key("codex", "s1", when, f"codex:{n}".encode())
        for n, when in enumerate([300, -5, 2**40, 7])
    ]
    assert all(key.startswith(prefix) for key in made)
    assert [keys.session_event_id(prefix, key) for key in sorted(made)] == [
        "codex:1",
        "codex:3",
        "codex:0",
        "codex:2",
    ]
    assert not keys.session_event_key("codex", "s10", 1, b"x").startswith(prefix)


def test_mirror_line_keys() -> None:
    key = keys.mirror_line_key(7, 12345)
    assert key.startswith(keys.mirror_key(7)) and len(keys.mirror_key(7)) == keys.MIRROR_ID_BYTES
    assert keys.line_of(key) == 12345
    assert sorted(
        [keys.mirror_line_key(2, 1), keys.mirror_line_key(1, 300), keys.mirror_line_key(1, 20)]
    ) == [
        keys.mirror_line_key(1, 20),
        keys.mirror_line_key(1, 300),
        keys.mirror_line_key(2, 1),
    ]


@pytest.mark.parametrize(("mirror", "line"), [(0, 0), (7, 12345), (2**32 - 1, 2**63)])
def test_a_mirror_line_key_gives_back_its_mirror(mirror: int, line: int) -> None:
    """`reader.problems` names a problem's mirror by id; the status page shows an unknown one as
    the hex of its key, which the id's eight hex digits are."""
    key = keys.mirror_line_key(mirror, line)
    assert (keys.mirror_of(key), keys.line_of(key)) == (mirror, line)
    assert f"{keys.mirror_of(key):08x}" == keys.mirror_key(mirror).hex()


def test_feed_and_cite_keys() -> None:
    assert keys.feed_seq(keys.feed_key(2**33 + 5)) == 2**33 + 5
    assert keys.feed_key(9) < keys.feed_key(10)
    prefix = keys.cites_prefix("claude-code:a")
    assert keys.cite_entry_id(prefix, keys.cite_key("claude-code:a", "ent_1")) == "ent_1"
    assert keys.session_key("codex", "s1") == b"codex\0s1"
