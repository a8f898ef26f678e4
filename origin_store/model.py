"""The records that flow from parsers into the store, named exactly as the contract names them.

Parsers produce these; the store normalises and persists them. Times are UTC epoch milliseconds
everywhere inside Origin and are rendered as local ISO 8601 only at the edges.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .project import project_of
from .records import SessionDoc
from .textclip import Label, with_label

# The agents a record may come from are the parsers' names (`parsers.registry.SOURCES`).
ROLES: tuple[str, ...] = ("user", "assistant", "system")
EVENT_KINDS: tuple[str, ...] = ("message", "tool_use", "tool_result", "meta", "system", "memory")
#: What an entry is: the one list the tools' `kind` arguments offer.
ENTRY_KINDS: tuple[str, ...] = ("memory", "knowledge", "cognition")


class Usage(NamedTuple):
    """The tokens of one model call as its log recorded them (kept on the event that call
    wrote first, so a call is counted once): every input token, cached ones included; of them,
    those read from a cache; output tokens (reasoning included)."""

    tokens_in: int
    cached: int
    tokens_out: int


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
    #: The line it comes from, when not the line being parsed: a message joined from chunks
    #: on several lines is emitted at a later line but comes from its first.
    line: int | None = None
    #: The tokens of the model call that wrote it, where the log says and this is the call's
    #: first event (`activity` adds them up).
    usage: Usage | None = None

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
    time: int | None = (
        None  # when the line was written: of two titles of equal rank, the later wins
    )


@dataclass(slots=True)
class ParseProblem:
    """A complete line that could not be understood: counted, reported, never fatal."""

    reason: str  # short stable code: "invalid-json", "not-an-object", "bad-field", ...
    detail: str = ""


Record = EventRecord | SessionFact | ParseProblem

#: Characters of a session's first prompt that are kept.
PROMPT_CHARS = 2000


def new_session(source: str, session: str) -> SessionDoc:
    """A session before anything is known of it."""
    return {
        "session": session,
        "source": source,
        "project": None,
        "cwd": None,
        "title": None,
        "title_rank": -1,
        "title_time": 0,
        "prompt": None,
        "parent": None,
        "started": None,
        "ended": None,
        "events": 0,
    }


def merge_session(session: SessionDoc, fact: SessionFact) -> None:
    """Merge what a fact tells into its session: the first cwd (and its project), prompt and
    parent seen win; a title wins over one of lower rank, and over one of equal rank unless
    that one is later."""
    if fact.cwd and not session["cwd"]:
        session["cwd"] = fact.cwd
        session["project"] = project_of(fact.cwd)
    if fact.title and (
        fact.title_rank > session["title_rank"]
        or (fact.title_rank == session["title_rank"] and (fact.time or 0) >= session["title_time"])
    ):
        session["title"] = fact.title
        session["title_rank"] = fact.title_rank
        session["title_time"] = fact.time or 0
    if fact.prompt and not session["prompt"]:
        session["prompt"] = fact.prompt[:PROMPT_CHARS]
    if fact.parent and not session["parent"]:
        session["parent"] = fact.parent


def widen(session: SessionDoc, when: int) -> None:
    """Stretch a session's started/ended range over an event's time (unknown times: <= 0)."""
    if when <= 0:
        return
    started = session["started"]
    if started is None or when < started:
        session["started"] = when
    ended = session["ended"]
    if ended is None or when > ended:
        session["ended"] = when
