"""Imported entries: each agent memory file mirrored as one entry that follows the file.

The ingest commit calls `import_memories` in the write transaction that stores the memory
events, so an event and the entry version citing it are stored together or not at all. One entry
per file, not per section: a file's new version then supersedes exactly one current version, and
headings that move or merge never leave an entry behind. The file wins over Origin: its next
version supersedes the current version even when that is a correction made in Origin. A forget
still holds: what a forgotten entry gains as its file changes is hidden under the same tombstone,
so a restore brings the entry back with the newest version of its file. Rules: docs/memory.md.

Which entry mirrors which file is kept in `meta` (`memory_file_key`), with the digest and time
of the version it mirrors: the same text read again, or an older version read again (a row log
read from its start), changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import lmdb

from ..core.db import Store
from ..model import EventRecord
from ..parsers.memory import memory_file
from ..project import project_of
from ..records import EntryVersion
from . import versions as entries

#: What an imported version's confidence is: the file says it, as its agent reads it.
IMPORTED_CONFIDENCE = 1.0


def memory_file_key(path: str) -> str:
    """The `meta` key of a memory file's record: {root, digest, time} of what its entry mirrors."""
    return f"memory_file:{path}"


def import_memories(
    store: Store, txn: lmdb.Transaction, events: Iterable[EventRecord], device: str | None
) -> list[str]:
    """Mirror every memory event (in file order; others are passed over) into its file's entry;
    returns the ids of the versions written. Call it after the events and sessions are put."""
    written = []
    for event in events:
        found = memory_file(event)
        if found is not None:
            version = _import(store, txn, event, found[0], found[1], device)
            if version is not None:
                written.append(version)
    return written


def _import(
    store: Store,
    txn: lmdb.Transaction,
    event: EventRecord,
    path: str,
    digest: str,
    device: str | None,
) -> str | None:
    key = memory_file_key(path)
    known: dict[str, Any] = store.meta_get(txn, key) or {}
    if known.get("digest") == digest or event.time < known.get("time", 0):
        return None
    root = known.get("root")
    current = _current(store, txn, root) if isinstance(root, str) else None
    version = _version(event, current, device)
    store.meta_put(
        txn,
        key,
        {"root": version["root"] if version else root, "digest": digest, "time": event.time},
    )
    if version is None:
        return None
    entries.put_version(store, txn, version)
    tombstone = _forgotten_by(store, txn, [current["id"]] if current else [], event.id)
    if tombstone is not None:
        entries.forget_more(store, txn, tombstone, [version["id"]], [event.id])
    return str(version["id"])


def _current(store: Store, txn: lmdb.Transaction, root: str) -> EntryVersion | None:
    line = entries.lineage(store, txn, root)
    return None if line.current is None else entries.get_entry(store, txn, line.current)


def _version(
    event: EventRecord, current: EntryVersion | None, device: str | None
) -> EntryVersion | None:
    """The version mirroring this file version, or None for a first version with no text. A file
    emptied no longer holds: its version keeps the last text and ends its validity then."""
    blank = not event.text.strip()
    if current is None and blank:
        return None
    project = project_of(event.cwd) if event.cwd else None
    return entries.new_version(
        kind="memory",
        text=current["text"] if blank and current else event.text,
        confidence=IMPORTED_CONFIDENCE,
        project=project if project is not None or current is None else current.get("project"),
        author=entries.author_of(event.source, device),
        created=event.time if event.time > 0 else entries.now_ms(),
        sources=[{"event_id": event.id, "quote": None}],
        valid_to=event.time if blank else None,
        imported=True,
        after=current,
    )


def _forgotten_by(
    store: Store, txn: lmdb.Transaction, entry_ids: list[str], event_id: str
) -> str | None:
    """The forget hiding the entry (or the event), if one is in force."""
    for item in [*entry_ids, event_id]:
        mark = txn.get(item.encode(), db=store.dbs["hidden"])
        if mark is not None:
            return bytes(mark).decode()
    return None
