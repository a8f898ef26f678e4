"""The MCP contract: the tools, their arguments and the times they take."""
