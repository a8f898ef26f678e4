"""A deterministic generator of realistic Claude Code and Codex session logs.

The demo (`origin run` on a machine without agent logs) and the benchmarks need a corpus that
looks like a heavy user's agent home (so Origin's real parsers ingest it unchanged) yet is
reproducible byte for byte from a seed, and large (1M events) without taking longer to make than
the benchmarks take to run. Text is assembled from precomputed pools (phrases, code lines, log
lines) plus fresh Zipfian draws, which keeps the vocabulary's long tail without generating every
word one at a time.

Alongside the logs it writes ``events.jsonl.zst`` (concatenated zstd frames, one per session):
one orjson array per event, ``[id, text, source, project, session, kind, role, time_ms]``, exactly
what Origin's parsers produce from the same lines (tests/bench/test_corpus.py holds the two
together), so baselines (FTS5, grep) can load events without re-parsing. Each agent's writer
states its event-id rules: ``claude_code.py``, ``codex.py``. Text is message text;
``<tool name> <compact JSON input>`` for a call; the output for a result (``[error] `` before an
``is_error`` one); one-line summaries for bookkeeping (``permission-mode: plan``, ``turn: model
...``).

Layout: ``vocab`` (word tables, the ranked vocabulary), ``project`` and ``context`` (what the
sessions of one seed share), ``prose`` and ``outputs`` (text and tool output for one session),
``session`` (the writers' common bookkeeping), ``claude_code`` and ``codex`` (one writer per
agent), ``corpus`` (planning, worker processes, the events table). Every draw comes from a seeded
rng in a fixed order: reordering statements or template tables changes the output, which must
then bump ``GENERATOR_VERSION`` (the benchmark's cache key).
"""

from __future__ import annotations

from .common import EVENTS_FILE, GENERATOR_VERSION, INFO_FILE, MAX_TEXT, EventRow, mostly_cjk
from .corpus import CorpusInfo, generate, iter_event_lines, iter_events, load_info, write_samples
from .vocab import JA_NOUNS, JA_VERBS, KO_NOUNS, ZH_NOUNS, ZH_VERBS, Vocab, build_vocab

__all__ = [
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
    "EventRow",
    "Vocab",
    "build_vocab",
    "generate",
    "iter_event_lines",
    "iter_events",
    "load_info",
    "mostly_cjk",
    "write_samples",
]
