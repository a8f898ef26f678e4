"""The records that flow from parsers into the store, named exactly as the contract names them.

Parsers produce these; the store normalises and persists them. Times are UTC epoch milliseconds
everywhere inside Origin and are rendered as local ISO 8601 only at the edges.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .textclip import Label, with_label

# The agents a record may come from are the parsers' names (`parsers.registry.SOURCES`).
ROLES: tuple[str, ...] = ("user", "assistant", "system")
EVENT_KINDS: tuple[str, ...] = ("message", "tool_use", "tool_result", "meta", "system", "memory")
#: What an entry is: the one list the tools' `kind` arguments offer.
ENTRY_KINDS: tuple[str, ...] = ("memory", "knowledge", "cognition")


@dataclass(slots=True)
class EventRecord:
    """One event as a parser sees it; the store adds project, mirror file and line.

    `text` holds only the log's own words: it is what is indexed and searched. Words Origin adds
    to say what the event is (`thread name: `, `turn: model `, `[error] `) are its `label`,
    (offset in `text`, words) pairs in order; `rendered` is the text as the tools show it.
    """

    id: str  # "<source>:<id in the source>"
    time: int  # UTC epoch milliseconds
    source: str
    session: str
    role: str  # one of ROLES
    kind: str  # one of EVENT_KINDS
    text: str  # whole text; the store keeps its first textclip.STORED_CHARS characters
    cwd: str | None = None
    git_branch: str | None = None
    agent_version: str | None = None
    label: Label | None = None

    @property
    def rendered(self) -> str:
        return with_label(self.text, self.label)


@dataclass(slots=True)
class SessionFact:
    """Something a line tells about its session: a title candidate, a first prompt, a cwd.

    Several facts about one session merge in the store: the title with the highest rank wins
    (on equal rank the later one), the first prompt seen wins, the first cwd seen wins.
    """

    session: str
    source: str
    title: str | None = None
    title_rank: int = 0
    prompt: str | None = None
    cwd: str | None = None
    parent: str | None = None
    time: int | None = None  # widens the session's started/ended range when set


@dataclass(slots=True)
class ParseProblem:
    """A complete line that could not be understood: counted, reported, never fatal."""

    reason: str  # short stable code: "invalid-json", "not-an-object", "bad-field", ...
    detail: str = ""


Record = EventRecord | SessionFact | ParseProblem


@dataclass(slots=True)
class ParseOutput:
    """What one line yields. Kept as a list so the ingest loop stays a single pass."""

    records: list[Record] = field(default_factory=list)
