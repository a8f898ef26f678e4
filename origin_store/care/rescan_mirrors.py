"""Mirrors rewritten with their secrets masked (`origin redact --rescan`).

A mirror whose lines change is written whole under a new name (`<rel>.~rN`): frames that do not
change are copied as they are, the others decompressed, redacted and compressed again with the
same lines, so line N stays line N and every frame keeps its first line. One LMDB transaction
then switches the mirror to the new name (its frames' offsets, its state in the file's cursor
or, for an older version of a rewritten file, in its mirror record) and notes the old name; the
old files are deleted after it, and a run killed before deleting them deletes them next time.
Until the switch, readers and ingest use the old files, which are complete; the file's ingest
lock is held throughout, so no ingest appends to the mirror meanwhile.
"""

from __future__ import annotations

import io
import os
import re
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, cast

import lmdb
import zstandard

from ..core import keys
from ..core.db import Store, loads
from ..core.lmdbio import pairs, prefixed
from ..ingest.report import add_redacted
from ..mirrors import mirror as mirrors
from ..mirrors import spans
from ..records import Cursor, MirrorDoc, MirrorState
from ..redaction.mask import redact_lines, stream
from ..system.oshelpers import stripe_lock

#: `meta` keys of old mirror files still to delete: `redact_old:<mirror id>` -> the old rel.
OLD_PREFIX = "redact_old:"
_SUFFIX = re.compile(r"\.~r(\d+)$")
_CHUNK = 1 << 20


@dataclass(slots=True)
class MirrorsDone:
    mirrors: int = 0
    lines: int = 0
    redacted: Counter[str] = field(default_factory=Counter)
    skipped: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Found:
    """One mirror as the rescan found it, under its file's lock."""

    mirror_id: int
    file_key: bytes
    live: bool  # its state is the file's cursor's (else its record's `final`)
    state: MirrorState
    frames: list[mirrors.Frame]


def finish_deletes(store: Store, raw_root: Path) -> None:
    """Delete the old files of mirrors a killed rescan had switched but not cleaned up."""
    with store.read() as txn:
        left = [
            (key, loads(value))
            for key, value in prefixed(txn.cursor(db=store.dbs["meta"]), OLD_PREFIX.encode())
        ]
    for key, rel in left:
        for path in mirrors.paths(raw_root, str(rel)):
            path.unlink(missing_ok=True)
        _forget_old(store, key)


def _forget_old(store: Store, key: bytes) -> None:
    def work(txn: lmdb.Transaction) -> None:
        txn.delete(key, db=store.dbs["meta"])

    store.write(work)


def rewrite_mirrors(store: Store, home: Path, done: MirrorsDone) -> None:
    raw_root = home / "raw"
    with store.read() as txn:
        docs: list[tuple[int, MirrorDoc]] = [
            (int.from_bytes(key, "big"), loads(value))
            for key, value in pairs(txn.cursor(db=store.dbs["mirrors"]))
        ]
    taken = {doc["mirror_file"] for _, doc in docs}
    for mirror_id, doc in docs:
        file_key = keys.text_key(doc["original_file"])
        with stripe_lock(home / "locks", file_key):
            found = _find(store, mirror_id, file_key)
            if found is None:
                continue
            try:
                _rewrite(store, raw_root, found, taken, done)
            except (OSError, zstandard.ZstdError, spans.SpanError) as error:
                done.skipped.append(f"{found.state['rel']}: {error}")


def _find(store: Store, mirror_id: int, file_key: bytes) -> _Found | None:
    with store.read() as txn:
        doc: MirrorDoc | None = store.get(txn, "mirrors", keys.mirror_key(mirror_id))
        cursor: Cursor | None = store.get(txn, "files", file_key)
        if doc is None:
            return None
        live = cursor is not None and cursor["mirror"]["id"] == mirror_id
        state = cursor["mirror"] if cursor is not None and live else doc.get("final")
        if state is None:
            return None
        frames = [
            mirrors.Frame.unpack(keys.line_of(key), value)
            for key, value in prefixed(
                txn.cursor(db=store.dbs["frames"]), keys.mirror_key(mirror_id)
            )
        ]
    return _Found(mirror_id, file_key, live, state, frames)


def _rewrite(
    store: Store, raw_root: Path, found: _Found, taken: set[str], done: MirrorsDone
) -> None:
    state = found.state
    zst, tail_path = mirrors.paths(raw_root, state["rel"])
    tail = tail_path.read_bytes()[: state["tail"]] if state["tail"] else b""
    if len(tail) != state["tail"] or zlib.crc32(tail) != state["crc"]:
        done.skipped.append(f"{state['rel']}: the tail does not match its checksum")
        return
    if not _changes(store, zst, found.frames, tail):
        return
    rel = _new_rel(state["rel"], raw_root, taken)
    new_zst, new_tail = mirrors.paths(raw_root, rel)
    counts: Counter[str] = Counter()
    with open(zst, "rb") if found.frames else io.BytesIO() as source, open(new_zst, "wb") as out:
        frames, open_key, lines = _copy_frames(store, source, out, found.frames, counts)
        out.flush()
        os.fsync(out.fileno())
        size = out.tell()
    tail_lines = mirrors.split_lines(tail)
    tail_done = redact_lines(tail_lines, open_key=open_key)
    counts.update(tail_done.counts)
    lines += sum(a is not b for a, b in zip(tail_lines, tail_done.lines, strict=True))
    body = b"".join(tail_done.lines)
    with open(new_tail, "wb") as out:
        out.write(body)
        out.flush()
        os.fsync(out.fileno())
    new_state: MirrorState = {
        **state,
        "rel": rel,
        "zst": size,
        "tail": len(body),
        "crc": zlib.crc32(body),
    }
    store.write(
        lambda txn: _switch(store, txn, raw_root, found, new_state, frames, counts), durable=True
    )
    taken.add(str(raw_root / rel))
    for path in (zst, tail_path):
        path.unlink(missing_ok=True)
    _forget_old(store, f"{OLD_PREFIX}{found.mirror_id}".encode())
    done.mirrors += 1
    done.lines += lines
    done.redacted.update(counts)


