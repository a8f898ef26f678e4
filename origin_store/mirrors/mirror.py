"""Raw mirrors of agents' log files: `<mirror_file>.zst` holds sealed lines in zstd frames,
`<mirror_file>.tail` the newest lines in plain text.

Line N of a mirror is line N of that version of the original. Each frame's first line, byte
offset and length go to LMDB (the `frames` database) in the same transaction that advances the
file's cursor, so reading one line decompresses one frame, never the whole file.

Crash safety rests on one rule: the files are written before the LMDB transaction that records
them, and before anything is appended the files are cut back to what LMDB recorded. A process
killed between the two leaves bytes that the next writer removes; it never leaves a record
pointing at bytes that are not there.
"""

from __future__ import annotations

import io
import os
import struct
import threading
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import zstandard

from ..records import MirrorState
from . import spans

#: Raw bytes per sealed frame: ~4.5x compression and a sub-millisecond line read.
FRAME_BYTES = 256 * 1024
#: Level 1 compresses logs to ~22% at ~580 MB/s; level 3 to ~21% at ~360 MB/s. Compression is
#: ~10% of a backfill's time at level 3, and one point of ratio is not worth that.
LEVEL = 1
_FRAME = struct.Struct(">QQI")  # offset, length, lines
_local = threading.local()
#: The cuts (`spans`) of the tail's lines from the first to the last line number given, kept in
#: LMDB while the lines wait in the plain tail.
TailCuts = Callable[[int, int], dict[int, list[spans.Cut]]]


def compressor() -> zstandard.ZstdCompressor:
    """This thread's compressor, shared by every mirror it writes.

    One per writer cost memory per file: zstd keeps a context's workspace (hundreds of KB for a
    256 KB frame) until the context is freed, and each writer allocated its own. One per thread
    keeps a single workspace, reused, and saves allocating it per file; not one per process,
    since a context must not be used by two threads at once.
    """
    cctx: zstandard.ZstdCompressor | None = getattr(_local, "cctx", None)
    if cctx is None:
        cctx = zstandard.ZstdCompressor(level=LEVEL, write_checksum=True, write_content_size=True)
        _local.cctx = cctx
    return cctx


@dataclass(slots=True)
class Frame:
    first_line: int
    offset: int
    length: int
    lines: int
    #: The patches that put the events' texts back into its lines (`spans`), encoded.
    patches: bytes = b""
    #: Its patches as sealed, before `commit` names their events by sequence number.
    pending: list[spans.Pending] | None = None

    def pack(self) -> bytes:
        return _FRAME.pack(self.offset, self.length, self.lines) + self.patches

    @classmethod
    def unpack(cls, first_line: int, data: bytes) -> Frame:
        offset, length, lines = _FRAME.unpack_from(data)
        return cls(first_line, offset, length, lines, data[_FRAME.size :])


def split_lines(data: bytes) -> list[bytes]:
    """Complete lines with their newlines. Only b"\\n" ends a line: a bare b"\\r" is content."""
    parts = data.split(b"\n")
    return [part + b"\n" for part in parts[:-1]]


def new_state(mirror_id: int, rel: str) -> MirrorState:
    """The mirror part of a file cursor, before anything is written."""
    return {"id": mirror_id, "rel": rel, "zst": 0, "sealed": 0, "tail": 0, "crc": 0, "src": 0}


def paths(raw_root: Path, rel: str) -> tuple[Path, Path]:
    base = raw_root / rel
    return base.with_name(base.name + ".zst"), base.with_name(base.name + ".tail")


