"""One demo session as turns of steps: a task on a part of a project, then a few follow-ups.

The writers of the sample generator render ``Turn`` lists (``turns.py``) in each agent's format;
here the turns are a task a person recognises (a failing test, a timeout, a cache to add), with
the commands, reads and edits that task takes and the outputs they would print.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..session import Session
from ..turns import ANSWER, EDIT, PROMPT, READ, SHELL, TEXT, THINKING, Step, Turn
from . import runs
from .code import BUGS, Change, added_test, feature, source, test_source, unified
from .projects import DemoProject, Part
from .tasks import (
    ANSWERS,
    COMMITS,
    EXPLAIN,
    FOLLOW_ANSWERS,
    FOLLOW_UPS,
    NOTES,
    PROMPTS,
    TESTS_DONE,
    THOUGHTS,
    TITLES,
)

_FENCE = {"py": "python", "ts": "ts"}
#: Kinds whose first turn also adds a test (their answer says so).
_TESTED = ("crash", "rate_limit", "cache")
#: The cases a tests task adds.
_CASES = ("empty input", "unknown key", "retries on timeout")
#: Errors a test reports but no program crashes with.
_NOT_CRASHES = ("AssertionError", "Error: Test timed out")


@dataclass(slots=True)
class Task:
    """What one session is about, and what it has done so far."""

    project: DemoProject
    part: Part
    kind: str
    lang: str
    branch: str
    change: Change
    slots: dict[str, str] = field(default_factory=dict)
    touched: list[str] = field(default_factory=list)
    line: int = 0

    @property
    def zh(self) -> bool:
        return self.lang == "zh"

    def say(self, template: str) -> str:
        return template.format(**self.slots)


def new_task(s: Session, p: DemoProject, kind: str, lang: str) -> Task:
    """A task of ``kind`` on a part of ``p`` that has that kind."""
    part = s.pick([q for q in p.parts if kind in q.kinds])
    bugs = part.bugs
    if kind == "crash":  # a crash raises; a wrong answer is a failing test
        bugs = tuple(i for i in bugs if not BUGS[p.lang][i].error.startswith(_NOT_CRASHES))
        kind = kind if bugs else "fix_test"
    if kind in ("fix_test", "crash"):
        change = BUGS[p.lang][s.pick(bugs or part.bugs)]
    elif kind == "migration":
        change = _migration(part)
    elif kind in ("tests", "explain"):
        change = added_test(part, p.lang, *_CASES)
    else:
        change = feature(kind, part, p.lang)
    branch = _branch(kind, part)
    task = Task(p, part, kind, lang, branch, change, line=s.rng.randrange(18, 140))
    cmd = p.test_cmd if kind != "crash" else _crash_cmd(p, part)
    error = change.error or "AssertionError"
    task.slots = {
        "part": part.en,
        "zh": part.zh,
        "func": part.func,
        "path": part.path,
        "test": part.test,
        "error": error,
        "error_head": error.split(":")[0],
        "why": change.why_zh if task.zh else change.why_en,
        "cmd": cmd,
        "test_cmd": p.test_cmd,
        "fence": _FENCE[p.lang],
        "new": change.new,
        "branch": branch,
    }
    task.slots["why_cap"] = task.slots["why"][:1].upper() + task.slots["why"][1:]
    return task


def title(s: Session, task: Task) -> str:
    named = task.say(s.pick(TITLES[task.kind][task.lang]))
    return "T" + named[1:] if named.startswith("the ") else named


#: A task's branch starts with this, by kind (an explanation is read on main).
_BRANCH = {
    "fix_test": "fix",
    "crash": "fix",
    "timeout": "fix",
    "tests": "test",
    "refactor": "refactor",
}


def _branch(kind: str, part: Part) -> str:
    if kind == "explain":
        return "main"
    name = part.func.replace("_", "-")
    return f"{_BRANCH.get(kind, 'feat')}/{name}-{kind.replace('_', '-')}"


def turns(s: Session, task: Task, follow_ups: int, first: int = 0) -> list[Turn]:
    """The task's turn, then ``follow_ups`` follow-up turns; numbered from ``first`` (a task
    the person gives later in the same session)."""
    out = [_first(s, task, first)]
    if task.kind == "explain":
        return out  # nothing changed: nothing to test, show or commit
    asked = s.rng.sample(sorted(FOLLOW_UPS), min(follow_ups, len(FOLLOW_UPS)))
    for what in asked:
        if s.rng.random() < 0.08:
            s.now += int(s.rng.uniform(16, 22)) * 3_600_000  # picked up again the next day
        out.append(_follow_up(s, task, first + len(out), what))
    return out


def _crash_cmd(p: DemoProject, part: Part) -> str:
    if p.lang == "ts":
        return "npm run dev"
    if p.name == "deployctl":
        return f"deployctl {part.func.split('_')[0]} --env staging"
    return f"python -m {part.path.removesuffix('.py').replace('/', '.')}"


def _migration(part: Part) -> Change:
    return Change(
        "def upgrade() -> None:\n    pass",
        "def upgrade() -> None:\n    op.create_index(\n"
        '        "ix_orders_shop_id_created_at", "orders", ["shop_id", "created_at"]\n    )',
        "the query filters on `shop_id` and sorts by `created_at`, and no index covers both",
        "查询按 `shop_id` 过滤、按 `created_at` 排序，没有同时覆盖两列的索引",
    )


def _step(s: Session, kind: str, text: str, task: Task, lo: float, hi: float) -> Step:
    s.tick(lo, hi)
    return Step(kind, text, s.now, task.zh)


def _shell(s: Session, cmd: str, out: str, failed: bool = False) -> Step:
    step = Step(SHELL, out, s.tick(0.3, 4), command=cmd, code=1 if failed else 0)
    step.done = s.tick(0.5, 20)
    return step


def _read(s: Session, path: str, text: str) -> Step:
    step = Step(READ, text, s.tick(0.3, 3), path=path)
    step.done = s.tick(0.05, 0.5)
    return step


def _edit(s: Session, task: Task, path: str, change: Change) -> Step:
    step = Step(EDIT, f"Updated {path}", s.tick(2, 20), path=path, old=change.old, new=change.new)
    step.done = s.tick(0.05, 0.5)
    task.touched.append(path)
    return step


def _tests(s: Session, task: Task, bug: Change | None = None) -> Step:
    p, part = task.project, task.part
    out = runs.test_run(p, part, s.rng, bug, task.line)
    return _shell(s, f"{p.test_cmd} {part.test}", out, failed=bug is not None)


def _first(s: Session, task: Task, index: int) -> Turn:
    """The task's prompt, the work it takes, and an answer in Markdown."""
    p, part, lang = task.project, task.part, task.lang
    s.tick(30, 900)
    prompt = task.say(s.pick(PROMPTS[task.kind][lang]))
    prompt = "T" + prompt[1:] if prompt.startswith("the ") else prompt
    if index:
        prompt = ("接下来：" if task.zh else "Next one. ") + prompt
    turn = Turn(index, [Step(PROMPT, prompt, s.now, task.zh)])
    steps = turn.steps
    look, found, read = THOUGHTS[lang]
    first_look = read if task.kind in ("explain", "tests") else look
    steps.append(_step(s, THINKING, task.say(first_look), task, 2, 9))
    steps.extend(_WORK.get(task.kind, _fix)(s, task))
    if task.kind == "explain":
        other = s.pick([q for q in p.parts if q is not part] or [part])
        snippet = source(part, p.lang).split("\n")[-9:]
        slots = {**task.slots, "other": other.path, "snippet": "\n".join(snippet)}
        answer = EXPLAIN[lang].format(**slots)
    elif task.kind == "tests":
        steps.append(_edit(s, task, part.test, task.change))
        steps.append(_tests(s, task))
        answer = task.say(TESTS_DONE[lang])
    else:
        steps.append(_step(s, THINKING, task.say(found), task, 1, 6))
        if s.rng.random() < 0.5:
            steps.append(_step(s, TEXT, task.say(NOTES[lang][2]), task, 0.5, 3))
        where = {"migration": "migrations/versions/a1b2c3_add_orders_index.py"}
        steps.append(_edit(s, task, where.get(task.kind, part.path), task.change))
        if task.kind in _TESTED:
            steps.append(_edit(s, task, part.test, added_test(part, p.lang, "rejects empty key")))
        steps.append(_step(s, TEXT, task.say(NOTES[lang][3]), task, 0.5, 3))
        steps.append(_tests(s, task))
        answer = task.say(ANSWERS[lang][task.kind in _TESTED])
    steps.append(_step(s, ANSWER, answer, task, 3, 20))
    return turn


