"""The names of the agents whose logs Origin reads, in the registry's order, without their
parsers: the tools' descriptions and the source filters need only the names, and importing
every parser costs a fresh `origin search` ~8 ms. `registry` builds its sources from the parser
modules and refuses to load if they do not name exactly these."""

from __future__ import annotations

AGENTS: tuple[str, ...] = ("claude-code", "codex", "cursor", "zcode", "grok")
