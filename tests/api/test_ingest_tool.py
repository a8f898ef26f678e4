"""`ingest` in process, over real storage: what it records, how the other tools see it, what it
refuses, and what it does while recording is paused (with `remember` and `correct`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from origin_api.admin import restore
from origin_api.errors import OriginError
from origin_api.mcp.results import run_tool
from origin_api.runtime import Origin
from origin_api.service import Caller, Said
from origin_store import journal
from origin_store.pause import state as switch

WORKSPACE = "/home/dev/demo-app"
DECISION = "Chose append-only JSONL for the journal: no migration overhead, and easy to read."


@pytest.fixture
def record(origin: Origin):
    """`ingest` as an agent calls it, its MCP result (text item, structured content, isError)."""
    caller = Caller("claude", "laptop")

    def run(**args: Any) -> dict[str, Any]:
        return run_tool(origin, "ingest", {"workspace": WORKSPACE, **args}, caller)

    return run


def _said(result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    assert result["isError"] is False, result["content"][0]["text"]
    assert len(result["content"]) == 1
    return result["content"][0]["text"], result["structuredContent"]


def test_an_event_is_recorded_searchable_citable_and_has_its_raw_line(record, tool, origin):
    text, data = _said(record(content=DECISION, kind="decision", source="Claude Web", tags=["io"]))
    assert text == "Recorded [claude-web]: " + DECISION[:60]
    event_id = data["id"]
    assert event_id.startswith("claude-web:") and data["recorded"] is True
    assert (data["source"], data["project"]) == ("claude-web", "demo-app")

    found = tool("search", query="migration overhead", source="Claude Web")["events"]
    assert [e["id"] for e in found] == [event_id]
    assert found[0]["text"] == f"[decision · claude@laptop] {DECISION}\ntags: io"
    assert (found[0]["role"], found[0]["kind"], found[0]["session"]) == (
        "assistant",
        "message",
        data["session"],
    )
    entry = tool(
        "remember",
        kind="memory",
        text="The journal is append-only JSONL.",
        confidence=0.9,
        sources=[{"quote": "no migration overhead"}],
    )["entry"]
    assert entry["project"] == "demo-app"
    assert tool("get", id=entry["id"])["sources"][0]["id"] == event_id
    [source] = tool("sources", id=event_id)
    assert source["original_file"] == str(journal.path(origin.home, "claude-web"))
    assert source["mirror_file"].endswith("/raw/claude-web/claude-web.jsonl")
    raw = json.loads(source["raw"])
    assert (raw["content"], raw["author"], raw["client_source"]) == (
        DECISION,
        "claude@laptop",
        "Claude Web",
    )
    assert source["line"] == 1
    assert tool("get", id=event_id)["cwd"] == WORKSPACE


def test_one_session_per_source_workspace_and_day_unless_named(record, tool):
    first = _said(record(content="Ran the tests: 3 failed.", kind="command"))[1]
    second = _said(record(content="Fixed the three failures.", title="Green again"))[1]
    other = _said(record(content="Elsewhere.", workspace="/srv/other/demo-app"))[1]
    named = _said(record(content="In my session.", session="copilot-42"))[1]
    assert first["source"] == "mcp" and first["session"] == second["session"]
    assert first["session"].startswith("demo-app-") and other["session"] != first["session"]
    assert named["session"] == "copilot-42"
    listed = tool("timeline", session=first["session"])
    assert listed["session"]["source"] == "mcp" and listed["session"]["events"] == 2
    assert [e["id"] for e in listed["events"]] == [first["id"], second["id"]]
    assert tool("timeline", session="copilot-42", source="mcp")["events"][0]["id"] == named["id"]
    sessions = tool("timeline", since="1d", source="mcp")["sessions"]
    assert {s["session"] for s in sessions} == {first["session"], other["session"], "copilot-42"}


def test_the_answer_shows_the_title_or_the_first_60_characters(record):
    assert _said(record(content="x" * 100, title="A title"))[0] == "Recorded [mcp]: A title"
    spaced = "line one\n\n   line two " + "y" * 80
    assert (
        _said(record(content=spaced))[0]
        == "Recorded [mcp]: " + ("line one line two " + "y" * 80)[:60]
    )


def test_another_kind_is_kept_as_given_and_an_agents_name_records_apart(record, tool):
    text, data = _said(record(content="Looked back on the sprint.", kind="retro", source="codex"))
    assert text.startswith("Recorded [codex-recorded]: ")
    event = tool("get", id=data["id"])
    assert event["source"] == "codex-recorded" and event["text"].startswith("[retro · claude@")
    assert tool("search", query="sprint", source="codex")["events"] == []
    assert tool("search", query="sprint", source="codex-recorded")["events"][0]["id"] == data["id"]


@pytest.mark.parametrize(
    ("workspace", "project"),
    [
        ("C:\\Users\\me\\billing-api", "billing-api"),
        ("C:/Users/me/billing-api/", "billing-api"),
        ("\\\\build-box\\src\\billing-api", "billing-api"),
        ("/home/me/billing-api", "billing-api"),
    ],
)
def test_a_workspace_written_by_a_windows_or_posix_machine_is_recorded(record, workspace, project):
    """A hub records for agents on other systems than its own: an absolute path is one as
    the agent's machine writes it, and names the project by its last component."""
    data = _said(record(content="Deployed the billing API.", workspace=workspace))[1]
    assert data["project"] == project


