"""`origin mcp` as agents meet it: a real subprocess, the SDK's client, the fixture logs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import orjson
import pytest
from helpers import fixture_env
from mcp_client import stdio_client, tool_error, tool_json

from origin_api.contract.tools import INSTRUCTIONS

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]
PROMPT_ID = "claude-code:a0000001-0000-4000-8000-000000000001"
SESSION_LOG = "projects/-home-dev-demo-app/7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10.jsonl"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def env(tmp_path: Path, fixtures_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        **fixture_env(tmp_path, copy=True),
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "500",
    }


@pytest.mark.parametrize("sdk", [False, True], ids=["lean", "sdk"])
async def test_handshake_tools_and_annotations(env, sdk):
    async with stdio_client(env, sdk=sdk) as client:
        # The server introduces itself with the tool table's instructions, which ask for `remember`.
        assert (
            client.instructions == INSTRUCTIONS and "Use `remember` for decisions" in INSTRUCTIONS
        )
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {
            "search",
            "timeline",
            "get",
            "sources",
            "remember",
            "correct",
            "forget",
            "ingest",
        }
        for name in ("search", "timeline", "get", "sources"):
            assert tools[name].annotations.read_only_hint is True
        assert tools["forget"].annotations.destructive_hint is True
        schema = tools["search"].input_schema
        assert schema["properties"]["limit"]["maximum"] == 100 and schema["properties"]["scope"][
            "enum"
        ] == ["all", "entries", "events"]
        assert tools["remember"].input_schema["required"] == [
            "kind",
            "text",
            "sources",
            "confidence",
        ]
        found = await tool_json(client, "search", {"query": "token bucket"})
        assert any(e["id"] == PROMPT_ID for e in found["events"])
        entry = (
            await tool_json(
                client,
                "remember",
                {
                    "kind": "memory",
                    "text": "Use a token bucket.",
                    "confidence": 0.9,
                    "sources": [{"event_id": PROMPT_ID}],
                },
            )
        )["entry"]
        assert entry["author"] == "claude-code@testbox"


@pytest.mark.parametrize("sdk", [False, True], ids=["lean", "sdk"])
@pytest.mark.parametrize(
    ("client_name", "author"),
    [
        ("codex-mcp-client", "codex@testbox"),  # Codex's MCP client: the agent, by its source id
        ("claude-code", "claude-code@testbox"),
        ("gemini-cli-mcp-client", "gemini@testbox"),
        ("qwen-cli-mcp-client-origin", "qwen@testbox"),  # Qwen Code adds the server's name
        ("opencode", "opencode@testbox"),
        ("copilot-cli", "copilot@testbox"),
        ("my-agent", "my-agent@testbox"),  # an unknown client keeps its own name
    ],
)
async def test_an_entry_is_authored_by_the_agent_not_its_client_name(env, sdk, client_name, author):
    async with stdio_client(env, name=client_name, sdk=sdk) as client:
        entry = (
            await tool_json(
                client,
                "remember",
                {
                    "kind": "memory",
                    "text": "Use a token bucket.",
                    "confidence": 0.9,
                    "sources": [{"event_id": PROMPT_ID}],
                },
            )
        )["entry"]
        assert entry["author"] == author
        got = await tool_json(client, "get", {"id": entry["id"]})
        assert [h["author"] for h in got["history"]] == [author]


async def test_every_tool_and_error_over_stdio(env):
    async with stdio_client(env, name="codex") as client:
        timeline = await tool_json(
            client, "timeline", {"since": "3650d", "project": "demo-app", "limit": 2}
        )
        assert len(timeline["sessions"]) == 2
        session = await tool_json(
            client,
            "timeline",
            {"session": "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10", "include_tools": True},
        )
        assert session["session"]["title"] == "rate-limiter" and len(session["events"]) > 10
        event = await tool_json(client, "get", {"id": PROMPT_ID})
        assert event["git_branch"] == "feat/rate-limit"
        [source] = await tool_json(client, "sources", {"id": PROMPT_ID})
        assert json.loads(source["raw"])["uuid"] == PROMPT_ID.split(":", 1)[1]
        entry = (
            await tool_json(
                client,
                "remember",
                {
                    "kind": "cognition",
                    "text": "Prefers vitest.",
                    "confidence": 0.7,
                    "sources": [{"quote": "cover it with a vitest test"}],
                },
            )
        )["entry"]
        assert entry["author"] == "codex@testbox"
        newer = (
            await tool_json(
                client,
                "correct",
                {"id": entry["id"], "text": "Prefers vitest over jest.", "confidence": 0.8},
            )
        )["entry"]
        got = await tool_json(client, "get", {"id": newer["id"]})
        assert [h["id"] for h in got["history"]] == [entry["id"], newer["id"]]
        assert got["sources"][0]["quote"] == "cover it with a vitest test"
        cited = await tool_json(client, "sources", {"id": newer["id"]})
        assert cited[0]["event_id"] == PROMPT_ID
        assert await tool_error(client, "correct", {"id": entry["id"], "text": "x"}) == (
            f"Entry {entry['id']} was already corrected; its current version is {newer['id']}."
            f" Correct that one instead."
        )
        assert (
            await tool_error(client, "get", {"id": "codex:nope"})
            == "Unknown entry or event codex:nope."
        )
        assert await tool_error(
            client,
            "remember",
            {
                "kind": "memory",
                "text": "x",
                "confidence": 1,
                "sources": [{"quote": "qqq zzz never"}],
            },
        ) == (
            'No event contains the quote "qqq zzz never". Search for the event and cite its id instead.'
        )
        assert await tool_error(
            client,
            "remember",
            {
                "kind": "memory",
                "text": "x",
                "confidence": 1,
                "sources": [{"event_id": PROMPT_ID, "quote": "not in it"}],
            },
        ) == (f'Quote not found in event {PROMPT_ID}: "not in it"')
        assert (await tool_error(client, "search", {"limit": 500})).startswith(
            "limit must be between 1 and 100"
        )
        assert (await tool_error(client, "search", {"limit": "x"})) == "limit must be an integer."
        assert (await tool_error(client, "forget", {"id": PROMPT_ID})) == "reason is required."
        gone = await tool_json(client, "forget", {"id": newer["id"], "reason": "the user asked"})
        assert gone["tombstone"].startswith("tmb_") and set(gone["forgotten_entries"]) == {
            entry["id"],
            newer["id"],
        }
        assert (
            await tool_error(client, "get", {"id": newer["id"]})
            == f"{newer['id']} has been forgotten."
        )
        assert await tool_error(
            client,
            "remember",
            {"kind": "memory", "text": "x", "confidence": 1, "sources": [{"event_id": PROMPT_ID}]},
        ) == (f"Event {PROMPT_ID} has been forgotten and cannot be cited.")
        restore = await anyio.run_process(
            [
                os.path.join(os.path.dirname(os.sys.executable), "origin"),
                "restore",
                gone["tombstone"],
                "--json",
            ],
            env=env,
            check=True,
        )
        assert json.loads(restore.stdout)["restored_events"] == 1
        assert (await tool_json(client, "get", {"id": newer["id"]}))["entry"]["id"] == newer["id"]


async def test_freshness_new_line_is_found_and_citable_without_restart(env):
    log = Path(env["CLAUDE_CONFIG_DIR"]) / SESSION_LOG
    async with stdio_client(env) as client:
        assert (await tool_json(client, "search", {"query": "zebracorn"}))["events"] == []
        line = {
            "parentUuid": None,
            "isSidechain": False,
            "type": "user",
            "cwd": "/home/dev/demo-app",
            "sessionId": "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10",
            "version": "2.1.241",
            "gitBranch": "feat/rate-limit",
            "uuid": "f00dcafe-0000-4000-8000-00000000beef",
            "timestamp": "2026-10-20T10:59:00.000Z",
            "message": {
                "role": "user",
                "content": "Let us call the new limiter zebracorn from now on.",
            },
        }
        with open(log, "ab") as f:
            f.write(orjson.dumps(line) + b"\n")
        entry = (
            await tool_json(
                client,
                "remember",
                {
                    "kind": "memory",
                    "text": "The limiter is called zebracorn.",
                    "confidence": 0.9,
                    "sources": [{"quote": "call the new limiter zebracorn"}],
                },
            )
        )["entry"]
        got = await tool_json(client, "get", {"id": entry["id"]})
        assert got["sources"][0]["id"] == "claude-code:f00dcafe-0000-4000-8000-00000000beef"
        await anyio.sleep(
            0.6
        )  # search ingests at most every ORIGIN_SEARCH_INGEST_INTERVAL_MS (500 ms here)
        with open(log, "ab") as f:
            f.write(
                orjson.dumps(
                    {
                        **line,
                        "uuid": "f00dcafe-0000-4000-8000-00000000bee2",
                        "message": {"role": "user", "content": "zebracorn passes the tests"},
                    }
                )
                + b"\n"
            )
        await anyio.sleep(0.6)
        found = await tool_json(client, "search", {"query": "zebracorn"})
        assert {e["id"] for e in found["events"]} >= {
            "claude-code:f00dcafe-0000-4000-8000-00000000bee2"
        }


async def test_four_servers_share_one_store(env):
    results: dict[int, list[str]] = {}

    async def agent(n: int) -> None:
        async with stdio_client(env, name=f"agent{n}") as client:
            ids = []
            for k in range(3):
                entry = (
                    await tool_json(
                        client,
                        "remember",
                        {
                            "kind": "knowledge",
                            "text": f"fact {n}-{k} about quokka{n}",
                            "confidence": 0.5,
                            "sources": [{"event_id": PROMPT_ID}],
                        },
                    )
                )["entry"]
                ids.append(entry["id"])
                await tool_json(client, "search", {"query": "token bucket"})
            results[n] = ids

    async with anyio.create_task_group() as group:
        for n in range(4):
            group.start_soon(agent, n)
    every = [i for ids in results.values() for i in ids]
    assert len(every) == len(set(every)) == 12
    async with stdio_client(env, name="checker") as client:
        listed = await tool_json(client, "search", {"scope": "entries", "limit": 100})
        assert sorted(e["id"] for e in listed["entries"]) == sorted(every)
        for n in range(4):
            found = await tool_json(client, "search", {"query": f"quokka{n}", "scope": "entries"})
            assert len(found["entries"]) == 3
        events = await tool_json(
            client, "search", {"query": "token bucket rate limiter", "limit": 100}
        )
        ids = [e["id"] for e in events["events"]]
        assert len(ids) == len(set(ids))


async def test_long_texts_and_labels_over_stdio(env):
    """The contract's example: a 26,000-character tool result is cut with the count of the
    original; a Codex title is shown with its label and found by its own words only."""
    text = "longresult ログ " + "x" * (26_000 - 14)
    line = {
        "type": "user",
        "uuid": "10000000-0000-4000-8000-0000000026ab",
        "sessionId": "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10",
        "cwd": "/home/dev/demo-app",
        "timestamp": "2026-10-20T11:00:00.000Z",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_long", "content": text}],
        },
    }
    raw = orjson.dumps(line)
    with open(Path(env["CLAUDE_CONFIG_DIR"]) / SESSION_LOG, "ab") as f:
        f.write(raw + b"\n")
    event_id = "claude-code:10000000-0000-4000-8000-0000000026ab"
    async with stdio_client(env) as client:
        [found] = (
            await tool_json(client, "search", {"query": "longresult", "include_tools": True})
        )["events"]
        assert found["id"] == event_id and found["text"] == text[:400] + "… [25,600 characters cut]"
        assert (await tool_json(client, "get", {"id": event_id}))["text"] == text[
            :20_000
        ] + "… [6,000 characters cut]"
        session = await tool_json(
            client,
            "timeline",
            {
                "session": "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10",
                "include_tools": True,
                "limit": 500,
            },
        )
        assert [e["text"] for e in session["events"] if e["id"] == event_id] == [
            text[:1_000] + "… [25,000 characters cut]"
        ]
        [source] = await tool_json(client, "sources", {"id": event_id})
        original = raw.decode()
        assert source["raw"] == original[:4_000] + f"… [{len(original) - 4_000:,} characters cut]"
        assert (await tool_json(client, "search", {"query": "thread name", "include_tools": True}))[
            "events"
        ] == []
        named = (
            await tool_json(client, "search", {"query": "CI build fix", "include_tools": True})
        )["events"]
        assert "thread name: CI build fix" in [e["text"] for e in named]
