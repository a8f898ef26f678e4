"""The shape every agent's parser module fills in, and small pure helpers they share.

A parser is pure: it gets the raw bytes of one complete line (without the newline), the line's
number (1-based) and a per-file ``state`` dict that it may read and update, and returns records.
The store keeps ``state`` with the file's cursor (it must stay JSON-serialisable and small), so
parsing resumes exactly where it stopped, across passes and processes. No I/O, no LMDB here.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from ..model import EventRecord, ParseProblem, Record
from ..textclip import Label

#: An event text with Origin's words apart from the log's: (the log's words, label).
Labelled = tuple[str, Label]
LineParser = Callable[[bytes, int, dict[str, Any]], list[Record]]
StateFactory = Callable[[str], dict[str, Any]]


def never_raises(parse: LineParser) -> LineParser:
    """A parser that gives any exception of `parse` back as a `parser-error` problem: a record
    shape nobody foresaw must cost one line, never the ingestion of everything else (the fuzz
    tests keep this path unused)."""

    @functools.wraps(parse)
    def guarded(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
        try:
            return parse(line, lineno, state)
        except Exception as exc:
            return [ParseProblem("parser-error", type(exc).__name__)]

    return guarded


#: A row log's parser as it is written: one row (its table, its key, its values) and the state.
RowParser = Callable[[str, str, dict[str, Any], dict[str, Any]], list[Record]]


def row_parser(parse: RowParser) -> LineParser:
    """The line parser of a row log (`row_line`'s lines) from a parser of its rows: every such
    line is unpacked the same way (a blank one gives nothing, a malformed one its problem), and
    like every parser it never raises."""

    @never_raises
    @functools.wraps(parse)
    def lines(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
        loaded = load_row(line)
        if loaded is None:
            return []
        if isinstance(loaded, ParseProblem):
            return [loaded]
        table, key, row = loaded
        return parse(table, key, row, state)

    return lines


@dataclass(frozen=True, slots=True)
class Table:
    """One query of an SQLite source. Each row it returns becomes a line of the file's row log
    (`row_line`), written again whenever its values change, so that its parser reads lines like
    any other and `sources` can show the row as it was read. The SQL must name only what the
    parser needs: it is how credentials stored beside the chats are never read."""

    name: str
    sql: str  # a read-only SELECT; its columns become the row's fields
    key: tuple[str, ...]  # the columns that identify a row from one read to the next
    #: For rows that name a file the agent wrote beside the database (OpenCode's full tool
    #: outputs): (the column naming it, the folder it is in, relative to the database's). The
    #: file of that name there, if any, is read whole (its head, as `FileKind.head`) and becomes
    #: a `file_line` right after the row's line whenever its content changes. Only the name is
    #: taken from the row, so nothing outside that folder is ever read.
    attached: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class FileKind:
    """One kind of file an agent writes, found by glob under the agent's root.

    Most are append-only logs read line by line. Two others are read through a row log under
    ORIGIN_HOME (ingest/rowlog.py) that holds a line per version of what was read: an SQLite
    database (`tables`), each changed row a line, and a small file rewritten in place (`whole`:
    a title file, a memory file), the whole file a line each time its content changes.
    """

    name: str
    patterns: tuple[str, ...]  # globs relative to the source root, e.g. "projects/**/*.jsonl"
    parse: LineParser
    start: StateFactory  # initial state from the path relative to the root (posix form)
    tables: tuple[Table, ...] = ()
    whole: bool = False
    #: Small files beside a database that its parser needs too (Cursor's workspace.json): each
    #: is a `file_line` in the row log, before the tables' rows, whenever its content changes.
    siblings: tuple[str, ...] = ()
    #: A `whole` file that may be larger than Origin reads of one (a tool's output): over that
    #: size, its first lines up to it are read rather than none (`rowlog.MAX_WHOLE_BYTES`).
    head: bool = False
    #: For a parser that holds part of a record open between lines (Grok's message chunks): the
    #: records of what `state` holds open, as they stand. Called on a copy of the state after
    #: each pass's last line, so a message is searchable before its next line arrives; its
    #: event is replaced when the complete one comes (the kind's batches upsert).
    finish: Callable[[dict[str, Any]], list[Record]] | None = None
    #: For an append-only log whose later lines say again what earlier ones said (Gemini CLI
    #: writes a message again under its id when it changes, and copies the whole history on
    #: each resume): an event of a later line replaces the one of the same id.
    rewrites: bool = False

    @property
    def snapshots(self) -> bool:
        """Whether its files are read through a row log rather than line by line."""
        return bool(self.tables) or self.whole

    @property
    def upserts(self) -> bool:
        """Whether a later line may say again what an event says: a row read anew, what a
        parser held open and gave as it stood (`finish`), or a log that rewrites (`rewrites`)."""
        return self.snapshots or self.finish is not None or self.rewrites


@dataclass(frozen=True, slots=True)
class Source:
    """An agent: where its logs live and how each of its files is read."""

    name: str
    roots: Callable[[Mapping[str, str], Path], list[Path]]  # (environ, home) -> candidate roots
    files: tuple[FileKind, ...]
    #: Files looked for in the directories sessions ran in (their project memory files), with
    #: patterns relative to each such directory rather than to the agent's roots.
    projects: tuple[FileKind, ...] = ()

    @property
    def kinds(self) -> tuple[FileKind, ...]:
        """Its files' kinds, then its project files' kinds: a found file names one by index."""
        return self.files + self.projects


_HOURS: dict[str, int] = {}


def _utc_z_millis(text: str) -> int | None:
    """The agents' usual `2026-10-20T09:14:03.118Z`, with each hour's epoch cached: consecutive
    log lines share it, and this runs once per line of every backfill."""
    if (
        len(text) != 24
        or text[10] != "T"
        or text[13] != ":"
        or text[16] != ":"
        or text[19] != "."
        or text[23] != "Z"
    ):
        return None
    rest = text[14:16] + text[17:19] + text[20:23]  # minutes, seconds, milliseconds
    if not (rest.isascii() and rest.isdigit()):
        return None
    number = int(rest)
    minutes, seconds, millis = number // 100_000, number // 1000 % 100, number % 1000
    if minutes > 59 or seconds > 59:
        return None
    hour = text[:13]
    base = _HOURS.get(hour)
    if base is None:
        try:
            base = int(datetime.fromisoformat(hour + ":00:00+00:00").timestamp()) * 1000
        except ValueError:
            return None
        if len(_HOURS) > 65_536:
            _HOURS.clear()
        _HOURS[hour] = base
    return base + (minutes * 60 + seconds) * 1000 + millis


def parse_time(value: object) -> int | None:
    """ISO 8601 strings, epoch seconds or epoch milliseconds (a number > 1e11) → UTC epoch ms."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        fast = _utc_z_millis(value)
        if fast is not None:
            return fast
    if isinstance(value, int | float):
        return int(value) if value > 1e11 else int(value * 1000)
    if isinstance(value, str) and value:
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            return None
        if parsed.tzinfo is None:
            from datetime import UTC

            parsed = parsed.replace(tzinfo=UTC)
        return int(parsed.timestamp() * 1000)
    return None


def image_placeholder(media_type: str | None, data_length: int) -> str:
    """What stands in the text for an inline base64 image: its type and decoded size."""
    return f"[image {media_type or 'unknown'} {data_length * 3 // 4} bytes]"


# --- helpers shared by the line parsers -------------------------------------------------------

#: Later than any plausible log time (year 3000); anything outside [0, this) is not a time.
_MAX_TIME_MS = 32_503_680_000_000

_DATA_URL = re.compile(r"data:([\w.+-]+/[\w.+-]+)?;base64,([A-Za-z0-9+/=_-]{32,})")


def load_object(line: bytes) -> dict[str, Any] | ParseProblem | None:
    """The line's JSON object, a ParseProblem, or None for a blank line.

    orjson refuses invalid UTF-8 outright; agents sometimes write a stray byte inside a string,
    so such a line is retried with the bad bytes replaced instead of being lost.
    """
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        if not line.strip():  # only here: strip copies the line, and most lines are JSON
            return None
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            try:
                value = orjson.loads(line.decode("utf-8", "replace"))
            except orjson.JSONDecodeError as retry_exc:
                return ParseProblem("invalid-json", str(retry_exc)[:200])
        else:
            return ParseProblem("invalid-json", str(exc)[:200])
    if not isinstance(value, dict):
        return ParseProblem("not-an-object", type(value).__name__)
    return value


def safe_time(value: object) -> int | None:
    """parse_time for untrusted input: never raises, and rejects times no log can carry."""
    if type(value) is str:  # the usual case, once per line of every backfill: one call
        fast = _utc_z_millis(value)
        if fast is not None and 0 <= fast < _MAX_TIME_MS:
            return fast
    try:
        result = parse_time(value)
    except (ValueError, OverflowError, TypeError):
        return None
    if result is None or not 0 <= result < _MAX_TIME_MS:
        return None
    return result


def env_path(value: str | None, home: Path) -> Path | None:
    """A path an agent's environment variable names, `~` standing for `home` as a shell
    expands it; None when the variable is unset or empty."""
    if not value:
        return None
    if value == "~" or value.startswith("~/"):
        return home / value[2:]
    return Path(value)


def line_time(obj: Mapping[str, Any], state: dict[str, Any]) -> int:
    """A line's `timestamp`, or the last one the file gave (0 before any): a line without its
    own time (a metadata line, a half-known record) is placed where the file stood. The state
    keeps it under `t`."""
    stamped = safe_time(obj.get("timestamp"))
    if stamped is not None:
        state["t"] = stamped
        return stamped
    previous = state.get("t")
    return previous if type(previous) is int else 0


def nonempty_str(value: object) -> str | None:
    """A field's value if it is a non-empty string; agents write "" to mean "unknown"."""
    return value if isinstance(value, str) and value else None


def build_events(
    base_id: str,
    items: list[tuple[int, str, str, str | Labelled]],
    *,
    source: str,
    time: int,
    session: str,
    cwd: str | None,
    state: dict[str, Any],
) -> list[EventRecord]:
    """Events of one line: `(block index, role, kind, text)` each, the text a string of the
    log's words or a `Labelled` pair; a line with several gets `#<block index>` ids, a line
    with one keeps the plain id."""
    several = len(items) > 1
    branch, version = nonempty_str(state.get("branch")), nonempty_str(state.get("version"))
    out = []
    label: Label | None
    for index, role, kind, text in items:
        if isinstance(text, str):
            words, label = scrub_data_urls(text), None
        else:
            words, label = text  # built by Words or labelled, which scrub the log's words
        out.append(
            EventRecord(
                id=f"{base_id}#{index}" if several else base_id,
                time=time,
                source=source,
                session=session,
                role=role,
                kind=kind,
                text=words,
                cwd=cwd,
                git_branch=branch,
                agent_version=version,
                label=label,
            )
        )
    return out


def labelled(label: str, text: str = "") -> Labelled:
    """The log's words after a label of Origin's (`thread name: ` + the name)."""
    return scrub_data_urls(text), ((0, label),)


class Words:
    """An event text made of the log's words and Origin's, kept apart: `log` adds words from
    the log (indexed, searched), `origin` adds Origin's (shown, never searched), `sep` adds
    punctuation between items, which joins the log's words when it follows some, so that two
    values never run together into one searchable word, and is Origin's otherwise."""

    __slots__ = ("_label", "_last_log", "_parts", "_size")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._label: list[tuple[int, str]] = []
        self._size = 0
        self._last_log = False

    def log(self, words: str) -> Words:
        if words:
            words = scrub_data_urls(words)
            self._parts.append(words)
            self._size += len(words)
            self._last_log = True
        return self

    def origin(self, words: str) -> Words:
        if words:
            if self._label and self._label[-1][0] == self._size:
                self._label[-1] = (self._size, self._label[-1][1] + words)
            else:
                self._label.append((self._size, words))
            self._last_log = False
        return self

    def sep(self, punctuation: str) -> Words:
        if self._last_log:
            self._parts.append(punctuation)
            self._size += len(punctuation)
            return self
        return self.origin(punctuation)

    @property
    def empty(self) -> bool:
        return not self._parts and not self._label

    def build(self) -> Labelled | str:
        """The text, with its label when Origin added words (a plain string when it did not)."""
        text = "".join(self._parts)
        return (text, tuple(self._label)) if self._label else text


def row_line(table: str, key: str, row: Mapping[str, object]) -> bytes:
    """A row log's line (no newline): `{"table", "key", "row"}`, the row's values as read. Text
    stays text; a blob is text when it is UTF-8 and `{"base64": …}` when it is not."""
    values = {name: _row_value(value) for name, value in row.items()}
    return orjson.dumps({"table": table, "key": key, "row": values})


#: The table name of a `whole` file's lines; their key is the file's absolute path.
FILE_TABLE = "file"


def file_line(path: str, data: bytes, mtime_ms: int | None = None) -> bytes:
    """A `whole` file's row log line: its text (invalid UTF-8 replaced) under `row.text`, and
    when the file was written (`row.mtime_ms`), the only time a rewritten file carries."""
    row: dict[str, object] = {"text": data.decode("utf-8", "replace")}
    if mtime_ms is not None:
        row["mtime_ms"] = mtime_ms
    return row_line(FILE_TABLE, path, row)


def _row_value(value: object) -> object:
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(data).decode("ascii")}
    return value