def _fix(s: Session, task: Task) -> list[Step]:
    """A failing test: run it, read the code."""
    lang, part = task.lang, task.part
    out = [_step(s, TEXT, task.say(NOTES[lang][0]), task, 0.5, 3), _tests(s, task, task.change)]
    text = source(part, task.project.lang, task.change.old)
    out.append(_read(s, part.path, text))
    return out


def _crash(s: Session, task: Task) -> list[Step]:
    p, part = task.project, task.part
    cmd = task.slots["cmd"]
    out = [_shell(s, cmd, runs.traceback(p, part, task.change, task.line, cmd), failed=True)]
    out.append(_read(s, part.path, source(part, p.lang, task.change.old)))
    return out


def _timeout(s: Session, task: Task) -> list[Step]:
    p, part = task.project, task.part
    logs = runs.service_logs(p, part, s.now, s.rng)
    cmd = f"kubectl logs deploy/{p.name} --since=1h | grep -i timeout"
    return [_shell(s, cmd, logs), _read(s, part.path, source(part, p.lang, task.change.old))]


def _feature(s: Session, task: Task) -> list[Step]:
    p, part = task.project, task.part
    word = {"rate_limit": "limiter", "cache": "cache"}.get(task.kind, part.func)
    out = [
        _shell(
            s, f'rg -n "{word}" {part.path.split("/")[0]}/ tests/', runs.grep(p, part, word, s.rng)
        )
    ]
    out.append(_read(s, part.path, source(part, p.lang, task.change.old)))
    return out