def _new_rel(rel: str, raw_root: Path, taken: set[str]) -> str:
    """The mirror's next name: `.~r1`, `.~r2`, …, none that another mirror uses."""
    match = _SUFFIX.search(rel)
    base, number = (rel[: match.start()], int(match.group(1))) if match else (rel, 0)
    while True:
        number += 1
        candidate = f"{base}.~r{number}"
        if str(raw_root / candidate) not in taken:
            return candidate


def _frame_lines(store: Store, source: IO[bytes], frame: mirrors.Frame) -> list[bytes]:
    """A frame's lines as the log had them, the texts it leaves out put back (`spans`): those
    are the records' as the rescan of events left them, masked already."""
    source.seek(frame.offset)
    data = zstandard.ZstdDecompressor().decompressobj().decompress(source.read(frame.length))
    if not frame.patches:
        return mirrors.split_lines(data)
    with store.read() as txn:
        lines = mirrors.put_back(data.split(b"\n"), frame, store.span_texts(txn))
    return [line + b"\n" for line in lines[:-1]]


def _big_chunks(source: IO[bytes], frame: mirrors.Frame) -> Iterator[bytes]:
    """A one-line frame's line, decompressed a chunk at a time (it may be very long)."""
    source.seek(frame.offset)
    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(source.read(frame.length)))
    while chunk := reader.read(_CHUNK):
        yield chunk


def _changes(store: Store, zst: Path, frames: list[mirrors.Frame], tail: bytes) -> bool:
    """Whether redaction changes any line of the mirror (read, nothing written)."""
    open_key = False
    if frames:
        with open(zst, "rb") as source:
            for frame in frames:
                if frame.lines == 1:
                    masking = stream()
                    for _ in masking.redact(_big_chunks(source, frame)):
                        pass
                    if masking.counts:
                        return True
                    open_key = False
                    continue
                lines = _frame_lines(store, source, frame)
                done = redact_lines(lines, open_key=open_key)
                if done.lines is not lines:
                    return True
                open_key = done.open_key
    tail_lines = mirrors.split_lines(tail)
    return redact_lines(tail_lines, open_key=open_key).lines is not tail_lines


def _copy_frames(
    store: Store,
    source: IO[bytes],
    out: IO[bytes],
    frames: list[mirrors.Frame],
    counts: Counter[str],
) -> tuple[list[mirrors.Frame], bool, int]:
    """Each frame into `out`: as it was when nothing in it changes (its patches with it), else
    compressed again from its redacted lines, whole. Returns the new frames, whether the last
    ends inside a private key, and how many lines changed."""
    cctx = mirrors.compressor()
    new: list[mirrors.Frame] = []
    open_key = False
    changed = 0
    for frame in frames:
        at = out.tell()
        patches = b""
        if frame.lines == 1:
            masking = stream()
            with cctx.stream_writer(out, closefd=False) as writer:
                for piece in masking.redact(_big_chunks(source, frame)):
                    writer.write(piece)
            counts.update(masking.counts)
            changed += bool(masking.counts)
            open_key = False
        else:
            lines = _frame_lines(store, source, frame)
            done = redact_lines(lines, open_key=open_key)
            open_key = done.open_key
            patches = frame.patches
            if done.lines is lines:
                source.seek(frame.offset)
                out.write(source.read(frame.length))
            else:
                out.write(cctx.compress(b"".join(done.lines)))
                counts.update(done.counts)
                changed += sum(a is not b for a, b in zip(lines, done.lines, strict=True))
                patches = b""
        out.flush()
        new.append(mirrors.Frame(frame.first_line, at, out.tell() - at, frame.lines, patches))
    return new, open_key, changed


def _switch(
    store: Store,
    txn: lmdb.Transaction,
    raw_root: Path,
    found: _Found,
    state: MirrorState,
    frames: list[mirrors.Frame],
    counts: Counter[str],
) -> None:
    """The mirror's new files made its own: frames, state, record, the old name to delete."""
    for frame in frames:
        txn.put(
            keys.mirror_line_key(found.mirror_id, frame.first_line),
            frame.pack(),
            db=store.dbs["frames"],
        )
    mirror_key = keys.mirror_key(found.mirror_id)
    doc = cast(MirrorDoc, store.get(txn, "mirrors", mirror_key))
    if found.live:
        cursor = cast(Cursor, store.get(txn, "files", found.file_key))
        store.put(txn, "files", found.file_key, {**cursor, "mirror": state})
    else:
        doc["final"] = state
    store.put(txn, "mirrors", mirror_key, {**doc, "mirror_file": str(raw_root / state["rel"])})
    store.meta_put(txn, f"{OLD_PREFIX}{found.mirror_id}", found.state["rel"])
    add_redacted(store, txn, counts)
