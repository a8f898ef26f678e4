"""The zcode database as it changes under the reader: a turn read while it runs and again once
it is done, a title renamed, broken rows, and a read while ZCode holds a write transaction open.
Rows are read with the real reader (ingest/rowlog.read_database); a row's line is kept only when
it is new or its values changed, which is what the engine appends to the row log."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from parse_support import events, merged
from test_parsers_zcode import make_db, parse_lines, read

from origin_store.ingest.rowlog import read_database
from origin_store.model import EventRecord, ParseProblem, Record, SessionFact
from origin_store.parsers.zcode import source as zcode

T0 = make_db.T0


class RowLog:
    """The lines the engine would append over successive reads of one database."""

    def __init__(self) -> None:
        self.seen: dict[str, bytes] = {}

    def read(self, path: Path) -> list[bytes]:
        new = []
        for identity, line in read_database(path, zcode.TABLES):
            if self.seen.get(identity) != line:
                self.seen[identity] = line
                new.append(line)
        return new


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Path]:
    yield Path(make_db.build(tmp_path))


def edit(connection: sqlite3.Connection, table: str, row_id: str, change: dict[str, Any]) -> None:
    """Merges `change` into a row's JSON data (one level deep), as ZCode updates a row."""
    (text,) = connection.execute(f"SELECT data FROM {table} WHERE id = ?", (row_id,)).fetchone()
    data = json.loads(text)
    for key, value in change.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and key in data else value
    connection.execute(
        f"UPDATE {table} SET data = ?, time_updated = time_updated + 1 WHERE id = ?",
        (json.dumps(data, ensure_ascii=False), row_id),
    )


def finish_tools(connection: sqlite3.Connection) -> None:
    """The running command completes; the pending one gets its input and starts."""
    edit(
        connection,
        "part",
        make_db.RUNNING_TOOL,
        {
            "state": {
                "status": "completed",
                "output": "src/webhooks/deliver.ts:3: retry(",
                "time": {"start": T0 + 62000, "end": T0 + 62500},
            }
        },
    )
    edit(
        connection,
        "part",
        make_db.PENDING_TOOL,
        {
            "state": {
                "status": "running",
                "input": {"pattern": "logger"},
                "time": {"start": T0 + 63000},
            }
        },
    )


def finish_turn(connection: sqlite3.Connection) -> None:
    """The model's step ends: reasoning and text are whole, the search fails, the message is done."""
    edit(
        connection,
        "part",
        make_db.RUNNING_REASONING,
        {
            "time": {"end": T0 + 61500},
            "text": "Log with the attempt number and the delay before the next one.",
        },
    )
    edit(
        connection,
        "part",
        make_db.PENDING_TOOL,
        {
            "state": {
                "status": "error",
                "input": {"pattern": "logger"},
                "error": "path not found: src/log",
                "time": {"start": T0 + 63000, "end": T0 + 63100},
            }
        },
    )
    edit(
        connection,
        "part",
        make_db.RUNNING_TEXT,
        {"time": {"end": T0 + 65000}, "text": "Each retry now logs its attempt number and delay."},
    )
    edit(
        connection,
        "message",
        make_db.RUNNING_MESSAGE,
        {"time": {"completed": T0 + 66000}, "finish": "stop"},
    )


def by_id(records: list[Record]) -> dict[str, EventRecord]:
    found = events(records)
    assert len({e.id for e in found}) == len(found), "one event per id in a pass"
    return {e.id: e for e in found}


def test_a_running_turn_then_its_completion(database: Path) -> None:
    log = RowLog()
    call, result = f"zcode:{make_db.RUNNING_TOOL}:call", f"zcode:{make_db.RUNNING_TOOL}:result"
    pending, text = f"zcode:{make_db.PENDING_TOOL}", f"zcode:{make_db.RUNNING_TEXT}"
    reasoning = f"zcode:{make_db.RUNNING_REASONING}"

    first = by_id(parse_lines(log.read(database)))
    assert call in first and result not in first
    assert not {f"{pending}:call", text, reasoning} & set(first)

    with sqlite3.connect(database) as connection:
        finish_tools(connection)
    lines = log.read(database)
    assert len(lines) == 2  # only the two rows that changed
    second = by_id(parse_lines(lines))
    assert set(second) == {call, result, f"{pending}:call"}
    assert second[result].rendered == "src/webhooks/deliver.ts:3: retry("
    assert second[f"{pending}:call"].rendered == 'grep {"pattern":"logger"}'

    with sqlite3.connect(database) as connection:
        finish_turn(connection)
    third = by_id(parse_lines(log.read(database)))
    assert third[text].rendered == "Each retry now logs its attempt number and delay."
    assert third[reasoning].rendered.endswith("the delay before the next one.")
    assert third[f"{pending}:result"].rendered == "[error] path not found: src/log"

    # Nothing emitted was taken back: an id read again has the same event...
    for earlier, later in ((first, second), (first, third), (second, third)):
        assert [earlier[i] for i in set(earlier) & set(later)] == [
            later[i] for i in set(earlier) & set(later)
        ]
    # ...and the passes together hold what one read of the finished database holds.
    final = by_id(parse_lines(read(database)))
    assert {**first, **second, **third} == final


