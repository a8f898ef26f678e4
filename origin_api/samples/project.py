"""One fake repository: names, files, logs and tracebacks its sessions share.

Every draw here comes from the context's rng in a fixed order, so the order of the statements
(and of the template tables) is part of the output: moving one changes every corpus.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .common import BASE_MS, END_MS, cap, iso, slug
from .vocab import NOUNS, SUFFIXES, VERBS


@dataclass(slots=True)
class Project:
    """One fake repository: its name, identifiers and files, so its sessions share vocabulary."""

    name: str
    cwd: str
    slug: str
    lang: str
    camel: list[str]
    snake: list[str]
    pascal: list[str]
    dotted: list[str]
    paths: list[str]
    errors: list[str]
    envs: list[str]
    hashes: list[str]
    tests: list[str]
    branches: list[str]
    repo_url: str
    files: list[tuple[str, list[str]]] = field(default_factory=list)
    log_lines: list[str] = field(default_factory=list)
    test_lines: list[str] = field(default_factory=list)
    tracebacks: list[str] = field(default_factory=list)

    @property
    def idents(self) -> list[str]:
        return self.camel + self.snake + self.pascal + self.dotted


class _Names:
    """A project's naming material while it is built: the rng, its nouns, keys and identifiers."""

    def __init__(self, rng: random.Random, nouns: list[str], phrases: list[str]) -> None:
        self.rng = rng
        self.c = rng.choice
        self.num = rng.randrange
        self.nouns = nouns
        self.phrases = phrases
        self.keys: list[str] = []
        self.camel: list[str] = []
        self.snake: list[str] = []
        self.pascal: list[str] = []
        self.dotted: list[str] = []

    def noun(self) -> str:
        return self.c(self.nouns)


_Template = Callable[[_Names], str]

#: Error messages, picked by ``randrange(len(_ERRORS))``.
_ERRORS: tuple[_Template, ...] = (
    lambda n: f"KeyError: '{n.c(n.keys)}'",
    lambda n: f"TypeError: {n.c(n.snake)}() missing 1 required positional argument: '{n.noun()}'",
    lambda n: f"AttributeError: '{n.c(n.pascal)}' object has no attribute '{n.c(n.snake)}'",
    lambda n: f"ValueError: invalid {n.noun()}: {n.num(1000)}",
    lambda n: (
        f"TypeError: Cannot read properties of undefined (reading '{n.noun()}{cap(n.noun())}')"
    ),
    lambda n: f"Error: connect ECONNREFUSED 127.0.0.1:{n.c((5432, 6379, 8080, 3000, 9200))}",
)

#: Source lines by project language; a file's body is a run of these.
_CODE: dict[str, tuple[_Template, ...]] = {
    "py": (
        lambda n: f"def {n.c(n.snake)}({n.c(n.keys)}, {n.c(n.keys)}=None):",
        lambda n: f"    {n.c(n.keys)} = {n.c(n.snake)}({n.c(n.keys)})",
        lambda n: f"    if {n.c(n.keys)} is None:",
        lambda n: (
            f'        raise {n.c(("ValueError", "KeyError", "RuntimeError"))}("{n.c(n.phrases)}")'
        ),
        lambda n: f"    return {n.c(n.snake)}({n.c(n.keys)}, timeout={n.num(1, 120)})",
        lambda n: f"class {n.c(n.pascal)}({n.c(n.pascal)}):",
        lambda n: f'    """{cap(n.c(n.phrases))}."""',
        lambda n: f"from {n.c(n.dotted)} import {n.c(n.pascal)}, {n.c(n.snake)}",
        lambda n: f"    for {n.c(n.keys)} in self.{n.c(n.snake)}():",
        lambda n: f'        self.{n.c(n.keys)} = payload.get("{n.c(n.keys)}", {n.num(100)})',
        lambda n: f'    logger.info("{n.c(n.phrases)} %s", {n.c(n.keys)})',
        lambda n: f"# {cap(n.c(n.phrases))}",
        lambda n: f"    assert {n.c(n.snake)}({n.c(n.keys)}) == {n.num(100)}",
        lambda n: f"    await self.{n.c(n.snake)}({n.c(n.keys)}, retries={n.num(1, 6)})",
        lambda n: f"    {n.c(n.keys)}: {n.c(n.pascal)} = field(default_factory=dict)",
        lambda n: "",
    ),
    "ts": (
        lambda n: (
            f"export async function {n.c(n.camel)}({n.c(n.keys)}: {n.c(n.pascal)}): Promise<{n.c(n.pascal)}> {{"
        ),
        lambda n: f"  const {n.c(n.camel)} = await {n.c(n.camel)}({n.c(n.keys)});",
        lambda n: f"  if (!{n.c(n.keys)}) throw new Error(`{n.c(n.phrases)}`);",
        lambda n: f"  return {{ ...{n.c(n.keys)}, count: {n.num(100)} }};",
        lambda n: "}",
        lambda n: f"import {{ {n.c(n.pascal)}, {n.c(n.camel)} }} from './{n.c(n.camel)}';",
        lambda n: f"export interface {n.c(n.pascal)} {{",
        lambda n: f"  {n.c(n.keys)}: {n.c(('string', 'number', 'boolean', 'Date'))};",
        lambda n: f"// {cap(n.c(n.phrases))}",
        lambda n: f"  logger.debug('{n.c(n.phrases)}', {{ {n.c(n.keys)} }});",
        lambda n: f"describe('{n.c(n.camel)}', () => {{",
        lambda n: f"  it('{n.c(n.phrases)}', async () => {{",
        lambda n: f"    expect({n.c(n.camel)}({n.c(n.keys)})).toBe({n.num(100)});",
        lambda n: "",
    ),
}

