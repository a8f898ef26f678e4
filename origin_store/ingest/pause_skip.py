"""Leaving out what a log got during a pause (ephemeral mode), without breaking its line numbers.

`sources` names a line by its number in the mirror, which must stay the original's. So the
lines written during a pause are not dropped: each is mirrored as an empty line, never parsed,
and the cursor moves past them exactly as a pass that read them would (offsets and head digest
of the original bytes). Those lines are sealed into frames at once, never kept in the mirror's
plain tail: a torn tail is rebuilt from the original, which would put them back.
"""

from __future__ import annotations

from ..records import Cursor
from .batch import Batch
from .content import READ_CHUNK, Content
from .filepass import BATCH_LINES, FilePass


class SkipPass(FilePass):
    """A file's pass that can first leave out its lines up to an end mark, then (`run`) read
    on as usual."""

    #: While the lines are left out, the cursor's size is where they end (not the file's): a
    #: skip that stops at a mark leaves complete lines after it that the next pass must read,
    #: even if the file does not change again.
    _skipping = False

    def skip(self, end: int | None) -> int:
        """Mirror as empty every complete line after the cursor that starts before `end` (None:
        every complete line); returns how many. A line being written stays for the next pass.
        Recorded per batch, as a pass records what it reads, so a kill loses nothing."""
        offset = self.cursor["offset"]
        self.content.seek(offset)
        count = total = 0
        self._skipping = True
        try:
            while end is None or offset < end:
                line_end = _line_end(self.content, offset)
                if line_end is None:
                    break
                offset, count = line_end, count + 1
                if count >= BATCH_LINES:
                    self._leave_out(count, offset)
                    total, count = total + count, 0
            # Even with nothing left to leave out: a new version's cursor gets recorded.
            self._leave_out(count, offset)
            total += count
        finally:
            self._skipping = False
        self.report.unrecorded_lines += total
        return total

    def _leave_out(self, count: int, end: int) -> None:
        """`count` empty lines into the mirror, sealed, and the cursor past them to `end`."""
        frames = self.writer.append([b"\n"] * count, seal=True) if count else []
        if count:
            self.writer.state["src"] = end  # the tail is empty: nothing there to rebuild
            self.touched(self.writer)
        self.open_key = False
        batch = Batch(self.cursor["mirror"]["id"], self.log.source.name, [], [], [], frames)
        self._record(batch, count, end)

    def _advanced(self, line_count: int, new_offset: int, head_bytes: bytes | None) -> Cursor:
        cursor = super()._advanced(line_count, new_offset, head_bytes)
        if self._skipping:
            cursor["size"] = new_offset
        return cursor


def _line_end(content: Content, offset: int) -> int | None:
    """Where the line at `offset` ends (past its newline), or None while it is not complete;
    read a chunk at a time, so a line of any length costs little memory."""
    while True:
        piece = content.readline(READ_CHUNK)
        if not piece:
            return None
        offset += len(piece)
        if piece.endswith(b"\n"):
            return offset