def test_a_renamed_session_replaces_its_title(database: Path) -> None:
    log = RowLog()
    before = parse_lines(log.read(database))
    with sqlite3.connect(database) as connection:
        connection.execute(
            "UPDATE session SET title = ?, time_updated = time_updated + 1 WHERE id = ?",
            ("Webhook retries with backoff", make_db.SESSION_A),
        )
    after = parse_lines(log.read(database))
    assert [e.id for e in events(after)] == [f"zcode:{make_db.SESSION_A}"]
    assert events(after)[0].rendered.endswith("title Webhook retries with backoff")
    assert merged(before + after)[make_db.SESSION_A]["title"] == "Webhook retries with backoff"


def test_a_session_still_untitled_gets_its_title_later(database: Path) -> None:
    log = RowLog()
    before = parse_lines(log.read(database))
    assert merged(before)[make_db.SESSION_E]["title"] is None
    with sqlite3.connect(database) as connection:
        connection.execute(
            "UPDATE session SET title = 'Negative inventory counts' WHERE id = ?",
            (make_db.SESSION_E,),
        )
    facts = [r for r in parse_lines(log.read(database)) if isinstance(r, SessionFact)]
    assert [(f.session, f.title, f.title_rank) for f in facts] == [
        (make_db.SESSION_E, "Negative inventory counts", zcode.TITLE_RANK)
    ]


def test_broken_rows_do_not_stop_the_read(database: Path) -> None:
    whole = events(parse_lines(read(database)))
    with sqlite3.connect(database) as connection:
        connection.execute(
            "INSERT INTO message VALUES ('msg_bad', ?, ?, ?, 'not json {', 99)",
            (make_db.SESSION_A, T0 + 80000, T0 + 80000),
        )
        connection.execute(
            "INSERT INTO part VALUES ('part_bad', 'msg_bad', ?, ?, ?, '{\"type\": \"te', 0)",
            (make_db.SESSION_A, T0 + 80001, T0 + 80001),
        )
        connection.execute(
            "INSERT INTO part VALUES ('part_odd', 'msg_bad', ?, ?, ?, ?, 1)",
            (make_db.SESSION_A, T0 + 80002, T0 + 80002, '{"type":"text","text":"orphan words"}'),
        )
    records = parse_lines(read(database))
    assert [(p.reason, p.detail[:20]) for p in records if isinstance(p, ParseProblem)] == [
        ("invalid-json", "the data of zcode me"),
        ("invalid-json", "unexpected end of da"),
    ]
    # A part whose message cannot be read is not known to be finished: held back.
    assert not [e for e in events(records) if "orphan" in e.text]
    assert events(records) == whole


def test_reading_while_zcode_holds_a_write_transaction(database: Path) -> None:
    with sqlite3.connect(database) as connection:
        assert connection.execute("PRAGMA journal_mode = WAL").fetchone() == ("wal",)
    before = read(database)
    writer = sqlite3.connect(database, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        finish_tools(writer)
        finish_turn(writer)
        assert read(database) == before  # not blocked, and nothing uncommitted is seen
        writer.execute("COMMIT")

        # A read that began before a commit keeps its view to the end: the tables it reads
        # after the commit are as they were when it began.
        reader = read_database(database, zcode.TABLES)
        _, begun = next(reader)
        writer.execute(
            "UPDATE part SET data = json_set(data, '$.text', 'rewritten') WHERE id = ?",
            (make_db.RUNNING_TEXT,),
        )
        during = [begun, *(line for _, line in reader)]
    finally:
        writer.close()
    completed = parse_lines(during)
    assert by_id(completed)[f"zcode:{make_db.RUNNING_TEXT}"].text.startswith("Each retry now")
    assert during != before
    assert by_id(parse_lines(read(database)))[f"zcode:{make_db.RUNNING_TEXT}"].text == "rewritten"
