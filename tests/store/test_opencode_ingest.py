"""OpenCode's sample database through the real store (LMDB, mirrors, row logs in a temporary
ORIGIN_HOME): read once, a part updated in place by OpenCode replaces its events and adds none,
a finished turn brings its words, the large output's file is mirrored as read, and `sources`
gives the row as it was read."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import DATA
from mirror_support import read_mirror_line
from test_parsers_opencode import make_db

from origin_api.samples import MAX_TEXT, iter_events
from origin_api.samples.formats import HOME, generate_formats
from origin_store import Ingester, Settings, Store
from origin_store.care.verify import verify
from origin_store.parsers.registry import SOURCES
from origin_store.reader import get_event, get_session, iter_sessions, session_event_ids
from origin_store.textclip import shown

T0 = make_db.T0
A = make_db.SESSION_A
Env = tuple[Settings, Path, Store, Ingester]


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    home = tmp_path / "home"
    database = Path(make_db.build(home))
    shutil.copytree(DATA / "memory" / "opencode", home / ".config" / "opencode")
    settings = Settings.from_env(
        {
            "HOME": str(home),
            "ORIGIN_HOME": str(tmp_path / "origin"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
        }
    )
    store = Store.open(settings.home, map_size=settings.map_size)
    yield settings, database, store, Ingester(store, settings, {"opencode": SOURCES["opencode"]})
    store.close()


def edit(database: Path, row_id: str, change: dict[str, Any], table: str = "part") -> None:
    """Merges `change` into a row's JSON data (one level deep), as OpenCode updates a row."""
    connection = sqlite3.connect(database)
    try:
        (text,) = connection.execute(f"SELECT data FROM {table} WHERE id = ?", (row_id,)).fetchone()
        data = json.loads(text)
        for key, value in change.items():
            data[key] = {**data[key], **value} if isinstance(value, dict) and key in data else value
        connection.execute(
            f"UPDATE {table} SET data = ?, time_updated = time_updated + 1 WHERE id = ?",
            (json.dumps(data, ensure_ascii=False), row_id),
        )
        connection.commit()
    finally:
        connection.close()


def ids(store: Store, session: str) -> list[str]:
    with store.read() as txn:
        return list(session_event_ids(store, txn, "opencode", session))


def text_of(store: Store, event_id: str) -> str | None:
    with store.read() as txn:
        event = get_event(store, txn, event_id)
    return None if event is None else event["text"]


def test_read_once_then_nothing_more(env: Env) -> None:
    _, _, store, ingester = env
    first = ingester.run()
    assert first.events > 30 and not first.errors and not first.problems
    again = ingester.run()
    assert again.events == 0 and again.files_changed == 0
    with store.read() as txn:
        session = get_session(store, txn, "opencode", A)
        child = get_session(store, txn, "opencode", make_db.SESSION_C)
    assert session is not None and session["title"] == "Throttle the beacon endpoint"
    assert child is not None and child["parent"] == A


def test_a_part_updated_in_place_replaces_its_event_and_adds_no_other(env: Env) -> None:
    _, database, store, ingester = env
    ingester.run()
    before = ids(store, A)
    running = f"opencode:{make_db.RUNNING_TOOL}"
    assert f"{running}:call" in before and f"{running}:result" not in before
    # The running command completes: its result comes, and nothing else changes.
    edit(
        database,
        make_db.RUNNING_TOOL,
        {
            "state": {
                "status": "completed",
                "output": "src/beacon.ts:9: reject(quartzline)\n",
                "metadata": {"output": "src/beacon.ts:9: reject(quartzline)\n", "exit": 0},
                "time": {"start": T0 + 62000, "end": T0 + 62500},
            }
        },
    )
    report = ingester.run()
    assert report.events == 1 and not report.errors
    assert set(ids(store, A)) - set(before) == {f"{running}:result"}
    assert "quartzline" in (text_of(store, f"{running}:result") or "")
    # The pending call gets its input and starts: its call comes.
    edit(
        database,
        make_db.PENDING_TOOL,
        {"state": {"status": "running", "input": {"pattern": "src/**/log*"}, "time": {"start": 1}}},
    )
    assert ingester.run().events == 1
    assert f"opencode:{make_db.PENDING_TOOL}:call" in ids(store, A)
    # The same call's input written again with other words replaces the call's event.
    edit(
        database,
        make_db.PENDING_TOOL,
        {
            "state": {
                "status": "running",
                "input": {"pattern": "src/**/audit*"},
                "time": {"start": 1},
            }
        },
    )
    assert ingester.run().events == 0
    assert "audit" in (text_of(store, f"opencode:{make_db.PENDING_TOOL}:call") or "")


