"""Incremental, idempotent ingest of agents' log files into the store and the mirrors.

For each file: take its lock (one ingester per file across processes), bring the mirror back to
what LMDB recorded, read the complete lines after the cursor, parse them, append them to the
mirror, then record events, sessions, frames, problems and the new cursor in one LMDB
transaction per batch. A half-written last line waits for the next pass. A file that shrank or
whose head changed is mirrored again as a new version; its events keep their ids, so nothing is
duplicated. A process killed anywhere leaves either the old cursor (the batch is done again) or
the new one (the batch is done): never a half.
"""

from __future__ import annotations

import fcntl
import gc
import hashlib
import io
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISREG

import lmdb
import zstandard

from . import mirror as mirrors
from .db import Store, dumps, loads, u64
from .globwalk import match_many
from .model import EventRecord, ParseProblem, SessionFact
from .project import project_of
from .settings import Settings
from .parsers.base import FileKind, Source
from .textclip import STORED_CHARS

#: A line longer than this is mirrored (streamed) but not parsed, so memory stays bounded.
MAX_LINE_BYTES = 8 * 1024 * 1024
BATCH_LINES = 20_000
#: Pending bytes above which a pass is shared by worker processes.
PARALLEL_BYTES = 64 * 1024 * 1024
BATCH_BYTES = 32 * 1024 * 1024
#: Per-file ingest locks are striped over this many lock files.
LOCK_STRIPES = 1024
#: Touched mirrors above which one syncfs of the filesystem beats an fsync per file.
SYNCFS_FILES = 32
HEAD_BYTES = 4096
#: A file unchanged this long is cold: its mirror's plain tail is sealed into a frame.
COLD_SECONDS = 600
_READ_CHUNK = 1024 * 1024

Progress = Callable[[int], None]  # bytes just processed


@dataclass(slots=True)
class LogFile:
    source: Source
    kind: FileKind
    root: Path
    path: Path

    @property
    def rel(self) -> str:
        return self.path.relative_to(self.root).as_posix()


@dataclass(slots=True)
class IngestReport:
    files: int = 0
    files_changed: int = 0
    rewritten: int = 0
    lines: int = 0
    bytes: int = 0
    events: int = 0
    duplicates: int = 0
    problems: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict) -> IngestReport:
        report = cls()
        for name in ("files", "files_changed", "rewritten", "lines", "bytes", "events", "duplicates"):
            setattr(report, name, data.get(name, 0))
        report.problems = Counter(data.get("skipped_lines", {}))
        report.errors = list(data.get("errors", []))
        return report

    def merge(self, other: IngestReport) -> None:
        self.files += other.files
        self.files_changed += other.files_changed
        self.rewritten += other.rewritten
        self.lines += other.lines
        self.bytes += other.bytes
        self.events += other.events
        self.duplicates += other.duplicates
        self.problems.update(other.problems)
        self.errors.extend(other.errors)

    def as_dict(self) -> dict:
        return {
            "files": self.files,
            "files_changed": self.files_changed,
            "rewritten": self.rewritten,
            "lines": self.lines,
            "bytes": self.bytes,
            "events": self.events,
            "duplicates": self.duplicates,
            "skipped_lines": dict(self.problems),
            "seconds": round(self.seconds, 3),
            "errors": self.errors,
        }


def discover(sources: dict[str, Source], settings: Settings) -> list[LogFile]:
    """Every log file of every known agent under its default root (moved by its env var)."""
    found: list[LogFile] = []
    seen: set[str] = set()
    for source in sources.values():
        for root in source.roots(settings.environ, settings.user_home):
            if not root.is_dir():
                continue
            # One walk for all of the agent's patterns: this runs before every search that ingests.
            kinds = [(kind, pattern) for kind in source.files for pattern in kind.patterns]
            matches = match_many(str(root), [pattern for _, pattern in kinds])
            for (kind, _), matched in zip(kinds, matches, strict=True):
                for name in sorted(matched):
                    if name in seen:
                        continue
                    if name.endswith(".zst") and os.path.exists(name[:-4]):
                        continue  # the agent decompressed it to append: the plain file wins
                    seen.add(name)
                    # Directories named like logs are left out by the stat in _changed_files.
                    found.append(LogFile(source, kind, root, Path(name)))
    return found


