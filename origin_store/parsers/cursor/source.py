"""Cursor: the IDE's chats (`state.vscdb` databases under the IDE's user folder) and the
`cursor-agent` CLI's chats and agent transcripts (under `~/.cursor`). One session per chat id
across all of them: a transcript with a composer's or an agent's id joins that chat. Layout and
field notes: research/formats.md §3; each kind's module says how its files are read.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..base import Source
from .cli import CLI_DB
from .common import NAME
from .ide import GLOBAL_DB
from .transcripts import TEXT_TRANSCRIPTS, TRANSCRIPTS
from .workspace import WORKSPACE_DB


def roots(environ: Mapping[str, str], home: Path) -> list[Path]:
    """Cursor has no variable that moves its data: the IDE's user folder where Electron puts it
    on Linux (XDG_CONFIG_HOME, else ~/.config), macOS and Windows (APPDATA), then ~/.cursor and
    a remote host's ~/.cursor-server. Each kind's patterns match under the roots that hold it."""
    config = environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    found = [
        Path(config) / "Cursor" / "User",
        home / "Library" / "Application Support" / "Cursor" / "User",
    ]
    appdata = environ.get("APPDATA")
    if appdata:
        found.append(Path(appdata) / "Cursor" / "User")
    found += [home / ".cursor", home / ".cursor-server"]
    return list(dict.fromkeys(found))


SOURCE = Source(
    name=NAME,
    roots=roots,
    files=(GLOBAL_DB, WORKSPACE_DB, CLI_DB, TRANSCRIPTS, TEXT_TRANSCRIPTS),
)