def test_a_finished_turn_brings_its_text_and_its_tokens(env: Env) -> None:
    _, database, store, ingester = env
    ingester.run()
    edit(database, make_db.RUNNING_TEXT, {"text": "Rejected beacons are logged now (fernlog).",
         "time": {"start": T0 + 64000, "end": T0 + 65000}})  # fmt: skip
    edit(
        database,
        make_db.RUNNING_MESSAGE,
        {"time": {"completed": T0 + 66000}, "finish": "stop",
         "tokens": {"input": 50, "output": 9, "reasoning": 1, "cache": {"read": 7, "write": 0}}},
        table="message",
    )  # fmt: skip
    report = ingester.run()
    assert not report.errors
    assert text_of(store, f"opencode:{make_db.RUNNING_TEXT}") == (
        "Rejected beacons are logged now (fernlog)."
    )
    assert report.events == 2  # the answer and the reasoning, now whole


def test_sources_give_the_row_and_the_output_file_as_read(env: Env) -> None:
    settings, database, store, ingester = env
    ingester.run()
    with store.read() as txn:
        result = get_event(store, txn, f"opencode:{make_db.LARGE_TOOL}:result")
        head = get_event(store, txn, f"opencode:{make_db.LARGE_TOOL}:output#0")
        cursor = store.get(txn, "files", str(database).encode())
    assert result is not None and head is not None and cursor is not None
    row = read_mirror_line(store, settings.home, cursor["mirror"]["id"], result["line"])
    assert row is not None
    raw = orjson.loads(row)
    assert (raw["table"], raw["key"]) == ("part", make_db.LARGE_TOOL)
    assert raw["row"]["session"] == A and json.loads(raw["row"]["data"])["tool"] == "bash"
    output = read_mirror_line(store, settings.home, cursor["mirror"]["id"], head["line"])
    assert output is not None
    whole = orjson.loads(output)
    assert whole["table"] == "file" and whole["key"].endswith(make_db.OUTPUT_NAME)
    assert whole["row"]["text"] == make_db.large_output()
    assert head["line"] == result["line"] + 1  # right after the row that names it
    assert verify(store, settings.home).ok


def test_the_global_instructions_are_a_memory_file(env: Env) -> None:
    _, _, store, ingester = env
    ingester.run()
    with store.read() as txn:
        found = [
            event
            for session in iter_sessions(store, txn)
            for i in session_event_ids(store, txn, session["source"], session["session"])
            if (event := get_event(store, txn, i)) is not None and "harborrule" in event["text"]
        ]
    assert [(e["source"], e["kind"]) for e in found] == [("opencode", "memory")]


def test_the_generated_corpus_is_stored_as_its_writer_wrote_it(tmp_path: Path) -> None:
    """origin_api/samples/opencode.py, which the kill test reads: event for event, as written."""
    corpus = tmp_path / "corpus"
    [info] = generate_formats(corpus, 400, seed=3, sources=("opencode",)).values()
    settings = Settings.from_env({"HOME": str(corpus / HOME), "ORIGIN_HOME": str(tmp_path / "o")})
    store = Store.open(settings.home)
    try:
        report = Ingester(store, settings, SOURCES).run()
        assert report.events == info.events == 400 and not report.problems
        written = {row[0]: row for row in iter_events(corpus)}
        with store.read() as txn:
            for event_id, row in written.items():
                event = get_event(store, txn, event_id)
                assert event is not None, event_id
                assert (event["session"], event["kind"], event["role"], event["time"]) == tuple(
                    row[4:8]
                )
                assert shown(event, MAX_TEXT) == row[1], event_id
    finally:
        store.close()