def total_pending_bytes(store: Store, files: list[LogFile]) -> int:
    """Bytes not yet ingested, for progress bars."""
    total = 0
    with store.read() as txn:
        for log in files:
            try:
                size = log.path.stat().st_size
            except OSError:
                continue
            cursor = store.get(txn, "files", str(log.path).encode())
            done = cursor["size"] if cursor and cursor.get("size", 0) <= size else 0
            total += max(0, size - done)
    return total


class Ingester:
    def __init__(self, store: Store, settings: Settings, sources: dict[str, Source]) -> None:
        self.store = store
        self.settings = settings
        self.sources = sources
        self.raw_root = settings.home / "raw"
        self.lock_root = settings.home / "locks"
        self.lock_root.mkdir(parents=True, exist_ok=True)
        self._touched: dict[int, mirrors.MirrorWriter] = {}

    def run(
        self, progress: Progress | None = None, files: list[LogFile] | None = None, workers: int | None = 1
    ) -> IngestReport:
        """One pass over every log file, in this process by default.

        `workers=None` lets a large backfill be shared by worker processes (parsing is pure and
        LMDB serialises their writes): only for a command-line backfill, since spawned workers
        need an importable main module and cost a second to start.
        """
        started = time.perf_counter()
        logs = files if files is not None else discover(self.sources, self.settings)
        report = IngestReport(files=len(logs))
        logs = self._changed_files(logs)
        report.files -= len(logs)
        groups = self._split(logs, workers)
        children = [_spawn_child(self.settings, group) for group in groups[1:]]
        report.merge(self._ingest_group(groups[0], _relay(progress, children)))
        for child in children:
            report.merge(child.finish(progress))
        report.seconds = time.perf_counter() - started
        if report.files_changed:
            summary = {"time": int(time.time() * 1000), **report.as_dict()}
            self.store.write(lambda txn: self.store.meta_put(txn, "last_ingest", summary), durable=True)
        return report

    def _ingest_group(self, logs: list[LogFile], progress: Progress | None) -> IngestReport:
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
                    report.errors.append(f"{log.path}: {error.strerror or error}")
        finally:
            if collecting:
                gc.enable()
        self._make_durable()
        return report

    def _split(self, logs: list[LogFile], workers: int | None) -> list[list[LogFile]]:
        """Files for this process first, then one group per worker, balanced by pending bytes."""
        if workers is None:
            pending = total_pending_bytes(self.store, logs)
            # One more process than cores: while one waits for LMDB's writer lock, the cores stay busy.
            workers = min((os.cpu_count() or 1) + 1, 4) if pending >= PARALLEL_BYTES and len(logs) > 1 else 1
        if workers <= 1:
            return [logs]
        sizes = []
        for log in logs:
            try:
                sizes.append((log.path.stat().st_size, log))
            except OSError:
                sizes.append((0, log))
        groups: list[list[LogFile]] = [[] for _ in range(workers)]
        loads = [0] * workers
        for size, log in sorted(sizes, key=lambda item: -item[0]):
            target = loads.index(min(loads))
            groups[target].append(log)
            loads[target] += size
        return [g for g in groups if g] or [[]]

    def _make_durable(self) -> None:
        """Mirrors first, then LMDB: after a power loss LMDB never points past a mirror's end."""
        touched = list(self._touched.values())
        self._touched = {}
        if len(touched) < SYNCFS_FILES or not _syncfs(self.raw_root):
            for writer in touched:
                writer.sync()
        self.store.sync()

    def changed(self, files: list[LogFile] | None = None) -> bool:
        """Cheap check (stat only) whether any log file differs from its cursor."""
        logs = files if files is not None else discover(self.sources, self.settings)
        return bool(self._changed_files(logs))

    def _changed_files(self, logs: list[LogFile]) -> list[LogFile]:
        """Files whose size, mtime or inode differ from their cursor (no locks, one read)."""
        changed = []
        with self.store.read() as txn:
            for log in logs:
                cursor = self.store.get(txn, "files", str(log.path).encode())
                try:
                    st = os.stat(log.path)
                except OSError:
                    continue
                if not S_ISREG(st.st_mode):
                    continue
                if cursor is None or (cursor["size"], cursor["mtime"], cursor["ino"]) != (st.st_size, st.st_mtime_ns, st.st_ino):
                    changed.append(log)
        return changed

    # -- one file -----------------------------------------------------------------------------

    def ingest_file(self, log: LogFile, progress: Progress | None = None) -> IngestReport:
        report = IngestReport(files=1)
        key = str(log.path).encode()
        with self._lock(key):
            st = log.path.stat()
            with self.store.read() as txn:
                cursor = self.store.get(txn, "files", key)
            if cursor and cursor["size"] == st.st_size and cursor["mtime"] == st.st_mtime_ns and cursor["ino"] == st.st_ino:
                return report
            report.files_changed = 1
            compressed = log.path.name.endswith(".zst")
            with _open_content(log.path, compressed) as content:
                if cursor is not None and not self._same_version(cursor, content, compressed, log.path):
                    cursor = self._new_version(log, cursor)
                    report.rewritten = 1
                if cursor is None:
                    cursor = self._new_version(log, None)
                writer = mirrors.MirrorWriter(self.raw_root, cursor["mirror"])
                if not writer.recover(lambda: self._tail_source(content, cursor)):
                    cursor = self._new_version(log, cursor)
                    report.rewritten = 1
                    writer = mirrors.MirrorWriter(self.raw_root, cursor["mirror"])
                    writer.recover(lambda: b"")
                self._read_new_lines(log, content, cursor, writer, st, report, progress)
        return report

    def _read_new_lines(
        self,
        log: LogFile,
        content: io.BufferedIOBase,
        cursor: dict,
        writer: mirrors.MirrorWriter,
        st: os.stat_result,
        report: IngestReport,
        progress: Progress | None,
    ) -> None:
        _seek(content, cursor["offset"])
        offset = cursor["offset"]
        lines: list[bytes] = []
        batch_bytes = 0
        while True:
            line = content.readline(MAX_LINE_BYTES)
            if not line:
                break
            if not line.endswith(b"\n"):
                if len(line) < MAX_LINE_BYTES:
                    break  # half-written last line: it waits for the next pass
                # An oversized line: seal what we have, then stream the line into its own frame.
                if lines:
                    self._commit(log, cursor, writer, lines, offset, st, report)
                    offset = cursor["offset"]
                    lines, batch_bytes = [], 0
                end = _find_line_end(content, offset + len(line))
                if end is None:
                    break  # still being written
                size = end - offset
                self._commit_big(log, cursor, writer, content, offset, size, st, report)
                offset = cursor["offset"]
                _seek(content, offset)
                if progress:
                    progress(size)
                continue
            lines.append(line)
            batch_bytes += len(line)
            if len(lines) >= BATCH_LINES or batch_bytes >= BATCH_BYTES:
                self._commit(log, cursor, writer, lines, offset, st, report)
                offset = cursor["offset"]
                if progress:
                    progress(batch_bytes)
                lines, batch_bytes = [], 0
        # Commit even with no new lines, so an unchanged stat is remembered.
        cold = time.time() - st.st_mtime > COLD_SECONDS
        self._commit(log, cursor, writer, lines, offset, st, report, seal=cold)
        if progress and batch_bytes:
            progress(batch_bytes)

    def _commit(
        self,
        log: LogFile,
        cursor: dict,
        writer: mirrors.MirrorWriter,
        lines: list[bytes],
        offset: int,
        st: os.stat_result,
        report: IngestReport,
        *,
        seal: bool = False,
    ) -> None:
        state = cursor["state"]
        first_line = cursor["lines"] + 1
        events: list[EventRecord] = []
        facts: list[SessionFact] = []
        problems: list[tuple[int, ParseProblem]] = []
        parse = log.kind.parse
        for index, line in enumerate(lines):
            number = first_line + index
            for record in parse(line[:-1], number, state):
                if isinstance(record, EventRecord):
                    events.append((number, record))  # type: ignore[arg-type]
                elif isinstance(record, SessionFact):
                    facts.append(record)
                else:
                    problems.append((number, record))
        frames = writer.append(lines, seal=seal)
        self._touch(writer)
        new_offset = offset + sum(len(line) for line in lines)
        head = _head_of(lines) if offset == 0 else None  # the batch holds the file's head: not read again
        self._record(log, cursor, writer, events, facts, problems, frames, len(lines), new_offset, st, report, head)
        report.lines += len(lines)
        report.bytes += new_offset - offset

    def _commit_big(
        self,
        log: LogFile,
        cursor: dict,
        writer: mirrors.MirrorWriter,
        content: io.BufferedIOBase,
        offset: int,
        size: int,
        st: os.stat_result,
        report: IngestReport,
    ) -> None:
        _seek(content, offset)

        def chunks() -> Iterator[bytes]:
            left = size
            while left > 0:
                chunk = content.read(min(_READ_CHUNK, left))
                if not chunk:
                    return
                left -= len(chunk)
                yield chunk

        frames = writer.append_big(chunks())
        self._touch(writer)
        number = cursor["lines"] + 1
        problem = ParseProblem("oversized-line", f"{size:,} bytes, mirrored but not parsed")
        self._record(log, cursor, writer, [], [], [(number, problem)], frames, 1, offset + size, st, report)
        report.lines += 1
        report.bytes += size

    def _record(
        self,
        log: LogFile,
        cursor: dict,
        writer: mirrors.MirrorWriter,
        events: list,
        facts: list[SessionFact],
        problems: list[tuple[int, ParseProblem]],
        frames: list[mirrors.Frame],
        line_count: int,
        new_offset: int,
        st: os.stat_result,
        report: IngestReport,
        head_bytes: bytes | None = None,
    ) -> None:
        store = self.store
        mirror_id = cursor["mirror"]["id"]
        source = log.source.name
        head = cursor["head"]
        if cursor["head_len"] < HEAD_BYTES and new_offset > cursor["head_len"]:
            if head_bytes is None:
                head_bytes = self._read_head(log.path, new_offset)
            head, head_len = _head_digest(head_bytes), len(head_bytes)
        else:
            head_len = cursor["head_len"]
        new_cursor = dict(cursor)
        new_cursor.update(
            offset=new_offset,
            lines=cursor["lines"] + line_count,
            size=st.st_size,
            mtime=st.st_mtime_ns,
            ino=st.st_ino,
            head=head,
            head_len=head_len,
            mirror=dict(writer.state),
        )
        dbs = store.dbs
        # LMDB lets one writer at a time into the store, across processes: everything that needs
        # no transaction (records, their bytes, key order) is done before taking it.
        # key -> [record, its bytes (None until its project is known), sess_ev key, feed item]
        records: dict[bytes, list] = {}
        batch_duplicates = 0
        for number, event in events:
            key = event.id.encode()
            if key in records:
                batch_duplicates += 1
                continue
            text = event.text
            record = {
                "id": event.id, "time": event.time, "source": event.source,
                "project": project_of(event.cwd) if event.cwd else None,
                "session": event.session, "role": event.role, "kind": event.kind,
                "text": text, "cwd": event.cwd,
                "git_branch": event.git_branch, "agent_version": event.agent_version,
                "m": mirror_id, "line": number,
            }
            # The first characters and the original length answer every cut exactly; the
            # mirror has the whole line. Extra fields only where needed, to keep records small.
            if len(text) > STORED_CHARS:
                record["text"] = text[:STORED_CHARS]
                record["text_chars"] = len(text)
            if event.label:
                record["label"] = event.label
            records[key] = [
                record,
                dumps(record) if event.cwd else None,
                f"{source}\0{event.session}\0".encode() + u64(max(event.time, 0)) + key,
                dumps({"t": "event", "id": event.id}),
            ]
        in_key_order = sorted(records)

        def work(txn: lmdb.Transaction) -> tuple[int, int]:
            added = 0
            duplicates = batch_duplicates
            sessions: dict[bytes, dict] = {}

            def session_of(name: str) -> dict:
                skey = f"{source}\0{name}".encode()
                found = sessions.get(skey)
                if found is None:
                    raw = txn.get(skey, db=dbs["sessions"])
                    found = loads(raw) if raw else {
                        "session": name, "source": source, "project": None, "cwd": None,
                        "title": None, "title_rank": -1, "title_time": 0, "prompt": None,
                        "parent": None, "started": None, "ended": None, "events": 0,
                    }
                    sessions[skey] = found
                return found

            for fact in facts:
                sess = session_of(fact.session)
                if fact.cwd and not sess["cwd"]:
                    sess["cwd"] = fact.cwd
                    sess["project"] = project_of(fact.cwd)
                if fact.title and (
                    fact.title_rank > sess["title_rank"]
                    or (fact.title_rank == sess["title_rank"] and (fact.time or 0) >= sess["title_time"])
                ):
                    sess["title"] = fact.title
                    sess["title_rank"] = fact.title_rank
                    sess["title_time"] = fact.time or 0
                if fact.prompt and not sess["prompt"]:
                    sess["prompt"] = fact.prompt[:2000]
                if fact.parent and not sess["parent"]:
                    sess["parent"] = fact.parent
            feed: list[bytes] = []
            # File order: an event without a cwd belongs to its session's project as it stood then.
            for entry in records.values():
                record = entry[0]
                sess = session_of(record["session"])
                if record["cwd"]:
                    if not sess["cwd"]:
                        sess["cwd"] = record["cwd"]
                        sess["project"] = record["project"]
                elif entry[1] is None:
                    record["project"] = sess["project"]
                    entry[1] = dumps(record)
            # Keys in order keep the B-tree's inserts local; put(overwrite=False) is the dedupe.
            writer = txn.cursor(db=dbs["events"])
            fresh = {key for key in in_key_order if writer.put(key, records[key][1], overwrite=False)}
            duplicates += len(records) - len(fresh)
            sess_ev = dbs["sess_ev"]
            for key, (record, _, sess_key, feed_item) in records.items():  # file order, as written
                if key not in fresh:
                    continue
                sess = session_of(record["session"])
                txn.put(sess_key, b"", db=sess_ev)
                sess["events"] += 1
                _widen(sess, record["time"])
                feed.append(feed_item)
                added += 1
            for skey, sess in sessions.items():
                txn.put(skey, dumps(sess), db=dbs["sessions"])
            for frame in frames:
                txn.put(u64(mirror_id)[4:] + u64(frame.first_line), frame.pack(), db=dbs["frames"])
            for number, problem in problems:
                txn.put(
                    u64(mirror_id)[4:] + u64(number),
                    dumps({"reason": problem.reason, "detail": problem.detail[:500]}),
                    db=dbs["problems"],
                )
            if feed:
                store.feed_append(txn, feed)
            txn.put(str(log.path).encode(), dumps(new_cursor), db=dbs["files"])
            return added, duplicates

        added, duplicates = store.write(work)
        cursor.clear()
        cursor.update(new_cursor)
        report.events += added
        report.duplicates += duplicates
        for _, problem in problems:
            report.problems[problem.reason] += 1

    def _touch(self, writer: mirrors.MirrorWriter) -> None:
        self._touched[id(writer)] = writer

    # -- versions and recovery ----------------------------------------------------------------

    def _same_version(self, cursor: dict, content: io.BufferedIOBase, compressed: bool, path: Path) -> bool:
        size = _content_size(path, compressed)
        if size is not None and size < cursor["offset"]:
            return False
        _seek(content, 0)
        head = content.read(cursor["head_len"])
        return _head_digest(head) == cursor["head"]

    def _read_head(self, path: Path, upto: int) -> bytes:
        compressed = path.name.endswith(".zst")
        with _open_content(path, compressed) as content:
            return content.read(min(HEAD_BYTES, upto))

    def _tail_source(self, content: io.BufferedIOBase, cursor: dict) -> bytes | None:
        """The original's bytes that the committed tail mirrors, to rebuild a torn tail."""
        state = cursor["mirror"]
        if not state["tail"]:
            return b""
        try:
            _seek(content, state["src"])
            return content.read(state["tail"])
        except OSError:
            return None

    def _new_version(self, log: LogFile, old: dict | None) -> dict:
        """A fresh cursor and an empty mirror; a rewritten file gets a new mirror file name."""
        version = (old["version"] + 1) if old else 1
        rel = log.rel[:-4] if log.rel.endswith(".zst") else log.rel
        if version > 1:
            rel = f"{rel}.v{version}"
        rel = f"{log.source.name}/{rel}"

        def work(txn: lmdb.Transaction) -> int:
            if old is not None:
                # Freeze the old version's mirror state so its lines stay readable by `sources`.
                previous = self.store.get(txn, "mirrors", u64(old["mirror"]["id"])[4:]) or {}
                previous["final"] = old["mirror"]
                self.store.put(txn, "mirrors", u64(old["mirror"]["id"])[4:], previous)
            mirror_id = (self.store.meta_get(txn, "next_mirror") or 0) + 1
            self.store.meta_put(txn, "next_mirror", mirror_id)
            self.store.put(
                txn,
                "mirrors",
                u64(mirror_id)[4:],
                {"original_file": str(log.path), "mirror_file": str(self.raw_root / rel), "source": log.source.name, "version": version},
            )
            return mirror_id

        mirror_id = self.store.write(work)
        zst, tail = mirrors.paths(self.raw_root, rel)
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
            "head": _head_digest(b""),
            "head_len": 0,
            "mirror": mirrors.new_state(mirror_id, rel),
            "state": log.kind.start(log.rel),
        }

    # -- locking ------------------------------------------------------------------------------

    def _lock(self, key: bytes) -> _FileLock:
        """The lock of the stripe the file hashes to: a fixed set of lock files, because creating
        one per log file cost ~0.5 ms each on a busy disk; two files sharing a stripe only wait."""
        stripe = int.from_bytes(hashlib.blake2b(key, digest_size=4).digest(), "big") % LOCK_STRIPES
        return _FileLock(self.lock_root / f"{stripe:03x}.lock")


