"""Row logs: what Origin reads of a file that is not an append-only log, as one.

An SQLite database (Cursor, zcode, grok-cli) changes rows in place, and a title or memory file is
rewritten whole. Neither has lines that stay put, which the mirror, `sources` and the cursor all
rely on. So each such file gets a row log under ORIGIN_HOME/rows: an append-only JSONL with a line
for every version of a row (or of the whole file) as it was read, `parsers.base.row_line`'s
shape. Its parser reads it like any log, `sources` shows the line and its number, and both stay
true since the row log is only ever appended to.

A row log is a copy of what an agent stored, kept under ORIGIN_HOME: its lines are redacted
(`redact`) before they are written, so a secret in a chat row never reaches the disk there.
Which rows changed is still told by digests of what was read, not of what was written.

Once its lines are sealed in its mirror's frames and made durable, a row log's blocks are given
back to the file system (`release`): the file keeps its size, so every offset (the cursor's, the
mirror's, a line's) stays true, but the part the mirror holds reads as zeros and takes no disk.
Nothing reads that part again: the head that tells a version stays, and so does everything from
the mirror's tail on, which the next pass, a torn tail's repair and the cut of a partial last
line read. A row log that must be read from its start again (a new version of its mirror, a
store that lost its cursor) is started over from the database (`start_over`).
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..errors import StoreError
from ..model import ParseProblem
from ..parsers.base import FILE_TABLE, FileKind, Table, file_line, load_row, row_line
from ..records import Cursor
from ..redaction import mask as redact
from ..system.oshelpers import next_data, next_hole, punch_hole
from .content import HEAD_BYTES
from .rowdigests import Digests, digest

#: How long a read waits for a writer that holds the database (SQLITE_BUSY), in seconds.
BUSY_SECONDS = 2.0


if TYPE_CHECKING:
    import sqlite3


def connect(path: Path) -> sqlite3.Connection:
    """A read-only connection that never takes a write lock or creates a file beside the
    database, and waits a little for a busy writer."""
    uri = f"file:{quote(str(path))}?mode=ro"
    import sqlite3  # here, not at import: a fresh `origin search` never reads a database

    connection = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None)
    connection.execute("PRAGMA query_only = ON")
    return connection


def read_database(path: Path, tables: tuple[Table, ...]) -> Iterator[tuple[str, bytes]]:
    """Every row of every table, as (its identity, its row log line), read in one transaction so
    that rows written together are seen together even while the agent writes; each file a row
    names (`Table.attached`) right after the row."""
    for identity, line, _ in _database_rows(path, tables):
        yield identity, line


def _database_rows(path: Path, tables: tuple[Table, ...]) -> Iterator[tuple[str, bytes, int]]:
    connection = connect(path)
    try:
        connection.execute("BEGIN")
        for table in tables:
            cursor = connection.execute(table.sql)
            columns = [column[0] for column in cursor.description]
            for values in cursor:
                row = dict(zip(columns, values, strict=True))
                key = "/".join(str(row[name]) for name in table.key)
                line = row_line(table.name, key, row)
                yield f"{table.name}/{key}", line, digest(line)
                if table.attached is not None:
                    attached = _attached(path, table.attached, row)
                    if attached is None:
                        continue
                    try:
                        whole = _whole(attached, head=True)
                    except FileNotFoundError:  # removed since it was seen
                        continue
                    yield whole
        connection.execute("COMMIT")
    finally:
        connection.close()


def _attached(path: Path, attached: tuple[str, str], row: dict[str, Any]) -> Path | None:
    """The file a row names, by its name alone, in the folder beside the database."""
    column, folder = attached
    value = row.get(column)
    if not isinstance(value, str):
        return None
    name = value.replace("\\", "/").rsplit("/", 1)[-1]
    if name in ("", ".", ".."):
        return None
    found = path.parent / folder / name
    return found if found.is_file() else None


#: Changed rows are appended to a row log in writes of about this size.
WRITE_BYTES = 4 * 1024 * 1024
#: A `whole` file larger than this is not read (memory and title files are a few KB).
MAX_WHOLE_BYTES = 4 * 1024 * 1024
_STATE_VERSION = 1


#: Secrets masked in the row logs this thread wrote and nobody has counted yet.
_masked = threading.local()


def take_redactions() -> Counter[str]:
    """What the row logs written by this thread since the last call had masked, by kind: the
    file's pass, which runs right after its row log is brought up to date on the same thread,
    adds it to its report and to the store's total."""
    counts: Counter[str] = getattr(_masked, "counts", None) or Counter()
    _masked.counts = Counter()
    return counts


