"""OpenCode's session logs (research/formats.md §10)."""