def load_row(line: bytes) -> tuple[str, str, dict[str, Any]] | ParseProblem | None:
    """A row log line as (table, key, row), a ParseProblem, or None for a blank line."""
    value = load_object(line)
    if value is None or isinstance(value, ParseProblem):
        return value
    table, key, row = value.get("table"), value.get("key"), value.get("row")
    if not isinstance(table, str) or not isinstance(key, str) or not isinstance(row, dict):
        return ParseProblem("bad-field", "a row log line needs table, key and row")
    return table, key, row


def compact_json(value: object) -> str:
    """Tool inputs as one searchable line; non-ASCII kept readable (CJK paths, prompts)."""
    try:
        return orjson.dumps(value).decode("utf-8")
    except (orjson.JSONEncodeError, TypeError, UnicodeDecodeError):
        return "<unserialisable>"


def line_digest(line: bytes) -> str:
    """Stable short id for id-less lines: byte-identical re-emitted lines collapse to one id."""
    return hashlib.sha256(line).hexdigest()[:16]


def scrub_data_urls(text: str) -> str:
    """Inline base64 `data:` URLs replaced by the image placeholder, wherever they appear."""
    if "base64," not in text:
        return text
    return _DATA_URL.sub(lambda m: image_placeholder(m.group(1), len(m.group(2))), text)


#: The longest part of a large tool output filed as several events (Claude Code's out-of-line
#: outputs, Codex's fuller ones): with its label, well under the 20,000 characters kept.
OUTPUT_PART_CHARS = 16_000
#: A part is cut at the last line end (or space) of its second half, when it has one.
_MIN_PART = OUTPUT_PART_CHARS // 2


def split_output(text: str) -> list[str]:
    """The parts of an output, in order, which joined give it back exactly."""
    parts: list[str] = []
    start_at = 0
    size = len(text)
    while size - start_at > OUTPUT_PART_CHARS:
        window = text[start_at + _MIN_PART : start_at + OUTPUT_PART_CHARS]
        cut = window.rfind("\n")
        if cut < 0:
            cut = max(window.rfind(" "), window.rfind("\t"))
        end = start_at + (_MIN_PART + cut + 1 if cut >= 0 else OUTPUT_PART_CHARS)
        parts.append(text[start_at:end])
        start_at = end
    parts.append(text[start_at:])
    return parts
