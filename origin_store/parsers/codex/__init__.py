"""Codex: its rollout files and the text of its tool outputs."""
