"""Row logs give their blocks back once their mirrors hold their lines durably
(`rowlog.release`): the file keeps its size and offsets, what it gave back is read from the
mirror, and a row log that must be read from its start again is begun again from its database."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import orjson
import pytest
from mirror_support import read_mirror_line, whole_row_log
from rows_format import create, note

from origin_store import Ingester, Settings, Store
from origin_store.care.rescan import rescan
from origin_store.care.verify import verify
from origin_store.ingest import IngestReport, rowlog
from origin_store.mirrors import mirror as mirrors
from origin_store.parsers.base import load_row
from origin_store.pause import state as pause
from origin_store.redaction.find import disabled
from origin_store.system.oshelpers import punch_hole

ROWS = 1500
BODY = 1000  # bytes of each note: a row log of ~1.6 MB, several frames
AWS = "AKIAFAKEEXAMPLE12345"  # fake, in the real shape


@pytest.fixture(autouse=True)
def _holes(tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    probe.write_bytes(b"x" * 65536)
    fd = os.open(probe, os.O_RDWR)
    try:
        if not punch_hole(fd, 4096, 8192):
            pytest.skip("this file system cannot give blocks back (fallocate punch hole)")
    finally:
        os.close(fd)


def _cold(db: Path) -> None:
    """As if the agent last wrote the database an hour ago: its mirror is sealed whole."""
    past = time.time() - 3600
    for path in (db, db.with_name(db.name + "-wal")):
        if path.exists():
            os.utime(path, (past, past))


def _notes(db: Path, first: int, count: int) -> None:
    connection = sqlite3.connect(db, isolation_level=None) if db.exists() else create(db)
    connection.execute("BEGIN")
    for i in range(first, first + count):
        note(connection, f"n{i:05d}", f"note {i} " + "w" * BODY, t=i)
    connection.execute("COMMIT")
    connection.close()
    _cold(db)


def _on_disk(path: Path) -> int:
    return os.stat(path).st_blocks * 512


def _lines(settings: Settings, store: Store, db: Path) -> list[bytes]:
    log = rowlog.row_log_path(settings.home / "rows", "notesdb", db)
    return whole_row_log(store, settings.home, db, log).splitlines()


def _event_count(store: Store) -> tuple[int, int]:
    with store.read() as txn:
        events = sum(1 for _ in store.iter_events(txn))
        feed = [item["id"] for _, item in store.feed_since(txn, 0) if "id" in item]
    assert len(feed) == len(set(feed)), "the feed announces an event twice"
    return events, len(feed)


def _rows(lines: list[bytes]) -> list[str]:
    """The keys of the rows the lines hold, each line a whole row (no zeros, no pieces)."""
    keys = []
    for line in lines:
        row = load_row(line)
        assert isinstance(row, tuple), f"not a row: {line[:80]!r}"
        keys.append(row[1])
    return keys


def test_a_row_log_keeps_on_disk_only_what_its_mirror_does_not_hold(rows_env):
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    _notes(db, 0, ROWS)
    report = ingester.run()
    assert report.events == ROWS and not report.errors
    log = rowlog.row_log_path(settings.home / "rows", "notesdb", db)
    size = log.stat().st_size
    assert size > ROWS * BODY
    # The head (what tells a version) and the block before the end stay; the rest is given back.
    assert _on_disk(log) <= 3 * 4096 < size // 100
    with log.open("rb") as handle:
        handle.seek(64 * 1024)
        assert handle.read(4096) == bytes(4096)
    lines = _lines(settings, store, db)
    keys = _rows(lines)
    assert sorted(k for k in keys if k.startswith("n")) == [f"n{i:05d}" for i in range(ROWS)]
    # Every line still reads from the mirror, the middle ones too, as `sources` reads them.
    with store.read() as txn:
        cursor = store.get(txn, "files", str(db).encode())
    middle = len(lines) // 2
    assert (
        read_mirror_line(store, settings.home, cursor["mirror"]["id"], middle + 1)
        == (lines[middle])
    )
    assert ingester.run().files_changed == 0  # nothing changed: nothing read, nothing released
    assert verify(store, settings.home).ok


def test_a_released_row_log_reads_on_and_gives_back_what_it_adds(rows_env):
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    _notes(db, 0, ROWS)
    ingester.run()
    _notes(db, ROWS, 500)
    report = ingester.run()
    assert report.events == 500 and report.rewritten == 0 and not report.errors
    log = rowlog.row_log_path(settings.home / "rows", "notesdb", db)
    assert _on_disk(log) <= 3 * 4096
    assert len([k for k in _rows(_lines(settings, store, db)) if k.startswith("n")]) == ROWS + 500
    assert _event_count(store)[0] == ROWS + 500
    assert verify(store, settings.home).ok


def test_a_pass_killed_before_its_release_leaves_it_to_the_next_one(rows_env, monkeypatch):
    """A pass releases only at its end, once its mirrors are durable: one killed after sealing
    a row log leaves it whole. The next pass finds the database unchanged, reads nothing, and
    still gives back the blocks its cursor says were never released."""
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    _notes(db, 0, ROWS)
    assert _killed_before_release(ingester, monkeypatch).events == ROWS
    log = rowlog.row_log_path(settings.home / "rows", "notesdb", db)
    assert _on_disk(log) > ROWS * BODY
    assert ingester.changed(), "the cheap check must see what is owed, or no pass comes"
    synced: list[tuple[Path, ...]] = []
    sync_files = mirrors.sync_files

    def sync_then_look(*paths: Path) -> None:
        sync_files(*paths)
        synced.append(paths)
        assert _on_disk(log) > ROWS * BODY, "released before its mirror was made durable"

    monkeypatch.setattr(mirrors, "sync_files", sync_then_look)
    report = ingester.run()
    assert report.events == 0 and report.files_changed == 0 and not report.errors
    # What the killed pass made durable is not known: its mirror is synced again first.
    with store.read() as txn:
        rel = store.get(txn, "files", str(db).encode())["mirror"]["rel"]
    assert synced == [mirrors.paths(settings.home / "raw", rel)]
    assert _on_disk(log) <= 3 * 4096
    assert not ingester.changed()
    keys = _rows(_lines(settings, store, db))
    assert sorted(k for k in keys if k.startswith("n")) == [f"n{i:05d}" for i in range(ROWS)]
    assert verify(store, settings.home).ok


def _killed_before_release(ingester: Ingester, monkeypatch: pytest.MonkeyPatch) -> IngestReport:
    """A pass killed after its durability point, before its release."""
    with monkeypatch.context() as killed:
        killed.setattr(Ingester, "_release_row_logs", lambda self: self._row_logs.clear())
        return ingester.run()


def test_a_release_owed_is_made_while_recording_is_paused(rows_env, monkeypatch):
    """A release records nothing: a pass during a pause makes it, or the row log would read
    as changed at every check until recording resumed."""
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    _notes(db, 0, ROWS)
    _killed_before_release(ingester, monkeypatch)
    pause.pause(settings.home)
    report = ingester.run()
    assert report.paused and report.events == 0
    log = rowlog.row_log_path(settings.home / "rows", "notesdb", db)
    assert _on_disk(log) <= 3 * 4096
    assert not ingester.changed()
    assert verify(store, settings.home).ok


def test_a_release_the_system_refuses_is_not_asked_for_at_every_pass(rows_env, monkeypatch):
    """Where no hole can be punched the row log stays whole, and its cursor still notes the
    release as done: otherwise every freshness check would find it owed and start a pass."""
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    _notes(db, 0, ROWS)
    monkeypatch.setattr(rowlog, "punch_hole", lambda fd, offset, length: False)
    assert ingester.run().events == ROWS
    log = rowlog.row_log_path(settings.home / "rows", "notesdb", db)
    assert _on_disk(log) > ROWS * BODY
    assert not ingester.changed()


def test_a_row_log_of_a_few_blocks_owes_no_release_and_no_write(rows_env):
    """A row log keeps its first block and the one before its tail: one of a few blocks has
    nothing to give back, so its cursor is not rewritten at each pass to say so."""
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    _notes(db, 0, 3)
    assert ingester.run().events == 3
    with store.read() as txn:
        cursor = store.get(txn, "files", str(db).encode())
    assert cursor["mirror"]["src"] > 0 and "released" not in cursor
    assert not ingester.changed()
    _notes(db, 3, ROWS)  # now it has blocks to give back, and its cursor says where they end
    assert ingester.run().events == ROWS
    with store.read() as txn:
        cursor = store.get(txn, "files", str(db).encode())
    assert cursor["released"] == rowlog.releasable(cursor["mirror"]["src"]) > 4096
    assert not ingester.changed()


def test_a_released_row_log_read_from_its_start_is_begun_again(rows_env):
    """A mirror version that must be read from line 1 (here: its head no longer matches) would
    read zeros: the row log is begun again from the database, as a new version; the old
    mirror keeps every line events name, and no event is added, lost or doubled."""
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    _notes(db, 0, ROWS)
    ingester.run()
    before = _event_count(store)
    key = str(db).encode()
    with store.read() as txn:
        old = store.get(txn, "files", key)
    store.write(lambda txn: store.put(txn, "files", key, {**old, "head": "something else"}))
    _notes(db, ROWS, 1)
    report = ingester.run()
    assert report.rewritten == 1 and report.events == 1 and not report.errors
    assert _event_count(store) == (before[0] + 1, before[1] + 1)
    with store.read() as txn:
        new = store.get(txn, "files", key)
    assert new["version"] == old["version"] + 1 and new["lines"] > 0
    keys = _rows(_lines(settings, store, db))
    assert sorted(k for k in keys if k.startswith("n")) == [f"n{i:05d}" for i in range(ROWS + 1)]
    last = read_mirror_line(store, settings.home, old["mirror"]["id"], old["lines"])
    assert last is not None and orjson.loads(last)["key"].startswith("n")
    assert verify(store, settings.home).ok


def test_lost_digests_of_released_rows_write_them_again_and_change_no_event(rows_env):
    """Without its digests a row log is read back from where it holds bytes; rows given back
    are written again (a second line of the same version), which changes no event."""
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    _notes(db, 0, ROWS)
    ingester.run()
    before = _event_count(store)
    log = rowlog.row_log_path(settings.home / "rows", "notesdb", db)
    log.with_suffix(".stamp").unlink()
    log.with_suffix(".rows").unlink()
    report = ingester.run()
    assert not report.errors and report.events == 0 and report.rewritten == 0
    assert _event_count(store) == before
    assert all(b"\x00" not in line for line in rowlog.readable_lines(log))
    assert verify(store, settings.home).ok


def test_a_rescan_of_a_released_row_log_begins_it_again(rows_env):
    """`origin redact --rescan` finding a secret in what a released row log keeps (a row read
    before Origin masked anything): the row log is not rewritten over what it gave back but
    begun again from its database by the next pass, masked as it is written, as a new
    version; the mirrors are masked by the rescan itself."""
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    _notes(db, 0, ROWS)
    ingester.run()
    connection = sqlite3.connect(db, isolation_level=None)
    note(connection, "zz", f"deploy with {AWS} now", t=ROWS)
    connection.close()  # the database is warm: its last line waits in the mirror's tail
    with disabled():
        assert ingester.run().events == 1
    log = rowlog.row_log_path(settings.home / "rows", "notesdb", db)
    assert rowlog.released(log, 0)
    assert AWS.encode() in b"".join(rowlog.readable_lines(log))
    report = rescan(store, settings.home)
    assert report.row_logs == 1 and report.redacted["aws-access-key"] >= 1
    assert not log.exists()  # left for the next pass to begin again
    after = ingester.run()
    assert after.rewritten == 1 and after.events == 0 and not after.errors
    assert AWS.encode() not in log.read_bytes()
    assert len([k for k in _rows(_lines(settings, store, db)) if k.startswith("n")]) == ROWS
    assert verify(store, settings.home).ok


def test_a_rescan_reads_the_head_a_released_row_log_keeps(rows_env):
    """The first block stays on disk (its digest tells a version): a secret in a row there,
    read before Origin masked anything, is found by the rescan like one in the tail."""
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    connection = create(db)
    note(connection, "a0", f"deploy with {AWS} now")  # ORDER BY id: the row log's first row
    connection.close()
    _notes(db, 0, ROWS)
    with disabled():
        ingester.run()
    log = rowlog.row_log_path(settings.home / "rows", "notesdb", db)
    assert rowlog.released(log, 0)
    lines = list(rowlog.readable_lines(log))
    assert AWS.encode() in lines[0] and all(b"\x00" not in line for line in lines)
    report = rescan(store, settings.home)
    assert report.row_logs == 1 and not log.exists()
    after = ingester.run()
    assert after.rewritten == 1 and not after.errors
    assert AWS.encode() not in log.read_bytes()
    assert verify(store, settings.home).ok
