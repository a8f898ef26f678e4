"""SIGKILL at random moments while the agents' own databases and logs are ingested (generated
Cursor, zcode, Grok and OpenCode archives, read through the real parsers and row logs) ends
exactly like an uninterrupted run: the same events, the same row logs, nothing lost or
doubled."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from origin_api.samples.formats import HOME, generate_formats
from origin_store import Settings, Store
from origin_store.care.verify import verify

SCRIPT = str(Path(__file__).parent / "registry_ingest.py")


def _env(home: Path, corpus: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(corpus / HOME), "ORIGIN_HOME": str(home / "origin")}


def _snapshot(home: Path, corpus: Path) -> tuple[dict[str, dict], dict[str, bytes]]:
    settings = Settings.from_env(_env(home, corpus))
    store = Store.open(settings.home)
    try:
        with store.read() as txn:
            events = {
                key.decode(): {
                    f: v for f, v in store.codec.decode(txn, key, value).items() if f != "m"
                }
                for key, value in store.iter_events(txn)
            }
        assert verify(store, settings.home).ok
    finally:
        store.close()
    rows = {path.name: path.read_bytes() for path in (settings.home / "rows").rglob("*.jsonl")}
    return events, rows


@pytest.mark.slow
@pytest.mark.e2e
def test_sigkill_while_reading_agents_databases_ends_like_one_run(tmp_path: Path):
    corpus = tmp_path / "corpus"
    infos = generate_formats(corpus, 6000, seed=7, sources=("cursor", "zcode", "grok", "opencode"))
    reference = tmp_path / "ref"
    began = time.perf_counter()
    subprocess.run([sys.executable, SCRIPT], env=_env(reference, corpus), check=True)
    full = time.perf_counter() - began
    began = time.perf_counter()
    subprocess.run([sys.executable, SCRIPT], env=_env(reference, corpus), check=True)
    startup = time.perf_counter() - began
    killed = tmp_path / "killed"
    rng = random.Random(23)
    interrupted = 0
    for _ in range(12):
        proc = subprocess.Popen(
            [sys.executable, SCRIPT], env=_env(killed, corpus), start_new_session=True
        )
        time.sleep(startup + rng.uniform(0, max(full - startup, 0.05) / 12))
        os.killpg(proc.pid, signal.SIGKILL)
        interrupted += proc.wait() == -signal.SIGKILL
    assert interrupted >= 4, "too few kills landed while the ingest was running"
    subprocess.run([sys.executable, SCRIPT], env=_env(killed, corpus), check=True)
    ref_events, ref_rows = _snapshot(reference, corpus)
    got_events, got_rows = _snapshot(killed, corpus)
    assert len(ref_events) == sum(info.events for info in infos.values())
    assert got_events == ref_events
    assert got_rows == ref_rows
