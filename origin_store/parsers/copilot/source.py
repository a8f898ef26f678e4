"""GitHub Copilot CLI: where its logs live and how each of its files is read (research/formats.md §11).

Placeholder until its parser lands: the source is registered, so its memory files are read.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..base import Source

NAME = "copilot"


def roots(environ: Mapping[str, str], home: Path) -> list[Path]:
    return []


SOURCE = Source(name=NAME, roots=roots, files=())
