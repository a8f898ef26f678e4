"""OpenCode: one SQLite database of sessions, messages and their parts,
`~/.local/share/opencode/opencode.db`. Layout and field notes: research/formats.md §10.

ZCode's database (§4) is a descendant of this one, and its rows keep OpenCode's shapes, so a row
is read as ZCode's are (zcode/parts.py): through a row log, each query naming only what the
parser needs, a row a line again whenever its values change (a tool part goes pending → running
→ completed, a message is completed later), ids the rows' own (`opencode:<part id>`, `:call` and
`:result` for a tool part). What OpenCode does differently is handled here:

- `opencode run` sends its arguments joined back into one string, each one holding a space
  wrapped in double quotes (`"Please run…"`): the prompt is that one argument, unwrapped.
- A model call is one assistant message, its tokens on the message (`tokens{input, output,
  reasoning, cache{read, write}}`, input counting no cached token): they go on the first event
  of its first part, as the other agents' usage goes on a call's first event.
- A fork copies the messages it forks into the new session under new ids, keeping their times
  (ZCode marks its forks; OpenCode only titles them `… (fork #1)`): a message older than its
  session is such a copy, its words the forked session's, and gives no events.
- A large tool output keeps only its tail in the row (`state.output`, after a pointer) and in
  `metadata.output` (about 30,000 characters); the whole of it is in `tool-output/tool_<id>`
  beside the database, which the row names (`metadata.outputPath`). That file is read after its
  row (`Table.attached`) and filed as the result's parts (`:output#<n>`): its first lines exist
  nowhere else. The result keeps the tail the row holds, so the words of an output stay found
  after OpenCode removes its file. (A database OPENCODE_DB moves out of the data directory
  leaves `tool-output/` behind, where nothing looks for it: only the tails are read then.)

What is not read, and why:
- `event` and `event_sequence`: an event-sourcing log of the same rows (full snapshots of each
  session, message and part update), which would give every part again.
- `account`, `credential`, `control_account`, `session_share`: tokens and share secrets.
  `opencode.json` in the config directory may hold provider keys; only the memory files
  (memory.py) are looked for there.
- `project`: its `worktree` is the session's directory, which the session rows already give.
- `session_message`, `session_input`, `todo`, `permission`: empty in the 1.18 databases seen,
  or state of the app (queued prompts, a todo list, granted permissions) rather than a session's
  words; a later OpenCode that kept messages only in `session_message` would need it read.
- `step-start`/`step-finish`/`patch`/`snapshot` parts: bookkeeping (snapshot hashes, tokens
  that the message holds too).
- The JSON `storage/` of older OpenCode (`session/<project>/<id>.json`, `message/<session>/
  <id>.json`, `part/<message>/<id>.json`): OpenCode imports it into this database when it first
  starts (`storage/json-migration.ts`), with the same ids, so its sessions are read here; and a
  part's file alone does not say whose words it holds (the role is in its message's file),
  which a reader of one whole file at a time cannot join.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from ...model import EventRecord, ParseProblem, Record, Usage
from ..base import (
    FILE_TABLE,
    FileKind,
    Source,
    Table,
    build_events,
    env_path,
    labelled,
    nonempty_str,
    row_parser,
    safe_time,
    split_output,
)
from ..zcode.parts import (
    MESSAGE_ERROR,
    error_records,
    part_data,
    part_records,
    row_time,
    session_records,
)

NAME = "opencode"
#: Where OpenCode writes a large tool output whole, beside its database.
OUTPUTS = "tool-output"

#: A message's `data` stands in as `{}` when it is not JSON, so that one broken row does not fail
#: the whole read (SQLite's JSON functions raise on malformed text); ERRORS_SQL reports it.
_MESSAGES = """
WITH m AS (
  SELECT id, session_id, time_created, json_valid(data) AS valid,
         CASE WHEN json_valid(data) THEN data ELSE '{}' END AS data
  FROM message
),
p AS (
  SELECT id, message_id, session_id, time_created, time_updated, data,
         CASE WHEN json_valid(data) THEN coalesce(json_extract(data, '$.type'), '') ELSE '' END
           AS type
  FROM part
)"""

SESSIONS_SQL = """
SELECT id, parent_id AS parent, parent_id IS NOT NULL AS subagent, directory, title, version,
       CASE WHEN json_valid(model) THEN
         coalesce(json_extract(model, '$.providerID') || '/', '') || json_extract(model, '$.id')
       END AS model,
       time_created AS created
FROM session
ORDER BY time_created, id"""

#: Only messages that failed, or whose data cannot be read: the rest is told by their parts.
ERRORS_SQL = (
    _MESSAGES
    + MESSAGE_ERROR
    + """
       s.directory, s.version, m.time_created < s.time_created AS copied
