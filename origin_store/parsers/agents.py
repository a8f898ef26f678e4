"""The names of the agents whose logs Origin reads, in the registry's order, without their
parsers: the tools' descriptions and the source filters need only the names, and importing
every parser costs a fresh `origin search` ~8 ms. `registry` builds its sources from the parser
modules and refuses to load if they do not name exactly these."""

from __future__ import annotations

AGENTS: tuple[str, ...] = (
    "claude-code",
    "codex",
    "cursor",
    "zcode",
    "grok",
    "gemini",
    "opencode",
    "copilot",
    "qwen",
)

#: The names the agents give themselves as MCP clients (`clientInfo.name`, or a hub's
#: X-Origin-Client), each to its source id: a user reads an entry's author as the agent that wrote it,
#: and an agent whose client name is not its source id would otherwise be a stranger to its own
#: sessions. Seen in the agents' own releases: Codex 0.171 says `codex-mcp-client`.
MCP_CLIENTS: dict[str, str] = {
    "claude-code": "claude-code",
    "codex-mcp-client": "codex",
}


def agent_of_client(name: str) -> str:
    """The source id of a known agent's MCP client name; any other name as it comes."""
    return MCP_CLIENTS.get(name, name)
