"""What tools show: file reads, patches, test runs, git, grep and shell commands.

Each function draws from the session's rng through its ``Text``; the command and git tables are
indexed by one ``randrange`` draw, so their order (and repeats, which set the odds) is output.
"""

from __future__ import annotations

from collections.abc import Callable

from .common import MAX_TEXT, lognorm_len
from .prose import Text


def code_block(t: Text) -> str:
    path, body = t.pick(t.p.files)
    start = t.rng.randrange(len(body))
    n = t.rng.randrange(3, 25)
    lang = "python" if t.p.lang == "py" else "ts"
    return f"```{lang}\n" + "\n".join(body[start : start + n]) + "\n```"


def file_read(t: Text, numbered: bool) -> tuple[str, str]:
    rng = t.rng
    path, body = t.pick(t.p.files)
    want = lognorm_len(rng, 30, 1.2, 400)
    start = rng.randrange(max(1, len(body) - want + 1)) if rng.random() < 0.4 else 0
    lines = body[start : start + want]
    numbers = (
        (f"{start + i + 1:>6}→" for i in range(len(lines))) if numbered else ("" for _ in lines)
    )
    text = "\n".join(n + line for n, line in zip(numbers, lines, strict=True))
    return path, text[: MAX_TEXT - 200]


def patch(t: Text) -> tuple[str, list[str], list[str]]:
    rng = t.rng
    path, body = t.pick(t.p.files)
    i = rng.randrange(len(body))
    old = body[i : i + rng.randrange(1, 6)]
    new = [t.pick(body) for _ in range(rng.randrange(1, 8))]
    return path, old, new


def lines_from(t: Text, pool: list[str], target: int) -> str:
    rng = t.rng
    start = rng.randrange(len(pool))
    out: list[str] = []
    n = 0
    i = start
    while n < target:
        line = pool[i % len(pool)] if rng.random() < 0.7 else t.pick(pool)
        out.append(line)
        n += len(line) + 1
        i += 1
    return "\n".join(out)


def grep_output(t: Text, target: int) -> str:
    out: list[str] = []
    n = 0
    while n < target:
        path, body = t.pick(t.p.files)
        i = t.rng.randrange(len(body))
        line = f"{path}:{i + 1}:{body[i]}"
        out.append(line)
        n += len(line) + 1
    return "\n".join(out)


# -- test runs: pytest for Python projects, vitest for TypeScript ones -------------------------

_Part = Callable[[Text], str]


def _pytest_head(t: Text) -> str:
    return (
        "============================= test session starts ==============================\n"
        f"platform linux -- Python 3.11.7, pytest-8.3.2, pluggy-1.5.0\nrootdir: {t.p.cwd}\n"
        f"collected {t.rng.randrange(5, 900)} items\n\n"
    )


def _pytest_failed(t: Text) -> str:
    rng = t.rng
    return (
        "\n=================================== FAILURES ===================================\n"
        + t.pick(t.p.tracebacks)
        + "\n=========================== short test summary info ============================\n"
        f"FAILED {t.pick(t.p.tests)} - {t.pick(t.p.errors)}\n"
        f"=================== {rng.randrange(1, 5)} failed, {rng.randrange(5, 500)} passed"
        f" in {rng.random() * 30:.2f}s ==================="
    )


def _pytest_passed(t: Text) -> str:
    return (
        f"\n============================= {t.rng.randrange(5, 900)} passed"
        f" in {t.rng.random() * 30:.2f}s ============================="
    )


def _vitest_failed(t: Text) -> str:
    rng = t.rng
    return (
        f"\n\n FAIL  {t.pick(t.p.tests)}\nAssertionError: expected {rng.randrange(500)} to be {rng.randrange(500)}\n"
        f" ❯ {t.pick(t.p.paths)}:{rng.randrange(1, 300)}:{rng.randrange(1, 60)}\n"
        f"\n Test Files  1 failed | {rng.randrange(1, 40)} passed\n"
        f"      Tests  {rng.randrange(1, 4)} failed | {rng.randrange(5, 400)} passed"
    )


def _vitest_passed(t: Text) -> str:
    rng = t.rng
    return (
        f"\n\n Test Files  {rng.randrange(1, 40)} passed\n      Tests  {rng.randrange(5, 400)} passed\n"
        f"   Duration  {rng.random() * 9:.2f}s"
    )


