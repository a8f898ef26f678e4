"""Qwen Code's session logs (research/formats.md §9)."""
