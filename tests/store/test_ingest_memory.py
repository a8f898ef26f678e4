"""A pass's anonymous memory stays flat however many files it handles.

A backfill of 79k files once grew each process by ~150 KB per file (every file's mirror writer,
with its tail and its zstd workspace, was kept until the pass's final sync) until the OOM killer
ended it. Anonymous memory is what is measured: RSS also counts the LMDB map's file pages.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from plain_format import PLAIN, line

from origin_store import Ingester, Settings, Store
from origin_store.ingest import COLD_SECONDS
from origin_store.ingest.report import anonymous_memory

FILES = 1500
LINES = 30
#: What the last three quarters of the pass may add. Per-file names for the final sync (~100
#: bytes each) and allocator noise stay far below it; holding ~20 KB per file would not.
GROWTH_BOUND = 8 * 1024 * 1024

pytestmark = pytest.mark.skipif(
    anonymous_memory() is None, reason="anonymous memory is read from Linux /proc/self/status"
)


def _write_logs(logs: Path) -> None:
    """Small session files, half of them cold (sealed into zstd frames), half still growing."""
    text = "a line of a session log " * 20
    old = time.time() - 2 * COLD_SECONDS
    for index in range(FILES):
        folder = logs / f"p{index % 40}"
        folder.mkdir(exist_ok=True)
        path = folder / f"s{index}.jsonl"
        first = index * LINES
        path.write_bytes(b"".join(line(first + i, text, f"s{index}") for i in range(LINES)))
        if index % 2:
            os.utime(path, (old, old))


def test_anonymous_memory_stays_flat_over_a_pass(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    _write_logs(logs)
    settings = Settings.from_env(
        {"HOME": str(tmp_path), "ORIGIN_HOME": str(tmp_path / "origin"), "PLAIN_HOME": str(logs)}
    )
    store = Store.open(settings.home, map_size=settings.map_size)
    samples: list[int] = []

    def progress(_: int) -> None:  # called once per file (each file is one batch)
        samples.append(anonymous_memory() or 0)

    try:
        report = Ingester(store, settings, {"plain": PLAIN}).run(progress)
    finally:
        store.close()
    assert report.events == FILES * LINES and report.files_changed == FILES
    assert len(samples) == FILES
    # From a quarter of the pass on (imports, LMDB and the allocator are warm by then).
    base = samples[FILES // 4]
    growth = max(samples[FILES // 4 :]) - base
    assert growth <= GROWTH_BOUND, (
        f"anonymous memory grew {growth / 2**20:.1f} MB over {FILES - FILES // 4} files "
        f"({growth / (FILES - FILES // 4):,.0f} bytes per file)"
    )
