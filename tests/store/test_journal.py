"""Recorded sources: the name mapping, the journal parser, appending, and reading a journal back
through the ordinary ingest path (mirror, raw line, session, discovery, sync's check)."""

from __future__ import annotations

import os
import pickle
import threading
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from origin_store import Settings, Store, journal
from origin_store.ingest import Ingester
from origin_store.ingest.discovery import discover
from origin_store.model import EventRecord, ParseProblem, SessionFact
from origin_store.parsers import journal as parser
from origin_store.parsers.registry import (
    SOURCES,
    recorded,
    recorded_id,
    recorded_in,
    with_recorded,
)
from origin_store.reader import get_event, get_session, read_mirror_text
from origin_store.replication.sync import check_items
from origin_store.textclip import with_label

# -- the name mapping ------------------------------------------------------------------------

MAPPED = [
    ("mcp", "mcp"),
    ("Claude", "claude"),
    ("Claude Web", "claude-web"),
    ("  GitHub Copilot (cloud)  ", "github-copilot-cloud"),
    ("my_agent.v2", "my-agent-v2"),
    ("Ünïcödé", "unicode"),
    ("a" * 60, "a" * 40),
    ("x" * 39 + "-y", "x" * 39),  # cut at 40, then no trailing hyphen
    ("codex", "codex-recorded"),  # an agent whose logs Origin reads
    ("Claude-Code", "claude-code-recorded"),
    ("codex-recorded", "codex-recorded"),
    ("日本語", ""),
    ("!!!", ""),
]


@pytest.mark.parametrize(("given_name", "expected"), MAPPED)
def test_client_names_map_to_source_ids(given_name: str, expected: str):
    assert recorded_id(given_name) == expected
    if expected:
        assert parser.is_recorded_id(expected)


@given(st.text(max_size=80))
def test_every_mapped_name_is_a_source_id_no_agent_has(name: str):
    mapped = recorded_id(name)
    assert mapped == "" or parser.is_recorded_id(mapped)
    assert mapped not in SOURCES
    assert len(mapped) <= parser.SOURCE_CHARS
    assert recorded_id(mapped) == mapped or mapped == ""  # the mapping is idempotent
    assert parser.fold(parser.fold(name)) == parser.fold(name)


def test_a_recorded_source_never_takes_an_agents_name():
    for name in SOURCES:
        with pytest.raises(KeyError):
            recorded(name)
    with pytest.raises(KeyError):
        recorded("Not An Id")
    assert recorded("mcp").name == "mcp" and recorded("mcp") is recorded("mcp")
    assert pickle.loads(pickle.dumps(recorded("mcp"))).name == "mcp"  # workers get sources


# -- the parser ------------------------------------------------------------------------------

LINE = {
    "id": "0199f0a17c2e3f9a1c2b7d4e",
    "time": "2026-10-20T09:12:30.118Z",
    "source": "claude",
    "author": "claude@laptop",
    "workspace": "/home/dev/demo-app",
    "kind": "decision",
    "session": "demo-app-2026-10-20-1a2b3c",
    "title": "File-backed flag",
    "tags": ["architecture", "auth"],
    "content": "Chose a file-backed flag for ephemeral mode.",
}


def parse(line: dict | bytes, source: str = "claude") -> list:
    data = line if isinstance(line, bytes) else orjson.dumps(line)
    return parser.parse_line(data, 7, parser._start(f"{source}.jsonl"))


def test_a_line_is_one_message_of_its_author_in_its_session():
    fact, event = parse(LINE)
    assert isinstance(event, EventRecord) and isinstance(fact, SessionFact)
    assert event.id == "claude:0199f0a17c2e3f9a1c2b7d4e" and event.source == "claude"
    assert (event.role, event.kind, event.session) == ("assistant", "message", LINE["session"])
    assert event.time == 1_792_487_550_118 and event.cwd == "/home/dev/demo-app"
    # The client's words are searched; Origin's label (kind and author) is only shown.
    assert event.text == (
        "File-backed flag\nChose a file-backed flag for ephemeral mode.\narchitecture, auth"
    )
    assert with_label(event.text, event.label) == (
        "[decision · claude@laptop] File-backed flag\n"
        "Chose a file-backed flag for ephemeral mode.\ntags: architecture, auth"
    )
    assert (fact.session, fact.source, fact.cwd, fact.title) == (
        LINE["session"],
        "claude",
        "/home/dev/demo-app",
        None,  # a title from an event's words would outlive a forget of that event
    )


