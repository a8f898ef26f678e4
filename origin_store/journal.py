"""Writing and reading back the journals of recorded sources (`parsers.journal` reads a line).

`append` adds one event to its source's journal: one `write` of the whole line on a descriptor
opened with O_APPEND, under the file's ingest lock (the stripe the ingester takes for that file),
then fsync, so that a reader never sees two writers' bytes mixed and a line written is on disk
before it is ingested. A line cut short by a full disk would join the next one; the next append
ends it first, so it stays one line of its own (a problem counted by the parser) and the journal
keeps one event a line.

`ingest` then reads a journal as the ingester reads any log, in the calling thread, and makes
its mirror and the store durable itself: the tool that appended answers only once the event is
stored, and it does not wait for a pass another thread is running (a first backfill can take
minutes).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson

from .core import keys
from .core.db import Store
from .ingest import Ingester, IngestReport
from .ingest.discovery import LogFile, changed_files, read_cursor
from .mirrors import mirror as mirrors
from .parsers import registry
from .parsers.journal import JOURNAL_DIR
from .system.durable import sync_dir
from .system.oshelpers import stripe_lock


def root(home: Path) -> Path:
    return home / JOURNAL_DIR


def path(home: Path, source: str) -> Path:
    """The journal of a recorded source."""
    return root(home) / f"{source}.jsonl"


def log_file(home: Path, source: str) -> LogFile:
    """A recorded source's journal as the ingester reads it."""
    found = registry.recorded(source)
    return LogFile(found, found.files[0], root(home), path(home, source))


def append(home: Path, source: str, record: dict[str, Any]) -> None:
    """Append `record` as one line of its source's journal, durably, its secrets masked as
    ingest masks every log's (the journal is Origin's own file: what it keeps is archived)."""
    from .redaction import mask as redact

    line, _ = redact.redact_line(orjson.dumps(record) + b"\n")
    target = path(home, source)
    created = not target.exists()
    target.parent.mkdir(parents=True, exist_ok=True)
    locks = home / "locks"
    locks.mkdir(parents=True, exist_ok=True)
    with stripe_lock(locks, keys.text_key(str(target))):
        fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            if _ends_mid_line(fd):
                line = b"\n" + line
            written = 0
            while written < len(line):
                written += os.write(fd, line[written:])
            os.fsync(fd)
        finally:
            os.close(fd)
    if created:
        sync_dir(target.parent)


def _ends_mid_line(fd: int) -> bool:
    size = os.fstat(fd).st_size
    return size > 0 and os.pread(fd, 1, size - 1) != b"\n"


def logs(home: Path) -> list[LogFile]:
    """Every journal under `home`, as the ingester reads them."""
    return [log_file(home, name) for name in registry.recorded_in(home)]


def ingest(ingester: Ingester, store: Store, files: list[LogFile]) -> IngestReport:
    """Read the journals that changed since their cursors, then make their mirrors and the store
    durable (mirrors first, as every pass does)."""
    report = IngestReport()
    changed = changed_files(store, files, ingester.rows_root)
    for log in changed:
        report.merge(ingester.ingest_file(log))
    if changed:
        with store.read() as txn:
            cursors = [read_cursor(store, txn, log) for log in changed]
        for cursor in cursors:
            if cursor is not None:
                mirrors.sync_files(*mirrors.paths(ingester.raw_root, cursor["mirror"]["rel"]))
        store.sync()
    return report
