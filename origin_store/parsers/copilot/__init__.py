"""GitHub Copilot CLI's session logs (research/formats.md §11)."""
