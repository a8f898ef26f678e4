"""The store's readers of a session's place-keeping, against the plain list of its events: an
event's position and a window of ids from the event list alone, the events before a time, and
sessions by the start of their id."""

from __future__ import annotations

from pathlib import Path

from helpers import ingested_store

from origin_store.reader import (
    get_event,
    iter_sessions,
    session_event_count,
    session_event_ids,
    session_event_ids_in,
    session_event_position,
    session_events_before,
    sessions_with_parent,
    sessions_with_prefix,
)


def test_positions_windows_and_times_agree_with_the_event_list(tmp_path: Path) -> None:
    store = ingested_store(tmp_path)
    try:
        with store.read() as txn:
            sessions = list(iter_sessions(store, txn))
            checked = 0
            for s in sessions:
                source, name = s["source"], s["session"]
                ids = list(session_event_ids(store, txn, source, name))
                assert session_event_count(store, txn, source, name) == len(ids)
                assert session_event_ids_in(store, txn, source, name, 1, 4) == ids[1:4]
                for n, event_id in enumerate(ids):
                    assert session_event_position(store, txn, source, name, event_id) == (
                        n,
                        len(ids),
                    )
                    event = get_event(store, txn, event_id)
                    assert event is not None
                    before = session_events_before(store, txn, source, name, event["time"], 50)
                    # Every event at or before its time, newest first: it is among them.
                    assert event_id in before
                    assert before == [i for i in reversed(ids) if i in before]
                    checked += 1
            assert checked > 200
            other = sessions[0]
            elsewhere = next(s for s in sessions if s["session"] != other["session"])
            foreign = next(session_event_ids(store, txn, elsewhere["source"], elsewhere["session"]))
            assert (
                session_event_position(store, txn, other["source"], other["session"], foreign)[0]
                is None
            )
            assert session_events_before(store, txn, other["source"], other["session"], -5, 3) == []
    finally:
        store.close()


def test_sessions_by_the_start_of_their_id(tmp_path: Path) -> None:
    store = ingested_store(tmp_path)
    try:
        with store.read() as txn:
            parent = "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10"
            agents = sessions_with_prefix(store, txn, "claude-code", f"{parent}/agent-", 10)
            assert [s["session"] for s in agents] == [f"{parent}/agent-a3f9c2e1b7d40568"]
            both = sessions_with_prefix(store, txn, "claude-code", "7f3c9a52", 10)
            assert [s["session"] for s in both] == [parent, f"{parent}/agent-a3f9c2e1b7d40568"]
            assert (
                sessions_with_prefix(store, txn, "claude-code", "7f3c9a52", 1)[0]["session"]
                == parent
            )
            assert sessions_with_prefix(store, txn, "codex", "7f3c9a52", 10) == []
            for source in ("claude-code", "codex", "grok", "zcode", "cursor"):
                named = [s for s in iter_sessions(store, txn) if s["source"] == source]
                with_parent = sessions_with_parent(store, txn, source)
                assert with_parent == [s for s in named if s["parent"]]
            assert len(sessions_with_parent(store, txn, "codex")) == 1
    finally:
        store.close()
