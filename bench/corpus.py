"""The benchmark corpus: Origin's own sample-log generator, cached per version, size and seed."""

from __future__ import annotations

import os
import shutil
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
