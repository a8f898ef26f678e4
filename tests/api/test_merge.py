"""Merged answers on a connected device: the merge rules over tool results (table-driven), then a
real hub on loopback and a device connected to it in this process (labels, dedupe, the current
version only, limits, writes on the hub, the Note when the hub is slow, down or refuses)."""

from __future__ import annotations

import http.client
import http.server
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers import fixture_env
from hub_support import PROMPT_ID, SESSION, Hub, running_hub

from origin_api.mcp.results import run_tool
from origin_api.runtime import Origin
from origin_api.service import Caller, Noted
from origin_api.service.merge import current_only, label, merge
from origin_api.settings import Settings
from origin_api.sync import connection

DEVICE = "laptop"
NOTE = "Note: the Origin hub was not consulted ({}); these results come from this device only."

# -- helpers shared with the relay and end-to-end tests ------------------------------------------


def device_env(tmp: Path, *, samples: bool = True) -> dict[str, str]:
    """A device's environment: the sample logs as its agents' (what the hub has too), or none."""
    if samples:
        env = fixture_env(tmp)
    else:
        none = tmp / "no-agents"
        env = {
            "HOME": str(tmp / "home"),
            "ORIGIN_HOME": str(tmp / "origin"),
            "CLAUDE_CONFIG_DIR": str(none / "claude"),
            "CODEX_HOME": str(none / "codex"),
            "ZCODE_STORAGE_DIR": str(none / "zcode"),
            "GROK_HOME": str(none / "grok"),
            "ORIGIN_WATCH_INTERVAL_MS": "0",
            "ORIGIN_CLI_LINGER_S": "0",  # its fresh searches leave no server idling on
        }
    return {**env, "ORIGIN_DEVICE": DEVICE, "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0"}


def connect(env: dict[str, str], url: str, token: str, *, relay: bool = False) -> None:
    connection.save(Path(env["ORIGIN_HOME"]), connection.Connection(url, DEVICE, relay, token))