def _redacted(line: bytes) -> bytes:
    done, counts = redact.redact_line(line)
    if counts:
        found: Counter[str] | None = getattr(_masked, "counts", None)
        if found is None:
            found = _masked.counts = Counter()
        found.update(counts)
    return done


class RowLogError(StoreError, OSError):
    """A database or file that could not be read this pass: reported, retried next pass."""


def row_log_path(rows_root: Path, source: str, original: Path) -> Path:
    """Where the row log of `original` lives: one per file, named by a digest of its path."""
    named = hashlib.blake2b(str(original).encode(), digest_size=10).hexdigest()
    return rows_root / source / f"{original.name}.{named}.jsonl"


def refresh(rows_root: Path, source: str, kind: FileKind, original: Path) -> Path:
    """Bring the row log of `original` up to date and return its path.

    Cheap when nothing changed: the stat of the file (its `-wal` too, and its siblings) is
    compared with the one of the last read. Otherwise everything is read and only rows whose
    values changed are appended. The caller holds the file's ingest lock, so one process at a
    time writes a row log; a process killed while appending leaves a partial line that is cut
    here, and lines appended before the digests were saved are read back into them.
    """
    log = row_log_path(rows_root, source, original)
    known = _known(log, original, kind)
    if known is not None:
        size, stamp, digests = known
        size = _append_changed(log, size, read_rows(original, kind), digests)
        _remember(log, size, stamp, digests)
    return log


def skip(rows_root: Path, source: str, kind: FileKind, original: Path) -> int:
    """Read `original` as `refresh` does and remember its rows as read, but append none of the
    changed ones: what changed during a pause is never recorded, while a row that changes
    again later is (ephemeral mode). Returns how many changed rows were left out. The caller
    holds the file's ingest lock, as for `refresh`."""
    log = row_log_path(rows_root, source, original)
    known = _known(log, original, kind)
    if known is None:
        return 0
    size, stamp, digests = known
    skipped = sum(
        1 for identity, _, value in read_rows(original, kind) if digests.changed(identity, value)
    )
    with open(log, "ab"):  # a row log exists once its file was read, as after `refresh`
        pass
    _remember(log, size, stamp, digests)
    return skipped


def _known(
    log: Path, original: Path, kind: FileKind
) -> tuple[int, list[list[int]], Digests] | None:
    """The row log's size (a partial last line cut), the stamp of `original` now and the rows'
    digests as last read; None when nothing changed since the last read."""
    log.parent.mkdir(parents=True, exist_ok=True)
    stamp_file, digests_file = log.with_suffix(".stamp"), log.with_suffix(".rows")
    size = _cut_partial_line(log)
    stamp = _stamp(original, kind)
    saved = _load(stamp_file)
    if saved is not None and saved.get("size") == size and saved.get("stamp") == stamp:
        return None
    loaded = _read_state(digests_file)
    digests = Digests.from_state(loaded) if loaded is not None else None
    covered = int(saved.get("size", 0)) if saved is not None and digests is not None else 0
    if digests is None or covered > size:
        digests, covered = Digests(), 0
    _read_back(log, covered, digests)
    return size, stamp, digests


def _remember(log: Path, size: int, stamp: list[list[int]], digests: Digests) -> None:
    """The digests first, then the stamp that says they are current."""
    _save(log.with_suffix(".rows"), digests.state())
    _save(log.with_suffix(".stamp"), {"version": _STATE_VERSION, "size": size, "stamp": stamp})


def _append_changed(
    log: Path, size: int, rows: Iterator[tuple[str, bytes, int]], digests: Digests
) -> int:
    """Append the rows whose digest changed, WRITE_BYTES at a time so that memory does not grow
    with the database; returns the row log's new size. A read that fails part way (a database
    that turns out busy or damaged) appends nothing: the log is cut back, so a pass never sees
    half of what one read saw. The file exists afterwards even when nothing changed."""
    pending: list[bytes] = []
    held, start = 0, size
    with open(log, "ab") as out:
        try:
            for identity, line, value in rows:
                if digests.changed(identity, value):
                    line = _redacted(line)
                    pending += (line, b"\n")
                    held += len(line) + 1
                    if held >= WRITE_BYTES:
                        out.write(b"".join(pending))
                        size, pending, held = size + held, [], 0
            out.write(b"".join(pending))
            size += held
            out.flush()
            os.fsync(out.fileno())
        except BaseException:
            out.truncate(start)
            raise
    return size