BAD_INPUT = [
    ({"content": ""}, "content must not be empty."),
    ({"content": "   \n"}, "content must not be empty."),
    ({"content": "x", "workspace": " "}, "workspace must not be empty."),
    ({"workspace": None, "content": "x"}, "workspace is required."),
    ({"content": 5}, "content must be a string."),
    ({"content": "x" * 100_001}, "content must have at most 100,000 characters"),
    ({"content": "x", "workspace": "/" + "w" * 4_096}, "workspace must have at most 4,096"),
    ({"content": "x", "tags": ["t" * 101]}, "tags items have at most 100 characters"),
    ({"content": "x", "tags": ["t"] * 51}, "tags takes at most 50 items; got 51."),
    ({"content": "x", "workspace": ["/a"]}, "workspace must be a string."),
    ({"content": "x", "workspace": "demo-app"}, "workspace must be the absolute path"),
    ({"content": "x", "workspace": "C:demo-app"}, "workspace must be the absolute path"),
    ({"content": "x", "workspace": "\\demo-app"}, "workspace must be the absolute path"),
    ({"content": "x", "tags": "io"}, "tags must be a list of strings."),
    ({"content": "x", "tags": ["io", 3]}, "tags must be a list of strings."),
    ({"content": "x", "tags": [" "]}, "tags must not hold an empty string."),
    ({"content": "x", "source": "日本語"}, "source must name the agent with letters or digits"),
    ({"content": "x", "kind": 1}, "kind must be a string."),
    ({"content": "x", "agent": "me"}, "Unknown argument 'agent' for ingest"),
]


@pytest.mark.parametrize(("args", "message"), BAD_INPUT)
def test_bad_input_is_a_tool_error_and_records_nothing(record, origin, args, message):
    result = record(**args)
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith(message), result["content"][0]["text"]
    assert not journal.root(origin.home).exists()


def test_a_recorded_event_is_forgotten_and_restored_like_any(record, tool, origin):
    data = _said(record(content="A secret slipped into this note."))[1]
    gone = tool("forget", id=data["id"], reason="the user asked")
    assert gone["excluded_events"] == 1
    assert tool("search", query="secret slipped", scope="events")["events"] == []
    with pytest.raises(OriginError, match="has been forgotten"):
        tool("sources", id=data["id"])
    restore(origin, gone["tombstone"])
    assert tool("search", query="secret slipped", scope="events")["events"][0]["id"] == data["id"]


# -- while recording is paused ---------------------------------------------------------------


def test_while_paused_ingest_is_suppressed_and_remember_and_correct_refuse(record, tool, origin):
    kept = tool(
        "remember",
        kind="memory",
        text="Before the pause.",
        confidence=0.5,
        sources=[{"event_id": "claude-code:a0000001-0000-4000-8000-000000000001"}],
    )["entry"]
    switch.pause(origin.home, reason="private")
    result = record(content="Should not be kept.")
    assert result == {
        "content": [{"type": "text", "text": "(ephemeral mode: event suppressed)"}],
        "structuredContent": {"recorded": False, "paused": result["structuredContent"]["paused"]},
        "isError": False,
    }
    assert result["structuredContent"]["paused"]["reason"] == "private"
    assert not journal.root(origin.home).exists()
    for name, args in (
        (
            "remember",
            {"kind": "memory", "text": "x", "confidence": 0.5, "sources": [{"quote": "x"}]},
        ),
        ("correct", {"id": kept["id"], "text": "During the pause."}),
    ):
        with pytest.raises(OriginError) as refused:
            tool(name, **args)
        assert refused.value.category == "conflict"
        assert refused.value.message.startswith("Recording is paused (ephemeral mode) since ")
        assert f"so {name} saved nothing" in refused.value.message
        assert "`origin resume`" in refused.value.message
    # Reading and forgetting go on.
    assert tool("search", query="token bucket")["events"]
    assert tool("get", id=kept["id"])["entry"]["text"] == "Before the pause."
    assert tool("timeline", since="3650d")["sessions"]
    assert tool("forget", id=kept["id"], reason="asked")["forgotten_entries"] == [kept["id"]]
    # Bad input is still bad input.
    assert record(content=" ")["isError"] is True

    switch.resume(origin.home)
    assert _said(record(content="Kept again."))[0] == "Recorded [mcp]: Kept again."


