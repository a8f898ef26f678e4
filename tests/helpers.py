"""Test helpers shared by every test package: where the sample logs are, environments over them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The project's own sample logs, one folder per agent laid out as that agent's home directory.
DATA = ROOT / "tests" / "data"
#: The steering repo's fixtures, used only to cross-check the parsers where a checkout has them.
#: ORIGIN_TEST_SHARED moves it (a missing folder there shows how a lone clone runs).
SHARED_FIXTURES = (
    Path(os.environ.get("ORIGIN_TEST_SHARED") or ROOT.parent / "shared").resolve() / "fixtures"
)
#: The logs the tests run over by default.
FIXTURES = DATA


def fixture_env(tmp_path: Path, *, copy: bool = False, root: Path = DATA) -> dict[str, str]:
    """Environment for an Origin home whose agents' logs are the sample logs under `root`.

    With `copy`, the logs are copied into tmp_path first so a test may append to them; the
    samples themselves are read in place otherwise (and must not be written to).
    """
    claude, codex = root / "claude-code", root / "codex"
    if copy:
        claude = Path(shutil.copytree(claude, tmp_path / "agents" / "claude"))
        codex = Path(shutil.copytree(codex, tmp_path / "agents" / "codex"))
    return {
        "HOME": str(tmp_path / "home"),
        "ORIGIN_HOME": str(tmp_path / "origin"),
        "CLAUDE_CONFIG_DIR": str(claude),
        "CODEX_HOME": str(codex),
        "ORIGIN_DEVICE": "testbox",
        "ORIGIN_WATCH_INTERVAL_MS": "0",
    }


def cut(text: str, limit: int) -> str:
    """The contract's cut of a whole text, the tests' oracle: its first `limit` characters, then
    the number of characters cut noted at the end (the store keeps only a head and a count)."""
    from origin_store.textclip import cut_note

    return text if len(text) <= limit else text[:limit] + cut_note(len(text) - limit)
