"""Reading what ingest wrote: events, sessions, mirror lines, and the store's own status."""

from __future__ import annotations

import contextlib
import os
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict, cast

import lmdb
from zstandard import ZstdError

from .core import keys
from .core.codec import CodecError
from .core.db import Store, loads
from .core.lmdbio import cursor_key, cursor_value, pairs, raw_get
from .mirrors import mirror as mirrors
from .mirrors import spans
from .records import Cursor, EventDoc, MirrorDoc, MirrorState, ProblemDoc, SessionDoc

_STREAM_CHUNK = 1 << 20


# Events and sessions go to callers as their records' TypedDicts: the layers above read them
# and build their own views from them, never adding fields to a record.


def get_event(store: Store, txn: lmdb.Transaction, event_id: str) -> EventDoc | None:
    """An event record (however it is kept: `codec`), or None; CodecError when its record
    cannot be read."""
    return cast("EventDoc | None", store.event(txn, event_id))


def readable_event(
    store: Store, txn: lmdb.Transaction, event_id: str, unreadable: list[str]
) -> EventDoc | None:
    """`get_event` for readers of many events (a search's hits, a timeline, the index's feed):
    a record that cannot be read is None, its id added to `unreadable` for the caller to note
    (`damage.note`, after its read transaction), so that one damaged record never ends what
    reads the others."""
    try:
        return cast("EventDoc | None", store.event(txn, event_id))
    except CodecError:
        unreadable.append(event_id)
        return None


def get_session(
    store: Store, txn: lmdb.Transaction, source: str, session: str
) -> SessionDoc | None:
    found: SessionDoc | None = store.get(txn, "sessions", keys.session_key(source, session))
    return found


def iter_sessions(store: Store, txn: lmdb.Transaction) -> Iterator[SessionDoc]:
    for _, value in pairs(txn.cursor(db=store.dbs["sessions"])):
        found: SessionDoc = loads(value)
        yield found


def session_cwds(store: Store, txn: lmdb.Transaction) -> list[str]:
    """Every directory a session ran in: where its agents read project memory files."""
    return [key.decode() for key, _ in pairs(txn.cursor(db=store.dbs["cwds"]))]


def session_event_ids(
    store: Store, txn: lmdb.Transaction, source: str, session: str
) -> Iterator[str]:
    """A session's event ids oldest first."""
    cursor = txn.cursor(db=store.sess_db)
    if not cursor.set_key(keys.session_key(source, session)):
        return
    for value in cast(Iterator[bytes], cursor.iternext_dup(keys=False)):
        found = store.session_value_id(txn, value)
        if found is not None:
            yield found


def _session_values(store: Store, txn: lmdb.Transaction, source: str, session: str) -> list[bytes]:
    """A session's entries in its event list (time, then id or sequence number), in order."""
    cursor = txn.cursor(db=store.sess_db)
    if not cursor.set_key(keys.session_key(source, session)):
        return []
    return list(cast(Iterator[bytes], cursor.iternext_dup(keys=False)))


def session_event_position(
    store: Store, txn: lmdb.Transaction, source: str, session: str, event_id: str
) -> tuple[int | None, int]:
    """Where an event sits among its session's events (None: not there), and how many events
    the session has: from the session's event list alone, which is kept in order, without
    naming the events before it (a session of 1,000 events: ~0.3 ms instead of ~3)."""
    values = _session_values(store, txn, source, session)
    event = get_event(store, txn, event_id)
    if event is None or event["source"] != source or event["session"] != session:
        return None, len(values)
    value = store.session_value(
        event["time"], event_id.encode(), store.event_seq(txn, event_id) or 0
    )
    found = bisect_left(values, value)
    return (found if found < len(values) and values[found] == value else None), len(values)


def session_event_count(store: Store, txn: lmdb.Transaction, source: str, session: str) -> int:
    """How many events a session's list holds, forgotten ones included."""
    cursor = txn.cursor(db=store.sess_db)
    return int(cursor.count()) if cursor.set_key(keys.session_key(source, session)) else 0


def session_event_ids_in(
    store: Store, txn: lmdb.Transaction, source: str, session: str, start: int, stop: int
) -> list[str]:
    """The ids of a session's events from position `start` to `stop`, oldest first."""
    values = _session_values(store, txn, source, session)[start:stop]
    return [found for v in values if (found := store.session_value_id(txn, v)) is not None]


