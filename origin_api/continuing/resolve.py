"""Which session a person means, in the forms they paste: a session id as `origin timeline`
prints it, `<source>:<session id>`, the id of an event (a search hit's) in it, the start of a
session id when only one session starts so, or the admin UI's session address."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import lmdb

from origin_store.entries import versions as store_entries
from origin_store.parsers.agents import AGENTS
from origin_store.reader import get_event, mirror_info, session_event_ids, sessions_with_prefix
from origin_store.records import SessionDoc

from ..errors import invalid, not_found
from ..runtime import Origin
from ..service.reading import find_session
from .commands import Continuation, SessionFacts, continuation

#: The shortest start of a session id that names a session by itself.
PREFIX_MIN = 6
#: Events of a session whose files are looked at to tell a Cursor IDE chat from a CLI chat.
_FILES_LOOKED_AT = 20


def find(origin: Origin, txn: lmdb.Transaction, text: str, source: str | None) -> SessionDoc:
    """The session `text` names, or the readable error a person can act on."""
    given = text.strip()
    if not given:
        raise invalid("Which session? Give a session id, as `origin timeline` prints it.")
    if given.startswith("ent_"):
        raise invalid(
            f"{given} is an entry, not a session: `origin get {given}` shows its sources."
        )
    if "/ui/session?" in given:
        query = parse_qs(urlsplit(given).query)
        given = (query.get("id") or [""])[0]
        source = source or (query.get("source") or [""])[0] or None
    found = find_session(origin, txn, given, source)
    if found is not None:
        return found
    event = get_event(origin.store, txn, given)
    if event is not None and not store_entries.is_hidden(origin.store, txn, given):
        by_event = find_session(origin, txn, event["session"], event["source"])
        if by_event is not None:
            return by_event
    head, _, rest = given.partition(":")
    if head in AGENTS and rest and (source is None or source == head):
        named = find_session(origin, txn, rest, head)
        if named is not None:
            return named
    return _by_prefix(origin, txn, given, source)


def _by_prefix(origin: Origin, txn: lmdb.Transaction, given: str, source: str | None) -> SessionDoc:
    matches: list[SessionDoc] = []
    if len(given) >= PREFIX_MIN:
        for name in [source] if source else AGENTS:
            matches += sessions_with_prefix(origin.store, txn, name, given, 3)
    named = {m["session"] for m in matches}
    matches = [m for m in matches if m["parent"] not in named]  # a sub-agent goes with its parent
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = ", ".join(f"{m['source']}:{m['session']}" for m in matches[:3])
        raise invalid(f"{given} starts more than one session ({names}): give more of it.")
    where = f" of {source}" if source else ""
    raise not_found(
        f"Unknown session{where} {given}: give a session id as `origin timeline` prints it, "
        "or the id of an event in it (a search hit's)."
    )


def facts(origin: Origin, txn: lmdb.Transaction, session: SessionDoc) -> SessionFacts:
    """What decides the session's command, read from the store."""
    ide_only = False
    if session["source"] == "cursor":
        ide_only = _cursor_ide_only(origin, txn, session)
    return SessionFacts(
        session["source"], session["session"], session["cwd"], session["parent"], ide_only
    )


def _cursor_ide_only(origin: Origin, txn: lmdb.Transaction, session: SessionDoc) -> bool:
    """Whether a Cursor session was read only from the IDE's database (`state.vscdb`), which
    `cursor-agent` cannot resume, and from none of the CLI's chats or transcripts."""
    files: set[str] = set()
    ids = session_event_ids(origin.store, txn, session["source"], session["session"])
    for n, event_id in enumerate(ids):
        if n >= _FILES_LOOKED_AT:
            break
        event = get_event(origin.store, txn, event_id)
        mirror = mirror_info(origin.store, txn, event["m"]) if event and event["m"] else None
        if mirror is not None:
            files.add(mirror["original_file"])
    return bool(files) and all(name.endswith("state.vscdb") for name in files)


def continuation_of(origin: Origin, text: str, source: str | None = None) -> Continuation:
    """The command that continues the session `text` names (`find`), or why there is none."""
    with origin.store.read() as txn:
        return continuation(facts(origin, txn, find(origin, txn, text, source)))