class _Child:
    """A worker process ingesting a group of files; it dies with its parent (SIGKILL included)."""

    def __init__(self, process, queue) -> None:  # noqa: ANN001 - multiprocessing objects
        self.process = process
        self.queue = queue
        self.result: dict | None = None

    def drain(self, progress: Progress | None, block: bool = False) -> None:
        import queue as queue_module

        while self.result is None:
            try:
                item = self.queue.get(timeout=0.2) if block else self.queue.get_nowait()
            except queue_module.Empty:
                if block and not self.process.is_alive():
                    self.result = {"errors": [f"an ingest worker ended with code {self.process.exitcode}"]}
                return
            if isinstance(item, int):
                if progress:
                    progress(item)
            else:
                self.result = item

    def finish(self, progress: Progress | None) -> IngestReport:
        while self.result is None:
            self.drain(progress, block=True)
        self.process.join()
        return IngestReport.from_dict(self.result)


def _spawn_child(settings: Settings, logs: list[LogFile]) -> _Child:
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_child_main, args=(dict(settings.environ), logs, queue, os.getpid()), daemon=True)
    process.start()
    return _Child(process, queue)


def _child_main(environ: dict[str, str], logs: list[LogFile], queue, parent: int) -> None:  # noqa: ANN001
    _die_with_parent(parent)
    settings = Settings.from_env(environ)
    store = Store.open(settings.home, map_size=settings.map_size)
    try:
        report = Ingester(store, settings, {})._ingest_group(logs, queue.put)
        queue.put(report.as_dict())
    finally:
        store.close()