#: By project language: the run's header, then its summary when it failed and when it passed.
_TEST_RUN: dict[str, tuple[_Part, _Part, _Part]] = {
    "py": (_pytest_head, _pytest_failed, _pytest_passed),
    "ts": (lambda t: f"\n RUN  v2.1.4 {t.p.cwd}\n\n", _vitest_failed, _vitest_passed),
}


def test_log(t: Text, target: int) -> tuple[str, bool]:
    failed = t.rng.random() < 0.35
    body = lines_from(t, t.p.test_lines, target)
    head, if_failed, if_passed = _TEST_RUN[t.p.lang]
    start = head(t)
    return start + body + (if_failed if failed else if_passed)(t), failed


# -- git ------------------------------------------------------------------------------------


def _git_log(t: Text) -> str:
    rng = t.rng
    return "\n".join(
        f"{h[:7]} {t.en_sentence()}" for h in rng.sample(t.p.hashes, rng.randrange(3, 20))
    )


def _git_status(t: Text) -> str:
    p = t.p
    files = t.rng.sample(p.paths, min(len(p.paths), t.rng.randrange(1, 8)))
    return f"On branch {t.pick(p.branches)}\nChanges not staged for commit:\n" + "\n".join(
        f"\tmodified:   {f}" for f in files
    )


def _git_diff(t: Text) -> str:
    rng = t.rng
    p = t.p
    path, body = t.pick(p.files)
    i = rng.randrange(len(body))
    hunk = body[i : i + rng.randrange(3, 30)]
    return (
        f"diff --git a/{path} b/{path}\nindex {t.pick(p.hashes)[:7]}..{t.pick(p.hashes)[:7]} 100644\n"
        f"--- a/{path}\n+++ b/{path}\n@@ -{i + 1},{len(hunk)} +{i + 1},{len(hunk)} @@\n"
        + "\n".join(t.pick(("+", "-", " ")) + line for line in hunk)
    )


_GIT: tuple[_Part, ...] = (_git_log, _git_status, _git_diff)


def git_output(t: Text) -> str:
    return _GIT[t.rng.randrange(len(_GIT))](t)


# -- shell commands ---------------------------------------------------------------------------

_Command = Callable[[Text], tuple[str, str]]


def _run_tests(t: Text) -> tuple[str, str]:
    p = t.p
    mod = t.pick(p.tests).split("::")[0].split(" ")[0]
    cmd = f"pytest -q {mod}" if p.lang == "py" else f"npx vitest run {mod}"
    return cmd, test_log(t, lognorm_len(t.rng, 900, 1.3, 19_000))[0]


def _git(t: Text) -> tuple[str, str]:
    cmd = t.pick(("git log --oneline -n 20", "git status", f"git diff {t.pick(t.p.paths)}"))
    return cmd, git_output(t)


def _grep(t: Text) -> tuple[str, str]:
    ident = t.ident()
    return f'rg -n "{ident}" src/', grep_output(t, lognorm_len(t.rng, 300, 1.2, 12_000))


def _service_logs(t: Text) -> tuple[str, str]:
    p = t.p
    return (
        f"docker compose logs {p.name} --tail {t.pick((50, 200, 500))}",
        lines_from(t, p.log_lines, lognorm_len(t.rng, 1200, 1.2, 19_000)),
    )


def _crash(t: Text) -> tuple[str, str]:
    return f"python -m {t.pick(t.p.dotted)}", t.pick(t.p.tracebacks)


def _ls(t: Text) -> tuple[str, str]:
    rng = t.rng
    p = t.p
    path = t.pick(p.paths)
    return f"ls -la {path.rsplit('/', 1)[0]}", "\n".join(
        f"-rw-r--r-- 1 dev dev {rng.randrange(200, 40000):>6} Oct {rng.randrange(1, 30):>2}"
        f" 12:{rng.randrange(60):02d} {q.rsplit('/', 1)[-1]}"
        for q in rng.sample(p.paths, min(len(p.paths), rng.randrange(2, 15)))
    )


#: Picked by ``randrange(10)``: repeats set the odds (3 in 10 run the tests).
_COMMANDS: tuple[_Command, ...] = (
    *(_run_tests,) * 3,
    *(_git,) * 2,
    *(_grep,) * 2,
    _service_logs,
    _crash,
    _ls,
)


def command(t: Text) -> tuple[str, str]:
    """A shell command and its output, capped like the longest real outputs seen (~20k)."""
    cmd, out = _COMMANDS[t.rng.randrange(len(_COMMANDS))](t)
    return cmd, out[: MAX_TEXT - 200]  # room for Codex's exec_command header
