"""Row logs across processes: killed at any moment, and reading a database another process
writes while it is read."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mirror_support import whole_row_log
from rows_format import create, note

from origin_store import Settings, Store
from origin_store.care.verify import verify
from origin_store.ingest import rowlog
from origin_store.reader import get_event

HERE = Path(__file__).parent
SCRIPT = str(HERE / "rows_ingest.py")


def _env(home: Path, agent: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(home),
        "ORIGIN_HOME": str(home / "origin"),
        "NOTES_HOME": str(agent),
    }


def _corpus(agent: Path, databases: int, rows: int) -> None:
    rng = random.Random(3)
    for d in range(databases):
        connection = create(agent / f"chat{d}.db")
        connection.execute("BEGIN")
        for i in range(rows):
            note(connection, f"{d}-{i:05d}", "w" * rng.choice([10, 80, 400, 3000]), t=i)
        connection.execute("COMMIT")
        connection.close()
    (agent / "MEMO.md").write_text("# Memo\nkeep the tests real")


def _snapshot(home: Path, agent: Path) -> tuple[dict[str, dict], dict[str, bytes]]:
    settings = Settings.from_env(_env(home, agent))
    store = Store.open(settings.home)
    try:
        with store.read() as txn:
            events = {
                k.decode(): {f: v for f, v in store.codec.decode(txn, k, v).items() if f != "m"}
                for k, v in store.iter_events(txn)
            }
            feed = [item["id"] for _, item in store.feed_since(txn, 0)]
        assert len(feed) == len(set(feed)) == len(events), "the feed repeats or misses events"
        assert verify(store, settings.home).ok
        # Each row log as written, what it gave back to the file system read from its mirror.
        logs = {
            path.name: whole_row_log(
                store,
                settings.home,
                path,
                rowlog.row_log_path(settings.home / "rows", "notesdb", path),
            )
            for path in sorted(agent.iterdir())
            if path.suffix in (".db", ".md")
        }
        return events, logs
    finally:
        store.close()


@pytest.mark.slow
@pytest.mark.e2e
def test_sigkill_while_reading_databases_ends_like_an_uninterrupted_run(tmp_path):
    agent = tmp_path / "notes"
    agent.mkdir()
    _corpus(agent, databases=12, rows=6000)
    reference = tmp_path / "ref"
    began = time.perf_counter()
    subprocess.run([sys.executable, SCRIPT], env=_env(reference, agent), check=True)
    full = time.perf_counter() - began
    began = time.perf_counter()
    subprocess.run([sys.executable, SCRIPT], env=_env(reference, agent), check=True)
    startup = time.perf_counter() - began
    killed = tmp_path / "killed"
    rng = random.Random(17)
    interrupted = 0
    for _ in range(12):
        proc = subprocess.Popen(
            [sys.executable, SCRIPT], env=_env(killed, agent), start_new_session=True
        )
        time.sleep(startup + rng.uniform(0, max(full - startup, 0.05) / 16))
        os.killpg(proc.pid, signal.SIGKILL)
        interrupted += proc.wait() == -signal.SIGKILL
    assert interrupted >= 6, "too few kills landed while the ingest was running"
    subprocess.run([sys.executable, SCRIPT], env=_env(killed, agent), check=True)
    ref_events, ref_logs = _snapshot(reference, agent)
    got_events, got_logs = _snapshot(killed, agent)
    assert len(ref_events) == 12 * 6000 + 1
    assert got_events == ref_events
    assert got_logs == ref_logs


@pytest.mark.e2e
def test_a_database_written_during_ingest_is_read_consistently(tmp_path):
    """A writer adds pairs of rows, each pair in one transaction; every pass sees both rows of a
    pair or neither, and the last pass sees every pair."""
    agent = tmp_path / "notes"
    agent.mkdir()
    db = agent / "chat.db"
    create(db).close()
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; sys.path.insert(0, sys.argv[2]);"
            "from rows_format import note; import sqlite3;"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "for i in range(400):\n"
            "    c.execute('BEGIN IMMEDIATE'); note(c, f'x{i:04d}', 'left', t=i);"
            " time.sleep(0.002); note(c, f'y{i:04d}', 'right', t=i); c.execute('COMMIT')\n",
            str(db),
            str(HERE),
        ]
    )
    env = _env(tmp_path, agent)
    settings = Settings.from_env(env)
    while writer.poll() is None:
        subprocess.run([sys.executable, SCRIPT], env=env, check=True)
        store = Store.open(settings.home)
        try:
            with store.read() as txn:
                ids = {k.decode() for k, _ in store.iter_events(txn)}
        finally:
            store.close()
        lefts = {i[len("notesdb:x") :] for i in ids if i.startswith("notesdb:x")}
        rights = {i[len("notesdb:y") :] for i in ids if i.startswith("notesdb:y")}
        assert lefts == rights, "a pass saw half of a transaction"
    assert writer.returncode == 0
    subprocess.run([sys.executable, SCRIPT], env=env, check=True)
    store = Store.open(settings.home)
    try:
        with store.read() as txn:
            assert store.event_count(txn) == 800
            assert get_event(store, txn, "notesdb:y0399") is not None
        assert verify(store, settings.home).ok
    finally:
        store.close()
