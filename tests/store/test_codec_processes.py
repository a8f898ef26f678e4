"""Dictionaries trained while several processes ingest, or while one is killed at random
points: every event is kept once and reads back as an uninterrupted single run reads it, each
generation is stored once (the first writer wins), and the store verifies."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_ingest import _env, _snapshot, _write_corpus

from origin_store import Settings, Store
from origin_store.care.verify import verify
from origin_store.core.codec import ZSTD_ID

HERE = Path(__file__).parent
SCRIPT = str(HERE / "plain_ingest_dicts.py")


def _check_store(home: Path, logs: Path) -> None:
    settings = Settings.from_env(_env(home, logs))
    store = Store.open(settings.home)
    try:
        with store.read() as txn:
            dicts = txn.stat(store.dbs["dicts"])["entries"]
            meta = store.meta_get(txn, "dict:plain")
            values = [value for _, value in store.iter_events(txn)]
        assert meta is not None and meta["gen"] == 2
        assert 1 <= dicts <= 2, "a generation was stored twice"
        compressed = sum(value[0] == ZSTD_ID for value in values)
        assert compressed >= 0.9 * len(values)
        report = verify(store, settings.home)
        assert report.ok, report.problems
    finally:
        store.close()


@pytest.mark.e2e
def test_two_processes_training_at_once_end_like_one(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    _write_corpus(logs, files=4, lines_each=3000)
    subprocess.run([sys.executable, SCRIPT], env=_env(tmp_path / "one", logs), check=True)
    procs = [
        subprocess.Popen([sys.executable, SCRIPT], env=_env(tmp_path / "two", logs))
        for _ in range(2)
    ]
    assert [p.wait() for p in procs] == [0, 0]
    assert _snapshot(tmp_path / "two", logs) == _snapshot(tmp_path / "one", logs)
    _check_store(tmp_path / "one", logs)
    _check_store(tmp_path / "two", logs)


@pytest.mark.e2e
def test_kills_while_training_lose_and_duplicate_nothing(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    _write_corpus(logs, files=6, lines_each=4000)
    reference = tmp_path / "ref"
    began = time.perf_counter()
    subprocess.run([sys.executable, SCRIPT], env=_env(reference, logs), check=True)
    full = time.perf_counter() - began
    killed = tmp_path / "killed"
    rng = random.Random(3)
    for _ in range(6):
        proc = subprocess.Popen(
            [sys.executable, SCRIPT], env=_env(killed, logs), start_new_session=True
        )
        time.sleep(rng.uniform(0.3, max(full, 0.4)) / 2)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    subprocess.run([sys.executable, SCRIPT], env=_env(killed, logs), check=True)
    assert _snapshot(killed, logs) == _snapshot(reference, logs)
    _check_store(killed, logs)
