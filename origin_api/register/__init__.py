"""How each agent is told about Origin: one place for the exact commands, so the README, `make
run`, `origin mcp --help` and `origin register` can never drift apart again.

This is the face; its modules are its own: `base` (the servers' names, the clients, the
`Registration` record), `entries` (every client's registration and the texts shown),
`codex` (Codex's config.toml), `json_agents` (the agents configured in a JSON file) and
`apply` (`origin register` running an agent's CLI or editing its file).
"""

from __future__ import annotations

from .apply import AGENT_CLI, Outcome, masked, register, stored_token
from .base import AGENT_LABEL, AGENTS, TOKEN_FILE, default_hub_url, origin_executable
from .codex import codex_toml, upsert_table
from .entries import commands, instructions, registrations
from .json_agents import JSON_AGENTS, JsonAgent, loads_jsonc

__all__ = [
    "AGENTS",
    "AGENT_CLI",
    "AGENT_LABEL",
    "JSON_AGENTS",
    "TOKEN_FILE",
    "JsonAgent",
    "Outcome",
    "codex_toml",
    "commands",
    "default_hub_url",
    "instructions",
    "loads_jsonc",
    "masked",
    "origin_executable",
    "register",
    "registrations",
    "stored_token",
    "upsert_table",
]