class MirrorWriter:
    """Appends complete lines to one mirror. Only the holder of the file's ingest lock uses it."""

    def __init__(self, raw_root: Path, state: MirrorState) -> None:
        self.state: MirrorState = state.copy()
        self.zst_path, self.tail_path = paths(raw_root, state["rel"])
        self.zst_path.parent.mkdir(parents=True, exist_ok=True)
        self._tail: bytes | None = None

    def recover(self, original_slice: Callable[[], bytes | None]) -> bool:
        """Make the files match the committed state; returns False when the tail cannot be
        rebuilt (then the caller mirrors the file again as a new version).

        `original_slice` gives the original's bytes from the tail's first line to the cursor, used
        when the tail on disk is not the committed one (a crash during a seal).
        """
        st = self.state
        if self.zst_path.exists():
            if self.zst_path.stat().st_size > st["zst"]:
                with open(self.zst_path, "r+b") as f:
                    f.truncate(st["zst"])
            elif self.zst_path.stat().st_size < st["zst"]:
                return False
        elif st["zst"]:
            return False
        tail = self.tail_path.read_bytes()[: st["tail"]] if self.tail_path.exists() else b""
        if len(tail) != st["tail"] or zlib.crc32(tail) != st["crc"]:
            source = original_slice()
            if source is None or len(source) != st["tail"] or zlib.crc32(source) != st["crc"]:
                return False
            tail = source
            self._replace_tail(tail)
            self._tail = tail
            return True
        if self.tail_path.exists() and self.tail_path.stat().st_size != st["tail"]:
            with open(self.tail_path, "r+b") as f:
                f.truncate(st["tail"])
        self._tail = tail
        return True

    def append(
        self,
        lines: list[bytes],
        *,
        seal: bool = False,
        cuts: dict[int, list[spans.Cut]] | None = None,
        tail_cuts: TailCuts | None = None,
    ) -> list[Frame]:
        """Append complete lines (each ending in a newline); returns the frames it sealed.

        With `seal` the tail is compressed too (a file that stopped growing): a cold file read
        in one batch goes straight into frames without ever writing a tail. `cuts` are the
        events' texts in the new lines by line number (`spans`); `tail_cuts` gives those of the
        lines waiting in the tail, asked only when some of them are sealed now.
        """
        st = self.state
        tail = self._current_tail()
        if not lines and not (seal and tail):
            return []
        # Joined only to go to the tail: a large batch is sealed from its lines as they are.
        if not seal and len(tail) + sum(map(len, lines)) < FRAME_BYTES:
            added = b"".join(lines)
            with open(self.tail_path, "ab") as f:
                f.write(added)
            self._tail = tail + added
            st["tail"] = len(self._tail)
            st["crc"] = zlib.crc32(added, st["crc"])
            return []
        # Seal whole frames of the tail plus the new lines; keep the remainder as the new tail.
        pending = split_lines(tail) + lines if tail else lines
        chunks: list[list[bytes]] = []
        chunk: list[bytes] = []
        size = 0
        consumed = 0
        for index, line in enumerate(pending):
            chunk.append(line)
            size += len(line)
            if size >= FRAME_BYTES:
                chunks.append(chunk)
                consumed = index + 1
                chunk, size = [], 0
        if seal and chunk:
            chunks.append(chunk)
            consumed = len(pending)
        if chunks and (cuts or tail_cuts is not None):
            first = st["sealed"] + 1
            held = len(pending) - len(lines)
            found = dict(cuts or {})
            if held and tail_cuts is not None:
                found.update(tail_cuts(first, first + min(held, consumed) - 1))
            frames = self._seal(chunks, found)
        else:
            frames = self._seal(chunks)
        st["src"] += sum(len(line) for line in pending[:consumed])
        rest = b"".join(pending[consumed:])
        if rest or tail or self.tail_path.exists():
            self._replace_tail(rest)
        return frames

    def seal_tail(self) -> list[Frame]:
        """Compress the tail of a file that stopped growing: cold mirrors are all frames."""
        return self.append([], seal=True)

    def append_big(self, chunks: Iterable[bytes]) -> list[Frame]:
        """Seal one oversized line as a frame of its own, streaming, so memory stays small."""
        frames = self.seal_tail()
        st = self.state
        total = 0
        with open(self.zst_path, "ab") as f:
            f.seek(st["zst"])
            start = f.tell()
            with compressor().stream_writer(f, closefd=False) as writer:
                for chunk in chunks:
                    writer.write(chunk)
                    total += len(chunk)
            f.flush()
            end = f.tell()
        frame = Frame(st["sealed"] + 1, start, end - start, 1)
        st["zst"] = end
        st["sealed"] += 1
        st["src"] += total
        frames.append(frame)
        return frames

    def sync(self) -> None:
        """Flush to the disk before LMDB records the new state (power loss, not only kills)."""
        sync_files(self.zst_path, self.tail_path)

    # -- internals ----------------------------------------------------------------------------

    def _current_tail(self) -> bytes:
        if self._tail is None:
            self._tail = (
                self.tail_path.read_bytes()[: self.state["tail"]]
                if self.tail_path.exists()
                else b""
            )
        return self._tail

    def _seal(
        self, chunks: list[list[bytes]], cuts: dict[int, list[spans.Cut]] | None = None
    ) -> list[Frame]:
        """Compress each chunk of lines into a frame; all of them land in one write. A frame of
        many lines leaves out the spans of `cuts` (by line number), a frame of one line never
        does: such a line is read streaming, a chunk at a time."""
        if not chunks:
            return []
        st = self.state
        frames: list[Frame] = []
        blobs: list[bytes] = []
        offset = st["zst"]
        compress = compressor().compress
        for lines in chunks:
            first = st["sealed"] + 1
            pending: list[spans.Pending] = []
            if cuts and len(lines) > 1:
                lines = list(lines)
                for index in range(len(lines)):
                    line_cuts = cuts.get(first + index)
                    if line_cuts:
                        lines[index], patches = spans.cut_line(lines[index], line_cuts, index)
                        pending.extend(patches)
            data = compress(b"".join(lines))
            frames.append(Frame(first, offset, len(data), len(lines), b"", pending or None))
            blobs.append(data)
            offset += len(data)
            st["sealed"] += len(lines)
        with open(self.zst_path, "ab") as f:
            if f.tell() != st["zst"]:
                f.truncate(st["zst"])
                f.seek(st["zst"])
            f.write(b"".join(blobs))
        st["zst"] = offset
        return frames

    def _replace_tail(self, data: bytes) -> None:
        tmp = self.tail_path.with_name(self.tail_path.name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, self.tail_path)
        self._tail = data
        self.state["tail"] = len(data)
        self.state["crc"] = zlib.crc32(data)


