"""What a sync batch may hold: every item of a push or a pull checked before anything is written
(docs/sync.md). Names that become keys are bounded in bytes and times to what every front door
renders (`bounds`); a value of any type gets a readable refusal, never an exception.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any, TypeGuard, cast

from .. import bounds
from ..errors import StoreError
from ..model import EVENT_KINDS, ROLES
from ..textclip import STORED_CHARS

if TYPE_CHECKING:
    from .wire import Item

#: Item kinds of a push; a pull carries only entries and tombstones.
PUSH_KINDS = frozenset({"event", "session", "entry", "tombstone"})
PULL_KINDS = frozenset({"entry", "tombstone"})
#: The longest raw mirror line a push carries (what `sources` shows of it).
RAW_CHARS = 4_000
#: Longest texts of an entry version and of a name (author, project, path, reason).
ENTRY_TEXT_CHARS = 100_000
NAME_CHARS = 4_096
ENTRY_KINDS = frozenset({"memory", "knowledge", "cognition"})
_ENTRY_ID = re.compile(r"ent_[0-9a-f]{12,32}")
_TOMBSTONE_ID = re.compile(r"tmb_[0-9a-f]{6,32}")
_VALIDITY = ("valid_from", "valid_to")


class BatchRefused(StoreError, ValueError):
    """A batch refused whole: the message names the item and what is wrong with it."""


class _Known(frozenset[str]):
    """The agents' names, and any recorded source id (the `ingest` tool's: a device's journal)."""

    def __contains__(self, name: object) -> bool:
        from ..parsers.journal import is_recorded_id

        return super().__contains__(name) or (isinstance(name, str) and is_recorded_id(name))


def _known_sources() -> frozenset[str]:
    from ..parsers.registry import SOURCES  # the parsers only when a batch is checked

    return _Known(SOURCES)


def _text(value: Any, limit: int = NAME_CHARS, *, null: bool = True) -> bool:
    return (value is None and null) or (isinstance(value, str) and len(value) <= limit)


def _int(value: Any, *, null: bool = False) -> bool:
    return (value is None and null) or (type(value) is int and -(2**62) < value < 2**62)


def _time(value: Any, *, null: bool = False) -> bool:
    """A time every front door can render (`bounds`): a stored one is shown by every read."""
    return (value is None and null) or (type(value) is int and bounds.time_fits(value))


def _one_of(value: Any, names: Collection[str]) -> TypeGuard[str]:
    """`value in names` for a value of any type (a list or an object is not hashable)."""
    return isinstance(value, str) and value in names


def _check_event(item: dict[str, Any], sources: frozenset[str]) -> str | None:
    event = item.get("event")
    if not isinstance(event, dict):
        return "event must be an object"
    event_id, source = event.get("id"), event.get("source")
    if not _one_of(source, sources):
        return (
            f"source must be one of {', '.join(sorted(sources))}, or a recorded source id "
            "(a-z, 0-9 and -, at most 40 characters)"
        )
    if not isinstance(event_id, str) or not event_id.startswith(f"{source}:"):
        return "id must be <source>:<id in the source>, with the event's source"
    if not _text(event.get("text"), STORED_CHARS, null=False):
        return f"text must be a string of at most {STORED_CHARS:,} characters"
    if not (_one_of(event.get("role"), ROLES) and _one_of(event.get("kind"), EVENT_KINDS)):
        return "role and kind must be the contract's"
    if not isinstance(event.get("session"), str):
        return "session must be a string"
    if not (type(event.get("time")) is int and _int(event.get("line"))):
        return "time and line must be integers"
    problem = bounds.unstorable(event_id, source, event["session"], event["time"])
    if problem:
        return f"the event cannot be stored: {problem}"
    if not all(
        _text(event.get(name)) for name in ("project", "cwd", "git_branch", "agent_version")
    ):
        return "project, cwd, git_branch and agent_version must be strings or null"
    if "text_chars" in event and not _int(event["text_chars"]):
        return "text_chars must be an integer"
    label = event.get("label")
    if label is not None and not (
        isinstance(label, list)
        and all(
            isinstance(p, list) and len(p) == 2 and _int(p[0]) and _text(p[1], null=False)
            for p in label
        )
    ):
        return "label must be [offset, words] pairs"
    usage = event.get("usage")
    if usage is not None and not (
        isinstance(usage, list) and len(usage) == 3 and all(_int(n) and n >= 0 for n in usage)
    ):
        return "usage must be three non-negative integers (tokens in, cached, out)"
    if not (_text(item.get("original_file")) and _text(item.get("raw"), RAW_CHARS)):
        return f"original_file and raw must be strings (raw at most {RAW_CHARS:,} characters)"
    if not _int(item.get("raw_chars", 0)):
        return "raw_chars must be an integer"
    return None


def _check_session(item: dict[str, Any], sources: frozenset[str]) -> str | None:
    doc = item.get("session")
    if not isinstance(doc, dict):
        return "session must be an object"
    source, name = doc.get("source"), doc.get("session")
    if not (_one_of(source, sources) and isinstance(name, str)):
        return "session and source must name a known source's session"
    if not bounds.session_fits(source, name):
        return (
            f"the session is {bounds.utf8(name):,} bytes of UTF-8; with its source, at most "
            f"{bounds.session_bytes(source)} fit"
        )
    if not all(_text(doc.get(name)) for name in ("title", "prompt", "cwd", "project", "parent")):
        return "title, prompt, cwd, project and parent must be strings or null"
    if not (_int(doc.get("title_rank", -1)) and _int(doc.get("title_time", 0))):
        return "title_rank and title_time must be integers"
    return None