FROM m LEFT JOIN session AS s ON s.id = m.session_id
WHERE json_type(m.data, '$.error') IS NOT NULL OR NOT m.valid
ORDER BY m.session_id, m.time_created, m.id"""
)

#: The parts with words; `first` says which part of its message comes first (ids ascend), whose
#: first event carries the message's tokens (`tokens`, on that row only).
_WORDLESS = "('step-start', 'step-finish', 'snapshot', 'patch')"
PARTS_SQL = (
    _MESSAGES
    + f"""
SELECT p.id, p.session_id AS session, p.message_id AS message,
       p.time_created AS created, p.time_updated AS updated, p.data,
       json_extract(m.data, '$.role') AS role,
       json_type(m.data, '$.summary') = 'true' AS summary,
       json_extract(m.data, '$.time.completed') IS NOT NULL
         OR json_type(m.data, '$.error') IS NOT NULL AS done,
       json_extract(m.data, '$.path.cwd') AS cwd,
       m.time_created AS message_created,
       s.directory, s.version, m.time_created < s.time_created AS copied,
       CASE WHEN p.type = 'tool'
            THEN json_extract(p.data, '$.state.metadata.outputPath') END AS output,
       CASE WHEN p.id = (SELECT min(q.id) FROM p AS q
                         WHERE q.message_id = p.message_id AND q.type NOT IN {_WORDLESS})
            THEN json_extract(m.data, '$.tokens') END AS tokens
