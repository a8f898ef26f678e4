"""Qwen Code: where its logs live and how each of its files is read (research/formats.md §9).

Its home is `~/.qwen`. Two variables move it, both read in `Storage`
(packages/core/src/config/storage.ts, bundled in `cli.js` of @qwen-code/qwen-code 0.15.10):
`QWEN_HOME` replaces `~/.qwen` (`getGlobalQwenDir`: settings, `QWEN.md`, the auto-memory under
`projects/<slug>/memory/`), and `QWEN_RUNTIME_DIR` moves only what it writes as it runs
(`getRuntimeBaseDir`: `projects/<slug>/chats/`, `tmp/`, `debug/`), so both are roots when set.
Run against a scripted model, the CLI wrote its chat under each as said.
Like the CLI, a leading `~` in either is the home directory. A `runtimeOutputDir` setting does
what QWEN_RUNTIME_DIR does; settings are never read, so such a folder is not found.

The chats are read by `chats.py`. Large tool outputs saved under `tmp/<hash>/` are not read: the
session log holds a shell output whole, and the files name no session (see chats.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..base import Source
from .chats import CHATS, NAME

__all__ = ["NAME", "SOURCE", "roots"]


def _place(value: str, home: Path) -> Path:
    if value == "~" or value.startswith(("~/", "~\\")):
        return home.joinpath(*[p for p in value[2:].replace("\\", "/").split("/") if p])
    return Path(value)


def roots(environ: Mapping[str, str], home: Path) -> list[Path]:
    """The runtime folder (chats) when QWEN_RUNTIME_DIR moves it, then the home (memory)."""
    configured = environ.get("QWEN_HOME")
    found = [_place(configured, home) if configured else home / ".qwen"]
    runtime = environ.get("QWEN_RUNTIME_DIR")
    if runtime and _place(runtime, home) not in found:
        found.insert(0, _place(runtime, home))
    return found


SOURCE = Source(name=NAME, roots=roots, files=(CHATS,))