#: The file system's block: a released range begins and ends on one.
_BLOCK = 4096
#: Where a released range may begin: the head, whose digest tells a version, is kept.
_RELEASE_FROM = -(-HEAD_BYTES // _BLOCK) * _BLOCK


def release(log: Path, sealed_to: int) -> int:
    """Give back the blocks of the row log `log` that lie before `sealed_to`, the offset up to
    which its mirror holds every line in frames made durable; returns the bytes released
    (0 where nothing could be, or the system cannot punch holes). The caller holds the file's
    ingest lock. The byte before `sealed_to` stays: it ends the last sealed line, which the cut
    of a partial last line looks back for."""
    try:
        fd = os.open(log, os.O_RDWR)
    except FileNotFoundError:
        return 0
    try:
        end = releasable(min(sealed_to, os.fstat(fd).st_size))
        # Released ranges all begin at _RELEASE_FROM and grow: what is left starts at the data.
        start = next_data(fd, _RELEASE_FROM)
        if end <= start:
            return 0
        return end - start if punch_hole(fd, start, end - start) else 0
    finally:
        os.close(fd)


def releasable(sealed_to: int) -> int:
    """Where the blocks `release` gives back of a row log sealed to `sealed_to` end; 0 when
    there are none (a row log of a few blocks keeps them all)."""
    end = (sealed_to - 1) // _BLOCK * _BLOCK
    return end if end > _RELEASE_FROM else 0


def released(log: Path, start: int) -> bool:
    """Whether some of the row log from `start` on was given back (`release`): read from
    there, it would give zeros where the mirror holds lines."""
    try:
        fd = os.open(log, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        return next_hole(fd, start) < os.fstat(fd).st_size
    finally:
        os.close(fd)


def start_over(rows_root: Path, source: str, kind: FileKind, original: Path) -> Path:
    """A row log begun again: every row of `original` as it is now, as a first read writes
    them. For a row log that must be read from its start once more after `release` gave its
    blocks back; its older versions of rows stay in the mirrors of its earlier versions. The
    stamp goes first, so a kill part way leaves a row log that the next pass reads whole."""
    discard(row_log_path(rows_root, source, original))
    return refresh(rows_root, source, kind, original)


def discard(log: Path) -> None:
    """Remove a row log with what it remembers (its stamp first: a kill part way leaves no
    stamp saying the rest is current). Only once its cursor will read it as a new version."""
    for stale in (log.with_suffix(".stamp"), log.with_suffix(".rows"), log):
        stale.unlink(missing_ok=True)


def readable_lines(log: Path, offset: int = 0) -> Iterator[bytes]:
    """The lines a row log still holds from `offset` on: what `release` gave back is in the
    mirror, and read here it would be zeros (one "line" as long as the blocks given back), so
    the lines the hole cuts are left out and the others, before it (the head) and after it,
    are read."""
    try:
        handle = open(log, "rb")  # noqa: SIM115 - closed below, also when the caller stops
    except FileNotFoundError:
        return
    with handle:
        fd = handle.fileno()
        hole = next_hole(fd, offset)
        if hole < os.fstat(fd).st_size:
            head = os.pread(fd, hole - offset, offset) if hole > offset else b""
            yield from (line + b"\n" for line in head.split(b"\n")[:-1])
            handle.seek(next_data(fd, hole))
            handle.readline()  # the end of a line the hole began in
        else:
            handle.seek(offset)
        yield from handle


def last_change(original: Path, kind: FileKind) -> float:
    """When the agent last wrote `original` (its `-wal` and siblings too), in epoch seconds:
    what tells a row log's mirror that it may be sealed, since the row log itself is written
    by Origin at every read."""
    times = [0.0]
    for path in _stamp_paths(original, kind):
        with contextlib.suppress(OSError):
            st = path.stat()
            if st.st_size:  # opening a WAL database, even to read it, empties its `-wal`
                times.append(st.st_mtime)
    return max(times)


def settled(
    rows_root: Path, source: str, kind: FileKind, original: Path, cursor: Cursor | None
) -> bool:
    """Whether nothing was written to `original` since its row log was brought up to date, and
    its row log was ingested to its end: a few stats, and no database opened."""
    if cursor is None:
        return False
    saved = _load(row_log_path(rows_root, source, original).with_suffix(".stamp"))
    return (
        saved is not None
        and saved.get("size") == cursor["size"]
        and saved.get("stamp") == _stamp(original, kind)
    )


def read_rows(original: Path, kind: FileKind) -> Iterator[tuple[str, bytes, int]]:
    """(identity, line, digest) of everything read, siblings first: what a first read of
    `original` writes to its row log."""
    import sqlite3

    try:
        if kind.whole:
            yield _whole(original, head=kind.head)
            return
        for name in kind.siblings:
            sibling = original.with_name(name)
            if sibling.is_file():
                yield _whole(sibling)
        yield from _database_rows(original, kind.tables)
    except sqlite3.Error as error:
        raise RowLogError(f"{original}: {error}") from error


def _whole(path: Path, *, head: bool = False) -> tuple[str, bytes, int]:
    """A whole file's line; its digest is of the text alone, so a touch writes no new line.
    Over MAX_WHOLE_BYTES, a kind that keeps a file's `head` gets its first lines up to that
    size; any other file is an error."""
    st = path.stat()
    if st.st_size > MAX_WHOLE_BYTES and not head:
        raise RowLogError(f"{path}: {st.st_size:,} bytes, more than a memory or title file holds")
    with open(path, "rb") as handle:
        data = handle.read(MAX_WHOLE_BYTES + 1)
    if len(data) > MAX_WHOLE_BYTES:
        data = data[:MAX_WHOLE_BYTES]
        data = data[: data.rfind(b"\n") + 1] or data
    line = file_line(str(path), data, st.st_mtime_ns // 1_000_000)
    return f"{FILE_TABLE}/{path}", line, digest(data)


def _read_back(log: Path, offset: int, digests: Digests) -> None:
    """Digests of the lines after `offset`: appended by a pass killed before it saved them.
    Rows whose lines were given back (`release`) and whose digests were lost are appended
    again by the next read: a second line of the same version, which changes no event."""
    for raw in readable_lines(log, offset):
        line = raw.rstrip(b"\n")
        row = load_row(line)
        if row is None or isinstance(row, ParseProblem):
            continue
        table, key, values = row
        text = values.get("text") if table == FILE_TABLE else None
        data = text.encode("utf-8") if isinstance(text, str) else line
        digests.changed(f"{table}/{key}", digest(data))


def _cut_partial_line(log: Path) -> int:
    """The row log's size once a partial last line (a killed append) is cut off."""
    try:
        with open(log, "r+b") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size == 0:
                return 0
            handle.seek(size - 1)
            if handle.read(1) == b"\n":
                return size
            start = max(0, size - 1024 * 1024)
            while True:
                handle.seek(start)
                chunk = handle.read(size - start)
                end = chunk.rfind(b"\n")
                if end >= 0:
                    keep = start + end + 1
                    break
                if start == 0:
                    keep = 0
                    break
                start = max(0, start - 1024 * 1024)
            handle.truncate(keep)
            return keep
    except FileNotFoundError:
        return 0


def _stamp(original: Path, kind: FileKind) -> list[list[int]]:
    """What tells that something may have changed: the stat of the file, and of its `-wal`
    and siblings (a write to a WAL database changes only its `-wal` until a checkpoint)."""
    stamp: list[list[int]] = []
    for path in _stamp_paths(original, kind):
        try:
            st = path.stat()
        except FileNotFoundError:
            stamp.append([])
            continue
        # An empty `-wal` is no change: opening a WAL database, even read-only, creates one.
        stamp.append([st.st_size, st.st_mtime_ns, st.st_ino] if st.st_size else [])
    return stamp


def _stamp_paths(original: Path, kind: FileKind) -> list[Path]:
    paths = [original]
    if kind.tables:
        paths.append(original.with_name(original.name + "-wal"))
        paths += [original.with_name(name) for name in kind.siblings]
    return paths


def _load(path: Path) -> dict[str, Any] | None:
    state = _read_state(path)
    return state if state is not None and state.get("version") == _STATE_VERSION else None


def _read_state(path: Path) -> dict[str, Any] | None:
    try:
        state: Any = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return state if isinstance(state, dict) else None


def _save(path: Path, state: dict[str, Any]) -> None:
    """Whole under a temporary name, then renamed: a reader sees the old or the new."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(marshal.dumps(state))
    os.replace(temporary, path)
