"""Row logs against real SQLite databases, real LMDB and real files: databases changed in place
by a live writer, files rewritten whole, crashes, and what must never be read."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import replace
from pathlib import Path

import orjson
import pytest
from mirror_support import read_mirror_line
from rows_format import NOTES_DB, create, note

from origin_store import Settings, Store
from origin_store.care.verify import verify
from origin_store.entries.versions import forget
from origin_store.ingest import rowlog
from origin_store.parsers.base import Table
from origin_store.reader import get_event, session_event_ids


def row_log_lines(settings: Settings, original: Path) -> list[bytes]:
    path = rowlog.row_log_path(settings.home / "rows", "notesdb", original)
    return path.read_bytes().splitlines() if path.exists() else []


def text_of(store: Store, event_id: str) -> str | None:
    with store.read() as txn:
        event = get_event(store, txn, event_id)
    return None if event is None else event["text"]


def test_rows_become_events_once_and_sources_show_the_row(rows_env):
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    connection = create(db)
    note(connection, "a", "first note")
    note(connection, "b", "second note", t=1)
    report = ingester.run()
    assert report.events == 2 and not report.errors
    assert ingester.run().events == 0  # nothing changed: nothing read again
    assert len(row_log_lines(settings, db)) == 2
    with store.read() as txn:
        event = get_event(store, txn, "notesdb:b")
        cursor = store.get(txn, "files", str(db).encode())
    assert event is not None and event["text"] == "second note"
    mirrored = read_mirror_line(store, settings.home, cursor["mirror"]["id"], event["line"])
    assert mirrored is not None
    assert orjson.loads(mirrored)["row"] == {
        "id": "b",
        "session": "s1",
        "t": 1_700_000_000_001,
        "body": "second note",
        "done": 1,
    }
    with store.read() as txn:
        mirror = store.get(txn, "mirrors", (cursor["mirror"]["id"]).to_bytes(4, "big"))
    assert mirror["original_file"] == str(db)
    assert verify(store, settings.home).ok


def test_a_row_changed_in_place_replaces_its_event(rows_env):
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    connection = create(db)
    note(connection, "a", "draft")
    ingester.run()
    note(connection, "a", "final words", t=5)
    report = ingester.run()
    assert report.events == 0  # replaced, not added
    assert text_of(store, "notesdb:a") == "final words"
    with store.read() as txn:
        assert list(session_event_ids(store, txn, "notesdb", "s1")) == ["notesdb:a"]
        assert store.get(txn, "sessions", b"notesdb\x00s1")["events"] == 1
        event = get_event(store, txn, "notesdb:a")
    assert event is not None and event["time"] == 1_700_000_000_005
    assert len(row_log_lines(settings, db)) == 2  # both versions stay citable
    assert verify(store, settings.home).ok


def test_a_row_still_being_written_waits_and_is_not_doubled(rows_env):
    _, agent, store, ingester = rows_env
    connection = create(agent / "chat.db")
    note(connection, "a", "half", done=0)
    assert ingester.run().events == 0
    note(connection, "a", "whole answer", done=1)
    assert ingester.run().events == 1
    assert ingester.run().events == 0
    assert text_of(store, "notesdb:a") == "whole answer"


def test_a_forgotten_event_is_not_brought_back_by_a_newer_row(rows_env):
    _, agent, store, ingester = rows_env
    connection = create(agent / "chat.db")
    note(connection, "a", "my secret plan")
    ingester.run()
    store.write(lambda txn: forget(store, txn, "notesdb:a", "asked by the user", "user@test"))
    note(connection, "a", "my secret plan, revised")
    ingester.run()
    with store.read() as txn:
        event = get_event(store, txn, "notesdb:a")
    assert event is None or "revised" not in event["text"]


def test_siblings_and_whole_files_give_a_line_per_content_change(rows_env):
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    create(db)
    (agent / "title.json").write_text('{"title": "first title"}')
    memo = agent / "MEMO.md"
    memo.write_text("# Memo\nuse tabs")
    ingester.run()
    with store.read() as txn:
        assert store.get(txn, "sessions", b"notesdb\x00s1")["title"] == "first title"
        memory = get_event(store, txn, next(iter(session_event_ids(store, txn, "notesdb", "memo"))))
    assert memory is not None and memory["text"] == "# Memo\nuse tabs"
    assert memory["time"] == memo.stat().st_mtime_ns // 1_000_000
    os.utime(memo, ns=(memo.stat().st_atime_ns, memo.stat().st_mtime_ns + 10**9))
    ingester.run()
    assert len(row_log_lines(settings, memo)) == 1  # touched, not changed: no new line
    memo.write_text("# Memo\nuse spaces")
    (agent / "title.json").write_text('{"title": "better title"}')
    assert ingester.run().events == 1
    assert len(row_log_lines(settings, memo)) == 2
    with store.read() as txn:
        assert store.get(txn, "sessions", b"notesdb\x00s1")["title"] == "better title"
        assert len(list(session_event_ids(store, txn, "notesdb", "memo"))) == 2


def test_a_live_writer_holding_a_transaction_does_not_block_or_leak(rows_env):
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    connection = create(db)
    note(connection, "a", "committed")
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO notes VALUES ('b', 's1', 1, 'not committed yet', 1)")
    report = ingester.run()
    assert report.events == 1 and not report.errors
    writer.execute("COMMIT")
    assert ingester.run().events == 1
    assert text_of(store, "notesdb:b") == "not committed yet"
    stored = b"".join(row_log_lines(settings, db))
    assert b"FAKE-ROWS" not in stored  # the secrets table is never selected
    raw = b"".join(p.read_bytes() for p in (settings.home / "raw").rglob("*") if p.is_file())
    assert b"FAKE-ROWS" not in raw


def test_a_pass_killed_while_appending_neither_loses_nor_doubles(rows_env):
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    connection = create(db)
    note(connection, "a", "one")
    ingester.run()
    log = rowlog.row_log_path(settings.home / "rows", "notesdb", db)
    with open(log, "ab") as handle:  # a line cut short by a kill
        handle.write(b'{"table":"note","key":"b","row":{"id":')
    for state in (log.with_suffix(".stamp"), log.with_suffix(".rows")):
        state.unlink()  # killed before its digests were saved
    note(connection, "b", "two")
    assert ingester.run().events == 1
    lines = row_log_lines(settings, db)
    assert [orjson.loads(line)["key"] for line in lines] == ["a", "b"]
    assert ingester.run().events == 0
    assert verify(store, settings.home).ok


def test_a_corrupt_database_is_reported_and_the_rest_is_ingested(rows_env):
    _, agent, store, ingester = rows_env
    (agent / "broken.db").write_bytes(b"SQLite format 3\x00" + os.urandom(3000))
    connection = create(agent / "good.db")
    note(connection, "a", "still here")
    report = ingester.run()
    assert report.events == 1
    assert len(report.errors) == 1 and "broken.db" in report.errors[0]
    assert text_of(store, "notesdb:a") == "still here"


def test_an_empty_database_is_no_error_and_gets_an_empty_row_log(rows_env):
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    create(db).close()
    for _ in range(2):
        report = ingester.run()
        assert not report.errors and report.events == 0
    assert rowlog.row_log_path(settings.home / "rows", "notesdb", db).read_bytes() == b""


def test_a_read_that_fails_part_way_appends_nothing(tmp_path: Path):
    db = tmp_path / "chat.db"
    connection = create(db)
    for name in ("a", "b", "c", "d"):
        note(connection, name, "{}" if name != "c" else "not json")
    # The third row's value cannot be read: the error comes after two rows were read.
    failing = replace(
        NOTES_DB,
        tables=(
            Table(
                "note", "SELECT id, json_extract(body, '$') AS body FROM notes ORDER BY id", ("id",)
            ),
        ),
    )
    rows = tmp_path / "rows"
    with pytest.raises(rowlog.RowLogError, match="malformed JSON"):
        rowlog.refresh(rows, "notesdb", failing, db)
    log = rowlog.row_log_path(rows, "notesdb", db)
    assert log.read_bytes() == b""
    note(connection, "c", "{}")
    rowlog.refresh(rows, "notesdb", failing, db)
    assert [orjson.loads(line)["key"] for line in log.read_bytes().splitlines()] == [
        "a",
        "b",
        "c",
        "d",
    ]


def test_rows_are_appended_in_bounded_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    db = tmp_path / "chat.db"
    connection = create(db)
    connection.execute("BEGIN")
    for i in range(300):
        note(connection, f"n{i:03d}", "x" * 500)
    connection.execute("COMMIT")
    monkeypatch.setattr(rowlog, "WRITE_BYTES", 4096)  # many writes, same bytes as one
    log = rowlog.refresh(tmp_path / "rows", "notesdb", NOTES_DB, db)
    keys = [orjson.loads(line)["key"] for line in log.read_bytes().splitlines()]
    assert keys == [f"n{i:03d}" for i in range(300)]


def test_a_whole_file_too_large_is_reported_and_the_rest_is_ingested(
    rows_env, monkeypatch: pytest.MonkeyPatch
):
    settings, agent, store, ingester = rows_env
    monkeypatch.setattr(rowlog, "MAX_WHOLE_BYTES", 1024)
    (agent / "MEMO.md").write_bytes(b"x" * 2048)  # no memory file is this big: not read
    connection = create(agent / "chat.db")
    note(connection, "a", "still here")
    report = ingester.run()
    assert report.events == 1 and text_of(store, "notesdb:a") == "still here"
    assert len(report.errors) == 1 and "MEMO.md" in report.errors[0]
    assert "2,048 bytes" in report.errors[0]


HEADS = [
    # (what, the file, the text its row log line holds)
    ("lines up to the size", b"line one\nline two\n" + b"z" * 2048, "line one\nline two\n"),
    ("no line end at all", b"y" * 2048, "y" * 1024),
    ("small enough", b"short\n", "short\n"),
]


@pytest.mark.parametrize(("what", "data", "kept"), HEADS, ids=[h[0] for h in HEADS])
def test_a_kind_that_keeps_a_head_reads_a_large_file_in_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str, data: bytes, kept: str
):
    """A tool's output may be larger than a row log line: its first lines are read, not an
    error at every pass."""
    from origin_store.parsers.claude_code.outputs import OUTPUTS

    monkeypatch.setattr(rowlog, "MAX_WHOLE_BYTES", 1024)
    path = tmp_path / "out.txt"
    path.write_bytes(data)
    [(_, line, _)] = rowlog.read_rows(path, OUTPUTS)
    assert orjson.loads(line)["row"]["text"] == kept
    if len(data) > 1024:  # the same file, of a kind that keeps no head, is not read
        with pytest.raises(rowlog.RowLogError, match=f"{len(data):,} bytes"):
            list(rowlog.read_rows(path, replace(OUTPUTS, head=False)))
