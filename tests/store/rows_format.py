"""A minimal SQLite format and a file rewritten whole, for testing row logs apart from any
agent's quirks. Real parsers through the same interface as the agents' ones."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Mapping
from pathlib import Path

import orjson

from origin_store.model import EventRecord, ParseProblem, SessionFact
from origin_store.parsers.base import FileKind, Source, Table, load_row

SCHEMA = """
CREATE TABLE notes (id TEXT PRIMARY KEY, session TEXT, t INTEGER, body TEXT, done INTEGER);
CREATE TABLE secrets (name TEXT, value TEXT);
"""


def parse_notes(line: bytes, number: int, state: dict) -> list:
    row = load_row(line)
    if row is None or isinstance(row, ParseProblem):
        return [] if row is None else [row]
    table, key, values = row
    if table == "file":  # the sibling title file
        title = orjson.loads(values["text"]).get("title")
        return [SessionFact(session="s1", source="notesdb", title=title, title_rank=10)]
    if not values.get("done"):  # still being written: nothing yet
        return []
    return [
        EventRecord(
            id=f"notesdb:{key}",
            time=int(values["t"]),
            source="notesdb",
            session=str(values["session"]),
            role="user",
            kind="message",
            text=str(values["body"]),
            cwd="/home/dev/notes-project",
        )
    ]


def parse_memo(line: bytes, number: int, state: dict) -> list:
    row = load_row(line)
    if row is None or isinstance(row, ParseProblem):
        return [] if row is None else [row]
    _, path, values = row
    return [
        EventRecord(
            id=f"notesdb:memo@{hashlib.sha256(values['text'].encode()).hexdigest()[:16]}",
            time=int(values.get("mtime_ms", 0)),
            source="notesdb",
            session="memo",
            role="system",
            kind="memory",
            text=values["text"],
        )
    ]


def _roots(environ: Mapping[str, str], home: Path) -> list[Path]:
    return [Path(environ["NOTES_HOME"])]


NOTES_DB = FileKind(
    "db",
    ("*.db",),
    parse_notes,
    lambda rel: {},
    tables=(Table("note", "SELECT id, session, t, body, done FROM notes ORDER BY id", ("id",)),),
    siblings=("title.json",),
)
MEMO = FileKind("memo", ("MEMO.md",), parse_memo, lambda rel: {}, whole=True)
NOTES = Source("notesdb", _roots, (NOTES_DB, MEMO))


def create(path: Path, wal: bool = True) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None)
    if wal:
        connection.execute("PRAGMA journal_mode=WAL")
    connection.executescript(SCHEMA)
    connection.execute("INSERT INTO secrets VALUES ('token', 'FAKE-ROWS-DO-NOT-INGEST')")
    return connection


def note(connection: sqlite3.Connection, id: str, body: str, done: int = 1, t: int = 0) -> None:
    connection.execute(
        "INSERT OR REPLACE INTO notes VALUES (?, 's1', ?, ?, ?)",
        (id, 1_700_000_000_000 + t, body, done),
    )
