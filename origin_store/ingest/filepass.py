"""One pass over one file: read the complete lines after its cursor, parse them, append them to
its mirror and record each batch in one LMDB transaction."""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Callable, Iterator

from .. import mirror as mirrors
from ..db import Store
from ..model import EventRecord, ParseProblem, SessionFact
from ..records import Cursor
from .batch import Batch, pending_events
from .commit import write_batch
from .content import HEAD_BYTES, READ_CHUNK, Content, head_digest, head_of, read_head
from .discovery import LogFile
from .report import IngestReport, Progress

#: A line longer than this is mirrored (streamed) but not parsed, so memory stays bounded.
MAX_LINE_BYTES = 8 * 1024 * 1024
BATCH_LINES = 20_000
BATCH_BYTES = 32 * 1024 * 1024
#: A file unchanged this long is cold: its mirror's plain tail is sealed into a frame.
COLD_SECONDS = 600


class FilePass:
    """The state of one file's pass: its content, cursor, mirror writer, stat and report."""

    def __init__(
        self,
        store: Store,
        log: LogFile,
        content: Content,
        cursor: Cursor,
        writer: mirrors.MirrorWriter,
        st: os.stat_result,
        report: IngestReport,
        touched: Callable[[mirrors.MirrorWriter], None],
        device: str | None = None,
    ) -> None:
        self.store = store
        self.device = device
        self.log = log
        self.content = content
        self.cursor = cursor
        self.writer = writer
        self.st = st
        self.report = report
        self.touched = touched

    def run(self, progress: Progress | None) -> None:
        """Every complete line after the cursor, in batches; a half-written last line waits."""
        content = self.content
        offset = self.cursor["offset"]
        content.seek(offset)
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
                    self._commit(lines, offset)
                    offset = self.cursor["offset"]
                    lines, batch_bytes = [], 0
                size = self._commit_big(offset, len(line))
                if size is None:
                    break  # still being written
                offset = self.cursor["offset"]
                content.seek(offset)
                if progress:
                    progress(size)
                continue
            lines.append(line)
            batch_bytes += len(line)
            if len(lines) >= BATCH_LINES or batch_bytes >= BATCH_BYTES:
                self._commit(lines, offset)
                offset = self.cursor["offset"]
                if progress:
                    progress(batch_bytes)
                lines, batch_bytes = [], 0
        # Commit even with no new lines, so an unchanged stat is remembered.
        cold = time.time() - self.st.st_mtime > COLD_SECONDS
        self._commit(lines, offset, seal=cold, final=True)
        if progress and batch_bytes:
            progress(batch_bytes)

    def _commit(
        self, lines: list[bytes], offset: int, *, seal: bool = False, final: bool = False
    ) -> None:
        """Parse and mirror a batch of complete lines starting at `offset`, then record it;
        the `final` batch of a pass adds what the parser holds open (`FileKind.finish`)."""
        state = self.cursor["state"]
        first_line = self.cursor["lines"] + 1
        events: list[tuple[int, EventRecord]] = []
        facts: list[SessionFact] = []
        problems: list[tuple[int, ParseProblem]] = []
        parse = self.log.kind.parse
        for index, line in enumerate(lines):
            number = first_line + index
            for record in parse(line[:-1], number, state):
                if isinstance(record, EventRecord):
                    events.append((record.line or number, record))
                elif isinstance(record, SessionFact):
                    facts.append(record)
                else:
                    problems.append((number, record))
        finish = self.log.kind.finish
        if final and finish is not None:
            for record in finish(copy.deepcopy(state)):
                if isinstance(record, EventRecord):
                    events.append((record.line or first_line + len(lines) - 1, record))
                elif isinstance(record, SessionFact):
                    facts.append(record)
        frames = self.writer.append(lines, seal=seal)
        self.touched(self.writer)
        new_offset = offset + sum(len(line) for line in lines)
        head = (
            head_of(lines) if offset == 0 else None
        )  # the batch holds the file's head: not read again
        self._record(
            Batch(
                self.cursor["mirror"]["id"],
                self.log.source.name,
                events,
                facts,
                problems,
                frames,
                upsert=self.log.kind.upserts,
            ),
            len(lines),
            new_offset,
            head,
        )
        self.report.lines += len(lines)
        self.report.bytes += new_offset - offset

    def _commit_big(self, offset: int, seen: int) -> int | None:
        """Stream the oversized line at `offset` (`seen` bytes of it read) into a frame of its
        own; returns its size, or None while its end is not written yet."""
        content = self.content
        end = content.find_line_end(offset + seen)
        if end is None:
            return None
        size = end - offset
        content.seek(offset)

        def chunks() -> Iterator[bytes]:
            left = size
            while left > 0:
                chunk = content.read(min(READ_CHUNK, left))
                if not chunk:
                    return
                left -= len(chunk)
                yield chunk

        frames = self.writer.append_big(chunks())
        self.touched(self.writer)
        problem = ParseProblem("oversized-line", f"{size:,} bytes, mirrored but not parsed")
        batch = Batch(
            self.cursor["mirror"]["id"],
            self.log.source.name,
            [],
            [],
            [(self.cursor["lines"] + 1, problem)],
            frames,
        )
        self._record(batch, 1, offset + size)
        self.report.lines += 1
        self.report.bytes += size
        return size

    def _record(
        self, batch: Batch, line_count: int, new_offset: int, head_bytes: bytes | None = None
    ) -> None:
        """One LMDB transaction for the batch and the cursor past it."""
        new_cursor = self._advanced(line_count, new_offset, head_bytes)
        pending, duplicates = pending_events(batch)
        order = sorted(pending)
        added = write_batch(
            self.store, batch, pending, order, self.log.key, new_cursor, self.device
        )
        self.cursor = new_cursor
        report = self.report
        report.events += added
        report.duplicates += duplicates + len(pending) - added
        for _, problem in batch.problems:
            report.problems[problem.reason] += 1

    def _advanced(self, line_count: int, new_offset: int, head_bytes: bytes | None) -> Cursor:
        """The cursor once `line_count` more lines up to `new_offset` are recorded."""
        cursor = self.cursor
        head, head_len = cursor["head"], cursor["head_len"]
        if head_len < HEAD_BYTES and new_offset > head_len:
            if head_bytes is None:
                head_bytes = read_head(self.log.path, new_offset)
            head, head_len = head_digest(head_bytes), len(head_bytes)
        st = self.st
        return {
            **cursor,
            "offset": new_offset,
            "lines": cursor["lines"] + line_count,
            "size": st.st_size,
            "mtime": st.st_mtime_ns,
            "ino": st.st_ino,
            "head": head,
            "head_len": head_len,
            "mirror": self.writer.state.copy(),
        }
