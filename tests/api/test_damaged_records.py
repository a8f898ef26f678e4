"""A stored record that cannot be read is a counted, reported problem: a real `origin mcp`
that meets it while catching its index up goes on answering (search, timeline, get), the
record's own `get` says what is wrong, and `origin status`, `origin doctor` and `origin verify`
report it. Before, the index's catch-up raised CodecError out of the process, whose client saw
its connection closed and every later call fail."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from helpers import fixture_env
from mcp_client import run_origin, stdio_client, tool_error, tool_json

from origin_store import Ingester, Settings, Store
from origin_store.core.codec import ZSTD_ID
from origin_store.core.keys import u64
from origin_store.core.recordids import id_before_frame
from origin_store.parsers.registry import SOURCES
from origin_store.reader import iter_sessions, session_event_ids


def _damage_one(env: dict[str, str]) -> tuple[str, str]:
    """Ingest the samples (no index yet) and damage the record of one event of a Claude Code
    session, as a frame compressed with a dictionary this store does not hold reads: its head
    (the id) intact, its frame unreadable. The event's id and its session."""
    settings = Settings.from_env(env)
    store = Store.open(settings.home)
    try:
        assert Ingester(store, settings, SOURCES).run().events > 200
        assert store.seq_ids
        with store.read() as txn:
            session = next(
                s
                for s in iter_sessions(store, txn)
                if s["source"] == "claude-code" and s["events"] > 3
            )
            event_id = list(session_event_ids(store, txn, "claude-code", session["session"]))[2]
            seq = store.event_seq(txn, event_id)
        assert seq is not None
        kept = id_before_frame(event_id)
        assert kept is not None
        value = bytes([ZSTD_ID]) + (4242).to_bytes(4, "big") + kept + b"\x28\xb5 not a frame"
        store.write(lambda txn: txn.put(u64(seq), value, db=store.dbs["ev"]))
    finally:
        store.close()
    return event_id, session["session"]


@pytest.mark.e2e
def test_a_damaged_record_is_reported_and_never_ends_the_server(tmp_path: Path):
    env = fixture_env(tmp_path)
    env["ORIGIN_SEARCH_INGEST_INTERVAL_MS"] = "0"
    damaged, session = _damage_one(env)

    async def scenario() -> None:
        async with stdio_client(env) as client:
            # The first search catches the index up over every record, the damaged one too.
            found = await tool_json(client, "search", {"query": "rate limiter"})
            assert found["events"], found
            assert damaged not in {hit["id"] for hit in found["events"]}
            line = await tool_json(
                client, "timeline", {"session": session, "include_tools": True, "limit": 100}
            )
            shown = [event["id"] for event in line["events"]]
            assert damaged not in shown and len(shown) >= 3
            said = await tool_error(client, "get", {"id": damaged})
            assert f"The stored record of {damaged} cannot be read" in said
            assert "origin verify" in said
            # The same process answers on.
            again = await tool_json(client, "search", {"query": "rate limiter"})
            assert again["events"] == found["events"]

    asyncio.run(scenario())

    status = json.loads(run_origin(env, "status", "--json", timeout=120).stdout)
    assert status["damaged_records"] == 1
    doctor = run_origin(env, "doctor", timeout=120)
    assert "1 stored records cannot be read" in doctor.stdout, doctor.stdout
    verified = run_origin(env, "verify", timeout=120)
    assert verified.returncode == 1
    assert "does not decode" in verified.stdout and "unknown dictionary 4242" in verified.stdout