def test_a_pause_with_an_end_ends_by_itself(record, origin):
    switch.pause(origin.home, for_ms=60_000, now_ms=switch._now() - 60_001)
    assert _said(record(content="After the pause ended."))[1]["recorded"] is True


def test_said_is_what_the_service_returns(origin: Origin):
    from origin_api.service import call

    answer = call(origin, "ingest", {"content": "x", "workspace": WORKSPACE}, Caller("a", "b"))
    assert isinstance(answer, Said) and answer.text == "Recorded [mcp]: x"


def test_the_journal_survives_a_writer_that_died_before_reading_it(tool, origin: Origin):
    """A line appended but never ingested (the process died in between) is read by the next
    pass that any tool runs."""
    journal.append(
        origin.home,
        "mcp",
        {
            "id": "orphan",
            "time": "2026-10-20T09:12:30.000Z",
            "session": "s1",
            "workspace": WORKSPACE,
            "content": "An orphaned journal line.",
        },
    )
    tool("timeline", since="3650d")  # a pass (the interval is 0 in these tests)
    assert tool("get", id="mcp:orphan")["text"] == "[conversation] An orphaned journal line."


def test_docs_name_the_tool_and_the_commands():
    text = (Path(__file__).resolve().parents[2] / "docs" / "recording.md").read_text()
    for name in ("`ingest`", "origin pause", "origin resume", "--backfill", "(ephemeral mode"):
        assert name in text, name


def test_a_paused_relay_keeps_its_records_from_the_hub_too(tmp_path: Path):
    """A relay keeps no archive, but its user paused recording on this device: nothing is sent
    to the hub (whose address here answers nothing, so a call sent would fail)."""
    from test_merge import ask, connect, dead_url, device_env

    from origin_store import Settings

    environ = device_env(tmp_path, samples=False)
    connect(environ, dead_url(), "ogn_unused", relay=True)
    with Origin.open(Settings.from_env(environ)) as relay:
        switch.pause(relay.home)
        said = ask(relay, "ingest", {"content": "x", "workspace": WORKSPACE})
        assert said["content"][0]["text"] == "(ephemeral mode: event suppressed)"
        refused = ask(relay, "remember", {"kind": "memory", "text": "x", "confidence": 1})
        assert refused["isError"] and "Recording is paused" in refused["content"][0]["text"]
        assert ask(relay, "search", {"query": "x"})["content"][0]["text"].startswith(
            "This device is a relay"
        )


def test_a_journal_line_whose_writer_died_is_read_by_the_next_pass(tmp_path: Path) -> None:
    """`ingest` appends, then reads its own line; a writer killed in between leaves a line that
    `origin ingest` and the background watcher (every pass over everything) read."""
    from helpers import fixture_env

    from origin_api.settings import Settings

    env = fixture_env(tmp_path)
    home = Path(env["ORIGIN_HOME"])
    line = {
        "id": "0199f0a17c2e3f9a1c2b7d4e",
        "time": "2026-10-20T09:12:30.118Z",
        "source": "cloud-agent",
        "author": "cloud-agent@laptop",
        "workspace": "/home/dev/demo-app",
        "kind": "decision",
        "session": "demo-app-2026-10-20-1a2b3c",
        "title": "Orphaned line",
        "tags": [],
        "content": "A line appended by a writer that died before reading it back.",
    }
    journal.append(home, "cloud-agent", line)
    with Origin.open(Settings.from_env(env)) as opened:
        opened.ingest()
        with opened.store.read() as txn:
            event = opened.store.event(txn, "cloud-agent:" + line["id"])
    assert event is not None and "writer that died" in event["text"]
