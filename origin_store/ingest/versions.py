"""Versions of an original file: a grown file is the same version; a shrunk or rewritten one,
or one whose mirror cannot be recovered, is mirrored again as a new version."""

from __future__ import annotations

from pathlib import Path

import lmdb

from ..core import keys
from ..core.db import Store
from ..mirrors import mirror as mirrors
from ..records import Cursor, MirrorDoc
from ..redaction import mask as redact
from .content import Content, head_digest
from .discovery import LogFile

#: A head digest no file has: a cursor given it reads its file as a new version next time.
READ_ANEW_HEAD = "read-anew"


def read_anew(store: Store, key: bytes, txn: lmdb.Transaction) -> None:
    """Make the cursor at `key` start a new version at its next read, whatever its file holds
    then: its offsets no longer describe that file (rewritten by a rescan, begun again)."""
    cursor: Cursor | None = store.get(txn, "files", key)
    if cursor is not None:
        store.put(txn, "files", key, {**cursor, "head": READ_ANEW_HEAD})


def same_version(cursor: Cursor, content: Content) -> bool:
    size = content.size()
    if size is not None and size < cursor["offset"]:
        return False
    content.seek(0)
    head = content.read(cursor["head_len"])
    return head_digest(head) == cursor["head"]


def tail_source(content: Content, cursor: Cursor) -> bytes | None:
    """What the committed tail mirrors, to rebuild a torn tail: the original's lines from the
    tail's start to the cursor, redacted as ingest redacted them."""
    state = cursor["mirror"]
    if not state["tail"]:
        return b""
    start, end = state["src"], cursor["offset"]
    if not 0 <= start <= end:
        return None
    try:
        content.seek(start)
        original = content.read(end - start)
    except OSError:
        return None
    return b"".join(redact.redact_lines(mirrors.split_lines(original)).lines)


def mirror_rel(log: LogFile, version: int) -> str:
    """The mirror's path under raw/: source/rel, without .zst, with .vN from version 2."""
    rel = log.rel[:-4] if log.rel.endswith(".zst") else log.rel
    if version > 1:
        rel = f"{rel}.v{version}"
    return f"{log.source.name}/{rel}"


def new_version(store: Store, raw_root: Path, log: LogFile, old: Cursor | None) -> Cursor:
    """A fresh cursor and an empty mirror; a rewritten file gets a new mirror file name."""
    version = (old["version"] + 1) if old else 1
    rel = mirror_rel(log, version)

    def work(txn: lmdb.Transaction) -> int:
        if old is not None:
            # Freeze the old version's mirror state so its lines stay readable by `sources`.
            old_key = keys.mirror_key(old["mirror"]["id"])
            previous: MirrorDoc | None = store.get(txn, "mirrors", old_key)
            store.put(txn, "mirrors", old_key, {**(previous or {}), "final": old["mirror"]})
            store.drop_tail_cuts(txn, old["mirror"]["id"])
        mirror_id: int = (store.meta_get(txn, "next_mirror") or 0) + 1
        store.meta_put(txn, "next_mirror", mirror_id)
        doc: MirrorDoc = {
            "original_file": str(log.original),
            "mirror_file": str(raw_root / rel),
            "source": log.source.name,
            "version": version,
        }
        store.put(txn, "mirrors", keys.mirror_key(mirror_id), doc)
        return mirror_id

    mirror_id = store.write(work)
    zst, tail = mirrors.paths(raw_root, rel)
    for stale in (zst, tail):
        if stale.exists():
            stale.unlink()
    return {
        "source": log.source.name,
        "kind": log.kind.name,
        "root": str(log.root),
        "rel": log.rel,
        "version": version,
        "offset": 0,
        "lines": 0,
        "size": -1,
        "mtime": 0,
        "ino": 0,
        "head": head_digest(b""),
        "head_len": 0,
        "mirror": mirrors.new_state(mirror_id, rel),
        "state": log.kind.start(log.rel),
    }
