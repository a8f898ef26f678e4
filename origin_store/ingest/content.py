"""Reading an original log file: plain or zstd-compressed, its head, the end of a long line."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import zstandard

#: Bytes of a file's beginning that its cursor keeps a digest of.
HEAD_BYTES = 4096
READ_CHUNK = 1024 * 1024


class Content:
    """A readable, forward-seekable view of a log file's content (decompressed for .zst)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.compressed = path.name.endswith(".zst")
        self.raw = open(path, "rb")  # noqa: SIM115 - closed by __exit__
        self.stream: io.BufferedReader = self._fresh()

    def _fresh(self) -> io.BufferedReader:
        if not self.compressed:
            return io.BufferedReader(self.raw, buffer_size=READ_CHUNK)
        self.raw.seek(0)
        reader = zstandard.ZstdDecompressor().stream_reader(
            self.raw, read_across_frames=True, closefd=False
        )
        return io.BufferedReader(reader, buffer_size=READ_CHUNK)

    def __enter__(self) -> Content:
        return self

    def __exit__(self, *exc: object) -> None:
        self.raw.close()

    def size(self) -> int | None:
        """The content's size where a stat tells it (not for compressed files)."""
        return None if self.compressed else self.path.stat().st_size

    def seek(self, offset: int) -> None:
        if not self.compressed:
            self.stream.seek(offset)
            return
        self.stream = self._fresh()
        left = offset
        while left > 0:
            got = self.stream.read(min(left, READ_CHUNK))
            if not got:
                break
            left -= len(got)

    def tell(self) -> int:
        return self.stream.tell()

    def read(self, size: int = -1) -> bytes:
        return self.stream.read(size)

    def readline(self, limit: int = -1) -> bytes:
        return self.stream.readline(limit)

    def find_line_end(self, start: int) -> int | None:
        """Offset just past the newline that ends the line running through `start`, or None."""
        self.seek(start)
        position = start
        while True:
            chunk = self.read(READ_CHUNK)
            if not chunk:
                return None
            index = chunk.find(b"\n")
            if index >= 0:
                return position + index + 1
            position += len(chunk)


def head_digest(head: bytes) -> str:
    """What a cursor keeps of a file's first bytes, to tell a rewritten file from a grown one."""
    return hashlib.blake2b(head, digest_size=16).hexdigest()


def head_of(lines: list[bytes]) -> bytes:
    """The first HEAD_BYTES of a batch that starts at the file's beginning."""
    head = bytearray()
    for line in lines:
        head += line
        if len(head) >= HEAD_BYTES:
            break
    return bytes(head[:HEAD_BYTES])


def read_head(path: Path, upto: int) -> bytes:
    with Content(path) as content:
        return content.read(min(HEAD_BYTES, upto))
