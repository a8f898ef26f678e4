"""The corpus: plan the sessions, write them (in worker processes or not), describe the result.

Output depends only on ``events`` and ``seed``: every session has its own rng, and sessions are
written in plan order whatever the number of worker processes.
"""

from __future__ import annotations

import io
import math
import multiprocessing
import os
import random
import shutil
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import orjson
import zstandard

from .claude_code import ClaudeSession
from .codex import CodexSession
from .common import BASE_MS, END_MS, EVENTS_FILE, GENERATOR_VERSION, INFO_FILE, EventRow
from .context import Context, build_context
from .session import Plan, Session

#: The writer for each agent, by source name.
WRITERS: dict[str, type[Session]] = {"claude-code": ClaudeSession, "codex": CodexSession}

#: Claude Code's share of the events; Codex has the rest.
CLAUDE_SHARE = 0.7

#: Session languages are dealt from shuffled decks of this mix.
LANG_DECK = ["en"] * 27 + ["zh"] * 7 + ["ja"] * 5 + ["ko"] * 1

#: Events per session: lognormal with this median and sigma (mean ~120 once clamped), so most
#: sessions are short and a few are long; never fewer than SESSION_MIN nor more than SESSION_MAX.
SESSION_MEDIAN = 60
SESSION_SIGMA = 1.2
SESSION_MIN = 6
SESSION_MAX = 3000


@dataclass(slots=True)
class CorpusInfo:
    """What was written; saved as ``corpus.json`` so cached corpora describe themselves."""

    events: int
    lines: int
    bytes: int
    sessions: int
    files: int
    cjk_fraction: float
    seed: int = 42
    generator_version: str = GENERATOR_VERSION
    seconds: float = 0.0


@dataclass(slots=True)
class _SessionOut:
    table: bytes  # a zstd frame of table lines
    events: int
    lines: int
    bytes: int
    cjk: int


# Set by generate() before forking, so workers inherit the context instead of rebuilding it.
_CTX: Context | None = None
_OUT: Path | None = None


def _write_session(plan: Plan) -> _SessionOut:
    assert _CTX is not None and _OUT is not None
    s = WRITERS[plan.source](_CTX, plan, _CTX.seed)
    s.generate()
    data = b"\n".join(s.lines) + b"\n"
    path = _OUT / s.relpath()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    # Like a real agent's log, the file was last written when its session's last event happened.
    last = max((orjson.loads(row)[7] for row in s.rows), default=plan.start_ms) / 1000
    os.utime(path, (last, last))
    table = zstandard.ZstdCompressor(level=3).compress(b"\n".join(s.rows) + b"\n")
    return _SessionOut(table, len(s.rows), len(s.lines), len(data), s.cjk)