def sync_files(*files: Path) -> None:
    """fsync each of the files that exists (a mirror's `.zst` and `.tail`)."""
    for path in files:
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            continue
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def read_line(
    raw_root: Path,
    state: MirrorState,
    frame: Frame | None,
    line: int,
    limit: int = 1 << 20,
    texts: spans.Texts | None = None,
) -> bytes | None:
    """Line `line` (1-based) of a mirror as committed in `state`, without its newline.

    `frame` is the frame holding the line when it is sealed (looked up by the caller in LMDB).
    At most `limit` bytes are decompressed for an oversized line. Returns None when the files
    no longer match `state` (a concurrent seal): the caller reads the state again and retries.
    `texts` gives the events' texts a patched frame leaves out (`spans`).
    """
    zst_path, tail_path = paths(raw_root, state["rel"])
    if line > state["sealed"]:
        try:
            tail = tail_path.read_bytes()[: state["tail"]]
        except FileNotFoundError:
            return None
        if len(tail) != state["tail"] or zlib.crc32(tail) != state["crc"]:
            return None
        lines = tail.split(b"\n")[:-1]
        index = line - state["sealed"] - 1
        return lines[index] if 0 <= index < len(lines) else None
    if frame is None:
        return None
    with open(zst_path, "rb") as f:
        f.seek(frame.offset)
        data = f.read(frame.length)
    if frame.lines == 1 and not frame.patches:
        reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data))
        return reader.read(limit).split(b"\n", 1)[0]
    index = line - frame.first_line
    lines = _split_frame(data)
    if not 0 <= index < len(lines):
        return None
    if frame.patches:
        mine = [patch for patch in _patches(frame) if patch[0] == index]
        return spans.rebuild([lines[index]], [(0, *patch[1:]) for patch in mine], _need(texts))[0]
    return lines[index]


def frame_lines(
    raw_root: Path, state: MirrorState, frame: Frame, texts: spans.Texts | None = None
) -> list[bytes]:
    """Every line of a sealed frame of many lines, decompressed once: for readers that want
    many lines that sit together (a sync batch), where `read_line` would decompress the frame
    once per line. `texts` as for `read_line`."""
    with open(paths(raw_root, state["rel"])[0], "rb") as f:
        f.seek(frame.offset)
        return whole_lines(f.read(frame.length), frame, texts)


def whole_lines(data: bytes, frame: Frame, texts: spans.Texts | None = None) -> list[bytes]:
    """A frame's compressed bytes as the log's lines (without newlines; an empty last item),
    the events' texts put back (`spans`)."""
    return put_back(_split_frame(data), frame, texts)


def put_back(lines: list[bytes], frame: Frame, texts: spans.Texts | None = None) -> list[bytes]:
    """A frame's lines as kept, the events' texts it leaves out put back (`spans`)."""
    if frame.patches:
        return spans.rebuild(lines, _patches(frame), _need(texts))
    return lines


def _patches(frame: Frame) -> list[spans.Patch]:
    return spans.decode(frame.patches)


def _need(texts: spans.Texts | None) -> spans.Texts:
    if texts is None:
        raise spans.SpanError("a patched frame is read without the store's texts")
    return texts


def _split_frame(data: bytes) -> list[bytes]:
    return zstandard.ZstdDecompressor().decompress(data).split(b"\n")
