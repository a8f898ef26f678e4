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

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...model import ParseProblem, Record, SessionFact
from ..base import FileKind, Source, Table, Words, build_events, labelled, nonempty_str, row_parser
from .parts import NAME, copied, part_records, row_time

#: The title the app shows is the only title ZCode keeps; it ranks with the other agents' chosen
#: titles (a rename, an index entry), above titles an agent infers.
TITLE_RANK = 30
#: opencode's placeholders until a title is made; the store falls back to the prompt instead.
_PLACEHOLDER = re.compile(r"(?:New|Child) session - \d{4}-\d{2}-\d{2}T")

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
    + """
SELECT m.id, m.session_id AS session, m.time_created AS created, m.valid,
       json_extract(m.data, '$.time.completed') AS completed,
       json_extract(m.data, '$.error.name') AS error,
       coalesce(json_extract(m.data, '$.error.data.message'),
                json_extract(m.data, '$.error.message'),
                CASE WHEN json_type(m.data, '$.error') = 'text'
                     THEN json_extract(m.data, '$.error') END) AS detail,
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
    storage = _path(environ.get("ZCODE_STORAGE_DIR"), home) or home / ".zcode"
    found = [storage]
    moved = _path(environ.get("ZCODE_SESSION_DB_PATH") or environ.get("ZCODE_SESSION_DB"), home)
    # A relative path is relative to where ZCode ran, which is not known here.
    if moved is not None and moved.is_absolute() and moved.parent not in found:
        found.append(moved.parent)
    return found


def _path(value: str | None, home: Path) -> Path | None:
    if not value:
        return None
    if value == "~" or value.startswith("~/"):
        return home / value[2:]
    return Path(value)


def start(relpath: str) -> dict[str, Any]:
    """Every row carries what its events need, so nothing is carried between lines."""
    return {}


@row_parser
def parse(table: str, key: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """Never raises: a row shaped by a newer ZCode must not stop ingestion."""
    if table == "part":
        return part_records(key, row)
    if table == "session":
        return _session_records(key, row)
    if table == "message":
        return _error_records(key, row)
    return []


def _session_records(key: str, row: dict[str, Any]) -> list[Record]:
    """The session's facts, and a marker event of how it started that also holds its title, so
    the title is found by search; a changed title reads the row again and replaces the marker."""
    session = nonempty_str(row.get("id")) or key
    time = row_time(row.get("created"))
    title = nonempty_str(row.get("title"))
    if title is not None and _PLACEHOLDER.match(title):
        title = None
    directory = nonempty_str(row.get("directory"))
    parent = nonempty_str(row.get("parent"))
    fact = SessionFact(
        session,
        NAME,
        title=title,
        title_rank=TITLE_RANK if title else 0,
        cwd=directory,
        parent=parent,
        time=time or None,
    )
    words = Words().origin("session start: ")
    values = [
        ("", nonempty_str(row.get("task_type"))),
        ("version ", nonempty_str(row.get("version"))),
        ("subagent of " if row.get("task_type") == "subagent_child" else "from ", parent),
        ("cwd ", directory),
        ("title ", title),
    ]
    for number, (name, value) in enumerate(item for item in values if item[1]):
        (words.sep(", ") if number else words).origin(name).log(value or "")
    marker = build_events(
        f"{NAME}:{session}",
        [(0, "system", "meta", words.build())],
        source=NAME,
        time=time,
        session=session,
        cwd=directory,
        state={"version": row.get("version")},
    )
    return [fact, *marker]


def _error_records(key: str, row: dict[str, Any]) -> list[Record]:
    """A message that failed (an API error, an abort) says so; its parts say the rest."""
    if row.get("valid") == 0:
        return [ParseProblem("invalid-json", f"the data of zcode message {key}")]
    if copied(row):
        return []
    session = nonempty_str(row.get("session")) or "unknown"
    name = nonempty_str(row.get("error"))
    detail = row.get("detail")
    text = detail if isinstance(detail, str) else ""
    marks = f"[error] {name}: " if name else "[error] "
    return list(
        build_events(
            f"{NAME}:{nonempty_str(row.get('id')) or key}:error",
            [(0, "system", "system", labelled(marks, text))],
            source=NAME,
            time=row_time(row.get("completed")) or row_time(row.get("created")),
            session=session,
            cwd=nonempty_str(row.get("directory")),
            state={"version": row.get("version")},
        )
    )


DATABASE = FileKind(
    name="db",
    patterns=("cli/db/db.sqlite", "db.sqlite"),
    parse=parse,
    start=start,
    tables=TABLES,
)

SOURCE = Source(name=NAME, roots=roots, files=(DATABASE,))