def _explain(s: Session, task: Task) -> list[Step]:
    p, part = task.project, task.part
    out = [_shell(s, f"rg -n {part.func}", runs.grep(p, part, part.func, s.rng))]
    out.append(_read(s, part.path, source(part, p.lang)))
    out.append(_read(s, part.test, test_source(part, p.lang)))
    return out


def _migration_work(s: Session, task: Task) -> list[Step]:
    rev = f"{s.rng.getrandbits(48):012x}"
    made = (
        f"  Generating {task.project.cwd}/migrations/versions/{rev}_add_orders_index.py ...  done"
    )
    plan = (
        "Seq Scan on orders  (cost=0.00..48211.40 rows=1204 width=96) (actual time=0.021..412.8"
        " ms)\n  Filter: (shop_id = 42)\n  Rows Removed by Filter: 1203544\nPlanning Time: 0.2 ms"
        "\nExecution Time: 413.1 ms"
    )
    return [
        _shell(
            s,
            "psql -c 'EXPLAIN ANALYZE SELECT * FROM orders WHERE shop_id = 42 ORDER BY created_at'",
            plan,
        ),
        _shell(s, 'alembic revision -m "add orders index"', made),
    ]


_WORK = {
    "fix_test": _fix,
    "crash": _crash,
    "timeout": _timeout,
    "rate_limit": _feature,
    "cache": _feature,
    "refactor": _feature,
    "tests": _explain,
    "explain": _explain,
    "migration": _migration_work,
}


def _follow_up(s: Session, task: Task, index: int, what: str) -> Turn:
    p, part, en = task.project, task.part, not task.zh
    s.tick(40, 1200)
    ask, _ = FOLLOW_UPS[what]
    prompt = ask if en else FOLLOW_UPS[what][1]
    turn = Turn(index, [Step(PROMPT, prompt, s.now, task.zh)])
    slots = {**task.slots, "case": f"test_{part.func}_empty_input"}
    if what == "edge_test":
        turn.steps.append(_edit(s, task, part.test, added_test(part, p.lang, "empty input")))
        turn.steps.append(_tests(s, task))
    elif what == "commit":
        turn.steps.append(
            _shell(s, "git status", runs.git_status(task.branch, task.touched or [part.path]))
        )
        message = task.say(COMMITS[task.kind])
        slots["out"] = runs.git_commit(task.branch, message, max(1, len(set(task.touched))), s.rng)
        turn.steps.append(_shell(s, f'git commit -am "{message}"', slots["out"]))
    elif what == "suite":
        step = _shell(s, p.test_cmd, runs.test_run(p, part, s.rng, None, task.line))
        slots["tail"] = step.text.rsplit("\n", 1)[-1]
        turn.steps.append(step)
    else:
        slots["diff"] = unified(part.path, task.change, task.line)
        turn.steps.append(_shell(s, f"git diff {part.path}", slots["diff"]))
    reply = FOLLOW_ANSWERS[what][0 if en else 1].format(**slots)
    turn.steps.append(_step(s, ANSWER, reply, task, 2, 12))
    return turn