#: How a test result line reads, by language: (test id, passed, rng) -> line.
_TEST_LINE: dict[str, Callable[[str, bool, random.Random], str]] = {
    "py": lambda t, ok, rng: f"{t} {'PASSED' if ok else 'FAILED'} [{rng.randrange(1, 100):>3}%]",
    "ts": lambda t, ok, rng: f" {'✓' if ok else '×'} {t} ({rng.randrange(1, 400)} ms)",
}


def _unique(make: Callable[[], str], n: int) -> list[str]:
    """``n`` draws of ``make`` without repeats, in first-drawn order."""
    return list(dict.fromkeys(make() for _ in range(n)))


def _identifiers(n: _Names, pkg: str) -> None:
    rng = n.rng
    n.camel = _unique(
        lambda: n.c(VERBS) + cap(n.noun()) + (cap(n.noun()) if rng.random() < 0.5 else ""), 70
    )
    n.snake = _unique(
        lambda: f"{n.c(VERBS)}_{n.noun()}" + (f"_{n.noun()}" if rng.random() < 0.5 else ""), 70
    )
    n.pascal = _unique(lambda: cap(n.noun()) + n.c(SUFFIXES), 30)
    n.dotted = _unique(
        lambda: f"{pkg}.{n.noun()}s.{n.noun()}" if rng.random() < 0.5 else f"{n.noun()}.{n.noun()}",
        30,
    )


def _paths_and_tests(n: _Names, lang: str) -> tuple[list[str], list[str]]:
    if lang == "py":
        paths = _unique(lambda: f"src/{n.noun()}/{n.c(n.snake)}.py", 35)
        tests = _unique(lambda: f"tests/test_{n.noun()}.py::test_{n.c(n.snake)}", 40)
    else:
        paths = _unique(lambda: f"src/{n.noun()}/{n.c(n.camel)}.ts", 35)
        tests = _unique(lambda: f"test/{n.noun()}.test.ts > {n.c(n.phrases)}", 40)
    return paths, tests


def build_project(rng: random.Random, name: str, tail: list[str], phrases: list[str]) -> Project:
    """A project named ``name``: identifiers first, then the files, logs and tracebacks."""
    lang = rng.choice(("py", "py", "ts"))
    own = [rng.choice(tail) for _ in range(6)]  # project-specific rare nouns
    n = _Names(rng, rng.sample(NOUNS, 14) + own, phrases)
    pkg = name.replace("-", "_")
    _identifiers(n, pkg)
    paths, tests = _paths_and_tests(n, lang)
    n.keys = [f"{n.noun()}_id" for _ in range(6)] + [n.noun() for _ in range(4)]
    errors = [_ERRORS[rng.randrange(len(_ERRORS))](n) for _ in range(24)]
    envs = [
        f"{pkg.upper()}_{n.noun().upper()}_{n.c(('URL', 'TOKEN', 'TIMEOUT', 'PATH'))}"
        for _ in range(8)
    ]
    hashes = [f"{rng.getrandbits(160):040x}" for _ in range(40)]
    branches = [
        "main",
        "main",
        f"feat/{n.noun()}-{n.noun()}",
        f"fix/{n.c(n.snake).replace('_', '-')}",
        f"chore/{n.noun()}",
    ]
    cwd = f"/home/dev/{name}"
    project = Project(
        name=name,
        cwd=cwd,
        slug=slug(cwd),
        lang=lang,
        camel=n.camel,
        snake=n.snake,
        pascal=n.pascal,
        dotted=n.dotted,
        paths=paths,
        errors=errors,
        envs=envs,
        hashes=hashes,
        tests=tests,
        branches=branches,
        repo_url=f"git@github.com:example/{name}.git",
    )
    _add_material(rng, project, n)
    return project


def _add_material(rng: random.Random, p: Project, n: _Names) -> None:
    templates = _CODE[p.lang]
    code = [n.c(templates)(n) for _ in range(1500)]
    for path in p.paths:
        size = int(rng.lognormvariate(math.log(120), 0.8)) + 8
        start = rng.randrange(len(code))
        p.files.append((path, [code[(start + i) % len(code)] for i in range(min(size, 900))]))
    p.log_lines = [_log_line(rng, p, n.phrases) for _ in range(600)]
    line = _TEST_LINE[p.lang]
    p.test_lines = [line(t, rng.random() < 0.9, rng) for t in p.tests for _ in range(3)]
    p.tracebacks = [_traceback(rng, p) for _ in range(16)]


def _log_line(rng: random.Random, p: Project, phrases: list[str]) -> str:
    ms = BASE_MS + rng.randrange(END_MS - BASE_MS)
    level = rng.choice(("INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"))
    msg = rng.choice(phrases)
    extra = rng.random()
    if level == "ERROR" and extra < 0.7:
        msg = f"{msg}: {rng.choice(p.errors)}"
    elif extra < 0.3:
        msg = f"{msg} {rng.choice(p.idents)}={rng.randrange(10000)}"
    return f"{iso(ms)} {level:<5} {rng.choice(p.dotted)} {msg}"


def _traceback(rng: random.Random, p: Project) -> str:
    lines = ["Traceback (most recent call last):"]
    for _ in range(rng.randrange(3, 12)):
        path, body = rng.choice(p.files)
        lines.append(
            f'  File "{p.cwd}/{path}", line {rng.randrange(1, 400)}, in {rng.choice(p.snake)}'
        )
        lines.append(f"    {rng.choice(body).strip() or 'pass'}")
    lines.append(rng.choice(p.errors))
    return "\n".join(lines)
