"""The benchmark corpus: Origin's own sample-log generator, cached per version, size and seed."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from origin_api.samples import (
    EVENTS_FILE,
    GENERATOR_VERSION,
    INFO_FILE,
    JA_NOUNS,
    JA_VERBS,
    KO_NOUNS,
    MAX_TEXT,
    ZH_NOUNS,
    ZH_VERBS,
    CorpusInfo,
    build_vocab,
    generate,
    iter_event_lines,
    iter_events,
    load_info,
    mostly_cjk,
)

CACHE_ROOT = Path(__file__).resolve().parent / ".cache"

__all__ = [
    "CACHE_ROOT",
    "EVENTS_FILE",
    "GENERATOR_VERSION",
    "INFO_FILE",
    "JA_NOUNS",
    "JA_VERBS",
    "KO_NOUNS",
    "MAX_TEXT",
    "ZH_NOUNS",
    "ZH_VERBS",
    "CorpusInfo",
    "build_vocab",
    "cache_dir",
    "cached_corpus",
    "generate",
    "iter_event_lines",
    "iter_events",
    "load_info",
    "mostly_cjk",
]


def cache_dir(events: int, seed: int = 42) -> Path:
    return CACHE_ROOT / f"corpus-v{GENERATOR_VERSION}-{events}-{seed}"


def cached_corpus(events: int, seed: int = 42) -> Path:
    """The corpus for (events, seed), generated once; a half-written one is never visible."""
    final = cache_dir(events, seed)
    if (final / INFO_FILE).exists():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / f".tmp-{final.name}-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    generate(tmp, events, seed)
    try:
        os.rename(tmp, final)
    except OSError:
        # Another process finished first: keep theirs.
        shutil.rmtree(tmp, ignore_errors=True)
        if not (final / INFO_FILE).exists():
            raise
    return final


#: Inputs larger than this are not read ahead of a build (`warm`): this machine evicts them
#: again before the build gets to them.
WARM_MAX_BYTES = 4 << 30


def warm(*roots: Path) -> tuple[int, float]:
    """Flush what the machine still has to write, then read every file under `roots` once (a
    build's input: the agents' logs, or the events table FTS5 loads): the bytes read and the
    seconds it took. A build then measures its own work, not this machine's disk.

    Its kernel evicts file pages left unread for about a minute (DAMON reclaim), so a corpus
    read in an earlier run is cold again. Reading 8,000 cold files while the FTS5 build's
    gigabyte was still being written back, a 1M ingest took 158 s of wall time for 75 s of CPU
    (~42 s on 2 cores). At 10M (11.9 GB, read over minutes) the first files are evicted again
    before the last are read, so that build still reads from the disk; above `WARM_MAX_BYTES`
    nothing is read (0 bytes): reading 11.9 GB first took 11 minutes, for pages kept a minute."""
    started = time.perf_counter()
    os.sync()
    files = [p for root in roots for p in ([root] if root.is_file() else sorted(root.rglob("*")))]
    files = [p for p in files if p.is_file()]
    if sum(p.stat().st_size for p in files) > WARM_MAX_BYTES:
        return 0, time.perf_counter() - started
    read = 0
    for path in files:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                read += len(chunk)
    return read, time.perf_counter() - started


def logs_of(corpus_dir: Path) -> list[Path]:
    """The corpus's agent log trees, what Origin's ingest reads."""
    return [corpus_dir / "claude", corpus_dir / "codex"]
