"""A memory that crosses devices, through real processes: a hub (`origin hub` on loopback); device
A, whose agents' logs reach the hub only through A's pushes; device B, with no logs of its own;
and a relay. Each has its own ORIGIN_HOME and its own `origin mcp`, spoken to through the SDK's
client. B cites what only the hub has (A's events), and every tool on B and on the relay answers
an unknown id, a forgotten one, and a hub it cannot reach in the contract's words (docs/sync.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import fixture_env
from hub_support import PROMPT_ID
from mcp_client import stdio_client, tool_error, tool_json
from test_merge import NOTE, dead_url
from test_relay import RELAY_MESSAGE
from test_sync_e2e import HubProcess, _bare_env, _free_port, _run

from origin_api.sync import connection

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


def _event(n: str) -> str:
    return f"claude-code:a00000{n}-0000-4000-8000-0000000000{n}"


#: Messages of A's sample session, each cited or forgotten by one test only (a forget hides the
#: entries citing what it hides).
CITED = PROMPT_ID  # "Add a token-bucket rate limiter to src/server.ts …"
ADDED = _event("15")  # "Rename the option `burst` to `capacity`."
A_FORGETS = _event("0c")  # "note the limiter in the README as well"
B_FORGETS = _event("10")  # "It sleeps on the real clock; switch it to vi.useFakeTimers()."
WHILE_DOWN = _event("18")  # "The option is now `capacity` everywhere it was used."
ENTRY_FORGOTTEN = _event("03")  # "I'll check where middleware is mounted."
A_FORGETS_NOW = _event("0d")  # "Done: `src/mw/rateLimit.ts` is a token bucket …"
UNKNOWN_EVENT = "claude-code:00000000-0000-4000-8000-00000000dead"
UNKNOWN_ENTRY = "ent_00000000dead"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class World:
    hub: HubProcess
    a: dict[str, str]
    b: dict[str, str]
    relay: dict[str, str]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("devices")
    hub_env = _bare_env(root / "hub")
    names = ("alpha", "beta", "gamma")
    tokens = {name: _run(hub_env, "token", "create", name).stdout.strip() for name in names}
    hub = HubProcess(hub_env, _free_port())
    hub.start()
    try:
        quiet = {"ORIGIN_WATCH_INTERVAL_MS": "0"}
        a = {**fixture_env(root / "a", copy=True), **quiet, "ORIGIN_DEVICE": "alpha"}
        b = {**_bare_env(root / "b"), "ORIGIN_DEVICE": "beta"}
        relay = _bare_env(root / "relay")
        _run(a, "ingest")
        _run(a, "connect", hub.base, "--token", tokens["alpha"])  # pushes A's events
        _run(b, "connect", hub.base, "--token", tokens["beta"])
        _run(relay, "connect", hub.base, "--token", tokens["gamma"], "--relay")
        yield World(hub, a, b, relay)
    finally:
        hub.stop()


def _json(env: dict[str, str], *args: str) -> Any:
    return json.loads(_run(env, *args, "--json").stdout)


@contextmanager
def _hub_down(env: dict[str, str]) -> Iterator[str]:
    """The device's hub, unreachable: its connection points at a loopback port nothing listens
    on, for as long as the block runs (the device's store is kept)."""
    home = Path(env["ORIGIN_HOME"])
    kept = connection.load(home)
    assert kept is not None
    url = dead_url()
    connection.save(home, connection.Connection(url, kept.device, kept.relay, kept.token))
    try:
        yield url
    finally:
        connection.save(home, kept)


def _remember(event_id: str, quote: str | None = None) -> dict[str, Any]:
    source: dict[str, Any] = {"event_id": event_id}
    if quote is not None:
        source["quote"] = quote
    return {
        "kind": "knowledge",
        "text": "The limiter is a token bucket of 10 req/s with a burst of 20.",
        "confidence": 0.8,
        "sources": [source],
    }


async def test_b_cites_what_only_the_hub_has_and_a_gets_it_back(world: World):
    async with stdio_client(world.b) as b:
        found = await tool_json(b, "search", {"query": "token-bucket rate limiter"})
        [event] = [e for e in found["events"] if e["id"] == CITED]
        assert event["origin"] == "hub"
        made = (await tool_json(b, "remember", _remember(CITED, "TOKEN-BUCKET  rate limiter")))[
            "entry"
        ]
        assert made["origin"] == "local" and made["author"] == "claude-code@beta"
        assert made["project"] == event["project"]  # the hub's event gave it
        assert await tool_error(b, "remember", _remember(CITED, "leaky bucket")) == (
            f'Quote not found in event {CITED}: "leaky bucket"'
        )
        assert await tool_error(b, "remember", _remember(UNKNOWN_EVENT)) == (
            f"Unknown entry or event {UNKNOWN_EVENT}."
        )
        # a quote alone: none of B's events holds it, one of the hub's does
        quoted = {**_remember(CITED), "sources": [{"quote": "EVERYWHERE it was  used"}]}
        by_quote = (await tool_json(b, "remember", quoted))["entry"]
        unquoted = {**quoted, "sources": [{"quote": "said on no device"}]}
        assert await tool_error(b, "remember", unquoted) == (
            'No event contains the quote "said on no device". Search for the event and cite '
            "its id instead."
        )
        [cited_by_quote] = (await tool_json(b, "get", {"id": by_quote["id"]}))["sources"]
        fixed = await tool_json(
            b,
            "correct",
            {
                "id": made["id"],
                "text": "The limiter is a token bucket; its burst option is now capacity.",
                "sources": [{"event_id": ADDED, "quote": "rename the option"}],
            },
        )
        assert fixed["entry"]["origin"] == "local"
        got = await tool_json(b, "get", {"id": fixed["entry"]["id"]})
        cited = await tool_json(b, "sources", {"id": fixed["entry"]["id"]})
    assert got["entry"]["origin"] == "local"
    assert {(s["id"], s["quote"], s["origin"]) for s in got["sources"]} == {
        (CITED, "TOKEN-BUCKET  rate limiter", "hub"),
        (ADDED, "rename the option", "hub"),
    }
    assert {(s["event_id"], s["origin"]) for s in cited} == {(CITED, "hub"), (ADDED, "hub")}
    assert (cited_by_quote["id"], cited_by_quote["quote"]) == (
        WHILE_DOWN,
        "EVERYWHERE it was  used",
    )
    assert all(s["raw"] for s in cited)
    # B's sync after `correct` pushed both versions; A's next sync brings them, as its own
    _run(world.a, "sync")
    on_a = _json(world.a, "get", fixed["entry"]["id"])
    assert on_a["entry"]["origin"] == "local" and on_a["entry"]["supersedes"] == made["id"]
    assert {(s["id"], s["origin"]) for s in on_a["sources"]} == {(CITED, "local"), (ADDED, "local")}


async def test_b_cannot_cite_what_a_forgot_nor_what_the_hub_cannot_show(world: World):
    _run(world.a, "forget", A_FORGETS, "--reason", "the user asked", "--yes")  # A syncs right after
    async with stdio_client(world.b) as b:
        assert await tool_error(b, "remember", _remember(A_FORGETS)) == (
            f"Event {A_FORGETS} has been forgotten and cannot be cited."
        )
        made = (await tool_json(b, "remember", _remember(CITED)))["entry"]
    with _hub_down(world.b) as url:
        async with stdio_client(world.b) as b:
            refused = await tool_error(b, "remember", _remember(WHILE_DOWN, "capacity"))
            added = {"id": made["id"], "text": "Capacity.", "sources": [{"event_id": WHILE_DOWN}]}
            refused_too = await tool_error(b, "correct", added)
            by_quote = {**_remember(CITED), "sources": [{"quote": "capacity everywhere"}]}
            not_looked_for = await tool_error(b, "remember", by_quote)
            # the entry is this device's: its own get answers, with the Note
            got = await b.call_tool("get", {"id": made["id"]})
    assert (
        refused
        == refused_too
        == (
            f"{WHILE_DOWN} is not on this device, and its Origin hub ({url}) could not be reached "
            "to cite it (connection refused)."
        )
    )
    assert not_looked_for == (
        'No event on this device contains the quote "capacity everywhere", and its Origin hub '
        f"({url}) could not be reached to look for it there (connection refused)."
    )
    assert not got.is_error and got.content[1].text == NOTE.format("connection refused")
    assert json.loads(got.content[0].text)["entry"]["origin"] == "local"


async def test_each_tool_on_b_answers_unknown_forgotten_and_unreachable(world: World):
    forgotten = f"{B_FORGETS} has been forgotten."
    unknown = f"Unknown entry or event {UNKNOWN_EVENT}."
    _run(world.a, "forget", A_FORGETS, "--reason", "the user asked", "--yes")  # A syncs right after
    async with stdio_client(world.b) as b:
        gone = await tool_json(b, "forget", {"id": B_FORGETS, "reason": "the user asked"})
        assert gone["tombstone"].startswith("tmb_") and gone["excluded_events"] == 1
        for tool in ("get", "sources"):
            assert await tool_error(b, tool, {"id": B_FORGETS}) == forgotten, tool
            assert await tool_error(b, tool, {"id": UNKNOWN_EVENT}) == unknown, tool
        # forgotten on the hub by A: pulled by B's start-up sync, or not yet (B's last sync,
        # its forget's, is under 10 s old), when the hub's answer says so
        _run(world.a, "forget", A_FORGETS_NOW, "--reason", "the user asked", "--yes")
        for item in (A_FORGETS_NOW, A_FORGETS):
            for tool in ("get", "sources"):
                assert await tool_error(b, tool, {"id": item}) == f"{item} has been forgotten."
        again = await tool_json(b, "forget", {"id": B_FORGETS, "reason": "the user asked"})
        assert again == {"tombstone": None, "forgotten_entries": [], "excluded_events": 0}
        assert await tool_error(b, "remember", _remember(B_FORGETS)) == (
            f"Event {B_FORGETS} has been forgotten and cannot be cited."
        )
        # an entry of B's citing A's event, forgotten on B: so is the event, on every store
        made = (await tool_json(b, "remember", _remember(ENTRY_FORGOTTEN)))["entry"]
        await tool_json(b, "forget", {"id": made["id"], "reason": "the user asked"})
        for tool, args in (
            ("get", {"id": made["id"]}),
            ("sources", {"id": made["id"]}),
            ("correct", {"id": made["id"], "text": "x"}),
        ):
            assert await tool_error(b, tool, args) == f"{made['id']} has been forgotten.", tool
        assert await tool_error(b, "get", {"id": ENTRY_FORGOTTEN}) == (
            f"{ENTRY_FORGOTTEN} has been forgotten."
        )
        assert await tool_error(b, "forget", {"id": UNKNOWN_EVENT, "reason": "asked"}) == unknown
        assert await tool_error(b, "correct", {"id": UNKNOWN_ENTRY, "text": "x"}) == (
            f"Unknown entry or event {UNKNOWN_ENTRY}."
        )
        assert await tool_error(b, "timeline", {"session": "no-such-session"}) == (
            "Unknown session no-such-session."
        )
    with _hub_down(world.b) as url:
        async with stdio_client(world.b) as b:
            # what B knows is forgotten needs no hub to say so
            for tool in ("get", "sources"):
                assert await tool_error(b, tool, {"id": B_FORGETS}) == forgotten, tool
            again = await tool_json(b, "forget", {"id": B_FORGETS, "reason": "asked"})
            assert again["tombstone"] is None
            for tool in ("get", "sources"):
                assert await tool_error(b, tool, {"id": UNKNOWN_EVENT}) == (
                    f"{UNKNOWN_EVENT} is not on this device, and its Origin hub ({url}) could "
                    "not be reached to look for it there (connection refused)."
                ), tool
            for tool, args in (
                ("forget", {"id": UNKNOWN_EVENT, "reason": "asked"}),
                ("correct", {"id": UNKNOWN_ENTRY, "text": "x"}),
            ):
                assert await tool_error(b, tool, args) == (
                    f"{args['id']} is not on this device, and its Origin hub ({url}) could not "
                    f"be reached to {tool} it there (connection refused)."
                ), tool
            assert await tool_error(b, "timeline", {"session": "no-such-session"}) == (
                f"Session no-such-session is not on this device, and its Origin hub ({url}) "
                "could not be reached to look for it there (connection refused)."
            )
            found = await b.call_tool("search", {"query": "token bucket"})
            assert not found.is_error and found.content[1].text == NOTE.format("connection refused")


async def test_each_tool_on_a_relay_answers_as_its_hub(world: World):
    _run(world.a, "forget", A_FORGETS, "--reason", "the user asked", "--yes")  # A syncs right after
    async with stdio_client(world.relay) as relay:
        for tool in ("get", "sources"):
            text = await tool_error(relay, tool, {"id": A_FORGETS})
            assert text.startswith(f"{A_FORGETS} has been forgotten. (request req_"), tool
            text = await tool_error(relay, tool, {"id": UNKNOWN_EVENT})
            assert text.startswith(f"Unknown entry or event {UNKNOWN_EVENT}. (request req_"), tool
        text = await tool_error(relay, "remember", _remember(A_FORGETS))
        assert text.startswith(f"Event {A_FORGETS} has been forgotten and cannot be cited. (")
        text = await tool_error(relay, "correct", {"id": UNKNOWN_ENTRY, "text": "x"})
        assert text.startswith(f"Unknown entry or event {UNKNOWN_ENTRY}. (request req_")
        made = await tool_json(relay, "remember", _remember(CITED, "rate limiter"))
        assert "origin" not in made["entry"] and made["entry"]["author"] == "claude-code@gamma"
    with _hub_down(world.relay) as url:
        async with stdio_client(world.relay) as relay:
            for tool, args in (("get", {"id": CITED}), ("remember", _remember(CITED))):
                assert await tool_error(relay, tool, args) == (
                    RELAY_MESSAGE.format(url) + ", which could not be reached (connection refused)."
                ), tool
