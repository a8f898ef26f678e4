"""What the demo's shell commands print: test runs, tracebacks, grep, git, service logs.

Each function draws from the session's rng only, so a session's outputs follow from its seed.
"""

from __future__ import annotations

import random

from ..common import iso
from .code import Change
from .projects import DemoProject, Part

_RULE = "=" * 30


def test_names(part: Part, rng: random.Random, n: int) -> list[str]:
    """Plausible test ids in ``part``'s test file."""
    cases = (
        "happy_path",
        "empty_input",
        "unknown_key",
        "retries",
        "utc_dates",
        "pagination",
        "rounding",
        "concurrent_calls",
        "invalid_payload",
        "timeout",
    )
    picked = rng.sample(cases, min(n, len(cases)))
    return [f"test_{part.func}_{case}" for case in picked]


def pytest_run(
    p: DemoProject, part: Part, rng: random.Random, bug: Change | None, line: int
) -> str:
    """``pytest -q``: dots, and when ``bug`` is given a failure with its traceback."""
    total = rng.randrange(48, 420)
    secs = f"{rng.uniform(1.5, 28):.2f}s"
    if bug is None:
        dots = "." * min(total, 72)
        return f"{dots}{' ' * (74 - len(dots))}[100%]\n{total} passed in {secs}"
    test = test_names(part, rng, 1)[0]
    frames = (
        f'{part.test}:{rng.randrange(12, 90)}: in {test}\n    result = {part.func}(db, key="a")\n'
        f"{part.path}:{line}: in {part.func}\n    {bug.old.strip().splitlines()[0]}"
    )
    head = "." * rng.randrange(10, 40) + "F" + "." * rng.randrange(5, 30)
    return (
        f"{head}{' ' * max(1, 74 - len(head))}[100%]\n"
        f"{_RULE}===== FAILURES {_RULE}=====\n"
        f"{'_' * 20} {test} {'_' * 20}\n\n{frames}\nE   {bug.error}\n"
        f"{_RULE} short test summary info {_RULE}\n"
        f"FAILED {part.test}::{test} - {bug.error}\n"
        f"1 failed, {total - 1} passed in {secs}"
    )


def vitest_run(
    p: DemoProject, part: Part, rng: random.Random, bug: Change | None, line: int
) -> str:
    """``npx vitest run``: the files, and when ``bug`` is given the failing assertion."""
    files = rng.randrange(8, 40)
    tests = rng.randrange(40, 260)
    dur = f"{rng.uniform(1.2, 9):.2f}s"
    head = f"\n RUN  v2.1.4 {p.cwd}\n\n"
    if bug is None:
        return (
            head + f" ✓ {part.test} ({rng.randrange(3, 12)} tests) {rng.randrange(20, 400)}ms\n\n"
            f" Test Files  {files} passed ({files})\n      Tests  {tests} passed ({tests})\n"
            f"   Duration  {dur}"
        )
    case = test_names(part, rng, 1)[0].removeprefix("test_").replace("_", " ")
    return (
        head + f" ❯ {part.test} (6 tests | 1 failed)\n   × {case}\n\n"
        f" FAIL  {part.test} > {case}\n{bug.error}\n ❯ {part.path}:{line}:{rng.randrange(3, 30)}\n\n"
        f" Test Files  1 failed | {files - 1} passed ({files})\n"
        f"      Tests  1 failed | {tests - 1} passed ({tests})\n   Duration  {dur}"
    )


def test_run(p: DemoProject, part: Part, rng: random.Random, bug: Change | None, line: int) -> str:
    run = vitest_run if p.lang == "ts" else pytest_run
    return run(p, part, rng, bug, line)


def traceback(p: DemoProject, part: Part, bug: Change, line: int, cmd: str) -> str:
    """What a crashed command prints."""
    if p.lang == "ts":
        return f"{bug.error}\n    at {part.func} ({p.cwd}/{part.path}:{line}:12)\n    at async main"
    entry = cmd.split()[-1] if cmd.startswith("python") else "deployctl"
    return (
        "Traceback (most recent call last):\n"
        f'  File "{p.cwd}/.venv/bin/{entry}", line 8, in <module>\n    sys.exit(main())\n'
        f'  File "{p.cwd}/{part.path}", line {line}, in {part.func}\n'
        f"    {bug.old.strip().splitlines()[0]}\n{bug.error}"
    )


def grep(p: DemoProject, part: Part, word: str, rng: random.Random) -> str:
    """``rg -n word``: hits in the part's file, its test and a neighbour."""
    others = [q for q in p.parts if q is not part]
    other = rng.choice(others) if others else part
    return "\n".join(
        (
            f"{part.path}:{rng.randrange(10, 40)}:def {part.func}(session: Session, key: str):"
            if p.lang == "py"
            else f"{part.path}:{rng.randrange(5, 30)}:export async function {part.func}(input: Input) {{",
            f"{part.path}:{rng.randrange(41, 90)}:    {'//' if p.lang == 'ts' else '#'} {word}:"
            f" see {other.path}",
            f"{part.test}:{rng.randrange(5, 60)}:from {part.path.removesuffix('.py').replace('/', '.')}"
            f" import {part.func}"
            if p.lang == "py"
            else f"{part.test}:3:import {{ {part.func} }} from './{part.path.rsplit('/', 1)[-1]}';",
            f"{other.path}:{rng.randrange(10, 120)}:    result = {part.func}(session, key)",
        )
    )


def git_status(branch: str, paths: list[str]) -> str:
    files = "\n".join(f"\tmodified:   {path}" for path in dict.fromkeys(paths))
    return (
        f"On branch {branch}\nChanges not staged for commit:\n"
        '  (use "git add <file>..." to update what will be committed)\n'
        f'{files}\n\nno changes added to commit (use "git add" and/or "git commit -a")'
    )


def git_commit(branch: str, message: str, files: int, rng: random.Random) -> str:
    sha = f"{rng.getrandbits(28):07x}"
    plus, minus = rng.randrange(4, 60), rng.randrange(0, 20)
    return (
        f"[{branch} {sha}] {message}\n {files} files changed, {plus} insertions(+),"
        f" {minus} deletions(-)"
    )


def service_logs(p: DemoProject, part: Part, at: int, rng: random.Random) -> str:
    """Recent log lines of the service, with the timeouts a timeout task is about."""
    lines = []
    ms = at - 3_600_000
    for _ in range(rng.randrange(6, 14)):
        ms += rng.randrange(20_000, 400_000)
        if rng.random() < 0.45:
            lines.append(
                f"{iso(ms)} ERROR {part.path.removesuffix('.py').replace('/', '.')} "
                f"{part.func} timed out after 30.0s (upstream=inventory, attempt=1)"
            )
        else:
            ms_taken = rng.randrange(12, 900)
            lines.append(f"{iso(ms)} INFO  uvicorn.access 200 {ms_taken}ms {part.func}")
    return "\n".join(lines)
