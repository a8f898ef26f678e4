"""A relay: no store of its own; every tool call is the hub's, as the hub returns it, and every
tool fails with one message when the hub cannot be reached."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hub_support import ALL_TOOLS, PROMPT_ID, Hub, running_hub
from test_merge import DEVICE, ask, connect, dead_url, device_env

from origin_api.errors import OriginError
from origin_api.runtime import Origin
from origin_api.settings import Settings

RELAY_MESSAGE = "This device is a relay: it answers only through its Origin hub ({})"
#: Arguments each tool accepts, so that only the missing hub can fail them.
ARGS = {
    "search": {"query": "token bucket"},
    "timeline": {"since": "3650d"},
    "get": {"id": PROMPT_ID},
    "sources": {"id": PROMPT_ID},
    "remember": {
        "kind": "memory",
        "text": "Relayed.",
        "confidence": 0.5,
        "sources": [{"event_id": PROMPT_ID}],
    },
    "correct": {"id": "ent_0123456789ab", "text": "Relayed again."},
    "forget": {"id": "ent_0123456789ab", "reason": "asked"},
    "ingest": {"content": "Relayed work.", "workspace": "/home/dev/demo-app"},
}


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(tmp_path_factory.mktemp("hub")) as running:
        yield running


def relay(tmp: Path, url: str, token: str) -> Origin:
    environ = device_env(tmp, samples=False)
    connect(environ, url, token, relay=True)
    return Origin.open(Settings.from_env(environ))


def test_a_relay_opens_no_store(tmp_path: Path, hub: Hub):
    with relay(tmp_path, hub.url, hub.tokens["laptop"]) as origin:
        assert origin.relay
        with pytest.raises(OriginError, match="keeps no archive"):
            _ = origin.store
    assert not (tmp_path / "origin" / "store").exists()


@pytest.mark.parametrize("tool", ["search", "timeline", "get", "sources"])
def test_a_relay_returns_the_hubs_answer_verbatim(tmp_path: Path, hub: Hub, tool: str):
    with relay(tmp_path, hub.url, hub.tokens["laptop"]) as origin:
        result = ask(origin, tool, ARGS[tool])
    direct = hub.call(tool, ARGS[tool], X_Origin_Client="claude-code")
    del direct["_request_id"]
    assert result == direct
    assert '"origin":' not in result["content"][0]["text"]


def test_a_relays_writes_and_refusals_are_the_hubs(tmp_path: Path, hub: Hub):
    with relay(tmp_path, hub.url, hub.tokens["laptop"]) as origin:
        made = json.loads(ask(origin, "remember", ARGS["remember"])["content"][0]["text"])
        refused = ask(origin, "get", {"id": "claude-code:no-such-event"})
    assert made["entry"]["author"] == f"claude-code@{DEVICE}" and "origin" not in made["entry"]
    assert hub.ok("get", {"id": made["entry"]["id"]})["entry"]["text"] == "Relayed."
    # the hub's error, with its request id and structured data, as the hub gave it
    assert refused["isError"] and refused["structuredContent"]["data"]["category"] == "not_found"
    assert refused["content"][0]["text"].startswith(
        "Unknown entry or event claude-code:no-such-event. (request req_"
    )


@pytest.mark.parametrize("tool", sorted(ALL_TOOLS))
def test_a_relay_whose_hub_is_down_fails_every_tool(tmp_path: Path, tool: str):
    url = dead_url()
    with relay(tmp_path, url, "ogn_unused") as origin:
        result = ask(origin, tool, ARGS[tool])
    assert result["isError"] is True
    assert result["content"][0]["text"] == (
        RELAY_MESSAGE.format(url) + ", which could not be reached (connection refused)."
    )


def test_a_relay_refused_by_its_hub_says_why(tmp_path: Path, hub: Hub):
    with relay(tmp_path, hub.url, "ogn_wrong") as origin:
        result = ask(origin, "search", ARGS["search"])
    text = result["content"][0]["text"]
    assert result["isError"] and text.startswith(RELAY_MESSAGE.format(hub.url))
    assert "(401 " in text