def check_version(version: Any) -> str | None:
    """What is wrong with an entry version, or None."""
    if not isinstance(version, dict):
        return "version must be an object"
    if not all(
        isinstance(version.get(name), str) and _ENTRY_ID.fullmatch(version[name])
        for name in ("id", "root")
    ):
        return "id and root must be entry ids (ent_ and 12 to 32 hex characters)"
    supersedes = version.get("supersedes")
    if supersedes is not None and not (
        isinstance(supersedes, str) and _ENTRY_ID.fullmatch(supersedes)
    ):
        return "supersedes must be an entry id or null"
    if not _one_of(version.get("kind"), ENTRY_KINDS):
        return "kind must be memory, knowledge or cognition"
    if not _text(version.get("text"), ENTRY_TEXT_CHARS, null=False):
        return f"text must be a string of at most {ENTRY_TEXT_CHARS:,} characters"
    confidence = version.get("confidence")
    if not isinstance(confidence, int | float) or isinstance(confidence, bool):
        return "confidence must be a number"
    if not 0 <= confidence <= 1:
        return "confidence must be between 0 and 1"
    if not (_text(version.get("project")) and _text(version.get("author"), null=False)):
        return "project and author must be strings"
    if not (
        _int(version.get("created"))
        and _int(version.get("valid_from"), null=True)
        and _int(version.get("valid_to"), null=True)
    ):
        return "created, valid_from and valid_to must be integers (milliseconds)"
    if not all(_time(version.get(n), null=n != "created") for n in ("created", *_VALIDITY)):
        return f"created, valid_from and valid_to must be times {bounds.TIME_RANGE}"
    if not isinstance(version.get("imported", False), bool):
        return "imported must be true or false"
    cited = version.get("sources")
    if not isinstance(cited, list) or not all(
        isinstance(s, dict) and isinstance(s.get("event_id"), str) and _text(s.get("quote"))
        for s in cited
    ):
        return "sources must be a list of {event_id, quote}"
    if not all(bounds.event_id_fits(s["event_id"]) for s in cited):
        return f"a source's event_id must be at most {bounds.EVENT_ID_BYTES} bytes of UTF-8"
    return None


def check_tombstone(doc: Any) -> str | None:
    if not isinstance(doc, dict):
        return "tombstone must be an object"
    if not (isinstance(doc.get("id"), str) and _TOMBSTONE_ID.fullmatch(doc["id"])):
        return "id must be a tombstone id (tmb_ and hex characters)"
    entries, events = doc.get("entries"), doc.get("events")
    if not isinstance(entries, list) or not all(
        isinstance(e, str) and _ENTRY_ID.fullmatch(e) for e in entries
    ):
        return "entries must be a list of entry ids"
    if not isinstance(events, list) or not all(
        isinstance(e, str) and ":" in e and bounds.event_id_fits(e) for e in events
    ):
        return f"events must be a list of event ids (at most {bounds.EVENT_ID_BYTES} bytes each)"
    if not all(_text(doc.get(name), null=False) for name in ("target", "reason", "author")):
        return "target, reason and author must be strings"
    if not (_int(doc.get("created")) and _int(doc.get("restored"), null=True)):
        return "created and restored must be integers (restored may be null)"
    if not (_time(doc["created"]) and _time(doc["restored"], null=True)):
        return f"created and restored must be times {bounds.TIME_RANGE}"
    return None


def _check_item(kind: str, item: dict[str, Any], sources: frozenset[str]) -> str | None:
    if kind == "event":
        return _check_event(item, sources)
    if kind == "session":
        return _check_session(item, sources)
    if kind == "entry":
        return check_version(item.get("version"))
    return check_tombstone(item.get("tombstone"))


def check_items(items: Any, kinds: frozenset[str]) -> list[Item]:
    """The batch's items, typed as the wire's (`replication.wire`), if every one is well
    formed; raises `BatchRefused` naming the first that is not."""
    kept, refused = usable_items(items, kinds)
    if refused:
        raise BatchRefused(refused[0])
    return kept


def usable_items(items: Any, kinds: frozenset[str]) -> tuple[list[Item], list[str]]:
    """A pull's well-formed items, and what is wrong with each of the others: a device keeps
    what it can of a hub's answer, so an item it cannot keep (one a hub of an earlier version
    stored) is counted and passed over instead of stopping every pull after it."""
    if not isinstance(items, list):
        raise BatchRefused("items must be a list.")
    sources = _known_sources() if "event" in kinds else frozenset()
    kept, refused = [], []
    for number, item in enumerate(items):
        problem = _item_problem(number, item, kinds, sources)
        if problem:
            refused.append(problem)
        else:
            kept.append(item)
    return cast("list[Item]", kept), refused


def _item_problem(
    number: int, item: Any, kinds: frozenset[str], sources: frozenset[str]
) -> str | None:
    if not isinstance(item, dict):
        return f"Item {number} is not an object."
    kind = item.get("kind")
    if not _one_of(kind, kinds):
        return f"Item {number} has the kind {str(kind)[:40]!r}; known: {', '.join(sorted(kinds))}."
    if not _int(item.get("seq")) or item["seq"] < 0:
        return f"Item {number} ({kind}): seq must be a whole number."
    problem = _check_item(kind, item, sources)
    return f"Item {number} ({kind}): {problem}." if problem else None