def sessions_with_prefix(
    store: Store, txn: lmdb.Transaction, source: str, prefix: str, limit: int
) -> list[SessionDoc]:
    """At most `limit` sessions of `source` whose id starts with `prefix`, in id order: a
    session named by the start of its id, or a Claude Code session's sub-agents
    (`<session>/agent-…`), without reading every session."""
    start = keys.session_key(source, prefix)
    cursor = txn.cursor(db=store.dbs["sessions"])
    found: list[SessionDoc] = []
    if not cursor.set_range(start):
        return found
    for key, value in pairs(cursor):
        if not key.startswith(start) or len(found) >= limit:
            break
        found.append(loads(value))
    return found


#: How a session without a parent reads in its stored record (orjson, `model.new_session`).
_NO_PARENT = b'"parent":null'


def sessions_with_parent(store: Store, txn: lmdb.Transaction, source: str) -> list[SessionDoc]:
    """Every session of `source` that names a parent (a sub-agent, a fork): one pass over the
    source's sessions that decodes only those (a record without one is told by its bytes)."""
    start = keys.session_key(source, "")
    cursor = txn.cursor(db=store.dbs["sessions"])
    found: list[SessionDoc] = []
    if not cursor.set_range(start):
        return found
    for key, value in pairs(cursor):
        if not key.startswith(start):
            break
        if _NO_PARENT not in value:
            session: SessionDoc = loads(value)
            if session["parent"]:
                found.append(session)
    return found


def session_events_before(
    store: Store, txn: lmdb.Transaction, source: str, session: str, time: int, count: int
) -> list[str]:
    """The ids of a session's last `count` events at or before `time` (ms), newest first: where
    in a parent session a sub-agent that started at `time` was called, found by the session's
    event list, which is kept in time order, without reading the events before it."""
    cursor = txn.cursor(db=store.sess_db)
    key = keys.session_key(source, session)
    if not cursor.set_key(key):
        return []
    after = keys.u64(max(0, time + 1))
    if cursor.set_range_dup(key, after):
        if not cursor.prev_dup():  # every event is later than `time`
            return []
    elif not (cursor.set_key(key) and cursor.last_dup()):
        return []
    found: list[str] = []
    while len(found) < count:
        event_id = store.session_value_id(txn, cursor_value(cursor))
        if event_id is not None:
            found.append(event_id)
        if not cursor.prev_dup():
            break
    return found


def mirror_info(store: Store, txn: lmdb.Transaction, mirror_id: int) -> MirrorDoc | None:
    found: MirrorDoc | None = store.get(txn, "mirrors", keys.mirror_key(mirror_id))
    return found


def mirror_state(store: Store, txn: lmdb.Transaction, original_file: str) -> MirrorState | None:
    cursor: Cursor | None = store.get(txn, "files", keys.text_key(original_file))
    return None if cursor is None else cursor["mirror"]


def read_mirror_text(
    store: Store, home: Path, mirror_id: int, line: int, keep: int
) -> tuple[str, int] | None:
    """The first `keep` characters of line `line` of a mirror and the line's length in
    characters, both of the line decoded as UTF-8 with undecodable bytes replaced (as
    `bytes.decode(errors="replace")` does). A line sealed in a frame of its own, which is how
    an oversized line is kept, is streamed: only its first characters are held in memory."""
    raw_root = home / "raw"
    for _ in range(5):
        located = locate(store, mirror_id, line)
        if located is None:
            return None
        state, frame = located
        if frame is not None and frame.lines == 1 and not frame.patches and line <= state["sealed"]:
            return _stream_text(mirrors.paths(raw_root, state["rel"])[0], frame, keep)
        try:
            with store.read() as txn:
                found = mirrors.read_line(raw_root, state, frame, line, texts=store.span_texts(txn))
        except spans.SpanError:
            return None  # a text it left out is not kept (a damaged store: `verify` says so)
        if found is not None:
            return _decoded(found, keep)
    return None


def _decoded(found: bytes, keep: int) -> tuple[str, int]:
    if found.isascii():
        return found[:keep].decode("ascii"), len(found)
    text = found.decode("utf-8", errors="replace")
    return text[:keep], len(text)


