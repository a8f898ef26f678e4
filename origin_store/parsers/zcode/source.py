"""ZCode (Z.ai's coding ADE: desktop app and `zcode` CLI): one SQLite database of sessions,
messages and their parts, `~/.zcode/cli/db/db.sqlite`. Layout and field notes: research/formats.md §4.

The database is updated in place (a tool part goes pending → running → completed, an assistant
message is completed later), so it is read through a row log: each query below names only what the
parser needs, and a row is a line again whenever its values change. A part row carries what it
needs of its message and session (role, semantics, whether the message is done, cwd, version), so a
line stands on its own and the per-file state stays empty; a message that completes changes its
parts' rows, which brings them back. Ids are the rows' own (`zcode:<part id>`, `:call` and
`:result` for a tool part), so a row read again gives the same events, and the store keeps the
latest text of each.

What is not read, and why:
- `cli/rollout/model-io-<session>.jsonl`: one line per model request of sub-agents and workflow
  actors; its response text and tool calls are the parts the database already holds for the same
  session, and its requests repeat the history (and system prompts) already stored. Reading it
  would give every answer twice.
- `cli/log/zcode-*.jsonl`: activity lines (session created, turn started, usage redacted) that
  tell nothing the session rows do not.
- `cli/config.json`: holds provider keys; `storage.sessionDbPath` there is not followed either.
- `session_entry`, `model_usage`, `tool_usage`: telemetry of what the parts already show.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...model import Record
from ..base import FileKind, Source, Table, env_path, row_parser
from .parts import MESSAGE_ERROR, NAME, error_records, part_records, session_records
from .parts import TITLE_RANK as TITLE_RANK

#: A message's `data` stands in as `{}` when it is not JSON, so that one broken row does not fail
#: the whole read (SQLite's JSON functions raise on malformed text); ERRORS_SQL reports it.
_MESSAGES = """
WITH m AS (
  SELECT id, session_id, time_created, json_valid(data) AS valid,
         CASE WHEN json_valid(data) THEN data ELSE '{}' END AS data
  FROM message
)"""

SESSIONS_SQL = """
SELECT id, parent_id AS parent, directory, title, version, task_type,
       time_created AS created
FROM session
ORDER BY time_created, id"""

#: Only messages that failed, or whose data cannot be read: the rest is told by their parts.
ERRORS_SQL = (
    _MESSAGES
    + MESSAGE_ERROR
    + """
       s.directory, s.version, s.task_type, s.time_created AS session_created
FROM m LEFT JOIN session AS s ON s.id = m.session_id
WHERE json_type(m.data, '$.error') IS NOT NULL OR NOT m.valid
ORDER BY m.session_id, m.time_created, m.id"""
)

#: Steps and snapshots are bookkeeping with no words (token counts, hashes): not even read.
PARTS_SQL = (
    _MESSAGES
    + """
SELECT p.id, p.session_id AS session, p.message_id AS message,
       p.time_created AS created, p.time_updated AS updated, p.data,
       json_extract(m.data, '$.role') AS role,
       json_extract(m.data, '$.semantics.kind') AS semantics,
       json_type(m.data, '$.summary') = 'true' AS summary,
       json_extract(m.data, '$.time.completed') IS NOT NULL
         OR json_type(m.data, '$.error') IS NOT NULL AS done,
       json_extract(m.data, '$.metadata.inputIntent.text') AS intent,
       json_extract(m.data, '$.path.cwd') AS cwd,
       m.time_created AS message_created,
       s.directory, s.version, s.task_type, s.time_created AS session_created
FROM part AS p
LEFT JOIN m ON m.id = p.message_id
LEFT JOIN session AS s ON s.id = p.session_id
WHERE CASE WHEN json_valid(p.data) THEN coalesce(json_extract(p.data, '$.type'), '') ELSE '' END
      NOT IN ('step-start', 'step-finish', 'snapshot', 'patch')
ORDER BY p.session_id, m.time_created, p.time_created, p.id"""
)

TABLES = (
    Table("session", SESSIONS_SQL, ("id",)),
    Table("message", ERRORS_SQL, ("id",)),
    Table("part", PARTS_SQL, ("id",)),
)


def roots(environ: Mapping[str, str], home: Path) -> list[Path]:
    """`~/.zcode` (ZCODE_STORAGE_DIR moves it) and, when ZCODE_SESSION_DB_PATH (or
    ZCODE_SESSION_DB) moves the database, the directory that holds it: the database kind's
    `db.sqlite` pattern finds it there. A database moved under another name is not found, since
    a kind's patterns are fixed whatever the environment says."""
    storage = env_path(environ.get("ZCODE_STORAGE_DIR"), home) or home / ".zcode"
    found = [storage]
    moved = env_path(environ.get("ZCODE_SESSION_DB_PATH") or environ.get("ZCODE_SESSION_DB"), home)
    # A relative path is relative to where ZCode ran, which is not known here.
    if moved is not None and moved.is_absolute() and moved.parent not in found:
        found.append(moved.parent)
    return found


def start(relpath: str) -> dict[str, Any]:
    """Every row carries what its events need, so nothing is carried between lines."""
    return {}


@row_parser
def parse(table: str, key: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """Never raises: a row shaped by a newer ZCode must not stop ingestion."""
    if table == "part":
        return part_records(key, row)
    if table == "session":
        return session_records(key, row)
    if table == "message":
        return error_records(key, row)
    return []


DATABASE = FileKind(
    name="db",
    patterns=("cli/db/db.sqlite", "db.sqlite"),
    parse=parse,
    start=start,
    tables=TABLES,
)

SOURCE = Source(name=NAME, roots=roots, files=(DATABASE,))
