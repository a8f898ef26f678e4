"""`ingest` given names within the tool's limits in characters but not in bytes, through a real
`origin mcp` and a real hub on loopback: each is refused before anything is journaled, or
recorded, and afterwards recording still works, the store verifies and `origin ingest` exits 0.
A journal that already holds a line the store cannot keep (as an earlier version wrote one)
counts it as a problem and records the lines after it."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import fixture_env
from hub_support import Hub, running_hub
from mcp_client import ORIGIN, stdio_client, tool_error, tool_json

from origin_api.runtime import Origin
from origin_store import Settings, bounds, journal
from origin_store.care.verify import verify

pytestmark = [pytest.mark.e2e]
WORKSPACE = "/home/dev/demo-app"

#: (what, the arguments, the refusal, or None where the event is recorded)
HOSTILE: list[tuple[str, dict[str, Any], str | None]] = [
    ("workspace whose last part is 480 bytes", {"workspace": "/home/" + "a" * 480}, None),
    ("workspace whose last part is 600 bytes of CJK", {"workspace": "/srv/" + "漢" * 200}, None),
    ("workspace of 4,096 characters", {"workspace": "/" + "a/" * 2047 + "b"}, None),
    (
        "session of 200 CJK characters",
        {"session": "漢" * 200},
        "session is 600 bytes of UTF-8; with the source mcp, at most 507 bytes fit.",
    ),
    (
        "40-character source and 480-character session",
        {"source": "s" * 40, "session": "a" * 480},
        f"session is 480 bytes of UTF-8; with the source {'s' * 40}, at most 470 bytes fit.",
    ),
    (
        "session of 169 CJK characters and a byte too many",
        {"session": "漢" * 169 + "ab"},
        "session is 509 bytes of UTF-8; with the source mcp, at most 507 bytes fit.",
    ),
    ("session of 500 characters", {"session": "a" * 500}, None),
    ("session of the most bytes", {"session": "é" * 253 + "a"}, None),
]
IDS = [row[0] for row in HOSTILE]


def _content(what: str) -> str:
    return f"Probe: {what}."


def _check_session(args: dict[str, Any], data: dict[str, Any]) -> None:
    assert data["recorded"] is True
    assert bounds.session_fits(data["source"], data["session"]), data["session"]
    if "session" in args:
        assert data["session"] == args["session"]


def _sound(env: dict[str, str]) -> None:
    """The store verifies, and `origin ingest` (which reads every journal) exits 0."""
    with Origin.open(Settings.from_env(env)) as origin:
        report = verify(origin.store, origin.home)
        assert report.ok, report.problems
    done = subprocess.run(
        [ORIGIN, "ingest", "--json"], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr


@pytest.mark.anyio
async def test_hostile_names_through_origin_mcp(tmp_path: Path) -> None:
    env = {
        **os.environ,
        **fixture_env(tmp_path, copy=True),
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0",
        "ORIGIN_WATCH_INTERVAL_MS": "0",
    }
    async with stdio_client(env, name="probe") as client:
        for what, args, refusal in HOSTILE:
            call = {"content": _content(what), "workspace": WORKSPACE, **args}
            if refusal is not None:
                assert await tool_error(client, "ingest", call) == refusal, what
            else:
                result = await client.call_tool("ingest", call)
                assert not result.is_error, (what, result.content[0].text)
                assert result.structured_content is not None
                _check_session(args, result.structured_content)
            # Recording still works, and the reads answer.
            after = await client.call_tool(
                "ingest", {"content": f"After {what}.", "workspace": WORKSPACE}
            )
            assert not after.is_error, (what, after.content[0].text)
            found = await tool_json(client, "search", {"query": f"After {what}"})
            assert found["events"], what
            assert (await tool_json(client, "timeline", {}))["sessions"]
    _sound(env)


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(tmp_path_factory.mktemp("hub")) as running:
        yield running


@pytest.mark.parametrize(("what", "args", "refusal"), HOSTILE, ids=IDS)
def test_hostile_names_through_the_hub(
    hub: Hub, what: str, args: dict[str, Any], refusal: str | None
) -> None:
    assert hub.origin is not None
    result = hub.call("ingest", {"content": _content(what), "workspace": WORKSPACE, **args})
    if refusal is not None:
        assert result["isError"] is True
        assert result["content"][0]["text"].startswith(refusal + " (request req_")
        assert result["structuredContent"]["data"]["category"] == "validation_error"
    else:
        assert result["isError"] is False, result["content"][0]["text"]
        _check_session(args, result["structuredContent"])
    after = hub.call("ingest", {"content": f"Then {what}.", "workspace": WORKSPACE})
    assert after["isError"] is False, after["content"][0]["text"]
    event_id = after["structuredContent"]["id"]
    assert hub.ok("get", {"id": event_id})["id"] == event_id
    assert hub.ok("search", {"query": f"Then {what}"})["events"]
    assert hub.ok("timeline", {})["sessions"]
    report = verify(hub.origin.store, hub.origin.home)
    assert report.ok, report.problems


def test_a_journal_line_that_cannot_be_stored_is_a_counted_problem(tmp_path: Path) -> None:
    """A line an earlier version journaled, whose session no key can hold, is counted once;
    the lines after it are recorded, by the tool and by `origin ingest`, after a restart too."""
    env = {
        **os.environ,
        **fixture_env(tmp_path, copy=True),
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0",
    }
    settings = Settings.from_env(env)
    bad = {"id": "bad1", "time": "2026-10-20T09:00:00.000Z", "session": "漢" * 200}
    journal.append(settings.home, "mcp", {**bad, "workspace": WORKSPACE, "content": "Too long."})
    with Origin.open(settings) as origin:
        report = journal.ingest(
            origin.ingester, origin.store, [journal.log_file(origin.home, "mcp")]
        )
        assert report.problems["unstorable"] == 1
        with origin.store.read() as txn:
            assert origin.store.event(txn, "mcp:bad1") is None
    journal.append(
        settings.home,
        "mcp",
        {"id": "good1", "time": "2026-10-20T09:01:00.000Z", "session": "s", "content": "Fine."},
    )
    done = subprocess.run(
        [ORIGIN, "ingest", "--json"], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    with Origin.open(settings) as origin:
        with origin.store.read() as txn:
            assert origin.store.event(txn, "mcp:good1") is not None
        assert verify(origin.store, origin.home).ok
    summary = json.loads(done.stdout)
    assert summary, summary
