"""Recorded sources: what agents without a session log Origin can read recorded with `ingest`.

Such an agent (a cloud agent, a client reaching the hub over HTTP) has no log of its own here, so
Origin keeps one for it: a journal per recorded source, `ORIGIN_HOME/journal/<source>.jsonl`, one
JSON object a line, appended by the tool and read back by this parser like any agent's log. The
journal is the events' original file: it gets a mirror, `sources` shows its lines, and a store
rebuilt from the home finds the events again.

A recorded source id is the client's name folded to `[a-z0-9-]` (at most 40 characters), so the
`source` filters of search and timeline take the same words the tool was given. It never equals
the name of an agent whose logs Origin reads: such a name gets `-recorded` (`codex` records as
`codex-recorded`), so the two never share an id, a session or a journal.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import EventRecord, ParseProblem, Record, SessionFact
from ..settings import TABLE, read
from .base import FileKind, Source, Words, line_digest, load_object, never_raises, safe_time

#: The folder under ORIGIN_HOME that holds the journals.
JOURNAL_DIR = "journal"
#: The source recorded when the client names none.
DEFAULT_SOURCE = "mcp"
#: The longest recorded source id.
SOURCE_CHARS = 40
#: Added to a client's name that is an agent's whose logs Origin reads.
TAKEN_SUFFIX = "-recorded"
#: The kinds the contract names; any other is kept as the client gave it.
KINDS = ("conversation", "agent", "command", "commit", "file", "decision")
DEFAULT_KIND = "conversation"

_RECORDED = re.compile(rf"[a-z0-9](?:[a-z0-9-]{{0,{SOURCE_CHARS - 2}}}[a-z0-9])?")
_OTHER = re.compile(r"[^a-z0-9]+")


def fold(name: str) -> str:
    """A name as a source id: accents dropped, lower case, every run of other characters one
    `-`, no `-` at either end, at most 40 characters ("" when nothing is left)."""
    ascii_only = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return _OTHER.sub("-", ascii_only.lower()).strip("-")[:SOURCE_CHARS].rstrip("-")


def recorded_id(name: str, agents: Collection[str]) -> str:
    """The source id a client's `source` records under ("" when nothing usable is left): its
    folded name, with `-recorded` when that names one of `agents` (the log-backed sources)."""
    folded = fold(name)
    if folded in agents:
        folded = folded[: SOURCE_CHARS - len(TAKEN_SUFFIX)] + TAKEN_SUFFIX
    return folded


def is_recorded_id(name: str) -> bool:
    """Whether `name` has the shape of a source id (`fold` leaves it as it is)."""
    return _RECORDED.fullmatch(name) is not None


def journal_dir(environ: Mapping[str, str], user_home: Path) -> Path:
    """`ORIGIN_HOME/journal`, read from the environment as the store's settings read it."""
    home = read(TABLE, environ)["ORIGIN_HOME"]
    if home.startswith("~"):
        home = home.replace("~", str(user_home), 1)
    return Path(home) / JOURNAL_DIR


@dataclass(frozen=True, slots=True)
class _JournalRoots:
    """A recorded source's root: a class, not a closure, so that a source pickles (a large
    backfill sends its files to worker processes)."""

    def __call__(self, environ: Mapping[str, str], user_home: Path) -> list[Path]:
        return [journal_dir(environ, user_home)]


def _start(rel: str) -> dict[str, Any]:
    """The state of a journal: its source, from its name (`<source>.jsonl`)."""
    return {"source": rel.rsplit("/", 1)[-1].removesuffix(".jsonl")}


def source(name: str) -> Source:
    """The source whose one file is the journal of the recorded source `name`."""
    kind = FileKind("journal", (f"{name}.jsonl",), parse_line, _start)
    return Source(name, _JournalRoots(), (kind,))


# -- one line --------------------------------------------------------------------------------


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str) and v] if isinstance(value, list) else []


def _text(line: dict[str, Any], kind: str, author: str | None) -> Words:
    """The event's text: the client's words (title, content, tags), after Origin's label
    saying what was recorded and by whom."""
    words = Words().origin(f"[{kind} · {author}] " if author else f"[{kind}] ")
    title = line.get("title")
    if isinstance(title, str) and title:
        words.log(title).sep("\n")
    words.log(line["content"])
    tags = _strings(line.get("tags"))
    if tags:
        words.sep("\n").origin("tags: ").log(", ".join(tags))
    return words


@never_raises
def parse_line(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
    """One recorded event: a message of the agent that recorded it (so that search finds it
    without include_tools), in its session, in its workspace."""
    value = load_object(line)
    if value is None or isinstance(value, ParseProblem):
        return [value] if value is not None else []
    name = state.get("source")
    if not isinstance(name, str) or not is_recorded_id(name):
        return [ParseProblem("bad-field", "a journal is named <source>.jsonl")]
    content, session = value.get("content"), value.get("session")
    if not isinstance(content, str) or not content.strip():
        return [ParseProblem("bad-field", "content must be a non-empty string")]
    if not isinstance(session, str) or not session:
        return [ParseProblem("bad-field", "session must be a non-empty string")]
    when = safe_time(value.get("time"))
    if when is None:
        return [ParseProblem("bad-field", "time must be a time")]
    given = value.get("id")
    local_id = given if isinstance(given, str) and given else line_digest(line)
    kind = value.get("kind")
    author = value.get("author")
    workspace = value.get("workspace")
    cwd = workspace if isinstance(workspace, str) and workspace else None
    built = _text(
        value,
        kind if isinstance(kind, str) and kind else DEFAULT_KIND,
        author if isinstance(author, str) and author else None,
    ).build()
    text, label = (built, None) if isinstance(built, str) else built
    event = EventRecord(
        id=f"{name}:{local_id}",
        time=when,
        source=name,
        session=session,
        role="assistant",
        kind="message",
        text=text,
        cwd=cwd,
        label=label,
    )
    return [SessionFact(session=session, source=name, cwd=cwd, time=when), event]