def dead_url() -> str:
    """A loopback address nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/mcp"


@contextmanager
def slow_proxy(hub: Hub, delay_s: float) -> Iterator[str]:
    """A hub that answers slowly: a loopback proxy that sleeps, then forwards to the real hub."""

    class Forward(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            time.sleep(delay_s)
            upstream = http.client.HTTPConnection("127.0.0.1", hub.port, timeout=30)
            try:
                headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
                upstream.request("POST", self.path, body=body, headers=headers)
                answer = upstream.getresponse()
                data = answer.read()
            except OSError:
                return  # the test and its hub are gone before the delay ran out
            finally:
                upstream.close()
            try:
                self.send_response(answer.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # the device stopped waiting: that is the point

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()


def ask(origin: Origin, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """A tool call as `origin mcp` runs it (merged), as its MCP result."""
    return run_tool(origin, tool, args, Caller("claude-code", DEVICE), merged=True)


def payload(result: dict[str, Any]) -> Any:
    assert result["isError"] is False, result["content"][0]["text"]
    return json.loads(result["content"][0]["text"])


def labels(items: list[dict[str, Any]]) -> dict[str, str]:
    return {item["id"]: item["origin"] for item in items}


# -- the merge rules, over tool results -----------------------------------------------------------


def ent(i: str, created: str, root: str | None = None, supersedes: str | None = None) -> dict:
    return {
        "id": i,
        "root": root or i,
        "supersedes": supersedes,
        "created": f"2026-10-20T09:{created}.000+08:00",
        "status": "active",
    }


@pytest.mark.parametrize(
    ("listed", "expected"),
    [
        ([ent("a", "00:00"), ent("b", "01:00")], ["a", "b"]),
        # a correction wins whichever store listed it, and stands where the first version stood
        ([ent("a", "00:00"), ent("x", "00:30"), ent("b", "01:00", "a", "a")], ["b", "x"]),
        # concurrent corrections: the later created wins
        ([ent("b", "02:00", "a", "a"), ent("c", "03:00", "a", "a")], ["c"]),
        # a tie in created: the larger id
        ([ent("c", "02:00", "a", "a"), ent("d", "02:00", "a", "a")], ["d"]),
        # a correction of a correction beats an earlier-created concurrent one
        (
            [ent("b", "05:00", "a", "a"), ent("c", "01:00", "a", "a"), ent("e", "02:00", "a", "c")],
            ["b"],
        ),
    ],
)
def test_only_the_current_version_of_an_entry(listed: list[dict], expected: list[str]):
    assert [e["id"] for e in current_only(listed)] == expected


def ev(i: str, time_: str) -> dict:
    return {"id": i, "time": f"2026-10-20T{time_}.000+08:00"}


@pytest.mark.parametrize(
    ("query", "limit", "local", "hub", "entries", "events"),
    [
        # ranked: interleaved by rank, the device first; what both have is the device's
        (
            "x",
            20,
            {"entries": [ent("a", "00:00"), ent("b", "00:00")], "events": [ev("e1", "09:00:00")]},
            {"entries": [ent("h", "00:00"), ent("a", "00:00")], "events": [ev("e1", "09:00:00")]},
            [("a", "local"), ("h", "hub"), ("b", "local")],
            [("e1", "local")],
        ),
        # limits hold on the merged list
        (
            "x",
            2,
            {"entries": [ent("a", "00:00"), ent("b", "00:00")], "events": []},
            {"entries": [ent("h", "00:00"), ent("i", "00:00")], "events": [ev("e2", "09:00:00")]},
            [("a", "local"), ("h", "hub")],
            [("e2", "hub")],
        ),
        # without a query: newest first, across zones
        (
            None,
            20,
            {"entries": [ent("a", "00:00")], "events": []},
            {
                "entries": [
                    {**ent("h", "00:00"), "created": "2026-10-20T02:30:00.000+00:00"},
                    {**ent("g", "00:00"), "created": "2026-10-20T00:30:00.000+00:00"},
                ],
                "events": [],
            },
            [("h", "hub"), ("a", "local"), ("g", "hub")],
            [],
        ),
        # the hub's correction of a version the device lists: only the correction, as the hub's
        (
            "x",
            20,
            {"entries": [ent("a", "00:00")], "events": []},
            {"entries": [ent("b", "05:00", "a", "a")], "events": []},
            [("b", "hub")],
            [],
        ),
    ],
)
def test_search_merge(query, limit, local, hub, entries, events):
    merged = merge("search", {"query": query, "limit": limit}, local, hub)
    assert [(e["id"], e["origin"]) for e in merged["entries"]] == entries
    assert [(e["id"], e["origin"]) for e in merged["events"]] == events


def ses(i: str, ended: str) -> dict:
    return {
        "session": i,
        "started": f"2026-10-19T{ended}.000+08:00",
        "ended": f"2026-10-20T{ended}.000+08:00",
    }


def test_timeline_merge_newest_activity_first_each_session_once_limit_holds():
    local = {"sessions": [ses("s1", "09:00:00"), ses("s2", "07:00:00")]}
    hub = {"sessions": [ses("s3", "08:00:00"), ses("s1", "09:00:00"), ses("s4", "06:00:00")]}
    merged = merge("timeline", {"limit": 3}, local, hub)
    assert [(s["session"], s["origin"]) for s in merged["sessions"]] == [
        ("s1", "local"),
        ("s3", "hub"),
        ("s2", "local"),
    ]
    one = {"session": ses("s1", "09:00:00"), "events": [ev("e1", "09:00:00")]}
    merged = merge("timeline", {"session": "s1", "limit": 3}, one, {})
    assert merged["session"]["origin"] == "local" and merged["events"][0]["origin"] == "local"


def test_get_merge_lists_the_hubs_versions_in_the_history():
    local = {
        "entry": ent("a", "00:00"),
        "sources": [ev("e1", "09:00:00")],
        "history": [ent("a", "00:00")],
    }
    hub = {
        "entry": ent("a", "00:00"),
        "sources": [],
        "history": [{**ent("a", "00:00"), "status": "superseded"}, ent("b", "01:00", "a", "a")],
    }
    merged = merge("get", {"id": "a"}, local, hub)
    assert merged["entry"]["origin"] == "local" and merged["sources"][0]["origin"] == "local"
    assert [(h["id"], h["status"], h["origin"]) for h in merged["history"]] == [
        ("a", "superseded", "local"),
        ("b", "active", "hub"),
    ]


@pytest.mark.parametrize(
    ("local", "hub", "expected"),
    [
        # an entry citing an event only the hub has: the device's lines, then the hub's
        ([{"event_id": "c:1"}], [{"event_id": "c:1"}, {"event_id": "c:2"}], ["local", "hub"]),
        ([], [{"event_id": "c:2"}], ["hub"]),
        ([{"event_id": "c:1"}], [{"event_id": "c:1"}], ["local"]),
    ],
)
def test_sources_merge(local: list[dict], hub: list[dict], expected: list[str]):
    merged = merge("sources", {"id": "ent_1"}, local, hub)
    assert [item["origin"] for item in merged] == expected
    assert [item["event_id"] for item in merged] == sorted({i["event_id"] for i in local + hub})


@pytest.mark.parametrize(
    ("tool", "answer", "where"),
    [
        ("get", {"id": "claude-code:1", "text": "t"}, [()]),
        ("sources", [{"event_id": "claude-code:1"}], [(0,)]),
        ("remember", {"entry": {"id": "ent_1"}}, [("entry",)]),
        ("correct", {"entry": {"id": "ent_1"}}, [("entry",)]),
        ("timeline", {"sessions": [{"session": "s"}]}, [("sessions", 0)]),
        (
            "search",
            {"entries": [{"id": "ent_1"}], "events": [{"id": "c:1"}]},
            [("entries", 0), ("events", 0)],
        ),
    ],
)
def test_labels_reach_every_entry_event_session_and_source(tool, answer, where):
    labelled = label(tool, answer, "hub")
    for path in where:
        item = labelled
        for step in path:
            item = item[step]
        assert item["origin"] == "hub"
    assert "origin" not in json.dumps(answer)  # the answer itself is left as it was


def test_the_note_is_the_contracts_text():
    noted = Noted({"entries": []}, "timed out after 2000 ms")
    assert noted.note == NOTE.format("timed out after 2000 ms")
    result = run_tool_result(noted)
    assert [item["type"] for item in result["content"]] == ["text", "text"]
    assert json.loads(result["content"][0]["text"]) == {"entries": []}
    assert result["content"][1]["text"] == NOTE.format("timed out after 2000 ms")


def run_tool_result(noted: Noted) -> dict[str, Any]:
    from origin_api.mcp.results import tool_result

    return tool_result(noted)


# -- a real hub, a device connected to it in this process ----------------------------------------


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(tmp_path_factory.mktemp("hub")) as running:
        yield running


@pytest.fixture(scope="module")
def hub_entry(hub: Hub) -> dict[str, Any]:
    """An entry written on the hub directly (its own remember tool): only the hub has it."""
    return hub.ok(
        "remember",
        {
            "kind": "knowledge",
            "text": "The limiter is a token bucket shared by every worker.",
            "confidence": 0.8,
            "sources": [{"event_id": PROMPT_ID}],
        },
    )["entry"]


@contextmanager
def device(tmp: Path, hub: Hub, *, samples: bool = True, url: str | None = None, **env: str):
    environ = {**device_env(tmp, samples=samples), **env}
    connect(environ, url or hub.url, hub.tokens["laptop"])
    with Origin.open(Settings.from_env(environ)) as origin:
        yield origin


def test_a_device_labels_what_it_has_local_and_what_only_the_hub_has_hub(
    tmp_path: Path, hub: Hub, hub_entry: dict
):
    with device(tmp_path, hub) as origin:
        local = payload(
            ask(
                origin,
                "remember",
                {
                    "kind": "memory",
                    "text": "We chose a token bucket on this device.",
                    "confidence": 0.9,
                    "sources": [{"event_id": PROMPT_ID}],
                },
            )
        )["entry"]
        assert local["origin"] == "local"
        # Made on the hub after this device's last sync: only the hub has it until the next.
        fresh = hub.ok(
            "remember",
            {
                "kind": "knowledge",
                "text": "The token bucket refills every 100 ms.",
                "confidence": 0.7,
                "sources": [{"event_id": PROMPT_ID}],
            },
        )["entry"]
        result = ask(origin, "search", {"query": "token bucket"})
        assert len(result["content"]) == 1  # the hub answered: no Note
        found = payload(result)
    entries = labels(found["entries"])
    assert entries[fresh["id"]] == "hub" and entries[local["id"]] == "local"
    # made on the hub before: the sync after `remember` pulled it, so the device has it now
    assert entries[hub_entry["id"]] == "local"
    # the samples are on both stores: each event once, as this device's
    events = [e["id"] for e in found["events"]]
    assert PROMPT_ID in events and len(events) == len(set(events))
    assert all(e["origin"] == "local" for e in found["events"])
    # the hub's own answers carry no labels
    assert '"origin":' not in json.dumps(hub.ok("search", {"query": "token bucket"}))


def test_limits_hold_on_the_merged_list(tmp_path: Path, hub: Hub, hub_entry: dict):
    with device(tmp_path, hub) as origin:
        found = payload(ask(origin, "search", {"query": "token bucket", "limit": 1}))
        sessions = payload(ask(origin, "timeline", {"since": "3650d", "limit": 2}))["sessions"]
    assert len(found["entries"]) <= 1 and len(found["events"]) == 1
    assert len(sessions) == 2 and all(s["origin"] == "local" for s in sessions)


def test_a_device_without_the_events_reads_them_from_the_hub(
    tmp_path: Path, hub: Hub, hub_entry: dict
):
    with device(tmp_path, hub, samples=False) as origin:
        event = payload(ask(origin, "get", {"id": PROMPT_ID}))
        [source] = payload(ask(origin, "sources", {"id": PROMPT_ID}))
        entry = payload(ask(origin, "get", {"id": hub_entry["id"]}))
        sessions = payload(ask(origin, "timeline", {"since": "3650d"}))["sessions"]
        one = payload(ask(origin, "timeline", {"session": event["session"], "since": "3650d"}))
        found = payload(ask(origin, "search", {"query": "token bucket"}))
        unknown = ask(origin, "get", {"id": "claude-code:no-such-event"})
    assert event["id"] == PROMPT_ID and event["origin"] == "hub"
    assert source["event_id"] == PROMPT_ID and source["origin"] == "hub" and source["raw"]
    # the hub's entries come with the first sync (a read's), its events stay on the hub
    assert entry["entry"]["origin"] == "local" and entry["sources"][0]["origin"] == "hub"
    assert sessions and all(s["origin"] == "hub" for s in sessions)
    assert one["session"]["origin"] == "hub" and one["events"][0]["origin"] == "hub"
    assert PROMPT_ID in labels(found["events"]) and set(labels(found["events"]).values()) == {"hub"}
    assert unknown["isError"] and unknown["content"][0]["text"] == (
        "Unknown entry or event claude-code:no-such-event."
    )


def test_correct_and_forget_of_what_only_the_hub_has_act_on_the_hub(tmp_path: Path, hub: Hub):
    # forgetting an entry hides the events it cites: cite one the other tests do not read
    events = hub.ok("timeline", {"session": SESSION, "since": "3650d", "limit": 500})["events"]
    cited = events[-1]["id"]
    assert cited != PROMPT_ID
    made = hub.ok(
        "remember",
        {
            "kind": "memory",
            "text": "Deploys wait for the canary (hub only).",
            "confidence": 0.7,
            "sources": [{"event_id": cited}],
        },
    )["entry"]
    with device(tmp_path, hub, samples=False) as origin:
        fixed = payload(ask(origin, "correct", {"id": made["id"], "text": "Deploys wait 10 min."}))
        assert fixed["entry"]["origin"] == "hub" and fixed["entry"]["supersedes"] == made["id"]
        assert fixed["entry"]["author"] == f"claude-code@{DEVICE}"
        # only the current version is listed
        found = payload(ask(origin, "search", {"query": "deploys wait", "scope": "entries"}))
        assert [e["id"] for e in found["entries"]] == [fixed["entry"]["id"]]
        gone = payload(ask(origin, "forget", {"id": made["id"], "reason": "the user asked"}))
        assert gone["tombstone"].startswith("tmb_")
        assert set(gone["forgotten_entries"]) == {made["id"], fixed["entry"]["id"]}
    assert hub.call("get", {"id": made["id"]})["isError"]


def test_a_slow_hub_gives_the_note_within_the_budget(tmp_path: Path, hub: Hub):
    with slow_proxy(hub, 4.0) as url, device(tmp_path, hub, url=url) as origin:
        payload(ask(origin, "get", {"id": PROMPT_ID}))  # the first read ingests: not timed
        started = time.monotonic()
        result = ask(origin, "search", {"query": "token bucket"})
        took = time.monotonic() - started
    assert took < 2.5, took
    assert result["content"][1]["text"] == NOTE.format("timed out after 2000 ms")
    assert all(e["origin"] == "local" for e in payload(result)["events"])


def test_a_shorter_budget_is_the_setting(tmp_path: Path, hub: Hub):
    with (
        slow_proxy(hub, 2.0) as url,
        device(tmp_path, hub, url=url, ORIGIN_HUB_TIMEOUT_MS="300") as origin,
    ):
        result = ask(origin, "timeline", {"since": "3650d"})
    assert result["content"][1]["text"] == NOTE.format("timed out after 300 ms")


@pytest.mark.parametrize(("token", "reason"), [(None, "connection refused"), ("ogn_wrong", "401")])
def test_a_hub_down_or_refusing_gives_the_note(tmp_path: Path, hub: Hub, token, reason):
    environ = device_env(tmp_path)
    connect(environ, dead_url() if token is None else hub.url, token or hub.tokens["laptop"])
    with Origin.open(Settings.from_env(environ)) as origin:
        result = ask(origin, "search", {"query": "token bucket"})
        refused = ask(origin, "correct", {"id": "ent_0123456789ab", "text": "x"})
    note = result["content"][1]["text"]
    assert note.startswith(f"Note: the Origin hub was not consulted ({reason}")
    assert note.endswith("); these results come from this device only.")
    assert PROMPT_ID in labels(payload(result)["events"])
    assert refused["isError"]
    text = refused["content"][0]["text"]
    assert text.startswith("ent_0123456789ab is not on this device, and its Origin hub")
    assert reason in text


def test_a_device_that_is_not_connected_answers_as_before(tmp_path: Path):
    with Origin.open(Settings.from_env(device_env(tmp_path))) as origin:
        result = ask(origin, "search", {"query": "token bucket"})
    assert len(result["content"]) == 1 and '"origin":' not in result["content"][0]["text"]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"url": "dead"}, "connection refused"),
        ({"token": "ogn_wrong"}, "401 "),
        ({"device": "desktop"}, "403 "),  # the device's name must be the token's
        ({"url": "ftp://hub.example/mcp"}, "the hub's address 'ftp://hub.example/mcp' is not"),
    ],
)
def test_the_hub_clients_reasons_are_short_and_readable(hub: Hub, change: dict, reason: str):
    from origin_api.sync import client as hubclient

    url = change.get("url", hub.url)
    target = connection.Connection(
        dead_url() if url == "dead" else url,
        change.get("device", DEVICE),
        False,
        change.get("token", hub.tokens["laptop"]),
    )
    answer = hubclient.call_tool(target, "get", {"id": PROMPT_ID}, agent="test", timeout_s=2)
    assert isinstance(answer, hubclient.HubFailure) and answer.reason.startswith(reason)
    assert len(answer.reason) < 200 and "\n" not in answer.reason
    fine = hubclient.call_tool(
        connection.Connection(hub.url, DEVICE, False, hub.tokens["laptop"]),
        "get",
        {"id": PROMPT_ID},
        agent="test",
        timeout_s=2,
    )
    assert isinstance(fine, hubclient.HubResult) and fine.payload()["id"] == PROMPT_ID
