"""How each agent is told about Origin: one place for the exact commands, so the README, `make
run`, `origin mcp --help` and `origin register` can never drift apart again.

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
#: The agents `origin register` can configure, in the order they are shown.
AGENTS = ("claude-code", "codex")
#: Everything instructions are printed for (the MCP Inspector is a client, not an agent).
CLIENTS = (*AGENTS, "inspector")

Transport = Literal["stdio", "http"]


@dataclass(frozen=True, slots=True)
class Registration:
    """One client's entry for one transport: the command to run, and for Codex the TOML that
    command writes (so Origin can write it itself where the `codex` CLI is absent)."""

    client: str
    transport: Transport
    name: str
    argv: tuple[str, ...]
    toml: str | None = None

    @property
    def command(self) -> str:
        """The argv as one line a shell runs unchanged."""
        return shlex.join(self.argv)


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


def _toml_string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's for these characters)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if c >= " " else f"\\u{ord(c):04x}" for c in escaped) + '"'


def codex_toml(
    name: str, *, command: Path | None = None, url: str | None = None, token: str | None = None
) -> str:
    """Codex's `[mcp_servers.<name>]` table: a command for stdio, a URL and headers for HTTP."""
    lines = [f"[mcp_servers.{name}]"]
    if command is not None:
        lines += [f"command = {_toml_string(str(command))}", 'args = ["mcp"]']
    if url is not None:
        lines.append(f"url = {_toml_string(url)}")
        lines.append(f"[mcp_servers.{name}.http_headers]")
        lines.append(f"Authorization = {_toml_string('Bearer ' + (token or TOKEN_PLACEHOLDER))}")
        lines.append(f'"X-Origin-Client" = {_toml_string("codex")}')
    return "\n".join(lines) + "\n"


def registrations(
    origin: Path, *, hub_url: str | None = None, token: str | None = None
) -> list[Registration]:
    """Every client's registration: stdio always, HTTP too when a hub URL is given."""
    exe = str(origin)
    bearer = f"Authorization: Bearer {token or TOKEN_PLACEHOLDER}"
    found = [
        Registration(
            "claude-code",
            "stdio",
            STDIO_NAME,
            ("claude", "mcp", "add", "--scope", "user", STDIO_NAME, "--", exe, "mcp"),
        ),
        Registration(
            "codex",
            "stdio",
            STDIO_NAME,
            ("codex", "mcp", "add", STDIO_NAME, "--", exe, "mcp"),
            codex_toml(STDIO_NAME, command=origin),
        ),
        Registration(
            "inspector",
            "stdio",
            STDIO_NAME,
            ("npx", "@modelcontextprotocol/inspector", exe, "mcp"),
        ),
    ]
    if hub_url is not None:
        found += [
            Registration(
                "claude-code",
                "http",
                HUB_NAME,
                (
                    "claude",
                    "mcp",
                    "add",
                    "--scope",
                    "user",
                    "--transport",
                    "http",
                    HUB_NAME,
                    hub_url,
                    "--header",
                    bearer,
                    "--header",
                    "X-Origin-Client: claude-code",
                ),
            ),
            Registration(
                "codex",
                "http",
                HUB_NAME,
                (),
                codex_toml(HUB_NAME, url=hub_url, token=token),
            ),
            Registration(
                "inspector",
                "http",
                HUB_NAME,
                (
                    "npx",
                    "@modelcontextprotocol/inspector",
                    "--transport",
                    "http",
                    "--server-url",
                    hub_url,
                    "--header",
                    bearer,
                ),
            ),
        ]
    return found


def commands(
    origin: Path | None = None, *, hub_url: str | None = None, token: str | None = None
) -> dict[str, list[str]]:
    """What to show a person per client: one line per transport, or Codex's TOML where its CLI
    cannot say it (HTTP headers). `origin register <agent>` does the same for them."""
    shown: dict[str, list[str]] = {}
    for entry in registrations(origin or origin_executable(), hub_url=hub_url, token=token):
        text = entry.command if entry.argv else f"# in ~/.codex/config.toml\n{entry.toml}".rstrip()
        shown.setdefault(entry.client, []).append(text)
    return shown


def instructions(
    origin: Path | None = None, *, hub_url: str | None = None, token: str | None = None
) -> str:
    """The registration block printed by `make run`, `origin mcp --help` and the docs."""
    labels = {"claude-code": "Claude Code", "codex": "Codex", "inspector": "MCP Inspector"}
    blocks = []
    for client, lines in commands(origin, hub_url=hub_url, token=token).items():
        body = "\n".join("    " + line for text in lines for line in text.splitlines())
        blocks.append(f"{labels[client]}:\n\n{body}")
    agents = "|".join(AGENTS)
    hub = " [--hub URL]" if hub_url else ""
    return "\n\n".join(blocks) + f"\n\nOr let Origin do it: origin register {agents}{hub}\n"
