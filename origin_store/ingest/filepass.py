"""One pass over one file: read the complete lines after its cursor, mask the secrets in them,
parse them, append them to its mirror and record each batch in one LMDB transaction.

Secrets are masked (`redact`) before a line is parsed or mirrored, so the store, the index and
the mirror's lines (what `sources` returns) never hold them; what identifies the file itself
(its head digest, the offsets of its cursor) stays that of the original bytes, so the next pass
compares the original with the original."""

from __future__ import annotations

import copy
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from ..bounds import session_fits, unstorable
from ..core import keys
from ..core.db import Store
from ..core.lmdbio import prefixed
from ..mirrors import mirror as mirrors
from ..mirrors import spans
from ..model import EventRecord, ParseProblem, SessionFact
from ..records import Cursor
from ..redaction import mask as redact
from ..textclip import STORED_CHARS
from . import rowlog
from .batch import Batch, pending_events
from .commit import write_batch
from .content import HEAD_BYTES, READ_CHUNK, Content, head_digest, head_of, read_head
from .discovery import LogFile
from .report import IngestReport, Progress, add_redacted

#: A line longer than this is mirrored (streamed) but not parsed, so memory stays bounded.
MAX_LINE_BYTES = 8 * 1024 * 1024
BATCH_LINES = 20_000
BATCH_BYTES = 32 * 1024 * 1024
#: A file unchanged this long is cold: its mirror's plain tail is sealed into a frame.
COLD_SECONDS = 600


