"""The Ingester: a pass over every changed file, shared by worker processes when it is large."""

from __future__ import annotations

import gc
import os
import time
from functools import partial
from typing import Any

import lmdb

from ..core.db import Store
from ..mirrors import mirror as mirrors
from ..parsers.base import Source
from ..pause import marks as marks
from ..pause import state as pause
from ..pause.marks import Mark
from ..reader import session_cwds
from ..records import Cursor
from ..settings import Settings
from ..system.oshelpers import die_with_parent, stripe_lock, syncfs
from . import pause_pass as pausing
from . import rowlog
from .content import Content
from .discovery import (
    LogFile,
    changed_files,
    discover,
    expand,
    owes_release,
    read_cursor,
    total_pending_bytes,
    unchanged,
)
from .pause_skip import SkipPass
from .report import IngestReport, Progress
from .versions import new_version, read_anew, same_version, tail_source
from .workers import balance, relay, spawn

#: Pending bytes above which a pass is shared by worker processes.
PARALLEL_BYTES = 64 * 1024 * 1024
#: Touched mirrors above which one syncfs of the filesystem beats an fsync per file.
SYNCFS_FILES = 32


class Ingester:
    def __init__(self, store: Store, settings: Settings, sources: dict[str, Source]) -> None:
        self.store = store
        self.settings = settings
        self.sources = sources
        self.raw_root = settings.home / "raw"
        self.rows_root = settings.home / "rows"
        self.lock_root = settings.home / "locks"
        self.lock_root.mkdir(parents=True, exist_ok=True)
        # The mirrors this pass wrote, by `rel`, for the final sync. Names only, never writers: a
        # writer holds its mirror's tail (up to a frame) and kept for every file of a backfill
        # they grew each process's memory with the file count (~8 GB after 56k files).
        self._touched: set[str] = set()
        # Row logs this pass read, with their mirror and how far it sealed them: once that is
        # durable their blocks are given back (`rowlog.release`).
        self._row_logs: list[tuple[LogFile, int, int]] = []

    def run(
        self,
        progress: Progress | None = None,
        files: list[LogFile] | None = None,
        workers: int | None = 1,
    ) -> IngestReport:
        """One pass over every log file, in this process by default.

        `workers=None` lets a large backfill be shared by worker processes (parsing is pure and
        LMDB serialises their writes): only for a command-line backfill, since spawned workers
        need an importable main module and cost a second to start.

        While recording is paused (ephemeral mode) nothing is read: the changed files only get
        their end marks (`pause_marks`), and row logs owing a release make it (`_release_owed`).
        """
        started = time.perf_counter()
        logs = files if files is not None else self.discover()
        report = IngestReport(files=len(logs))
        logs = changed_files(self.store, logs, self.rows_root)
        report.files -= len(logs)
        paused = pause.paused(self.settings.home)
        if paused is not None:  # ephemeral mode: nothing is read, the changed logs are marked
            report.files += len(logs)
            report.paused = True
            report.marked = pausing.mark(self.store, logs, paused.since)
            self._release_owed(logs)
            report.seconds = time.perf_counter() - started
            return report
        groups = self._split(logs, workers)
        children = [spawn(self.settings, group, worker_main) for group in groups[1:]]
        report.merge(self.ingest_group(groups[0], relay(progress, children)))
        for child in children:
            report.merge(child.finish(progress))
        report.seconds = time.perf_counter() - started
        if report.files_changed:
            summary = {"time": int(time.time() * 1000), **report.as_dict()}
            self.store.write(
                lambda txn: self.store.meta_put(txn, "last_ingest", summary), durable=True
            )
        return report

    def discover(self) -> list[LogFile]:
        """Every log of the agents, and the project files they read where their sessions ran."""
        return discover(self.sources, self.settings, expand(self.cwds()))

    def cwds(self) -> list[str]:
        with self.store.read() as txn:
            return session_cwds(self.store, txn)

    def ingest_group(self, logs: list[LogFile], progress: Progress | None) -> IngestReport:
        """Each file in turn, then one durability point for all of them."""
        report = IngestReport()
        # Parsed records hold no cycles; the collector's full scans cost a few percent of a backfill.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for log in logs:
                try:
                    report.merge(self.ingest_file(log, progress))
                except OSError as error:  # a file vanished or is unreadable: report it, go on
                    if self._ours(error):
                        raise  # Origin's own files: the archive is unusable, not the agent's log
                    report.errors.append(f"{log.path}: {error.strerror or error}")
        finally:
            if collecting:
                gc.enable()
        self._make_durable()
        self._release_row_logs()
        return report

    def _ours(self, error: OSError) -> bool:
        """Whether an error is about a file under ORIGIN_HOME (a full disk, a file where a
        folder should be) rather than about an agent's file."""
        home = str(self.settings.home)
        named = [n for n in (error.filename, error.filename2) if isinstance(n, str | bytes)]
        return any(os.fsdecode(n).startswith(home + os.sep) for n in named)

    def _split(self, logs: list[LogFile], count: int | None) -> list[list[LogFile]]:
        """Files for this process first, then one group per worker, balanced by pending bytes."""
        if count is None:
            pending = total_pending_bytes(self.store, logs)
            # One more process than cores: while one waits for LMDB's writer lock, the cores stay busy.
            count = (
                min((os.cpu_count() or 1) + 1, 4)
                if pending >= PARALLEL_BYTES and len(logs) > 1
                else 1
            )
        return balance(logs, count)

    def _make_durable(self) -> None:
        """Mirrors first, then LMDB: after a power loss LMDB never points past a mirror's end."""
        touched, self._touched = self._touched, set()
        if len(touched) < SYNCFS_FILES or not syncfs(self.raw_root):
            for rel in sorted(touched):
                mirrors.sync_files(*mirrors.paths(self.raw_root, rel))
        self.store.sync()

    def _release_row_logs(self) -> None:
        """The row logs this pass read give back the blocks their mirrors now hold durably:
        only up to where this pass sealed (what `_make_durable` synced), and only while the
        mirror is the one it wrote (a new version reads the row log from its start)."""
        done, self._row_logs = self._row_logs, []
        noted: list[tuple[bytes, int, int]] = []
        for log, mirror_id, sealed_to in done:
            with stripe_lock(self.lock_root, log.key):
                with self.store.read() as txn:
                    cursor = read_cursor(self.store, txn, log)
                if cursor is not None and cursor["mirror"]["id"] == mirror_id:
                    upto = min(sealed_to, cursor["mirror"]["src"])
                    rowlog.release(log.path, upto)
                    released = rowlog.releasable(upto)
                    if cursor.get("released", 0) < released:
                        noted.append((log.key, mirror_id, released))
        # One write for the pass, only for row logs that gave back more: not durable, as a
        # release lost with its note is made again (`owes_release`).
        if noted:
            self.store.write(partial(_note_released, self.store, noted))

    def _release_owed(self, logs: list[LogFile]) -> None:
        """While recording is paused, the row logs among `logs` that owe a release make it: it
        records nothing, and until it is made they would read as changed at every check."""
        with self.store.read() as txn:
            for log in logs:
                cursor = read_cursor(self.store, txn, log) if log.kind.snapshots else None
                if cursor is not None and owes_release(cursor):
                    path = rowlog.row_log_path(self.rows_root, log.source.name, log.path)
                    self._queue_release(log.through(path), cursor)
        if self._row_logs:
            self._make_durable()
            self._release_row_logs()

    def _queue_release(self, log: LogFile, cursor: Cursor) -> None:
        """A row log found unchanged whose sealed lines were never released (a kill ended the
        pass that sealed them): released at this pass's end, from its cursor, once its mirror
        is made durable again (what a killed pass made durable is not known)."""
        mirror = cursor["mirror"]
        self._touched.add(mirror["rel"])
        self._row_logs.append((log, mirror["id"], mirror["src"]))

    def _touch(self, writer: mirrors.MirrorWriter) -> None:
        self._touched.add(writer.state["rel"])

    def changed(self, files: list[LogFile] | None = None) -> bool:
        """Cheap check (stat only) whether any log file differs from its cursor."""
        logs = files if files is not None else self.discover()
        return bool(changed_files(self.store, logs, self.rows_root))

    def ingest_file(self, log: LogFile, progress: Progress | None = None) -> IngestReport:
        """Under the file's lock: its mirror recovered (or a new version begun), then its new
        lines. While recording is paused, only its end mark; once a pause ended by itself, what
        lies before its mark is left out first (`skip`, `pause_marks`)."""
        report = IngestReport(files=1)
        with stripe_lock(self.lock_root, log.key):
            flag = pause.last(self.settings.home)
            if flag is not None and flag.active():  # a pause began during this pass
                report.paused = True
                report.marked = pausing.mark(self.store, [log], flag.since)
                return report
            found = None
            if flag is not None:
                with self.store.read() as txn:
                    found = marks.get(self.store, txn, str(log.original), flag.since)
            if self._read_file(log, report, progress, found) and found is not None:
                marks.drop(self.store, found.path)
        return report

    def skip_paused(self) -> IngestReport:
        """`origin resume` without `--backfill`, while the pause still stands: every log's
        lines and rows written during the pause are left out for good (`skip`). During a pause
        in force, every changed log is first marked at its current end; for a pause that ended
        by itself, only what was marked while it was in force is left out. A log that could not
        be settled keeps its mark and is in the report's errors."""
        flag = pause.last(self.settings.home)
        report = IngestReport()
        if flag is None:
            return report
        if flag.active():
            logs = changed_files(self.store, self.discover(), self.rows_root)
            report.marked = pausing.mark(self.store, logs, flag.since)
        for found in marks.marked(self.store, flag.since):
            log = pausing.marked_log(self.sources, found)
            if log is None or not log.path.exists():  # nothing of it can be recorded now
                marks.drop(self.store, found.path)
                continue
            done = IngestReport(files=1)
            with stripe_lock(self.lock_root, log.key):
                try:
                    settled = self._read_file(log, done, None, found, read=False)
                except FileNotFoundError:
                    settled = True  # gone: nothing of it can be recorded
                except OSError as error:
                    if self._ours(error):
                        raise
                    done.errors.append(f"{log.path}: {error.strerror or error}")
                    settled = False
                if settled:
                    marks.drop(self.store, found.path)
            report.merge(done)
        self._make_durable()
        return report

    def _read_file(
        self,
        log: LogFile,
        report: IngestReport,
        progress: Progress | None,
        found: Mark | None,
        *,
        read: bool = True,
    ) -> bool:
        """What `ingest_file` does under the lock: with a mark `found`, what lies before it is
        left out first; without `read`, only that. False when the file could not be read
        (in the report's errors)."""
        changed_at = None
        if log.kind.snapshots:
            try:
                if found is not None:
                    report.unrecorded_rows += rowlog.skip(
                        self.rows_root, log.source.name, log.kind, log.path
                    )
                    if not read:
                        return True
                row_log = rowlog.refresh(self.rows_root, log.source.name, log.kind, log.path)
            except rowlog.RowLogError as error:  # busy, corrupt or unreadable: next pass
                report.errors.append(str(error))
                return False
            changed_at = rowlog.last_change(log.path, log.kind)
            # A row log holds only what was read before the pause, or after its rows were left out.
            log, found = log.through(row_log), None
        try:
            return self._read_lines(log, report, progress, found, read, changed_at)
        except _Released:
            # Its blocks were given back and it must be read from its start: begun again from
            # the database, as a new version of its mirror (the older one keeps what it held).
            # The cursor says so first, durably: a new row log begins with the same rows as
            # the old one, and a kill before the new version is recorded must not leave the
            # old cursor reading on in it.
            assert log.origin is not None
            self.store.write(partial(read_anew, self.store, log.key), durable=True)
            try:
                rowlog.start_over(self.rows_root, log.source.name, log.kind, log.origin)
            except rowlog.RowLogError as error:
                report.errors.append(str(error))
                return False
            return self._read_lines(log, report, progress, None, read, changed_at)

    def _read_lines(
        self,
        log: LogFile,
        report: IngestReport,
        progress: Progress | None,
        found: Mark | None,
        read: bool,
        changed_at: float | None,
    ) -> bool:
        st = log.path.stat()
        with self.store.read() as txn:
            cursor = read_cursor(self.store, txn, log)
        if unchanged(cursor, st):
            if read and log.origin is not None and owes_release(cursor):
                assert cursor is not None
                self._queue_release(log, cursor)
            return True
        if read:
            report.files_changed = 1
        with Content(log.path) as content:
            cursor, writer = self._recovered(log, content, cursor, report)
            file_pass = SkipPass(
                self.store,
                log,
                content,
                cursor,
                writer,
                st,
                report,
                self._touch,
                self.settings.device,
                changed_at,
            )
            if found is not None:
                file_pass.skip(pausing.end_of(log, found))
            if read:
                file_pass.run(progress)
                if log.origin is not None:
                    mirror = file_pass.cursor["mirror"]
                    self._row_logs.append((log, mirror["id"], mirror["src"]))
        return True

    def _recovered(
        self,
        log: LogFile,
        content: Content,
        cursor: Cursor | None,
        report: IngestReport,
    ) -> tuple[Cursor, mirrors.MirrorWriter]:
        """The file's cursor and a mirror writer whose files match it. Raises `_Released`
        before reading a row log from where its blocks were given back."""
        if cursor is not None and not same_version(cursor, content):
            _readable(log, 0)
            cursor = new_version(self.store, self.raw_root, log, cursor)
            report.rewritten = 1
        if cursor is None:
            _readable(log, 0)
            cursor = new_version(self.store, self.raw_root, log, None)
        _readable(log, cursor["mirror"]["src"])
        committed = cursor
        writer = mirrors.MirrorWriter(self.raw_root, cursor["mirror"])
        if not writer.recover(lambda: tail_source(content, committed)):
            _readable(log, 0)
            cursor = new_version(self.store, self.raw_root, log, cursor)
            report.rewritten = 1
            writer = mirrors.MirrorWriter(self.raw_root, cursor["mirror"])
            writer.recover(lambda: b"")
        return cursor, writer


class _Released(Exception):
    """A row log would be read where `rowlog.release` gave its blocks back."""


def _note_released(
    store: Store, noted: list[tuple[bytes, int, int]], txn: lmdb.Transaction
) -> None:
    """Each row log's cursor remembers how far it was released, while it names the same mirror
    (a pass in another process may have begun a new version since)."""
    for key, mirror_id, upto in noted:
        cursor: Cursor | None = store.get(txn, "files", key)
        if cursor is None or cursor["mirror"]["id"] != mirror_id:
            continue
        if cursor.get("released", 0) < upto:
            store.put(txn, "files", key, {**cursor, "released": upto})


def _readable(log: LogFile, start: int) -> None:
    if log.origin is not None and rowlog.released(log.path, start):
        raise _Released(str(log.path))


def worker_main(environ: dict[str, str], logs: list[LogFile], queue: Any, parent: int) -> None:
    """A spawned worker: its files ingested, progress and then its report sent on `queue`."""
    die_with_parent(parent)
    settings = Settings.from_env(environ)
    store = Store.open(settings.home, map_size=settings.map_size)
    try:
        report = Ingester(store, settings, {}).ingest_group(logs, queue.put)
        queue.put(report.as_dict())
    finally:
        store.close()