class MirrorLines:
    """`read_mirror_text` for many lines at once: a sync batch reads the raw lines of hundreds
    of events that mostly sit in the same few frames, so each frame is decompressed once and
    its lines kept while the next lines still come from it (a few frames at most)."""

    KEPT_FRAMES = 4

    def __init__(self, store: Store, home: Path, keep: int) -> None:
        self.store, self.keep, self._home = store, keep, home
        self._frames: dict[int, tuple[int, list[bytes]]] = {}  # mirror id: first line, lines
        #: Texts of events the caller has read already, by sequence number: what a patched
        #: frame needs is looked up here before its records are decoded again.
        self.known: dict[int, str] = {}

    def text(self, mirror_id: int, line: int) -> tuple[str, int] | None:
        kept = self._frames.get(mirror_id)
        if kept is None or not 0 <= line - kept[0] < len(kept[1]):
            kept = self._load(mirror_id, line)
            if kept is None:
                return read_mirror_text(self.store, self._home, mirror_id, line, self.keep)
        first, lines = kept
        return _decoded(lines[line - first], self.keep)

    def _load(self, mirror_id: int, line: int) -> tuple[int, list[bytes]] | None:
        """The lines of the sealed frame of many lines that holds `line`, or None (a line in the
        tail, an oversized line, a mirror being sealed: read on its own)."""
        located = locate(self.store, mirror_id, line)
        if located is None:
            return None
        state, frame = located
        if frame is None or frame.lines == 1 or line > state["sealed"]:
            return None
        try:
            with self.store.read() as txn:
                lines = mirrors.frame_lines(
                    self._home / "raw", state, frame, self.store.span_texts(txn, self.known)
                )
        except (OSError, ZstdError, spans.SpanError):  # a concurrent seal, a damaged file
            return None
        if len(lines) < frame.lines or not 0 <= line - frame.first_line < frame.lines:
            return None
        if len(self._frames) >= self.KEPT_FRAMES and mirror_id not in self._frames:
            del self._frames[next(iter(self._frames))]
        self._frames[mirror_id] = kept = (frame.first_line, lines[: frame.lines])
        return kept


def locate(
    store: Store, mirror_id: int, line: int
) -> tuple[MirrorState, mirrors.Frame | None] | None:
    """The mirror's committed state and the frame holding the line (None: not sealed)."""
    with store.read() as txn:
        info = mirror_info(store, txn, mirror_id)
        if info is None:
            return None
        state = mirror_state(store, txn, info["original_file"])
        if state is None or state["id"] != mirror_id:
            # An older version of a rewritten file: its mirror is complete and sealed or tailed
            # as its last cursor left it, which is kept with the mirror record.
            state = info.get("final")
            if state is None:
                return None
        return state, _frame_for(store, txn, mirror_id, line)


def _stream_text(zst_path: Path, frame: mirrors.Frame, keep: int) -> tuple[str, int]:
    """The first `keep` characters and the length in characters of a one-line frame's line,
    decompressed and decoded a chunk at a time."""
    import codecs

    import zstandard

    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    kept: list[str] = []
    held = 0
    count = 0
    with open(zst_path, "rb") as f:
        f.seek(frame.offset)
        reader = zstandard.ZstdDecompressor().stream_reader(f, read_size=_STREAM_CHUNK)
        while True:
            chunk = reader.read(_STREAM_CHUNK)
            end = chunk.find(b"\n")
            if end >= 0:
                chunk = chunk[:end]
            if chunk.isascii() and not decoder.getstate()[0]:
                piece = chunk[: keep - held].decode("ascii") if held < keep else ""
                count += len(chunk)
            else:
                text = decoder.decode(chunk)
                piece = text[: keep - held] if held < keep else ""
                count += len(text)
            if piece:
                kept.append(piece)
                held += len(piece)
            if end >= 0 or not chunk:
                break
    rest = decoder.decode(b"", final=True)
    count += len(rest)
    if held < keep:
        kept.append(rest[: keep - held])
    return "".join(kept), count


def _frame_for(
    store: Store, txn: lmdb.Transaction, mirror_id: int, line: int
) -> mirrors.Frame | None:
    prefix = keys.mirror_key(mirror_id)
    cursor = txn.cursor(db=store.dbs["frames"])
    target = keys.mirror_line_key(mirror_id, line)
    if cursor.set_key(target):
        return mirrors.Frame.unpack(line, cursor_value(cursor))
    if not cursor.set_range(target):
        if not cursor.last():
            return None
    elif not cursor.prev():
        return None
    key = cursor_key(cursor)
    if not key.startswith(prefix):
        return None
    first = keys.line_of(key)
    frame = mirrors.Frame.unpack(first, cursor_value(cursor))
    return frame if first <= line < first + frame.lines else None


