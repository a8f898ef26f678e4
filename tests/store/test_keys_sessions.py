"""The session index's layout (schema 3): one key per session, its events as sorted values, and
the schema-2 keys it replaces split into the same."""

from __future__ import annotations

from origin_store.core import keys


def test_session_event_values_sort_by_time_then_id() -> None:
    made = [
        keys.session_event_value(when, f"codex:{n}".encode())
        for n, when in enumerate([5, -3, 2**40, 0, 5])
    ]
    assert [keys.session_event_value_id(v) for v in sorted(made)] == [
        "codex:1",
        "codex:3",
        "codex:0",
        "codex:4",
        "codex:2",
    ]


def test_an_old_key_splits_into_the_new_key_and_value() -> None:
    old = keys.session_event_key("codex", "s\u00e91", 7, b"codex:abc")
    session, value = keys.split_session_event_key(old)
    assert session == keys.session_key("codex", "s\u00e91")
    assert value == keys.session_event_value(7, b"codex:abc")
    # A time whose bytes hold zeros splits at the session's end all the same.
    old = keys.session_event_key("codex", "s1", 256, b"x")
    assert keys.split_session_event_key(old) == (b"codex\0s1", keys.session_event_value(256, b"x"))