BAD = [
    (b"not json", "invalid-json"),
    (b"[1]", "not-an-object"),
    (orjson.dumps({**LINE, "content": "  "}), "bad-field"),
    (orjson.dumps({k: v for k, v in LINE.items() if k != "session"}), "bad-field"),
    (orjson.dumps({**LINE, "time": "yesterday"}), "bad-field"),
    (orjson.dumps({**LINE, "tags": "not a list"}), None),  # tags that are not a list: none
]


@pytest.mark.parametrize(("line", "reason"), BAD)
def test_lines_that_are_not_events_are_problems(line: bytes, reason: str | None):
    records = parse(line)
    if reason is None:
        assert [type(r) for r in records] == [SessionFact, EventRecord]
        assert records[1].text.endswith("ephemeral mode.")
    else:
        assert [(type(r), r.reason) for r in records] == [(ParseProblem, reason)]


def test_a_line_without_an_id_gets_one_from_its_bytes_and_a_blank_line_nothing():
    data = orjson.dumps({k: v for k, v in LINE.items() if k != "id"})
    assert parse(data)[1].id == parse(data)[1].id != parse(LINE)[1].id
    assert parse(b"") == []


@given(st.binary(max_size=300))
def test_the_parser_never_raises(data: bytes):
    for record in parse(data):
        assert isinstance(record, EventRecord | SessionFact | ParseProblem)


# -- appending and reading back --------------------------------------------------------------


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "origin"


def test_append_writes_whole_lines_and_ends_a_torn_one(home: Path):
    journal.append(home, "claude", LINE)
    path = journal.path(home, "claude")
    with open(path, "ab") as torn:  # a writer that died mid-line (a full disk)
        torn.write(b'{"id": "cut sho')
    journal.append(home, "claude", {**LINE, "id": "second"})
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 4
    assert orjson.loads(lines[0]) == LINE and lines[1] == b'{"id": "cut sho'
    assert orjson.loads(lines[2])["id"] == "second"
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_appends_from_many_threads_stay_whole_lines(home: Path):
    big = "x" * 200_000  # larger than a pipe's atomic write, one write on O_APPEND all the same

    def write(n: int) -> None:
        for i in range(5):
            journal.append(home, "mcp", {**LINE, "id": f"{n}-{i}", "content": big})

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = journal.path(home, "mcp").read_bytes().split(b"\n")[:-1]
    assert sorted(orjson.loads(line)["id"] for line in lines) == sorted(
        f"{n}-{i}" for n in range(4) for i in range(5)
    )


def _store(home: Path) -> tuple[Store, Settings, Ingester]:
    settings = Settings.from_env({"ORIGIN_HOME": str(home), "HOME": str(home.parent / "user")})
    store = Store.open(home, map_size=1 << 24)
    return store, settings, Ingester(store, settings, SOURCES)


