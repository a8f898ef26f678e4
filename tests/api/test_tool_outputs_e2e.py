"""Every word of a tool's output, through a real `origin mcp` over the project's samples: Claude
Code's 97 KB Bash output kept out of line in `tool-results/` (the transcript holds a 2 KB
preview), and failed commands marked alike in Claude Code and Codex."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from helpers import cut, fixture_env
from mcp_client import ORIGIN, stdio_client, tool_json

from origin_store.parsers.base import split_output as split
from origin_store.textclip import STORED_CHARS

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

SESSION = "5d2e8a41-7c3b-4f60-9e1d-3a4b5c6d7e8f"
OUTPUT = f"projects/-home-dev-demo-app/{SESSION}/tool-results/b7q2k9x4m.txt"
LAST_PART = f"claude-code:{SESSION}:tool-results/b7q2k9x4m#6"
#: When Claude Code wrote the file: just before the line that names it.
WRITTEN = 1_792_746_006_250
CLAUDE_FAILED = "claude-code:f0000007-0000-4000-8000-000000000007"
CODEX_FAILED = "codex:019a1c2d-3e4f-7a50-8b61-7c8d9e0fa1b2:L14"
RAW_CHARS = 4_000


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    found = fixture_env(tmp_path, copy=True)
    os.utime(Path(found["CLAUDE_CONFIG_DIR"]) / OUTPUT, ns=(WRITTEN * 10**6, WRITTEN * 10**6))
    return {**os.environ, **found, "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0"}


def ingest(env: dict[str, str]) -> dict:
    done = subprocess.run(
        [ORIGIN, "ingest", "--json"], env=env, capture_output=True, text=True, check=True
    )
    return dict(json.loads(done.stdout))


async def found_in(client, word: str, source: str = "claude-code") -> dict[str, dict]:
    """The events of `source` that a search with include_tools finds (other agents' samples
    have words of their own)."""
    result = await tool_json(client, "search", {"query": word, "include_tools": True, "limit": 100})
    return {e["id"]: e for e in result["events"] if e["id"].startswith(f"{source}:")}


async def test_a_word_at_the_end_of_a_persisted_output(env):
    side = Path(env["CLAUDE_CONFIG_DIR"]) / OUTPUT
    text = side.read_text()
    last = split(text)[-1]
    shown = f"[part 7 of 7, tool-results/b7q2k9x4m.txt] {last}"
    async with stdio_client(env) as client:
        found = await found_in(client, "refused")
        # Near the end of 97 KB: past the 2 KB preview and the 20,000 characters kept of a text.
        assert text.index("refused") > 95_000
        assert set(found) == {LAST_PART}
        assert "[refused]" in found[LAST_PART]["snippet"]
        assert found[LAST_PART]["kind"] == "tool_result"
        got = await tool_json(client, "get", {"id": LAST_PART})
        assert got["text"] == cut(shown, STORED_CHARS) == shown
        assert (got["session"], got["project"]) == (SESSION, "demo-app")
        [source] = await tool_json(client, "sources", {"id": LAST_PART})
        line = json.dumps(
            {"table": "file", "key": str(side), "row": {"text": text, "mtime_ms": WRITTEN}},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        assert source["original_file"] == str(side)
        assert source["mirror_file"] and source["line"] == 1
        assert source["raw"] == cut(line, RAW_CHARS)
    # Everything is in; a second pass adds nothing, nor does the file touched again.
    os.utime(side)
    again = ingest(env)
    assert (again["events"], again["skipped_lines"], again["errors"]) == (0, {}, [])
    # The agent deletes old sessions: the archive keeps the output and where it came from.
    side.unlink()
    async with stdio_client(env) as client:
        assert set(await found_in(client, "refused")) == {LAST_PART}
        [kept] = await tool_json(client, "sources", {"id": LAST_PART})
        assert kept == source


async def test_an_output_written_after_its_line_is_found_when_it_comes(env):
    side = Path(env["CLAUDE_CONFIG_DIR"]) / OUTPUT
    held = side.with_name("held")
    side.rename(held)
    async with stdio_client(env) as client:
        assert await found_in(client, "refused") == {}
        preview = await found_in(client, "Output too large")
        assert "claude-code:f0000005-0000-4000-8000-000000000005" in preview
        held.rename(side)
        deadline = time.monotonic() + 10
        while not (found := await found_in(client, "refused")) and time.monotonic() < deadline:
            await anyio.sleep(0.2)
        assert set(found) == {LAST_PART}
        got = await tool_json(client, "get", {"id": LAST_PART})
        assert got["project"] == "demo-app"


async def test_failed_commands_are_marked_alike(env):
    async with stdio_client(env) as client:
        assert CLAUDE_FAILED in await found_in(client, "quokkaguard")  # search ingests first
        claude = await tool_json(client, "get", {"id": CLAUDE_FAILED})
        codex = await tool_json(client, "get", {"id": CODEX_FAILED})
        assert claude["text"].startswith("[error] Exit code 3\n")
        assert codex["text"].startswith("[error] Chunk ID: 7c31d0\n")
        assert "Process exited with code 3" in codex["text"]
        # Origin's mark is shown, not searched: the log's words are.
        assert CLAUDE_FAILED not in await found_in(client, "error")
        assert CODEX_FAILED in await found_in(client, "lint:strict", "codex")
        mcp = await found_in(client, "mcp__origin__search", "codex")
        assert "codex:019a1c2d-3e4f-7a50-8b61-7c8d9e0fa1b2:L9" in mcp
