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
#: sessions. Seen in the agents' own releases: Codex 0.171 says `codex-mcp-client`, Gemini CLI
#: 0.61 `gemini-cli-mcp-client`, OpenCode 1.18 `opencode`, Copilot CLI 1.0.102 `copilot-cli`.
MCP_CLIENTS: dict[str, str] = {
    "claude-code": "claude-code",
    "codex-mcp-client": "codex",
    "gemini-cli-mcp-client": "gemini",
    "opencode": "opencode",
    "copilot-cli": "copilot",
}
#: Names that carry the server's name after a prefix: Qwen Code 0.15 says
#: `qwen-cli-mcp-client-<server>` (`qwen-cli-mcp-client-origin`).
MCP_CLIENT_PREFIXES: dict[str, str] = {"qwen-cli-mcp-client-": "qwen"}


def agent_of_client(name: str) -> str:
    """The source id of a known agent's MCP client name; any other name as it comes."""
    if name in MCP_CLIENTS:
        return MCP_CLIENTS[name]
    return next((a for p, a in MCP_CLIENT_PREFIXES.items() if name.startswith(p)), name)
