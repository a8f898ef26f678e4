"""Plan the demo's sessions over the last 60 days of working hours and write them.

Output depends only on ``seed`` and ``anchor_ms`` (the day the demo is made, so its sessions are
recent whenever it is made; tests pass a fixed one): every session has its own rng and the
sessions are written in plan order.
"""

from __future__ import annotations

import dataclasses
import os
import random
import shutil
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import orjson

from ..common import INFO_FILE
from ..context import Context, build_context
from ..corpus import CorpusInfo, load_info
from ..formats import WRITE
from ..project import Project
from ..session import Plan, Session
from .claude import DemoClaude
from .code import BUGS
from .memory import memory_files
from .projects import PROJECTS, USER, DemoProject
from .writers import (
    DemoCodex,
    DemoCopilot,
    DemoCursorCli,
    DemoCursorIde,
    DemoGemini,
    DemoGrokBuild,
    DemoGrokCli,
    DemoOpencode,
    DemoQwen,
    DemoZcode,
)

DEMO_SEED = 30
SESSIONS = 340
DAY_MS = 86_400_000
DAYS = 60

#: Each agent's share of SESSIONS, and its writers with the share of its sessions each takes.
#: The first five take all of them; the agents Origin read later get a few sessions on top (so
#: the first five's sessions are what they were).
SOURCES_SHARE: dict[str, float] = {
    "claude-code": 0.38,
    "codex": 0.22,
    "cursor": 0.14,
    "grok": 0.13,
    "zcode": 0.13,
    "gemini": 0.03,
    "opencode": 0.03,
    "copilot": 0.03,
    "qwen": 0.03,
}
_VARIANTS: dict[str, tuple[tuple[type[Session], float], ...]] = {
    "claude-code": ((DemoClaude, 1.0),),
    "codex": ((DemoCodex, 1.0),),
    "cursor": ((DemoCursorIde, 0.7), (DemoCursorCli, 1.0)),
    "grok": ((DemoGrokBuild, 0.75), (DemoGrokCli, 1.0)),
    "zcode": ((DemoZcode, 1.0),),
    "gemini": ((DemoGemini, 1.0),),
    "opencode": ((DemoOpencode, 1.0),),
    "copilot": ((DemoCopilot, 1.0),),
    "qwen": ((DemoQwen, 1.0),),
}
#: Session languages are dealt from shuffled decks: three in ten are Chinese.
LANG_DECK = ("en",) * 7 + ("zh",) * 3


def demo_context(seed: int) -> Context:
    """The generator's context with the demo's projects in it."""
    rng = random.Random(f"demo-projects:{seed}")
    projects = [_project(p, rng) for p in PROJECTS]
    base = (
        "You are Codex, a coding agent. You and the user share one workspace: read the code "
        "before you change it, keep changes small, and run the project's tests before you say "
        "a task is done."
    )
    return dataclasses.replace(
        build_context(seed),
        projects=projects,
        project_weights=[p.weight for p in PROJECTS],
        base_instructions=base,
    )


def _project(p: DemoProject, rng: random.Random) -> Project:
    return Project(
        name=p.name,
        cwd=p.cwd,
        slug="".join(c if c.isascii() and c.isalnum() else "-" for c in p.cwd),
        lang=p.lang,
        camel=[],
        snake=[part.func for part in p.parts],
        pascal=[],
        dotted=[],
        paths=[part.path for part in p.parts],
        errors=[bug.error for bug in BUGS[p.lang]],
        envs=["APP_ENV"],
        hashes=[f"{rng.getrandbits(160):040x}" for _ in range(8)],
        tests=[part.test for part in p.parts],
        branches=list(p.branches),
        repo_url=f"git@github.com:{USER}/{p.name}.git",
    )


def start_time(rng: random.Random, anchor_ms: int) -> int:
    """A moment in working hours (08:30-18:00 UTC) of a weekday in the 60 days before the anchor."""
    day0 = anchor_ms - anchor_ms % DAY_MS
    while True:
        day = day0 - rng.randrange(1, DAYS + 1) * DAY_MS
        weekday = time.gmtime(day // 1000).tm_wday
        if weekday < 5 or rng.random() < 0.1:
            return day + int(rng.uniform(8.5, 18) * 3_600_000)


def plan(seed: int, ctx: Context, anchor_ms: int) -> list[tuple[Plan, type[Session]]]:
    """Every session to write, by agent, each with its writer."""
    rng = random.Random(f"demo-plan:{seed}")
    out: list[tuple[Plan, type[Session]]] = []
    for source, share in SOURCES_SHARE.items():
        deck: list[str] = []
        for index in range(round(SESSIONS * share)):
            if not deck:
                deck = list(LANG_DECK)
                rng.shuffle(deck)
            project = rng.choices(range(len(ctx.projects)), weights=ctx.project_weights)[0]
            draw = rng.random()
            writer = next(w for w, limit in _VARIANTS[source] if draw < limit)
            when = start_time(rng, anchor_ms)
            out.append((Plan(source, index, 1_000_000, project, deck.pop(), when), writer))
    return out


def write_demo_samples(
    target: Path, seed: int = DEMO_SEED, anchor_ms: int | None = None
) -> CorpusInfo:
    """The demo's sample logs under ``target``, laid out as a user's home; its info file last,
    so an interrupted run is redone (and a finished one is kept)."""
    target.mkdir(parents=True, exist_ok=True)
    if (target / INFO_FILE).exists():
        return load_info(target)
    for child in target.iterdir():
        shutil.rmtree(child) if child.is_dir() else child.unlink()
    started = time.perf_counter()
    anchor = int(time.time() * 1000) if anchor_ms is None else anchor_ms
    ctx = demo_context(seed)
    planned = plan(seed, ctx, anchor)
    totals = [0, 0, 0, 0]  # events, cjk events, sessions, log lines
    for source in SOURCES_SHARE:
        sessions = [writer(ctx, p, seed) for p, writer in planned if p.source == source]
        WRITE[source](target, _generated(sessions, totals))
        for s in sessions:
            if isinstance(s, DemoClaude):
                for rel, data in s.files.items():
                    (target / rel).parent.mkdir(parents=True, exist_ok=True)
                    (target / rel).write_bytes(data)
    for rel, text, ms in memory_files(anchor):
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (ms / 1000, ms / 1000))
        totals[0] += 1
    files = [p for p in target.rglob("*") if p.is_file()]
    info = CorpusInfo(
        events=totals[0],
        lines=totals[3],
        bytes=sum(p.stat().st_size for p in files),
        sessions=totals[2],
        files=len(files),
        cjk_fraction=round(totals[1] / max(1, totals[0]), 4),
        seed=seed,
        generator_version="demo-1",
        seconds=round(time.perf_counter() - started, 2),
    )
    (target / INFO_FILE).write_bytes(orjson.dumps(asdict(info), option=orjson.OPT_INDENT_2))
    return info


def _generated(sessions: list[Session], totals: list[int]) -> Iterator[Session]:
    for s in sessions:
        s.generate()
        totals[0] += len(s.rows)
        totals[1] += s.cjk
        totals[2] += 1
        totals[3] += len(s.lines)
        yield s
