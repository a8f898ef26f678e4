"""Gemini CLI's session logs (research/formats.md §8)."""
