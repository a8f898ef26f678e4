"""Test helpers shared by every test package: where the sample logs are, environments over them."""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING

from origin_store.parsers.agents import AGENTS

if TYPE_CHECKING:
    from origin_store import Store

ROOT = Path(__file__).resolve().parents[1]
#: The project's own sample logs, one folder per agent laid out as that agent's home directory.
DATA = ROOT / "tests" / "data"
#: The steering repo's fixtures, used only to cross-check the parsers where a checkout has them.
#: ORIGIN_TEST_SHARED moves it (a missing folder there shows how a lone clone runs).
SHARED_FIXTURES = (
    Path(os.environ.get("ORIGIN_TEST_SHARED") or ROOT.parent / "shared").resolve() / "fixtures"
)
#: The logs the tests run over by default.
FIXTURES = DATA


def sample_root(name: str, root: Path = DATA) -> Path:
    """One agent's sample logs under `root`. The project's own samples of an agent that keeps
    databases have a `make_db.py` beside them (`build(root)`, standard library only, so that no
    binary is kept in the repository): they are copied to a temporary folder once per test
    session and the databases built there."""
    samples = root / name
    if root == DATA and (samples / "make_db.py").is_file():
        return _built(samples)
    return samples


@functools.cache
def _built(samples: Path) -> Path:
    target = Path(tempfile.mkdtemp(prefix=f"origin-samples-{samples.name}-")) / samples.name
    atexit.register(shutil.rmtree, target.parent, True)
    shutil.copytree(samples, target)
    spec = importlib.util.spec_from_file_location(f"make_db_{samples.name}", samples / "make_db.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.build(target)
    return target


def fixture_env(tmp_path: Path, *, copy: bool = False, root: Path = DATA) -> dict[str, str]:
    """Environment for an Origin home whose agents' logs are the sample logs under `root`.

    With `copy`, the logs are copied into tmp_path first so a test may append to them; the
    samples themselves are read in place otherwise (and must not be written to). Cursor has no
    variable that moves its folders, so they are linked into the home the environment names.
    """
    places = {}
    for name in AGENTS:
        found = sample_root(name, root)
        if copy:
            found = Path(shutil.copytree(found, tmp_path / "agents" / name, symlinks=True))
        places[name] = found
    home = tmp_path / "home"
    ours = root == DATA  # the project's samples lay Cursor out as a home; the fixtures do not
    cursor_user = places["cursor"] / (".config/Cursor/User" if ours else "Cursor/User")
    cursor_home = places["cursor"] / (".cursor" if ours else "cursor-home")
    (home / ".config" / "Cursor").mkdir(parents=True, exist_ok=True)
    for link, target in (
        (home / ".config/Cursor/User", cursor_user),
        (home / ".cursor", cursor_home),
    ):
        if target.is_dir() and not link.exists():
            link.symlink_to(target, target_is_directory=True)
    return {
        "HOME": str(home),
        "ORIGIN_HOME": str(tmp_path / "origin"),
        "CLAUDE_CONFIG_DIR": str(places["claude-code"]),
        "CODEX_HOME": str(places["codex"]),
        "ZCODE_STORAGE_DIR": str(places["zcode"]),
        "GROK_HOME": str(places["grok"]),
        "QWEN_HOME": str(places["qwen"] / ".qwen"),  # the samples and fixtures stand for HOME
        "GEMINI_CLI_HOME": str(places["gemini"]),  # its home: the samples hold its .gemini
        # Its samples are a home: the database, with tool-output/ beside it.
        "OPENCODE_DB": str(places["opencode"] / ".local/share/opencode/opencode.db"),
        "OPENCODE_CONFIG_DIR": str(places["opencode"] / ".config/opencode"),
        # Copilot's samples, like the shared fixtures, are a home with `.copilot` in it.
        "COPILOT_HOME": str(places["copilot"] / ".copilot"),
        "ORIGIN_DEVICE": "testbox",
        "ORIGIN_WATCH_INTERVAL_MS": "0",
        # No search server left behind by a test's fresh commands (tests/api/test_cli_linger.py).
        "ORIGIN_CLI_LINGER_S": "0",
    }


def ingested_store(tmp_path: Path) -> Store:
    """A real store over `fixture_env(tmp_path)` with every sample log ingested, open: the
    caller closes it."""
    from origin_store import Ingester, Settings, Store
    from origin_store.parsers.registry import SOURCES

    settings = Settings.from_env(fixture_env(tmp_path))
    store = Store.open(settings.home, map_size=settings.map_size)
    assert Ingester(store, settings, SOURCES).run().events > 200
    return store


def cut(text: str, limit: int) -> str:
    """The contract's cut of a whole text, the tests' oracle: its first `limit` characters, then
    the number of characters cut noted at the end (the store keeps only a head and a count)."""
    from origin_store.textclip import cut_note

    return text if len(text) <= limit else text[:limit] + cut_note(len(text) - limit)


def resident(path: Path) -> int:
    """Bytes of this process's maps of the file at `path`, or of the files under the directory
    at `path`, that are resident (smaps' Rss)."""
    wanted = str(path.resolve())
    total = 0
    inside = False
    with open("/proc/self/smaps", encoding="utf-8", errors="replace") as f:
        for line in f:
            head = line.split(maxsplit=5)
            if head and "-" in head[0] and not head[0].endswith(":") and len(head) >= 5:
                name = head[5].rstrip("\n") if len(head) == 6 else ""
                inside = name == wanted or name.startswith(wanted + os.sep)
            elif inside and line.startswith("Rss:"):
                total += int(line.split()[1]) << 10
    return total


#: A Claude Code session whose first lines carry no time, as Claude Code starts a session
#: (`permission-mode`, `mode`), then a prompt that has one.
TIMELESS_SESSION = "0d1e5500-0000-4000-8000-000000000001"
TIMELESS_PROMPT_TIME = "2026-10-22T08:00:00.000Z"


def timeless_env(tmp_path: Path) -> dict[str, str]:
    """`fixture_env` over agent folders that hold nothing but `TIMELESS_SESSION`."""
    import json

    root = tmp_path / "timeless"
    folder = root / "claude-code" / "projects" / "-home-dev-timeless"
    folder.mkdir(parents=True)
    lines = [
        {"type": "permission-mode", "permissionMode": "plan", "sessionId": TIMELESS_SESSION},
        {"type": "mode", "mode": "normal", "sessionId": TIMELESS_SESSION},
        {
            "parentUuid": None,
            "isSidechain": False,
            "type": "user",
            "message": {"role": "user", "content": "Plan the heliotrope rollout."},
            "uuid": "0d1e5500-0000-4000-8000-0000000000a1",
            "timestamp": TIMELESS_PROMPT_TIME,
            "cwd": "/home/dev/timeless",
            "sessionId": TIMELESS_SESSION,
            "version": "2.1.197",
        },
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    (folder / f"{TIMELESS_SESSION}.jsonl").write_text(text, encoding="utf-8")
    return fixture_env(tmp_path, root=root)


# -- transcript: what in rendered HTML would act (tests of origin_api.transcript and the UI) ---

#: Elements no rendered text may make: what runs, loads, frames or styles.
ACTING = frozenset(
    {"script", "img", "iframe", "object", "embed", "svg", "style", "link", "meta", "base", "form"}
)
#: The schemes a rendered link may have.
SCHEMES = ("http://", "https://", "mailto:")


class _Elements(HTMLParser):
    """The elements and attributes a browser would make of the HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))


def acting(html: str) -> list[str]:
    """What in `html` would act: an element of ACTING, a handler (`on…`), an inline style, a
    `src`, or a link to anything but the web or mail. Empty when nothing would."""
    parser = _Elements()
    parser.feed(html)
    parser.close()
    bad: list[str] = []
    for tag, attrs in parser.found:
        if tag in ACTING:
            bad.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on") or name in ("style", "src", "srcdoc", "action"):
                bad.append(f"{tag} {name}")
            if name == "href" and not (value or "").lower().startswith(SCHEMES):
                bad.append(f"{tag} href={value}")
    return bad


# -- lingering search servers (tests/conftest.py ends those the suite left) -----------------


def _started(stat: bytes) -> int:
    """A process's start, in clock ticks since boot (/proc/PID/stat's 22nd field)."""
    return int(stat.rsplit(b")", 1)[1].split()[19])


#: When this test process started: a server that started later was started by the suite.
STARTED = _started(Path("/proc/self/stat").read_bytes())


#: This installation: a server it started runs its Python (`lingering.start_lingering`).
_OURS = (sys.prefix.rstrip("/") + "/").encode()


def lingering_servers() -> Iterator[tuple[int, str, int]]:
    """Every lingering search server (`python -m PROCESS`) of this user, with the home it serves
    (ORIGIN_HOME, or HOME's .origin) and when it started."""
    from origin_api.lingering import PROCESS

    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            if PROCESS.encode() not in command or not command.startswith(_OURS):
                continue
            environ = dict(
                pair.split(b"=", 1)
                for pair in (entry / "environ").read_bytes().split(b"\0")
                if b"=" in pair
            )
            started = _started((entry / "stat").read_bytes())
        except (OSError, ValueError, IndexError):
            continue
        home = environ.get(b"ORIGIN_HOME") or environ.get(b"HOME", b"~") + b"/.origin"
        yield int(entry.name), home.decode(errors="replace"), started
