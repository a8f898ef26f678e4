"""Every client's registration, and the texts shown to a person: one place for the exact
commands, so the README, `make run`, `origin mcp --help` and `origin register` can never drift
apart again."""

from __future__ import annotations

from pathlib import Path

from .base import (
    AGENT_LABEL,
    AGENTS,
    CLIENTS,
    HUB_NAME,
    STDIO_NAME,
    TOKEN_PLACEHOLDER,
    Registration,
    origin_executable,
)
from .codex import codex_toml
from .json_agents import json_registrations


def registrations(
    origin: Path, *, hub_url: str | None = None, token: str | None = None
) -> list[Registration]:
    """Every client's registration: stdio always, HTTP too when a hub URL is given."""
    found = _stdio(origin)
    if hub_url is not None:
        found += _http(hub_url, token)
    found += json_registrations(str(origin), hub_url, token)
    return sorted(found, key=lambda r: (r.transport == "http", CLIENTS.index(r.client)))


def _stdio(origin: Path) -> list[Registration]:
    """Claude Code's, Codex's and the MCP Inspector's entries for the stdio server."""
    exe = str(origin)
    return [
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


def _http(hub_url: str, token: str | None) -> list[Registration]:
    """Claude Code's, Codex's and the MCP Inspector's entries for the hub at `hub_url`."""
    bearer = f"Authorization: Bearer {token or TOKEN_PLACEHOLDER}"
    return [
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


def commands(
    origin: Path | None = None, *, hub_url: str | None = None, token: str | None = None
) -> dict[str, list[str]]:
    """What to show a person per client, one text per transport (a command, or for Codex its
    config.toml table). `origin register <agent>` does the same for them."""
    shown: dict[str, list[str]] = {}
    for entry in registrations(origin or origin_executable(), hub_url=hub_url, token=token):
        shown.setdefault(entry.client, []).append(entry.shown)
    return shown


def instructions(
    origin: Path | None = None, *, hub_url: str | None = None, token: str | None = None
) -> str:
    """The registration block printed by `make run`, `origin mcp --help` and the docs."""
    blocks = []
    for client, lines in commands(origin, hub_url=hub_url, token=token).items():
        body = "\n\n".join("\n".join("    " + line for line in text.splitlines()) for text in lines)
        where = " (in ~/.codex/config.toml)" if client == "codex" else ""
        blocks.append(f"{AGENT_LABEL[client]}{where}:\n\n{body}")
    agents = "|".join(AGENTS)
    hub = " [--hub URL]" if hub_url else ""
    return "\n\n".join(blocks) + f"\n\nOr let Origin do it: origin register {agents}{hub}\n"
