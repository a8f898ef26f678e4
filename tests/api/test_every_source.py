"""Every source the contract names, through the real `origin mcp`: found by `search`, listed by
`timeline`, read whole by `get`, and traced by `sources` to the raw line it came from, which for
a database is the row as it was read (its row log's line) and for a log its own line."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest
from helpers import DATA, fixture_env
from mcp_client import stdio_client, tool_json

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

#: (source, words, session, what the original file's name ends with) for each kind of store.
CASES = [
    ("claude-code", "token bucket", "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10", ".jsonl"),
    ("codex", "tsconfig", "019a0b1c-2d3e-7f40-8a51-6b7c8d9e0f12", ".jsonl"),
    ("cursor", "ranking score", "2a4c6e8f-0b1d-4f3a-9c5e-7a9b1c3d5e7f", "state.vscdb"),
    ("cursor", "NDJSON", "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b", "store.db"),
    ("cursor", "reindex", "3b5d7f9a-1c2e-4a6b-8d0f-2e4a6c8e0a2c", ".jsonl"),
    ("zcode", "inventory count", "sess_5ac3763d-aa16-5d25-a952-a4c1d174222f", "db.sqlite"),
    ("grok", "uptime helper", "019b4c11-5a6b-7c7d-8e8f-909192939495", "updates.jsonl"),
    ("grok", "login", "5c2e8a1f9b30", "grok.db"),
    ("qwen", "tide stations", "3a7c2e10-5b4d-4f6a-8c9e-1d2f3a4b5c6d", ".jsonl"),
    ("gemini", "kumquatlint", "7a2b3c4d-5e6f-4a7b-9c8d-b2c3d4e5f6a7", ".jsonl"),
    ("opencode", "glimmerword", "ses_189026d00001yogNbQdrrUHErg", "opencode.db"),
    ("copilot", "outgrebe", "5b1f7e20-3c4d-4e5f-8a6b-7c8d9e0f1a2b", "events.jsonl"),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, **fixture_env(tmp_path, copy=True)}


@pytest.mark.parametrize(("source", "words", "session", "ending"), CASES)
async def test_search_timeline_get_and_sources(env, source, words, session, ending):
    async with stdio_client(env) as client:
        found = await tool_json(
            client,
            "search",
            {"query": words, "source": source, "scope": "events", "include_tools": True},
        )
        hits = [e for e in found["events"] if e["session"] == session]
        assert hits, found
        assert all(e["source"] == source for e in found["events"])
        event = hits[0]
        whole = await tool_json(client, "get", {"id": event["id"]})
        assert whole["id"] == event["id"] and whole["text"]
        listed = await tool_json(
            client,
            "timeline",
            {"session": session, "source": source, "include_tools": True, "limit": 500},
        )
        assert event["id"] in [e["id"] for e in listed["events"]]
        [traced] = await tool_json(client, "sources", {"id": event["id"]})
        assert traced["original_file"].endswith(ending)
        assert isinstance(traced["line"], int) and traced["line"] >= 1
        raw = orjson.loads(traced["raw"])
        if ending.endswith((".vscdb", ".db", ".sqlite")):
            # A database's raw line is the row as read: its table, its key and its columns.
            assert set(raw) == {"table", "key", "row"} and isinstance(raw["row"], dict)
        assert words.split()[0].lower() in traced["raw"].lower() or raw


async def test_memory_files_become_imported_entries_that_follow_the_file(env):
    """An agent's memory file is an imported entry citing its memory event; a correction made in
    Origin is superseded by the file's next version; a forgotten one stays forgotten."""
    claude = Path(env["CLAUDE_CONFIG_DIR"])
    memory = claude / "CLAUDE.md"
    shutil.copy(DATA / "memory" / "claude-code" / "CLAUDE.md", memory)
    async with stdio_client(env) as client:
        found = await tool_json(client, "search", {"query": "", "scope": "entries"})
        imported = [e for e in found["entries"] if e.get("imported")]
        assert len(imported) == 1, found
        entry = imported[0]
        assert entry["author"] == "claude-code@testbox" and entry["kind"] == "memory"
        [cited] = await tool_json(client, "sources", {"id": entry["id"]})
        assert cited["event_id"].startswith(f"claude-code:memory:{memory}@")
        assert cited["original_file"] == str(memory)
        corrected = await tool_json(
            client,
            "correct",
            {"id": entry["id"], "text": "Answer in English only."},
        )
        assert corrected["entry"]["text"] == "Answer in English only."
    memory.write_text(memory.read_text() + "\n- Prefer small commits.\n")
    async with stdio_client(env) as client:
        found = await tool_json(client, "search", {"query": "small commits", "include_tools": True})
        assert [e["kind"] for e in found["events"]] == ["memory"]  # the file's new version
        [current] = [e for e in found["entries"] if e.get("imported")]
        assert "Prefer small commits." in current["text"]
        assert current["supersedes"] == corrected["entry"]["id"]
        await tool_json(client, "forget", {"id": current["id"], "reason": "the user asked"})
    memory.write_text(memory.read_text() + "\n- Keep the changelog.\n")
    async with stdio_client(env) as client:
        found = await tool_json(
            client, "search", {"query": "changelog", "scope": "all", "include_tools": True}
        )
        assert not [e for e in found["entries"] if e.get("imported")]
        assert not [e for e in found["events"] if "changelog" in e["text"]]
