"""What every session writer shares: its plan, rng, text maker, line buffer, table rows and clock."""

from __future__ import annotations

import random
from dataclasses import dataclass

from .common import dump, mostly_cjk
from .context import Context
from .prose import Text


@dataclass(slots=True)
class Plan:
    """One session to write: which agent, its place in that agent's order, size, project, language."""

    source: str
    index: int
    events: int
    project: int
    lang: str
    start_ms: int


class Session:
    """Shared bookkeeping for one session file: the line buffer, the table rows, the clock.

    A writer for one agent subclasses it with ``generate()`` (fill ``lines`` and ``rows``) and
    ``relpath()`` (where the file goes under the corpus root).
    """

    session_id = ""

    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        self.rng = random.Random(f"{seed}:{plan.source}:{plan.index}")
        self.plan = plan
        self.ctx = ctx
        self.project = ctx.projects[plan.project]
        self.text = Text(ctx, self.rng, self.project, plan.lang)
        self.pick = self.text.pick
        self.lines: list[bytes] = []
        self.rows: list[bytes] = []
        self.budget = plan.events
        self.now = plan.start_ms
        self.cjk = 0

    def tick(self, lo: float, hi: float) -> int:
        self.now += int(self.rng.uniform(lo, hi) * 1000) + 1
        return self.now

    def row(
        self, eid: str, text: str, kind: str, role: str, cjk: bool, at: int | None = None
    ) -> None:
        when = self.now if at is None else at
        self.rows.append(
            dump(
                (eid, text, self.plan.source, self.project.name, self.session_id, kind, role, when)
            )
        )
        self.budget -= 1
        if cjk and mostly_cjk(text):
            self.cjk += 1

    def generate(self) -> None:
        raise NotImplementedError

    def relpath(self) -> str:
        raise NotImplementedError