def _die_with_parent(parent: int) -> None:
    """Linux: end this worker when the parent ends, however it ends (also if it already did)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)


def _relay(progress: Progress | None, children: list[_Child]) -> Progress | None:
    """This process's progress callback, also passing on what the workers report."""
    if not children:
        return progress

    def report(count: int) -> None:
        if progress:
            progress(count)
        for child in children:
            child.drain(progress)

    return report


class _FileLock:
    """An exclusive advisory lock; the OS drops it when its holder dies, even by SIGKILL."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = -1

    def __enter__(self) -> _FileLock:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def _head_digest(head: bytes) -> str:
    """What a cursor keeps of a file's first bytes, to tell a rewritten file from a grown one."""
    return hashlib.blake2b(head, digest_size=16).hexdigest()


def _head_of(lines: list[bytes]) -> bytes:
    """The first HEAD_BYTES of a batch that starts at the file's beginning."""
    head = bytearray()
    for line in lines:
        head += line
        if len(head) >= HEAD_BYTES:
            break
    return bytes(head[:HEAD_BYTES])


def _syncfs(path: Path) -> bool:
    """Flush the whole filesystem holding `path` (Linux syncfs); False where that is unavailable."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(path, os.O_RDONLY)
    except (OSError, AttributeError):
        return False
    try:
        return libc.syncfs(fd) == 0
    except AttributeError:
        return False
    finally:
        os.close(fd)


def _widen(session: dict, when: int) -> None:
    if when <= 0:
        return
    if session["started"] is None or when < session["started"]:
        session["started"] = when
    if session["ended"] is None or when > session["ended"]:
        session["ended"] = when


class _Content:
    """A readable, forward-seekable view of a log file's content (decompressed for .zst)."""

    def __init__(self, path: Path, compressed: bool) -> None:
        self.path = path
        self.compressed = compressed
        self.raw = open(path, "rb")  # noqa: SIM115
        self.stream: io.BufferedReader = self._fresh()

    def _fresh(self) -> io.BufferedReader:
        if not self.compressed:
            return io.BufferedReader(self.raw, buffer_size=_READ_CHUNK)  # type: ignore[arg-type]
        self.raw.seek(0)
        reader = zstandard.ZstdDecompressor().stream_reader(self.raw, read_across_frames=True, closefd=False)
        return io.BufferedReader(reader, buffer_size=_READ_CHUNK)  # type: ignore[arg-type]

    def __enter__(self) -> io.BufferedReader:
        return self  # type: ignore[return-value]

    def __exit__(self, *exc: object) -> None:
        self.raw.close()

    def seek(self, offset: int) -> None:
        if not self.compressed:
            self.stream.seek(offset)
            return
        self.stream = self._fresh()
        left = offset
        while left > 0:
            got = self.stream.read(min(left, _READ_CHUNK))
            if not got:
                break
            left -= len(got)

    def tell(self) -> int:
        return self.stream.tell()

    def read(self, size: int = -1) -> bytes:
        return self.stream.read(size)

    def readline(self, limit: int = -1) -> bytes:
        return self.stream.readline(limit)


def _open_content(path: Path, compressed: bool) -> _Content:
    return _Content(path, compressed)


def _seek(content: io.BufferedIOBase, offset: int) -> None:
    content.seek(offset)  # type: ignore[call-arg]


def _content_size(path: Path, compressed: bool) -> int | None:
    return None if compressed else path.stat().st_size


def _find_line_end(content: io.BufferedIOBase, start: int) -> int | None:
    """Offset just past the newline that ends the line running through `start`, or None."""
    _seek(content, start)
    position = start
    while True:
        chunk = content.read(_READ_CHUNK)
        if not chunk:
            return None
        index = chunk.find(b"\n")
        if index >= 0:
            return position + index + 1
        position += len(chunk)
