"""SIGKILL at random moments while Claude Code and Codex logs (with their token usage) are
ingested: the activity figures end equal to an uninterrupted run's and to a recount."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from origin_api.samples.corpus import generate
from origin_store import Settings, Store, activity
from origin_store.activity.tally import DAY_MS
from origin_store.care.verify import verify

SCRIPT = str(Path(__file__).parent / "registry_ingest.py")


def _env(home: Path, corpus: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(corpus),
        "CLAUDE_CONFIG_DIR": str(corpus / "claude"),
        "CODEX_HOME": str(corpus / "codex"),
        "ORIGIN_HOME": str(home / "origin"),
    }


def _figures(home: Path, corpus: Path) -> dict[str, Any]:
    settings = Settings.from_env(_env(home, corpus))
    store = Store.open(settings.home)
    try:
        report = verify(store, settings.home)  # the figures against a recount, among the rest
        assert report.ok, report.problems
        found = activity.activity(store, 150_001, now_ms=150_000 * DAY_MS)
        return {
            "by_source": {s: asdict(f) for s, f in found.by_source.items()},
            "projects": [(p, asdict(f)) for p, f in found.projects],
            "sessions": [asdict(s) for s in found.sessions],
        }
    finally:
        store.close()


@pytest.mark.slow
@pytest.mark.e2e
def test_sigkill_while_ingesting_leaves_the_figures_of_one_run(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    generate(corpus, 30_000, seed=5, workers=1)
    reference = tmp_path / "ref"
    began = time.perf_counter()
    subprocess.run([sys.executable, SCRIPT], env=_env(reference, corpus), check=True)
    full = time.perf_counter() - began
    began = time.perf_counter()
    subprocess.run([sys.executable, SCRIPT], env=_env(reference, corpus), check=True)
    startup = time.perf_counter() - began
    killed = tmp_path / "killed"
    rng = random.Random(31)
    interrupted = 0
    for _ in range(10):
        proc = subprocess.Popen(
            [sys.executable, SCRIPT], env=_env(killed, corpus), start_new_session=True
        )
        time.sleep(startup + rng.uniform(0, max(full - startup, 0.05) / 10))
        os.killpg(proc.pid, signal.SIGKILL)
        interrupted += proc.wait() == -signal.SIGKILL
    assert interrupted >= 4, "too few kills landed while the ingest was running"
    subprocess.run([sys.executable, SCRIPT], env=_env(killed, corpus), check=True)
    expected = _figures(reference, corpus)
    assert expected["by_source"]["claude-code"]["tokens_in"] > 0
    assert expected["by_source"]["codex"]["tokens_out"] > 0
    assert _figures(killed, corpus) == expected
