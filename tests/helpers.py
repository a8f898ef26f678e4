"""Test helpers shared by every test package: where the fixtures are, environments over them."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = (ROOT.parent / "shared" / "fixtures").resolve()


def fixture_env(tmp_path: Path, *, copy: bool = False) -> dict[str, str]:
    """Environment for an Origin home whose agents' logs are the shared fixtures.

    With `copy`, the logs are copied into tmp_path first so a test may append to them; the
    fixtures themselves are read-only and read in place otherwise.
    """
    claude, codex = FIXTURES / "claude-code", FIXTURES / "codex"
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
