"""A session's `prompt` is its first *visible* prompt: forgetting that prompt's event takes its
text out of `timeline` (the list and one session), in-process, over stdio and through the hub,
and `restore` brings it back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import fixture_env
from hub_support import running_hub
from mcp_client import stdio_client, tool_json

from origin_api.admin import restore

#: Sessions without a title, so `prompt` is shown: (source, session id).
UNTITLED = [
    ("claude-code", "0b9e8d7c-6f5a-4e3d-9c2b-1a0f9e8d7c6b"),
    ("codex", "019a0f31-0a0b-7c0d-8e0f-101112131415"),
]


def listed(tool_or_result, session_id: str) -> dict:
    sessions = tool_or_result["sessions"]
    [found] = [s for s in sessions if s["session"] == session_id]
    return found


def user_prompts(tool, session_id: str) -> list[dict]:
    events = tool("timeline", session=session_id, include_tools=True, limit=500)["events"]
    return [e for e in events if e["role"] == "user" and e["kind"] == "message"]


def shown(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 80 else flat[:79] + "…"


@pytest.mark.parametrize(("source", "session_id"), UNTITLED)
def test_forgetting_the_first_prompt_takes_it_out_of_timeline(tool, origin, source, session_id):
    before = listed(tool("timeline", since="3650d", limit=500), session_id)
    prompts = user_prompts(tool, session_id)
    assert before["title"] is None and before["prompt"] == shown(prompts[0]["text"])

    gone = tool("forget", id=prompts[0]["id"], reason="pasted a secret")
    expected = shown(prompts[1]["text"]) if len(prompts) > 1 else None
    after_list = listed(tool("timeline", since="3650d", limit=500), session_id)
    after_one = tool("timeline", session=session_id)["session"]
    assert after_list["prompt"] == after_one["prompt"] == expected
    assert before["prompt"] not in str(tool("timeline", since="3650d", limit=500))
    assert after_list["events"] == before["events"] - 1

    restore(origin, gone["tombstone"])
    assert (
        listed(tool("timeline", since="3650d", limit=500), session_id)["prompt"] == before["prompt"]
    )
    assert tool("timeline", session=session_id)["session"]["prompt"] == before["prompt"]


def test_every_prompt_forgotten_leaves_null(tool):
    source, session_id = UNTITLED[1]
    for event in user_prompts(tool, session_id):
        tool("forget", id=event["id"], reason="all of it")
    assert tool("timeline", session=session_id)["session"]["prompt"] is None


def test_forgetting_another_event_keeps_the_prompt(tool):
    source, session_id = UNTITLED[0]
    before = tool("timeline", session=session_id)["session"]["prompt"]
    events = tool("timeline", session=session_id, include_tools=True)["events"]
    other = next(e for e in events if e["role"] != "user")
    tool("forget", id=other["id"], reason="not the prompt")
    assert tool("timeline", session=session_id)["session"]["prompt"] == before


@pytest.mark.e2e
@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_over_stdio(tmp_path: Path, fixtures_dir: Path, anyio_backend):
    env = {
        **os.environ,
        **fixture_env(tmp_path, copy=True),
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0",
    }
    _, session_id = UNTITLED[0]
    async with stdio_client(env) as client:
        one = await tool_json(client, "timeline", {"session": session_id, "include_tools": True})
        first = next(e for e in one["events"] if e["role"] == "user" and e["kind"] == "message")
        old = one["session"]["prompt"]
        assert old == shown(first["text"])
        await tool_json(client, "forget", {"id": first["id"], "reason": "the user asked"})
        again = await tool_json(client, "timeline", {"session": session_id})
        everything = await tool_json(client, "timeline", {"since": "3650d", "limit": 500})
        assert again["session"]["prompt"] != old and old not in str(everything)


@pytest.mark.e2e
def test_through_the_hub(tmp_path: Path, fixtures_dir: Path):
    _, session_id = UNTITLED[1]
    with running_hub(tmp_path) as hub:
        one = hub.ok("timeline", {"session": session_id, "include_tools": True})
        first = next(e for e in one["events"] if e["role"] == "user" and e["kind"] == "message")
        old = one["session"]["prompt"]
        hub.ok("forget", {"id": first["id"], "reason": "the user asked"})
        assert hub.ok("timeline", {"session": session_id})["session"]["prompt"] != old
        assert old not in str(hub.ok("timeline", {"since": "3650d", "limit": 500}))
