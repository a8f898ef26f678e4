"""The shapes of what the store keeps: one TypedDict per kind of stored record.

Records are orjson in LMDB (`db.DBS` says which database holds which; an event record is
encoded by `codec`, compressed without its id); these name their fields so code that reads or
writes them says what it holds.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from .textclip import Label


class EventDoc(TypedDict):
    """An event as stored (`events`): the parser's EventRecord plus project, mirror and line."""

    id: str
    time: int
    source: str
    project: str | None
    session: str
    role: str
    kind: str
    text: str  # the first textclip.STORED_CHARS characters
    cwd: str | None
    git_branch: str | None
    agent_version: str | None
    m: int  # mirror id
    line: int  # line in that mirror
    text_chars: NotRequired[int]  # the whole text's length, when it was cut
    label: NotRequired[Label]
    usage: NotRequired[list[int]]  # model.Usage: tokens in, cached, out
    # An event a device pushed to its hub (m is 0): the device's file, line and raw line.
    device: NotRequired[str | None]
    original_file: NotRequired[str | None]
    raw: NotRequired[str | None]
    raw_chars: NotRequired[int]


class Citation(TypedDict):
    """One of an entry version's `sources` as stored: the event it cites, and the quote."""

    event_id: str
    quote: str | None


class EntryVersion(TypedDict):
    """An entry version as stored (`entries`); its fields are the tools' (origin_api). This
    store writes every field; a version synced from elsewhere is kept as it came, and a hub's
    may leave out those that are null or false (`replication.check` reads them with a default).
    """

    id: str
    kind: str
    text: str
    confidence: float
    project: NotRequired[str | None]
    author: str
    created: int
    valid_from: NotRequired[int | None]
    valid_to: NotRequired[int | None]
    supersedes: NotRequired[str | None]
    root: str
    imported: NotRequired[bool]
    sources: list[Citation]


class SessionDoc(TypedDict):
    """A session (`sessions`), merged from its events and SessionFacts (`model.merge_session`)."""

    session: str
    source: str
    project: str | None
    cwd: str | None
    title: str | None
    title_rank: int
    title_time: int
    prompt: str | None
    parent: str | None
    started: int | None
    ended: int | None
    events: int  # visible events


class MirrorState(TypedDict):
    """How far a mirror is written: sealed frames in `.zst`, plain lines in `.tail`."""

    id: int
    rel: str
    zst: int  # bytes of .zst
    sealed: int  # lines in frames
    tail: int  # bytes of .tail
    crc: int  # crc32 of the tail
    src: int  # offset in the original of the tail's first line


class Cursor(TypedDict):
    """How far an original file is ingested (`files`), and its parser's state."""

    source: str
    kind: str
    root: str
    rel: str
    version: int
    offset: int
    lines: int
    size: int
    mtime: int
    ino: int
    head: str  # digest of the first head_len bytes
    head_len: int
    mirror: MirrorState
    state: dict[str, Any]
    # A row log's: where the blocks given back end (`rowlog.release`, `rowlog.releasable`).
    released: NotRequired[int]


class MirrorDoc(TypedDict):
    """A mirror (`mirrors`); `final` is its last state once the original was rewritten."""

    original_file: str
    mirror_file: str
    source: str
    version: int
    final: NotRequired[MirrorState]


class FeedItem(TypedDict):
    """One change (`feed`): t is event (announced once, when it is first stored), entry, hide,
    unhide, update (events replaced by a newer version of the row they came from) or session
    (`<source>:<session>` retitled or described anew without a new event)."""

    t: str
    id: NotRequired[str]
    root: NotRequired[str]
    tombstone: NotRequired[str]
    ids: NotRequired[list[str]]


class TombstoneDoc(TypedDict):
    """A forget (`tombstones`): what it asked to hide and why, who asked and when, the entry
    versions and events it hid, and when it was restored (None while in force)."""

    id: str
    target: str
    reason: str
    author: str
    created: int
    entries: list[str]
    events: list[str]
    restored: int | None


class ProblemDoc(TypedDict):
    """A line that could not be parsed (`problems`)."""

    reason: str
    detail: str


class TokenDoc(TypedDict):
    """A hub token (`tokens`, keyed by its name): the secret's hash, never the secret."""

    hash: str
    scope: str
    created: int
    last_used: int | None
    revoked: int | None
