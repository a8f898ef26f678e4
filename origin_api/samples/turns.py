"""The conversation the Cursor, ZCode and Grok writers share: turns of steps, before any format.

The three formats store the same kind of session (a prompt, some thinking, tool calls with their
outputs, an answer) in very different shapes, so each writer renders one plan of steps drawn
here from the session's rng, with the same text and tool outputs as the Claude Code and Codex
writers. A step is one event in every format, a tool call two (its call and its result), which
is how a writer spends exactly its event budget. Within a turn, two steps of the same kind of
message never follow each other: Grok Build joins adjacent chunks of one kind into one message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .outputs import code_block, command, file_read, patch
from .session import Session

PROMPT = "prompt"
THINKING = "thinking"
TEXT = "text"
ANSWER = "answer"
READ = "read"
EDIT = "edit"
SHELL = "shell"
TOOLS = frozenset({READ, EDIT, SHELL})

#: A tool is drawn by one ``random()``: the first family whose limit is above it.
_FAMILIES = ((0.18, EDIT), (0.45, READ), (1.0, SHELL))


@dataclass(slots=True)
class Step:
    """One thing said or done. For a tool: ``text`` is its output, ``path``/``command`` and
    ``old``/``new`` its input, ``code`` the command's exit code, ``done`` when it finished."""

    kind: str
    text: str
    at: int
    cjk: bool = False
    path: str = ""
    command: str = ""
    old: str = ""
    new: str = ""
    code: int = 0
    done: int = 0

    @property
    def tool(self) -> bool:
        return self.kind in TOOLS

    @property
    def cost(self) -> int:
        """Events this step becomes: a tool's call and result, or one message."""
        return 2 if self.tool else 1


@dataclass(slots=True)
class Turn:
    """A prompt and what followed it, numbered from 0 like Grok's ``promptIndex``."""

    index: int
    steps: list[Step] = field(default_factory=list)

    @property
    def started(self) -> int:
        return self.steps[0].at

    @property
    def ended(self) -> int:
        last = self.steps[-1]
        return max(last.at, last.done)


def conversation(s: Session, budget: int) -> list[Turn]:
    """Turns whose steps cost exactly ``budget`` events (``budget`` >= 1)."""
    turns: list[Turn] = []
    left = budget
    while left > 0:
        if turns and s.rng.random() < 0.04:
            s.now += int(s.rng.uniform(20, 50)) * 3_600_000  # resumed a day or two later
        turn = _turn(s, len(turns), left)
        left -= sum(step.cost for step in turn.steps)
        turns.append(turn)
    return turns


def _turn(s: Session, index: int, left: int) -> Turn:
    rng = s.rng
    t = s.text
    s.tick(20, 600)
    prompt, cjk = t.prose(140, 1.0)
    turn = Turn(index, [Step(PROMPT, prompt, s.now, cjk)])
    left -= 1
    for _ in range(min(40, int(rng.expovariate(1 / 6)) + 1)):
        thinking, commentary = rng.random() < 0.5, rng.random() < 0.2
        if left < 2 + thinking + commentary + 1:  # the step, then room for the answer
            break
        if thinking:
            s.tick(1, 12)
            text, cjk = t.prose(150, 0.7)
            turn.steps.append(Step(THINKING, text, s.now, cjk))
        if commentary:
            s.tick(0.5, 5)
            text, cjk = t.prose(150, 0.7)
            turn.steps.append(Step(TEXT, text, s.now, cjk))
        turn.steps.append(tool(s))
        left -= turn.steps[-1].cost + thinking + commentary
    if left > 0:
        s.tick(1, 15)
        text, cjk = t.prose(330, 0.9)
        if rng.random() < 0.2:
            text += "\n\n" + code_block(t)
            cjk = cjk and len(text) < 500
        turn.steps.append(Step(ANSWER, text, s.now, cjk))
    return turn


def tool(s: Session) -> Step:
    """A file read, an edit or a shell command, with what it printed (never empty)."""
    k = s.rng.random()
    family = next(name for limit, name in _FAMILIES if k < limit)
    started = s.tick(0.3, 4)
    if family == EDIT:
        path, old, new = patch(s.text)
        step = Step(EDIT, f"Updated {path}", started, path=path)
        step.old, step.new = "\n".join(old), "\n".join(new)
    elif family == READ:
        path, out = file_read(s.text, numbered=False)
        step = Step(READ, out, started, path=path)
    else:
        cmd, out = command(s.text)
        tail = out[-300:]
        failed = out.startswith("Traceback") or "FAILED" in tail or " FAIL " in tail
        step = Step(SHELL, out, started, command=cmd, code=1 if failed else 0)
    if not step.text.strip():
        step.text = "(no output)"
    step.done = s.tick(0.1, 25)
    return step


@dataclass(slots=True)
class Call:
    """One call of the model as the newer agents log it: its reasoning, at most one text (a
    comment or the answer) and at most one tool it ran."""

    thoughts: list[Step] = field(default_factory=list)
    text: Step | None = None
    tool: Step | None = None

    @property
    def steps(self) -> list[Step]:
        return [*self.thoughts, *(s for s in (self.text, self.tool) if s is not None)]

    @property
    def at(self) -> int:
        return self.steps[0].at


def model_calls(steps: list[Step]) -> list[Call]:
    """A turn's steps after its prompt as calls of the model: reasoning goes with what follows
    it, a text with the tool after it, and an answer ends its call."""
    calls: list[Call] = []
    current = Call()
    for step in steps:
        if step.kind == THINKING:
            if current.text is not None:
                calls.append(current)
                current = Call()
            current.thoughts.append(step)
        elif step.tool:
            current.tool = step
            calls.append(current)
            current = Call()
        else:
            if current.text is not None:
                calls.append(current)
                current = Call()
            current.text = step
            if step.kind == ANSWER:
                calls.append(current)
                current = Call()
    if current.steps:
        calls.append(current)
    return calls