def plan_sessions(events: int, seed: int, n_projects: int, weights: list[float]) -> list[Plan]:
    """Sessions of lognormal sizes until each agent's share of ``events`` is used up.

    Real Claude Code and Codex archives hold many short sessions and a few long ones (about
    100-150 events per file on average), so per-file costs (discovery, stat, cursors, one
    transaction per file) weigh as much here as in a user's archive: 1M events land in about
    8,000 files. A small corpus caps sessions at a twentieth of its events, so it still has
    a few dozen files.
    """
    rng = random.Random(f"plan:{seed}")
    upper = min(SESSION_MAX, max(60, events // 20))
    lower = min(SESSION_MIN, upper)
    plans: list[Plan] = []
    claude_total = round(events * CLAUDE_SHARE)
    for source, total in (("claude-code", claude_total), ("codex", events - claude_total)):
        deck: list[str] = []
        remaining = total
        index = 0
        while remaining > 0:
            size = session_size(rng, lower, upper)
            if remaining - size < lower:
                size = remaining  # the last session takes the rest, never a sliver after it
            if not deck:
                deck = list(LANG_DECK)
                rng.shuffle(deck)
            project = rng.choices(range(n_projects), weights=weights)[0]
            start = BASE_MS + rng.randrange(END_MS - BASE_MS - 3 * 86_400_000)
            plans.append(Plan(source, index, size, project, deck.pop(), start))
            remaining -= size
            index += 1
    return plans


def session_size(rng: random.Random, lower: int, upper: int) -> int:
    """One session's events: lognormal around SESSION_MEDIAN, clamped to [lower, upper]."""
    drawn = int(rng.lognormvariate(math.log(SESSION_MEDIAN), SESSION_SIGMA))
    return min(upper, max(lower, drawn))


def generate(out_dir: Path, events: int, seed: int = 42, workers: int | None = None) -> CorpusInfo:
    """Write a fake agent home (``claude/``, ``codex/``) plus the events table under ``out_dir``.

    Output depends only on ``events`` and ``seed``: every session has its own rng, and sessions
    are written in plan order whatever the number of worker processes.
    """
    global _CTX, _OUT
    t0 = time.perf_counter()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    if any(out_dir.iterdir()):
        raise FileExistsError(f"{out_dir} is not empty")
    ctx = build_context(seed)
    plans = plan_sessions(events, seed, len(ctx.projects), ctx.project_weights)
    _CTX, _OUT = ctx, out_dir
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    totals = {"events": 0, "lines": 0, "bytes": 0, "cjk": 0}
    try:
        with open(out_dir / EVENTS_FILE, "wb") as table:
            if workers > 1 and len(plans) > 1:
                mp = multiprocessing.get_context("fork")
                with mp.Pool(workers) as pool:
                    _collect(pool.imap(_write_session, plans, chunksize=2), table, totals)
            else:
                _collect(map(_write_session, plans), table, totals)
    finally:
        _CTX = _OUT = None
    info = CorpusInfo(
        events=totals["events"],
        lines=totals["lines"],
        bytes=totals["bytes"],
        sessions=len(plans),
        files=len(plans),
        cjk_fraction=round(totals["cjk"] / max(1, totals["events"]), 4),
        seed=seed,
        seconds=round(time.perf_counter() - t0, 2),
    )
    (out_dir / INFO_FILE).write_bytes(orjson.dumps(asdict(info), option=orjson.OPT_INDENT_2))
    return info


def _collect(outs: Iterator[_SessionOut], table: io.BufferedWriter, totals: dict[str, int]) -> None:
    for out in outs:
        table.write(out.table)
        totals["events"] += out.events
        totals["lines"] += out.lines
        totals["bytes"] += out.bytes
        totals["cjk"] += out.cjk


def load_info(corpus_dir: Path) -> CorpusInfo:
    return CorpusInfo(**orjson.loads((Path(corpus_dir) / INFO_FILE).read_bytes()))


def iter_event_lines(corpus_dir: Path) -> Iterator[bytes]:
    """Raw table lines, for callers that only decode the few they keep."""
    with open(Path(corpus_dir) / EVENTS_FILE, "rb") as f:
        reader = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True)
        buffered = io.BufferedReader(reader, buffer_size=1 << 20)
        for line in buffered:
            if line.strip():
                yield line


def iter_events(corpus_dir: Path) -> Iterator[EventRow]:
    """``(id, text, source, project, session, kind, role, time_ms)`` for every event, in order."""
    loads = orjson.loads
    for line in iter_event_lines(corpus_dir):
        yield tuple(loads(line))


def write_samples(target: Path, events: int = 20_000, seed: int = 42) -> CorpusInfo:
    """Realistic Claude Code and Codex logs for a machine that has none (`origin run`)."""
    target.mkdir(parents=True, exist_ok=True)
    if (target / INFO_FILE).exists():
        return load_info(target)
    for child in target.iterdir():
        shutil.rmtree(child) if child.is_dir() else child.unlink()
    return generate(target, events, seed, workers=1)