def _cuts(
    lines: list[bytes], first_line: int, events: list[tuple[int, EventRecord]]
) -> dict[int, list[spans.Cut]]:
    """Where each new event's text sits in its line, by line number (`spans`): an event's
    first line in the batch only, and only a text the record keeps whole."""
    texts: dict[int, list[tuple[bytes, str]]] = {}
    seen: set[str] = set()
    for number, event in events:
        if event.id in seen:
            continue
        seen.add(event.id)
        text = event.text
        if len(text) > STORED_CHARS or len(text) < spans.MIN_SPAN - 2:
            continue
        texts.setdefault(number, []).append((event.id.encode(), text))
    out: dict[int, list[spans.Cut]] = {}
    for number, some in texts.items():
        index = number - first_line
        if 0 <= index < len(lines):
            found = spans.find_cuts(lines[index], some)
            if found:
                out[number] = found
    return out


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
        changed_at: float | None = None,
    ) -> None:
        self.store = store
        #: When what the file holds last changed, if not its mtime: a row log is written by
        #: Origin at each read, so its database's last write tells when it went cold.
        self.changed_at = st.st_mtime if changed_at is None else changed_at
        self.device = device
        self.log = log
        self.content = content
        self.cursor = cursor
        self.writer = writer
        self.st = st
        self.report = report
        self.touched = touched
        #: The last batch ended inside a private key written a line at a time.
        self.open_key = False

    def run(self, progress: Progress | None) -> None:
        """Every complete line after the cursor, in batches; a half-written last line waits."""
        if self.log.origin is not None:  # a row log: what was masked as it was written
            self._count(rowlog.take_redactions())
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
        cold = time.time() - self.changed_at > COLD_SECONDS
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
        redacted = redact.redact_lines(lines, open_key=self.open_key)
        self.open_key = redacted.open_key
        for index, line in enumerate(redacted.lines):
            number = first_line + index
            for record in parse(line[:-1], number, state):
                if isinstance(record, EventRecord):
                    unfit = unstorable(record.id, record.source, record.session, record.time)
                    if unfit is None:
                        events.append((record.line or number, record))
                    else:  # its keys would fail the batch's write, and every pass after it
                        problems.append((number, ParseProblem("unstorable", f"event {unfit}")))
                elif isinstance(record, SessionFact):
                    if session_fits(record.source, record.session):
                        facts.append(record)  # one that does not fit comes with its event
                else:
                    problems.append((number, record))
        if final:
            self._finish(state, first_line + len(lines) - 1, events, facts)
        src = self.writer.state["src"]
        cuts = {} if self.log.kind.upserts else _cuts(redacted.lines, first_line, events)
        frames = self.writer.append(redacted.lines, seal=seal, cuts=cuts, tail_cuts=self._tail_cuts)
        sealed = self.writer.state["sealed"]
        self.touched(self.writer)
        new_offset = offset + sum(len(line) for line in lines)
        self._settle_src(lines, bool(frames), new_offset, src)
        # The original's head, not the mirror's: the next pass compares it with the original.
        head = head_of(lines) if offset == 0 else None  # the batch holds it: not read again
        self._record(
            Batch(
                self.cursor["mirror"]["id"],
                self.log.source.name,
                events,
                facts,
                problems,
                frames,
                upsert=self.log.kind.upserts,
                tail_cuts={n: found for n, found in cuts.items() if n > sealed},
            ),
            len(lines),
            new_offset,
            head,
        )
        self._count(redacted.counts)
        self.report.lines += len(lines)
        self.report.bytes += new_offset - offset

    def _finish(
        self,
        state: dict[str, Any],
        last_line: int,
        events: list[tuple[int, EventRecord]],
        facts: list[SessionFact],
    ) -> None:
        """Add what the parser holds open (`FileKind.finish`) as it stands, at `last_line`
        unless it names its own; a copy of the state, since the complete one replaces it."""
        finish = self.log.kind.finish
        if finish is None:
            return
        for record in finish(copy.deepcopy(state)):
            if isinstance(record, EventRecord):
                events.append((record.line or last_line, record))
            elif isinstance(record, SessionFact):
                facts.append(record)

    def _tail_cuts(self, first: int, last: int) -> dict[int, list[spans.Cut]]:
        """The cuts kept for the tail's lines `first` to `last`, now sealed (`spans`), each
        with its event's text as the record holds it now."""
        store = self.store
        mirror_id = self.cursor["mirror"]["id"]
        out: dict[int, list[spans.Cut]] = {}
        with store.read() as txn:
            found = prefixed(txn.cursor(db=store.dbs["tail_cuts"]), keys.mirror_key(mirror_id))
            for key, value in found:
                number = keys.line_of(key)
                if number > last:
                    break
                if number < first:
                    continue
                line_cuts: list[spans.Cut] = []
                for start, end, seq, form in spans.unpack_tail_cuts(value):
                    text = store.event_text(txn, seq)
                    span = None if text is None else spans.written(text, form)
                    if span is not None:
                        line_cuts.append((start, end, seq, span, form))
                out[number] = line_cuts
        return out

    def _settle_src(self, lines: list[bytes], sealed: bool, new_offset: int, before: int) -> None:
        """Where the mirror's tail starts in the original (`MirrorState.src`, what rebuilds a
        torn tail). The mirror counts the bytes it sealed, which are the redacted lines; the
        original's offset comes from the original lines."""
        state = self.writer.state
        held = self.cursor["lines"] + len(lines) - state["sealed"]  # lines in the tail now
        if held == 0:
            state["src"] = new_offset
        elif not sealed:
            state["src"] = before  # appended to the tail, which starts where it did
        elif held <= len(lines):  # sealed: what is left is this batch's last lines
            state["src"] = new_offset - sum(len(line) for line in lines[len(lines) - held :])
        else:
            # A tail made longer than a frame by `origin redact --rescan`, partly sealed now: its
            # start in the original is not known, so a torn tail makes a new version instead.
            state["src"] = -1

    def _count(self, counts: Counter[str]) -> None:
        """Secrets masked: in this pass's report and in the store's total."""
        if counts:
            self.report.redacted.update(counts)
            self.store.write(lambda txn: add_redacted(self.store, txn, counts))

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

        masking = redact.stream()
        frames = self.writer.append_big(masking.redact(chunks()))
        self.writer.state["src"] = offset + size
        self.open_key = False
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
        self._count(masking.counts)
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
