"""Ephemeral mode in the ingest engine, on real LMDB, real files and real SQLite databases: a
pass during a pause reads nothing and only marks; `skip_paused` leaves out what was written
during it with every line number kept; a pause that ends by itself leaves out only what was
marked; a kill during a skip loses nothing and records nothing of the pause."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mirror_support import iter_mirror, read_mirror_line
from plain_format import PLAIN, line
from rows_format import NOTES, create, note

from origin_store import Ingester, Settings, Store
from origin_store.care.verify import verify
from origin_store.ingest import pause_skip as skip
from origin_store.ingest import rowlog
from origin_store.mirrors import mirror as mirrors
from origin_store.pause import marks as marks
from origin_store.pause import state as pause


def events(store: Store) -> dict[str, dict]:
    with store.read() as txn:
        return {k.decode(): store.codec.decode(txn, k, v) for k, v in store.iter_events(txn)}


def cursor_of(store: Store, path: Path) -> dict:
    with store.read() as txn:
        return store.get(txn, "files", str(path).encode())


def mirror_of(store: Store, settings: Settings, path: Path) -> list[bytes]:
    return list(iter_mirror(store, settings.home, cursor_of(store, path)["mirror"]["id"]))


def append(path: Path, *lines: bytes) -> None:
    with open(path, "ab") as out:
        out.write(b"".join(lines))


def snapshot(store: Store, settings: Settings, path: Path) -> tuple:
    return events(store), cursor_of(store, path), mirror_of(store, settings, path)


@pytest.fixture
def both_env(tmp_path: Path):
    """(settings, plain logs dir, notes dir, open store, ingester) over a temp ORIGIN_HOME."""
    logs, notes = tmp_path / "logs", tmp_path / "notes"
    logs.mkdir()
    notes.mkdir()
    settings = Settings.from_env(
        {
            "HOME": str(tmp_path),
            "ORIGIN_HOME": str(tmp_path / "origin"),
            "PLAIN_HOME": str(logs),
            "NOTES_HOME": str(notes),
        }
    )
    store = Store.open(settings.home, map_size=settings.map_size)
    yield (
        settings,
        logs,
        notes,
        store,
        Ingester(store, settings, {"plain": PLAIN, "notesdb": NOTES}),
    )
    store.close()


def test_a_pass_during_a_pause_reads_nothing_and_marks_only_what_grew(both_env) -> None:
    settings, logs, notes, store, ingester = both_env
    log = logs / "a.jsonl"
    log.write_bytes(line(0) + line(1))
    connection = create(notes / "chat.db")
    note(connection, "n1", "before the pause")
    ingester.run()
    before = snapshot(store, settings, log)
    row_log = rowlog.row_log_path(settings.home / "rows", "notesdb", notes / "chat.db")
    rows_before = row_log.read_bytes()

    made = pause.pause(settings.home)
    append(log, line(2, "private"), line(3, "private"))
    note(connection, "n1", "changed in private")
    report = ingester.run()
    assert report.paused and report.marked == 2 and report.lines == report.events == 0
    assert snapshot(store, settings, log) == before
    assert row_log.read_bytes() == rows_before
    with store.read() as txn:
        mark = marks.get(store, txn, str(log), made.since)
    assert mark is not None and mark.size == log.stat().st_size
    assert ingester.run().marked == 0  # nothing grew: nothing written
    append(log, line(4, "private"))
    assert ingester.run().marked == 1
    # A pause that begins during a pass: the file's own look at the flag, under its lock.
    assert ingester.ingest_file(ingester.discover()[0]).paused
    assert snapshot(store, settings, log) == before


def test_skip_leaves_out_the_pause_and_keeps_every_line_number(both_env) -> None:
    settings, logs, notes, store, ingester = both_env
    log = logs / "a.jsonl"
    log.write_bytes(line(0) + line(1))
    connection = create(notes / "chat.db")
    note(connection, "n1", "before the pause")
    ingester.run()
    pause.pause(settings.home)
    append(log, *(line(i, "private") for i in range(2, 7)))
    note(connection, "n1", "changed in private")
    note(connection, "n2", "written in private", t=1)
    (logs / "new.jsonl").write_bytes(line(100, "private") + b'{"id": 101, "te')  # half a line
    other = create(notes / "other.db")  # a database begun during the pause
    note(other, "o1", "private from the start")
    skipped = ingester.skip_paused()
    assert (skipped.unrecorded_lines, skipped.unrecorded_rows, skipped.errors) == (6, 3, [])
    pause.resume(settings.home)
    marks.clear(store)

    append(log, line(7, "after"))
    append(logs / "new.jsonl", b'xt": "at the resume"}\n' + line(102, "after"))
    note(connection, "n2", "changed again after", t=1)
    note(other, "o2", "after in the new one", t=2)
    report = ingester.run()
    assert not report.paused
    found = events(store)
    assert not any("private" in event["text"] for event in found.values())
    assert found["plain:7"]["line"] == 8 and found["notesdb:n2"]["text"] == "changed again after"
    assert found["notesdb:o2"]["text"] == "after in the new one" and "notesdb:o1" not in found
    # A line being written at the resume is read once complete (docs/recording.md says so).
    assert found["plain:101"]["line"] == 2 and found["plain:102"]["line"] == 3
    kept = mirror_of(store, settings, log)
    assert len(kept) == len(log.read_bytes().splitlines()) == 8
    assert kept[2:7] == [b""] * 5 and kept[7] == line(7, "after")[:-1]
    mirror_id = cursor_of(store, log)["mirror"]["id"]
    assert read_mirror_line(store, settings.home, mirror_id, 8) == line(7, "after")[:-1]
    assert cursor_of(store, log)["offset"] == log.stat().st_size
    assert verify(store, settings.home).ok


def test_a_pause_that_ends_by_itself_leaves_out_only_what_was_marked(both_env) -> None:
    settings, logs, notes, store, ingester = both_env
    log = logs / "a.jsonl"
    log.write_bytes(line(0))
    connection = create(notes / "chat.db")
    note(connection, "n1", "before")
    ingester.run()
    pause.pause(settings.home, for_ms=400)
    append(log, line(1, "private"), line(2, "private"))
    note(connection, "n1", "changed in private")
    assert ingester.run().marked == 2  # what a watching process does during the pause
    time.sleep(0.45)
    assert pause.paused(settings.home) is None and pause.last(settings.home) is not None
    append(log, line(3, "after the end"))
    report = ingester.run()
    assert (report.unrecorded_lines, report.unrecorded_rows) == (2, 1)
    found = events(store)
    assert not any("private" in event["text"] for event in found.values())
    assert found["plain:3"]["line"] == 4
    assert marks.count(store) == 0  # settled once: the next pass reads as usual
    append(log, line(4, "later"))
    assert ingester.run().events == 1 and ingester.run().unrecorded_lines == 0
    assert verify(store, settings.home).ok


def test_a_skip_killed_between_batches_finishes_when_run_again(
    both_env, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, logs, _, store, ingester = both_env
    log = logs / "a.jsonl"
    log.write_bytes(line(0))
    ingester.run()
    pause.pause(settings.home)
    append(log, *(line(i, "private") for i in range(1, 46)))
    monkeypatch.setattr(skip, "BATCH_LINES", 10)
    batches: list[int] = []
    leave_out = skip.SkipPass._leave_out

    def dies_after_two(self: skip.SkipPass, count: int, end: int) -> None:
        if len(batches) == 2:
            raise KeyboardInterrupt("killed between batches")
        batches.append(count)
        leave_out(self, count, end)

    monkeypatch.setattr(skip.SkipPass, "_leave_out", dies_after_two)
    with pytest.raises(KeyboardInterrupt):
        ingester.skip_paused()
    assert cursor_of(store, log)["lines"] == 21 and verify(store, settings.home).ok
    assert ingester.run().paused  # the flag still stands: a pass meanwhile reads nothing
    monkeypatch.setattr(skip.SkipPass, "_leave_out", leave_out)
    assert ingester.skip_paused().unrecorded_lines == 25
    pause.resume(settings.home)
    append(log, line(46, "after"))
    ingester.run()
    assert set(events(store)) == {"plain:0", "plain:46"}
    assert mirror_of(store, settings, log)[1:46] == [b""] * 45
    assert verify(store, settings.home).ok


def test_a_torn_tail_after_a_skip_never_brings_the_pause_back(both_env) -> None:
    """What a skip left out is sealed into frames: a tail rebuilt from the original after a
    crash holds only lines read after it."""
    settings, logs, _, store, ingester = both_env
    log = logs / "a.jsonl"
    log.write_bytes(line(0))
    ingester.run()
    pause.pause(settings.home)
    append(log, line(1, "private"), line(2, "private"))
    ingester.skip_paused()
    pause.resume(settings.home)
    append(log, line(3, "after"))
    ingester.run()
    state = cursor_of(store, log)["mirror"]
    zst, tail = mirrors.paths(settings.home / "raw", state["rel"])
    assert state["sealed"] == 3 and tail.read_bytes() == line(3, "after")
    tail.write_bytes(b"torn")
    append(log, line(4, "after"))
    ingester.run()
    assert mirror_of(store, settings, log) == [
        line(0)[:-1],
        b"",
        b"",
        line(3, "after")[:-1],
        line(4, "after")[:-1],
    ]
    assert verify(store, settings.home).ok


SKIP_IN_A_PROCESS = """
import sys
sys.path.insert(0, sys.argv[1])
from plain_format import PLAIN
from origin_store import Ingester, Settings, Store
settings = Settings.from_env()
store = Store.open(settings.home, map_size=settings.map_size)
Ingester(store, settings, {"plain": PLAIN}).skip_paused()
"""


@pytest.mark.e2e
def test_a_process_killed_during_a_skip_leaves_a_rerun_to_finish_it(plain_env) -> None:
    """SIGKILL once the skip recorded its first batches: the flag stands, nothing of the pause
    is recorded, and a second run leaves out the rest; the mirror keeps every line number."""
    settings, logs, store, ingester = plain_env
    log = logs / "a.jsonl"
    log.write_bytes(line(0))
    ingester.run()
    pause.pause(settings.home)
    total = 300_000
    with open(log, "ab") as out:
        for start in range(1, total + 1, 10_000):
            out.write(b"".join(line(i, "private") for i in range(start, start + 10_000)))
    env = {**os.environ, "HOME": str(settings.user_home), "ORIGIN_HOME": str(settings.home)}
    env["PLAIN_HOME"] = str(logs)
    args = [sys.executable, "-c", SKIP_IN_A_PROCESS, str(Path(__file__).parent)]
    process = subprocess.Popen(args, env=env)
    seen = 1
    while process.poll() is None and seen == 1:
        seen = cursor_of(store, log)["lines"]
    process.kill()
    process.wait()
    assert 1 < seen < total + 1, "the skip ended before it could be killed"
    assert pause.paused(settings.home) is not None and ingester.run().paused
    assert set(events(store)) == {"plain:0"} and verify(store, settings.home).ok
    subprocess.run(args, env=env, check=True)
    pause.resume(settings.home)
    append(log, line(total + 1, "after"))
    ingester.run()
    assert set(events(store)) == {"plain:0", f"plain:{total + 1}"}
    assert events(store)[f"plain:{total + 1}"]["line"] == total + 2
    assert cursor_of(store, log)["lines"] == total + 2
    assert verify(store, settings.home).ok


def test_a_file_removed_during_the_pause_does_not_hold_the_resume_up(both_env) -> None:
    settings, logs, notes, store, ingester = both_env
    connection = create(notes / "chat.db", wal=False)
    note(connection, "n1", "before")
    (logs / "a.jsonl").write_bytes(line(0))
    ingester.run()
    pause.pause(settings.home)
    note(connection, "n1", "private")
    (logs / "a.jsonl").write_bytes(line(0) + line(1, "private"))
    assert ingester.run().marked == 2
    connection.close()
    (notes / "chat.db").unlink()
    (logs / "a.jsonl").unlink()
    skipped = ingester.skip_paused()
    assert skipped.errors == [] and marks.count(store) == 0
    assert set(events(store)) == {"plain:0", "notesdb:n1"}