def test_a_journal_is_ingested_like_a_log_mirror_session_and_raw_line(home: Path):
    journal.append(home, "claude", LINE)
    journal.append(home, "claude", {**LINE, "id": "second", "title": None})
    store, _, ingester = _store(home)
    try:
        files = journal.logs(home)
        assert [log.path for log in files] == [journal.path(home, "claude")]
        assert journal.ingest(ingester, store, files).events == 2
        assert journal.ingest(ingester, store, files).events == 0  # nothing new, nothing read
        event_id = "claude:0199f0a17c2e3f9a1c2b7d4e"
        with store.read() as txn:
            event = get_event(store, txn, event_id)
            session = get_session(store, txn, "claude", LINE["session"])
        assert event is not None and session is not None
        assert (event["project"], event["line"]) == ("demo-app", 1)
        assert (session["events"], session["cwd"], session["source"]) == (
            2,
            LINE["workspace"],
            "claude",
        )
        raw = read_mirror_text(store, home, event["m"], event["line"], 4000)
        assert raw is not None and orjson.loads(raw[0]) == LINE
        journal.append(home, "claude", {**LINE, "id": "third"})
        assert journal.ingest(ingester, store, files).events == 1
    finally:
        store.close()


def test_a_pass_over_everything_finds_the_journals(home: Path):
    journal.append(home, "claude", LINE)
    journal.append(home, "mcp", {**LINE, "id": "other"})
    (journal.root(home) / "Not An Id.jsonl").write_text("{}\n")
    assert recorded_in(home) == ["claude", "mcp"]
    store, settings, _ = _store(home)
    try:
        sources = with_recorded(home)
        assert list(sources)[: len(SOURCES)] == list(SOURCES)
        found = discover(sources, settings)
        assert sorted(log.path.name for log in found) == ["claude.jsonl", "mcp.jsonl"]
        report = Ingester(store, settings, sources).run(files=found)
        assert report.events == 2
    finally:
        store.close()


def test_sync_accepts_a_recorded_source_and_still_refuses_a_malformed_one():
    def item(source: str) -> dict:
        event = {
            "id": f"{source}:1",
            "source": source,
            "time": 1,
            "line": 1,
            "session": "s",
            "role": "assistant",
            "kind": "message",
            "text": "t",
        }
        return {"kind": "event", "seq": 1, "event": event, "original_file": None, "raw": None}

    assert check_items([item("claude-web")], frozenset({"event"}))
    with pytest.raises(ValueError, match="or a recorded source id"):
        check_items([item("Not An Id")], frozenset({"event"}))


def test_a_journal_line_keeps_no_secret(home: Path):
    """The journal is Origin's own file: the tool's content is masked before it is kept."""
    key = "ghp_" + "FAKE0EXAMPLE0" * 3
    journal.append(home, "claude", {**LINE, "content": f"pushed with token {key} today"})
    kept = journal.path(home, "claude").read_bytes()
    assert key.encode() not in kept and b"[redacted github-token]" in kept
    assert kept.count(b"\n") == 1


@pytest.mark.parametrize(
    ("what", "changes"),
    [
        ("a session of 600 bytes", {"session": "漢" * 200}),
        ("an id of 480 bytes", {"id": "i" * 480}),
        ("a session of 511 bytes with its source", {"session": "s" * (511 - len("claude"))}),
    ],
)
def test_a_line_the_store_cannot_key_is_a_problem_and_the_next_lines_are_stored(
    home: Path, what: str, changes: dict
):
    """Its keys would fail the batch's write, and with it every later pass over the journal."""
    journal.append(home, "claude", {**LINE, **changes})
    journal.append(home, "claude", {**LINE, "id": "after", "cwd": None})
    journal.append(home, "claude", {**LINE, "id": "long-cwd", "workspace": "/" + "w" * 600})
    store, _, ingester = _store(home)
    try:
        files = journal.logs(home)
        report = journal.ingest(ingester, store, files)
        assert (report.events, report.problems["unstorable"]) == (2, 1), (what, report)
        with store.read() as txn:
            assert get_event(store, txn, "claude:after") is not None
            assert get_event(store, txn, "claude:long-cwd")["cwd"] == "/" + "w" * 600
            cwds = {key.decode() for key, _ in txn.cursor(db=store.dbs["cwds"])}
        assert LINE["workspace"] in cwds and "/" + "w" * 600 not in cwds
        journal.append(home, "claude", {**LINE, "id": "later"})
        assert journal.ingest(ingester, store, files).events == 1  # nothing stops the journal
    finally:
        store.close()
