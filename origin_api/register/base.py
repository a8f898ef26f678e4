"""What every registration shares: the servers' names, the clients, the `Registration` record,
and where the `origin` an agent starts and the hub's URL are.

Names are distinct per transport (`origin` for stdio, `origin-hub` for HTTP) because an agent keeps
one entry per name: the same name for both makes the second registration refuse or overwrite.
Commands carry the absolute path of the installed `origin`, since agents start it with their own
PATH, which rarely holds a virtualenv's bin.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

STDIO_NAME = "origin"
HUB_NAME = "origin-hub"
#: Shown where the hub's token is not known to the caller.
TOKEN_PLACEHOLDER = "ogn_…"
#: Where `origin run` keeps the hub's token for this user, under ORIGIN_HOME (mode 0600).
TOKEN_FILE = "hub-token"
#: The agents `origin register` can configure, in the order they are shown.
AGENTS = ("claude-code", "codex", "gemini", "qwen", "opencode", "copilot")
#: Everything instructions are printed for (the MCP Inspector is a client, not an agent).
CLIENTS = (*AGENTS, "inspector")
AGENT_LABEL = {
    "claude-code": "Claude Code",
    "codex": "Codex",
    "gemini": "Gemini CLI",
    "qwen": "Qwen Code",
    "opencode": "OpenCode",
    "copilot": "GitHub Copilot CLI",
    "inspector": "MCP Inspector",
}

Transport = Literal["stdio", "http"]


@dataclass(frozen=True, slots=True)
class Registration:
    """One client's entry for one transport: the command to run, and for Codex the TOML that
    command writes (so Origin can write it itself where the `codex` CLI is absent), or for an
    agent configured in JSON that file's fragment (`{key: {name: entry}}`)."""

    client: str
    transport: Transport
    name: str
    argv: tuple[str, ...]
    toml: str | None = None
    fragment: str | None = None

    @property
    def command(self) -> str:
        """The argv as one line a shell runs unchanged."""
        return shlex.join(self.argv)

    @property
    def shown(self) -> str:
        """What a person is given: Codex's TOML (its IDE extension reads the same file, with or
        without the `codex` CLI, and the CLI cannot set the hub's headers), else the command."""
        return (self.toml or "").rstrip() or self.command

    @property
    def written(self) -> str:
        """What Origin writes in the agent's file: the TOML table or the JSON fragment."""
        return (self.toml or self.fragment or "").rstrip()


def origin_executable() -> Path:
    """The `origin` an agent should start: the one running now when it is an `origin` script,
    else the one installed beside this interpreter (a virtualenv's, pipx's), else PATH's."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "origin" and argv0.is_file():
        return argv0.absolute()
    beside = Path(sys.executable).parent / "origin"
    if beside.is_file():
        return beside.absolute()
    found = shutil.which("origin")
    if found:
        return Path(found).absolute()
    return beside.absolute()


def default_hub_url(host: str = "127.0.0.1", port: int = 8765) -> str:
    """The URL clients use for a hub bound to host:port (a wildcard bind is reached on loopback)."""
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}/mcp"
