"""`ingest` as agents meet it: a real `origin mcp` subprocess with the SDK's client, and a real
hub on loopback, where it is a write tool that read-only tokens and endpoints do not see."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import fixture_env
from hub_support import Hub, running_hub, sdk_client
from mcp.client import Client
from mcp_client import stdio_client, tool_error, tool_json

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]
WORKSPACE = "/home/dev/demo-app"
NOTE = "Moved the retry budget into the gateway config so that every client shares one limit."


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _recorded(client: Client, args: dict) -> tuple[str, dict]:
    result = await client.call_tool("ingest", {"workspace": WORKSPACE, **args})
    assert not result.is_error, result.content[0].text
    assert len(result.content) == 1 and result.content[0].type == "text"
    assert result.structured_content is not None
    return result.content[0].text, result.structured_content


async def _listed_as_the_contract_says(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    tool = tools["ingest"]
    assert tool.title == "Record an event"
    schema = tool.input_schema
    assert schema["required"] == ["content", "workspace"]
    assert schema["additionalProperties"] is False
    properties = schema["properties"]
    assert list(properties) == [
        "content",
        "workspace",
        "source",
        "kind",
        "title",
        "tags",
        "session",
    ]
    assert properties["source"]["default"] == "mcp"
    assert properties["kind"]["default"] == "conversation" and "enum" not in properties["kind"]
    assert properties["tags"]["type"] == "array"
    assert properties["tags"]["items"]["type"] == "string"
    annotations = tool.annotations
    assert annotations is not None
    assert (
        annotations.read_only_hint,
        annotations.destructive_hint,
        annotations.idempotent_hint,
    ) == (False, False, False)


@pytest.mark.parametrize("sdk", [False, True], ids=["lean", "sdk"])
async def test_ingest_through_origin_mcp(tmp_path: Path, fixtures_dir: Path, sdk: bool):
    env = {
        **os.environ,
        **fixture_env(tmp_path, copy=True),
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "500",
    }
    async with stdio_client(env, name="copilot", sdk=sdk) as client:
        assert "`ingest`" in (client.instructions or "")
        await _listed_as_the_contract_says(client)
        text, data = await _recorded(client, {"content": NOTE, "kind": "decision"})
        assert text == f"Recorded [mcp]: {NOTE[:60]}"
        event_id = data["id"]
        found = await tool_json(client, "search", {"query": "retry budget gateway"})
        assert [e["id"] for e in found["events"]] == [event_id]
        assert found["events"][0]["text"].startswith("[decision · copilot@testbox] Moved")
        entry = (
            await tool_json(
                client,
                "remember",
                {
                    "kind": "memory",
                    "text": "The retry budget lives in the gateway config.",
                    "confidence": 0.8,
                    "sources": [{"quote": "every client shares one limit"}],
                },
            )
        )["entry"]
        cited = await tool_json(client, "get", {"id": entry["id"]})
        assert [s["id"] for s in cited["sources"]] == [event_id]
        [source] = await tool_json(client, "sources", {"id": event_id})
        assert source["original_file"].endswith("/journal/mcp.jsonl") and source["line"] == 1
        assert json.loads(source["raw"])["content"] == NOTE

        assert await tool_error(client, "ingest", {"content": " ", "workspace": WORKSPACE}) == (
            "content must not be empty."
        )
        assert await tool_error(client, "ingest", {"content": "x", "workspace": ""}) == (
            "workspace must not be empty."
        )
        assert (
            await tool_error(client, "ingest", {"content": "x", "workspace": "demo"})
        ).startswith("workspace must be the absolute path")
        assert await tool_error(client, "ingest", {"content": 3, "workspace": WORKSPACE}) == (
            "content must be a string."
        )
        assert await tool_error(
            client, "ingest", {"content": "x", "workspace": WORKSPACE, "tags": [1]}
        ) == ("tags must be a list of strings.")


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory):
    with running_hub(tmp_path_factory.mktemp("hub")) as running:
        yield running


async def test_ingest_on_the_hub_is_a_write_tool(hub: Hub):
    async with sdk_client(hub, X_Origin_Client="claude-web") as client:
        await _listed_as_the_contract_says(client)
        text, data = await _recorded(
            client, {"content": NOTE, "source": "Claude Web", "title": "Retry budget"}
        )
        assert text == "Recorded [claude-web]: Retry budget"
        event = await tool_json(client, "get", {"id": data["id"]})
        assert event["text"].startswith("[conversation · claude-web@laptop] Retry budget\n")
        found = await tool_json(client, "search", {"query": "retry budget", "source": "claude web"})
        assert [e["id"] for e in found["events"]] == [data["id"]]
    # Without X-Origin-Client, the token's name is the author.
    plain = hub.call("ingest", {"content": "Plain HTTP.", "workspace": WORKSPACE})
    assert (
        plain["isError"] is False and plain["content"][0]["text"] == "Recorded [mcp]: Plain HTTP."
    )
    assert hub.ok("get", {"id": plain["structuredContent"]["id"]})["text"].startswith(
        "[conversation · laptop] "
    )


async def test_read_only_tokens_and_the_read_only_endpoint_do_not_see_ingest(hub: Hub):
    args = {"content": "Should not land.", "workspace": WORKSPACE}
    for kw in ({"token": "reader"}, {"path": "/mcp/readonly"}, {"x_mcp_readonly": "true"}):
        assert "ingest" not in hub.listed(**kw)
        result = hub.call("ingest", args, **kw)
        assert result["isError"] is True
        assert result["structuredContent"]["data"]["category"] == "forbidden"
        assert result["content"][0]["text"].startswith("The tool ingest is not available")
    async with sdk_client(hub, token="reader") as client:
        assert "ingest" not in {t.name for t in (await client.list_tools()).tools}
    found = hub.ok("search", {"query": "Should not land", "scope": "events"})
    assert found["events"] == []
