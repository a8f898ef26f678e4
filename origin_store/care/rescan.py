"""`origin redact --rescan`: the current secret patterns applied to what is already stored.

Ingest masks secrets before anything is kept (`redact`), but an archive may hold what was read
before a pattern existed. A rescan goes over all of it: event records (re-encoded, and announced
as `update`s so the index and a hub replace them), sessions' titles and prompts, parse problems'
details, every mirror (`redaction_mirrors`) and every row log. What a person wrote (entries,
forget reasons) is theirs and left as it is.

Each part is idempotent and crash-safe on its own: records are rewritten a few hundred per write
transaction, a mirror is rewritten under a new name and switched in one transaction (the old
files are deleted after, even by the next run if this one is killed), and a row log's cursor is
told to read it again before the file is replaced. A run killed anywhere loses nothing, and
running it again finishes the job.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import lmdb

from ..core.db import Store, dumps, loads
from ..core.lmdbio import pairs
from ..ingest import rowlog
from ..ingest.rowlog import row_log_path
from ..ingest.versions import read_anew
from ..parsers.journal import JOURNAL_DIR
from ..records import Cursor, FeedItem
from ..redaction.mask import redact_lines, redact_text
from ..system.oshelpers import stripe_lock
from ..textclip import STORED_CHARS
from .rescan_mirrors import MirrorsDone, finish_deletes, rewrite_mirrors

#: Records rewritten per write transaction.
BATCH = 500

Progress = Callable[[str], None]


@dataclass(slots=True)
class RescanReport:
    events: int = 0
    sessions: int = 0
    problems: int = 0
    mirrors: int = 0
    mirror_lines: int = 0
    row_logs: int = 0
    #: Secrets masked in the mirrors' lines (where each occurrence in a log is counted once).
    redacted: Counter[str] = field(default_factory=Counter)
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return bool(self.events or self.sessions or self.problems or self.mirrors or self.row_logs)

    def as_dict(self) -> dict[str, Any]:
        return {
            "events": self.events,
            "sessions": self.sessions,
            "problems": self.problems,
            "mirrors": self.mirrors,
            "mirror_lines": self.mirror_lines,
            "row_logs": self.row_logs,
            "redacted": dict(sorted(self.redacted.items())),
            "skipped": self.skipped,
            "seconds": round(self.seconds, 3),
        }


def rescan(store: Store, home: Path, progress: Progress | None = None) -> RescanReport:
    started = time.perf_counter()
    report = RescanReport()
    tell = progress or (lambda _: None)
    finish_deletes(store, home / "raw")
    tell("event records")
    _events(store, report)
    tell("sessions and problems")
    _sessions(store, report)
    _problems(store, report)
    tell("mirrors")
    mirrored = MirrorsDone()
    rewrite_mirrors(store, home, mirrored)
    report.mirrors, report.mirror_lines = mirrored.mirrors, mirrored.lines
    report.redacted.update(mirrored.redacted)
    report.skipped += mirrored.skipped
    tell("row logs")
    _row_logs(store, home, report)
    report.seconds = time.perf_counter() - started
    return report


# -- event records --------------------------------------------------------------------------


def redacted_event(record: dict[str, Any]) -> dict[str, Any] | None:
    """The record with its text's secrets masked, its label's offsets and its kept length moved
    to match; None when nothing is masked."""
    text = record.get("text")
    if not isinstance(text, str):
        return None
    label = record.get("label") or []
    new, offsets = _masked_between(text, [int(offset) for offset, _ in label])
    if new is text:
        return None
    out = dict(record)
    total = int(record.get("text_chars") or len(text)) + len(new) - len(text)
    out["text"] = new[:STORED_CHARS]
    if total > len(out["text"]):
        out["text_chars"] = total
    else:
        out.pop("text_chars", None)
    if label:
        out["label"] = [[at, words] for at, (_, words) in zip(offsets, label, strict=True)]
    return out


def _masked_between(text: str, offsets: list[int]) -> tuple[str, list[int]]:
    """The text masked piece by piece between the offsets where its label puts Origin's words
    (a secret is the log's, never across Origin's words), and where those offsets move."""
    if not offsets:
        return redact_text(text)[0], []
    pieces: list[str] = []
    moved: list[int] = []
    at = 0
    for offset in sorted(set(offsets)):
        pieces.append(redact_text(text[at:offset])[0])
        moved.append(sum(map(len, pieces)) + max(0, offset - len(text)))  # past a cut text
        at = max(at, offset)
    pieces.append(redact_text(text[at:])[0])
    new = "".join(pieces)
    if new == text:
        return text, offsets
    where = dict(zip(sorted(set(offsets)), moved, strict=True))
    return new, [where[offset] for offset in offsets]


def _events(store: Store, report: RescanReport) -> None:
    """Find the records to change in one read, then rewrite them BATCH at a time, each batch
    with its `update` feed item in the same transaction."""
    found: list[tuple[bytes, str]] = []
    with store.read() as txn:
        for key, value in store.iter_events(txn):
            record = store.codec.decode(txn, key, value)
            if redacted_event(record) is not None:
                found.append((key, str(record.get("source", ""))))
    for first in range(0, len(found), BATCH):
        chunk = found[first : first + BATCH]
        for source in {source for _, source in chunk}:
            store.codec.prepare(source)  # outside the write transaction: it may train
        report.events += store.write(partial(_rewrite_events, store, chunk))


def _rewrite_events(store: Store, chunk: list[tuple[bytes, str]], txn: lmdb.Transaction) -> int:
    changed: list[str] = []
    for key, source in chunk:
        value = store.event_value(txn, key)
        if value is None:
            continue
        new = redacted_event(store.codec.decode(txn, key, value))
        if new is None:
            continue  # replaced meanwhile by an ingest that had masked it
        store.put_event_value(txn, key, store.codec.encoder(source, sample=False)(dict(new)))
        changed.append(key.decode())
    if changed:
        update: FeedItem = {"t": "update", "ids": changed}
        store.feed_append(txn, [update])
    return len(changed)


# -- sessions and problems ------------------------------------------------------------------


def _sessions(store: Store, report: RescanReport) -> None:
    with store.read() as txn:
        found = [
            key
            for key, value in pairs(txn.cursor(db=store.dbs["sessions"]))
            if _session_changes(loads(value))
        ]

    def work(txn: lmdb.Transaction) -> int:
        items: list[FeedItem] = []
        for key in found:
            raw = txn.get(key, db=store.dbs["sessions"])
            session = loads(raw) if raw is not None else None
            changes = _session_changes(session) if session else {}
            if session and changes:
                txn.put(key, dumps({**session, **changes}), db=store.dbs["sessions"])
                items.append({"t": "session", "id": f"{session['source']}:{session['session']}"})
        if items:
            store.feed_append(txn, items)
        return len(items)

    if found:
        report.sessions += store.write(work)


def _session_changes(session: dict[str, Any]) -> dict[str, str]:
    changes: dict[str, str] = {}
    for name in ("title", "prompt"):
        value = session.get(name)
        if isinstance(value, str):
            new, counts = redact_text(value)
            if counts:
                changes[name] = new
    return changes


def _problems(store: Store, report: RescanReport) -> None:
    def work(txn: lmdb.Transaction) -> int:
        count = 0
        for key, value in list(pairs(txn.cursor(db=store.dbs["problems"]))):
            problem = loads(value)
            detail = problem.get("detail")
            if isinstance(detail, str):
                new, counts = redact_text(detail)
                if counts:
                    txn.put(key, dumps({**problem, "detail": new}), db=store.dbs["problems"])
                    count += 1
        return count

    report.problems += store.write(work)


# -- row logs -------------------------------------------------------------------------------


def _row_logs(store: Store, home: Path, report: RescanReport) -> None:
    """Each row log (and each recorded source's journal: Origin's own files too) whose lines
    change is written again; the cursor that reads it is told
    first to read it anew (its offsets are of the old file), so a kill between the two leaves a
    cursor that reads the old file again, redacted by ingest, and this rescan to be run again."""
    rows_root = home / "rows"
    with store.read() as txn:
        cursors: dict[Path, bytes] = {}
        for key, value in pairs(txn.cursor(db=store.dbs["files"])):
            cursor: Cursor = loads(value)
            original = Path(key.decode())
            cursors[row_log_path(rows_root, cursor["source"], original)] = key
            cursors.setdefault(original, key)  # a journal is read as itself
    found = [*rows_root.glob("*/*.jsonl"), *(home / JOURNAL_DIR).glob("*.jsonl")]
    for log in sorted(found):
        reader = cursors.get(log)
        with stripe_lock(home / "locks", str(log).encode() if reader is None else reader):
            if not _needs_rewrite(log):
                continue
            if reader is not None:
                store.write(partial(read_anew, store, reader), durable=True)
            if reader is not None and rowlog.released(log, 0):
                # Part of it is only in its mirror (rescanned with the mirrors): begun again
                # from its database by the next pass, which reads it as a new version.
                rowlog.discard(log)
            else:
                _rewrite_row_log(log)
            report.row_logs += 1


def _batches(path: Path) -> Iterator[list[bytes]]:
    """A row log's lines, 20,000 at a time (a row log can be large), past what its mirror
    alone holds (`rowlog.release`)."""
    lines: list[bytes] = []
    for line in rowlog.readable_lines(path):
        lines.append(line)
        if len(lines) >= 20_000:
            yield lines
            lines = []
    if lines:
        yield lines


def _needs_rewrite(path: Path) -> bool:
    return any(redact_lines(lines).counts for lines in _batches(path))


def _rewrite_row_log(path: Path) -> None:
    scratch = path.with_name(f".{path.name}.{os.getpid()}.redact")
    with open(scratch, "wb") as out:
        for lines in _batches(path):
            out.write(b"".join(redact_lines(lines).lines))
        out.flush()
        os.fsync(out.fileno())
    os.replace(scratch, path)


__all__ = ["BATCH", "RescanReport", "redacted_event", "rescan"]
