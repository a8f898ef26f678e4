"""Reading whole mirrors and raw mirror lines, for tests that hold mirrors to their originals."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from pathlib import Path

import zstandard

from origin_store.core import keys
from origin_store.core.db import Store
from origin_store.mirrors import mirror as mirrors
from origin_store.reader import locate, mirror_info, mirror_state


def read_mirror_line(
    store: Store, home: Path, mirror_id: int, line: int, limit: int = 1 << 20
) -> bytes | None:
    """Line `line` of mirror `mirror_id` as bytes (its first `limit`), from its frame or the tail."""
    located = locate(store, mirror_id, line)
    if located is None:
        return None
    with store.read() as txn:
        return mirrors.read_line(home / "raw", *located, line, limit, texts=store.span_texts(txn))


def iter_mirror(store: Store, home: Path, mirror_id: int) -> Iterator[bytes]:
    """Every line of a mirror in order (frames, the events' texts put back, then the tail)."""
    with store.read() as txn:
        info = mirror_info(store, txn, mirror_id)
        assert info is not None
        state = mirror_state(store, txn, info["original_file"])
        if state is None or state["id"] != mirror_id:
            state = info["final"]
        prefix = keys.mirror_key(mirror_id)
        frames: list[mirrors.Frame] = []
        cursor = txn.cursor(db=store.dbs["frames"])
        if cursor.set_range(prefix):
            for key, value in cursor:
                if not key.startswith(prefix):
                    break
                frames.append(mirrors.Frame.unpack(keys.line_of(key), value))
    zst_path, tail_path = mirrors.paths(home / "raw", state["rel"])
    dctx = zstandard.ZstdDecompressor()
    if frames:
        with open(zst_path, "rb") as f:
            for frame in frames:
                f.seek(frame.offset)
                data = dctx.decompressobj().decompress(f.read(frame.length))
                parts = data.split(b"\n")
                if frame.patches:
                    with store.read() as txn:
                        parts = mirrors.put_back(parts, frame, store.span_texts(txn))
                yield from (parts[:-1] if data.endswith(b"\n") else parts)
    tail = tail_path.read_bytes()[: state["tail"]] if state["tail"] else b""
    assert zlib.crc32(tail) == state["crc"], f"mirror tail {tail_path} does not match the store"
    yield from tail.split(b"\n")[:-1]


def whole_row_log(store: Store, home: Path, original: Path, log: Path) -> bytes:
    """A row log as it was written, its released blocks (`rowlog.release`) taken from its
    mirror; asserts that every byte the row log still holds is the mirror's."""
    with store.read() as txn:
        cursor = store.get(txn, "files", str(original).encode())
    assert cursor is not None, f"no cursor for {original}"
    whole = b"".join(line + b"\n" for line in iter_mirror(store, home, cursor["mirror"]["id"]))
    data = log.read_bytes()
    assert data[: len(whole)] == whole[: len(data)] or _kept_bytes_match(log, whole)
    return whole + data[len(whole) :]  # lines not yet read (a pass killed after writing them)


def _kept_bytes_match(log: Path, whole: bytes) -> bool:
    """Whether each stretch of data between the holes of `log` is the same bytes of `whole`."""
    import os

    fd = os.open(log, os.O_RDONLY)
    try:
        size, start = os.fstat(fd).st_size, 0
        while start < size:
            try:
                start = os.lseek(fd, start, os.SEEK_DATA)
            except OSError:
                break  # only a hole follows
            end = min(os.lseek(fd, start, os.SEEK_HOLE), len(whole))
            if os.pread(fd, end - start, start) != whole[start:end]:
                return False
            start = max(end, start + 1)
        return True
    finally:
        os.close(fd)
