"""Row logs: what Origin reads of a file that is not an append-only log, as one.

An SQLite database (Cursor, zcode, grok-cli) changes rows in place, and a title or memory file is
rewritten whole. Neither has lines that stay put, which the mirror, `sources` and the cursor all
rely on. So each such file gets a row log under ORIGIN_HOME/rows: an append-only JSONL with a line
for every version of a row (or of the whole file) as it was read, `parsers.base.row_line`'s
shape. Its parser reads it like any log, `sources` shows the line and its number, and both stay
true since the row log is only ever appended to.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from ..parsers.base import Table, row_line

#: How long a read waits for a writer that holds the database (SQLITE_BUSY), in seconds.
BUSY_SECONDS = 2.0


def connect(path: Path) -> sqlite3.Connection:
    """A read-only connection that never takes a write lock or creates a file beside the
    database, and waits a little for a busy writer."""
    uri = f"file:{quote(str(path))}?mode=ro"
    connection = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None)
    connection.execute("PRAGMA query_only = ON")
    return connection


def read_database(path: Path, tables: tuple[Table, ...]) -> Iterator[tuple[str, bytes]]:
    """Every row of every table, as (its identity, its row log line), read in one transaction so
    that rows written together are seen together even while the agent writes."""
    connection = connect(path)
    try:
        connection.execute("BEGIN")
        for table in tables:
            cursor = connection.execute(table.sql)
            columns = [column[0] for column in cursor.description]
            for values in cursor:
                row = dict(zip(columns, values, strict=True))
                key = "/".join(str(row[name]) for name in table.key)
                yield f"{table.name}/{key}", row_line(table.name, key, row)
        connection.execute("COMMIT")
    finally:
        connection.close()