def problems(store: Store, txn: lmdb.Transaction) -> Iterator[tuple[int, int, ProblemDoc]]:
    """Each line that could not be parsed, in key order: its mirror, its line in the mirror (the
    original's line), and the problem recorded (`reason`, `detail`)."""
    for key, value in pairs(txn.cursor(db=store.dbs["problems"])):
        yield keys.mirror_of(key), keys.line_of(key), loads(value)


def schema(store: Store, txn: lmdb.Transaction) -> int:
    """The schema the store on disk is at (0 for one that records none)."""
    return int(store.meta_get(txn, "schema") or 0)


def file_count(store: Store, txn: lmdb.Transaction) -> int:
    """How many agents' log files the store holds a cursor for."""
    return int(txn.stat(store.dbs["files"])["entries"])


def last_ingest(store: Store, txn: lmdb.Transaction) -> dict[str, Any] | None:
    """The summary the last ingest that read anything left (its `time` in ms), if any."""
    found = store.meta_get(txn, "last_ingest")
    return found if isinstance(found, dict) else None


class SourceCounts(TypedDict):
    events: int
    sessions: int


class StoreStatus(TypedDict):
    """The store's figures (`origin status --json`'s, before the layers above add theirs)."""

    events: int
    sessions: int
    files: int
    by_source: dict[str, SourceCounts]
    by_project: dict[str, int]
    skipped_lines: dict[str, int]  # by reason
    damaged_records: int
    redacted: dict[str, int]  # secrets masked, by kind
    store_bytes: int
    mirror_bytes: int
    feed_seq: int
    #: The last ingest's summary (`ingest.report`), as the version that wrote it wrote it.
    last_ingest: dict[str, Any] | None


def status(store: Store, home: Path) -> StoreStatus:
    """Counts per source and project, sizes, skipped lines by reason, the last ingest."""
    by_source: Counter[str] = Counter()
    by_project: Counter[str] = Counter()
    sessions: Counter[str] = Counter()
    problems: Counter[str] = Counter()
    with store.read() as txn:
        for session in iter_sessions(store, txn):
            by_source[session["source"]] += session["events"]
            by_project[session["project"] or "(none)"] += session["events"]
            sessions[session["source"]] += 1
        for _, value in pairs(txn.cursor(db=store.dbs["problems"])):
            problems[loads(value)["reason"]] += 1
        files = file_count(store, txn)
        events = store.event_count(txn)
        last = store.meta_get(txn, "last_ingest")
        redacted = store.meta_get(txn, "redacted") or {}  # ingest.report.REDACTED_META
        feed = store.feed_last(txn)
        damaged = store.meta_get(txn, "damaged_records")  # damage.KEY
    return {
        "events": events,
        "sessions": sum(sessions.values()),
        "files": files,
        "by_source": {
            k: {"events": by_source[k], "sessions": sessions[k]} for k in sorted(sessions)
        },
        "by_project": dict(by_project.most_common()),
        "skipped_lines": dict(problems),
        "damaged_records": int(damaged["count"]) if isinstance(damaged, dict) else 0,
        "redacted": redacted,
        "store_bytes": disk_usage(store.path),
        "mirror_bytes": disk_usage(home / "raw"),
        "feed_seq": feed,
        "last_ingest": last,
    }


def disk_usage(path: Path) -> int:
    """Bytes allocated on disk under path (what a user sees in du)."""
    total = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            with contextlib.suppress(OSError):
                total += os.stat(os.path.join(dirpath, name)).st_blocks * 512
    return total


#: An event a feed item names: its id, and its record when the item named it by sequence
#: number (read to name it), else None: read it by id.
Announced = tuple[str, EventDoc | None]


def events_at(store: Store, seqs: list[int]) -> list[Announced | None]:
    """The events announced at the feed sequences `seqs`, in one read transaction: what
    names a search's hits, each record decoded once, for the hit's id and for its view.

    The feed announces each event once and is never rewritten, so the item at an event's
    sequence names it. Anything else (0, an unknown sequence, another kind of item) gives None.
    """
    out: list[Announced | None] = []
    feed = store.dbs["feed"]
    with store.read() as txn:
        for seq in seqs:
            raw = raw_get(txn, keys.feed_key(seq), feed) if seq > 0 else None
            if raw is None:
                out.append(None)
                continue
            item, record = store.announced(txn, raw)
            named = item["id"] if item.get("t") == "event" else None
            out.append((named, record) if named else None)
    return out