FROM p
LEFT JOIN m ON m.id = p.message_id
LEFT JOIN session AS s ON s.id = p.session_id
WHERE p.type NOT IN {_WORDLESS}
ORDER BY p.session_id, m.time_created, p.time_created, p.id"""
)

TABLES = (
    Table("session", SESSIONS_SQL, ("id",)),
    Table("message", ERRORS_SQL, ("id",)),
    Table("part", PARTS_SQL, ("id",), attached=("output", OUTPUTS)),
)


def roots(environ: Mapping[str, str], home: Path) -> list[Path]:
    """OpenCode's data directory (`$XDG_DATA_HOME/opencode`), the directory of a database that
    OPENCODE_DB moves (an absolute path; its kind's patterns must still match its name), and its
    config directory, where its global instructions (AGENTS.md) are: memory.py looks for them
    under these roots, and no database pattern matches anything there."""
    data = env_path(environ.get("XDG_DATA_HOME"), home)
    # The XDG base directories are absolute; a relative one is ignored, as the spec asks.
    data = data if data is not None and data.is_absolute() else home / ".local" / "share"
    found = [data / "opencode"]
    moved = env_path(environ.get("OPENCODE_DB"), home)
    # A relative one names a file in the data directory, a root already.
    if moved is not None and moved.is_absolute() and moved.parent not in found:
        found.append(moved.parent)
    config = env_path(environ.get("OPENCODE_CONFIG_DIR"), home)
    if config is None or not config.is_absolute():
        base = env_path(environ.get("XDG_CONFIG_HOME"), home) or home / ".config"
        config = base / "opencode"
    if config not in found:
        found.append(config)
    return found


def start(relpath: str) -> dict[str, Any]:
    """Every row carries what its events need; the state holds only the last row naming an
    output file, which that file's line follows (`attached`)."""
    return {}


@row_parser
def parse(table: str, key: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """Never raises: a row shaped by a newer OpenCode must not stop ingestion."""
    if table == "part":
        return _part(key, row, state)
    if table == FILE_TABLE:
        return _output_file(key, row, state)
    if table == "session":
        return session_records(key, row, NAME)
    if table == "message":
        return [] if _copied(row) else error_records(key, row, NAME)
    return []


def _copied(row: dict[str, Any]) -> bool:
    """Whether a row is of a message a fork copied from the session it forks: the copy keeps
    the message's time, from before the fork was made (a message older than its session can be
    nothing else), and is that session's, whose events are stored already."""
    return row.get("copied") in (1, True)


def _part(key: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    state.pop("attached", None)
    if _copied(row):
        return []
    data = part_data(row, NAME)
    if isinstance(data, ParseProblem):
        return [data]
    if row.get("role") == "user" and data.get("type") == "text" and not data.get("synthetic"):
        text = data.get("text")
        if isinstance(text, str):
            data = {**data, "text": unquoted(text)}
    found = _retry(key, row, data) if data.get("type") == "retry" else []
    found = found or part_records(key, row, NAME, data)
    _carry_usage(row, found)
    name = _file_name(row.get("output"))
    if name is not None:
        ended = _ended(data)
        state["attached"] = {
            "name": name,
            "part": nonempty_str(row.get("id")) or key,
            "session": nonempty_str(row.get("session")) or "unknown",
            "time": ended or row_time(row.get("updated")) or row_time(row.get("created")),
            "cwd": nonempty_str(row.get("cwd")) or nonempty_str(row.get("directory")),
            "version": nonempty_str(row.get("version")),
        }
    return found


def _retry(key: str, row: dict[str, Any], data: dict[str, Any]) -> list[Record]:
    """A model call that failed and is tried again (a `retry` part, OpenCode's own): its error."""
    error = data.get("error")
    error = error if isinstance(error, dict) else {}
    details = error.get("data")
    message = details.get("message") if isinstance(details, dict) else error.get("message")
    attempt = data.get("attempt")
    name = nonempty_str(error.get("name"))
    marks = "[error] retry" + (f" {attempt}" if type(attempt) is int else "")
    marks += f", {name}: " if name else ": "
    return list(
        build_events(
            f"{NAME}:{nonempty_str(row.get('id')) or key}",
            [(0, "system", "system", labelled(marks, message if isinstance(message, str) else ""))],
            source=NAME,
            time=row_time(row.get("created")),
            session=nonempty_str(row.get("session")) or "unknown",
            cwd=nonempty_str(row.get("cwd")) or nonempty_str(row.get("directory")),
            state={"version": row.get("version")},
        )
    )


#: One argument of `opencode run` that held a space: `"` + the argument, its `"` escaped, + `"`.
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*\s(?:[^"\\]|\\.)*)"', re.DOTALL)


def unquoted(text: str) -> str:
    """The prompt `opencode run` was given as one argument, without the quotes it added."""
    matched = _QUOTED.fullmatch(text)
    return matched.group(1).replace('\\"', '"') if matched else text


def _carry_usage(row: dict[str, Any], found: list[Record]) -> None:
    """The message's tokens on the first event of its first part, an assistant's only."""
    if row.get("role") != "assistant" or not isinstance(row.get("tokens"), str):
        return
    first = next((r for r in found if isinstance(r, EventRecord)), None)
    if first is None:
        return
    try:
        tokens = orjson.loads(row["tokens"])
    except orjson.JSONDecodeError:
        return
    if not isinstance(tokens, dict):
        return
    cache = tokens.get("cache")
    cache = cache if isinstance(cache, dict) else {}
    tin, out, thought, read, made = (
        n if type(n) is int and n >= 0 else 0
        for n in (
            tokens.get("input"),
            tokens.get("output"),
            tokens.get("reasoning"),
            cache.get("read"),
            cache.get("write"),
        )
    )
    if tin or out or thought or read or made:
        first.usage = Usage(tin + read + made, read, out + thought)


def _file_name(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    name = value.replace("\\", "/").rsplit("/", 1)[-1]
    return name if name not in ("", ".", "..") else None


def _ended(data: dict[str, Any]) -> int | None:
    state = data.get("state")
    times = state.get("time") if isinstance(state, dict) else None
    return safe_time(times.get("end")) if isinstance(times, dict) else None


def _output_file(key: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """A tool's whole output, read right after the row that names it: the result's parts, ids
    `opencode:<part id>:output#<n>` (read again, the same ids, which its events replace)."""
    held = state.pop("attached", None)
    text = row.get("text")
    if not isinstance(text, str) or not text.strip():
        return []
    if not isinstance(held, dict) or held.get("name") != _file_name(key):
        return [ParseProblem("bad-field", "an opencode tool output read with no part naming it")]
    name = nonempty_str(held.get("name")) or "output"
    part = nonempty_str(held.get("part")) or name
    parts = split_output(text)
    out: list[Record] = []
    for number, piece in enumerate(parts):
        where = f"part {number + 1} of {len(parts)}, " if len(parts) > 1 else ""
        words, label = labelled(f"[{where}{OUTPUTS}/{name}] ", piece)
        out.append(
            EventRecord(
                id=f"{NAME}:{part}:output#{number}",
                time=row_time(held.get("time")) or row_time(row.get("mtime_ms")),
                source=NAME,
                session=nonempty_str(held.get("session")) or "unknown",
                role="system",
                kind="tool_result",
                text=words,
                cwd=nonempty_str(held.get("cwd")),
                agent_version=nonempty_str(held.get("version")),
                label=label,
            )
        )
    return out


DATABASE = FileKind(
    name="db",
    patterns=("opencode.db", "opencode-*.db"),
    parse=parse,
    start=start,
    tables=TABLES,
)

SOURCE = Source(name=NAME, roots=roots, files=(DATABASE,))
