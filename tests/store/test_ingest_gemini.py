"""Gemini CLI's session files through the real store: a file that says its messages again (a
message rewritten under its id, the history copied on each resume) adds each event once, the
later version replacing the earlier; `sources` of an event is its line; GEMINI.md is memory."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from helpers import DATA
from mirror_support import read_mirror_line

from origin_store import Ingester, Settings, Store
from origin_store.parsers.registry import SOURCES
from origin_store.reader import get_event, get_session, session_event_ids

A = "6f1c2d3e-4a5b-4c6d-8e7f-a1b2c3d4e5f6"
SUB = "9c4d5e6f-7a8b-4c9d-8e0f-d4e5f6a7b8c9"
CHAT = f".gemini/tmp/orchard-api/chats/session-2026-11-20T10-00-{A[:8]}.jsonl"

Env = tuple[Settings, Path, Store, Ingester]


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    """The samples copied to a home of their own with the user's GEMINI.md, ingested once with
    Gemini CLI's source only."""
    home = Path(shutil.copytree(DATA / "gemini", tmp_path / "gemini-home"))
    shutil.copy(DATA / "memory" / "gemini" / "GEMINI.md", home / ".gemini" / "GEMINI.md")
    settings = Settings.from_env(
        {
            "HOME": str(tmp_path / "home"),
            "ORIGIN_HOME": str(tmp_path / "origin"),
            "GEMINI_CLI_HOME": str(home),
        }
    )
    store = Store.open(settings.home, map_size=settings.map_size)
    ingester = Ingester(store, settings, {"gemini": SOURCES["gemini"]})
    first = ingester.run()
    assert not first.errors and not first.problems and first.events > 30
    yield settings, home, store, ingester
    store.close()


def ids(store: Store, session: str) -> list[str]:
    with store.read() as txn:
        return list(session_event_ids(store, txn, "gemini", session))


def line(record: object) -> bytes:
    return orjson.dumps(record) + b"\n"


def test_a_second_ingest_adds_nothing(env: Env) -> None:
    _, _, _, ingester = env
    again = ingester.run()
    assert again.events == 0 and again.files_changed == 0


def test_sessions_titles_projects_parents(env: Env) -> None:
    _, _, store, _ = env
    with store.read() as txn:
        main = get_session(store, txn, "gemini", A)
        sub = get_session(store, txn, "gemini", SUB)
    assert main is not None and sub is not None
    assert (main["title"], main["project"], main["cwd"]) == (
        "Pear route tests and page size",
        "orchard-api",
        "/home/dev/orchard-api",
    )
    assert main["prompt"] == "Run the tests of the pear routes, they mention pomegranate."
    assert (sub["parent"], sub["project"]) == (A, "orchard-api")
    started, ended = main["started"], main["ended"]
    assert started is not None and ended is not None and started <= ended


def test_a_resume_adds_only_its_turn_and_a_rewritten_message_replaces_its_text(env: Env) -> None:
    settings, home, store, ingester = env
    before = ids(store, A)
    assert len(before) == len(set(before))
    path = home / CHAT
    history = [orjson.loads(raw) for raw in path.read_bytes().splitlines()]
    messages = [record for record in history if "id" in record and "type" in record]
    resumed = [
        {"sessionId": A, "projectHash": "0" * 64, "startTime": "2026-11-21T09:00:00.000Z",
         "lastUpdated": "2026-11-21T09:00:00.000Z", "kind": "main"},
        {"$set": {"messages": [{"id": m["id"], "timestamp": "2026-11-21T09:00:00.000Z",
                                "type": m["type"], "content": m.get("content")} for m in messages]}},
        {"$set": {"sessionId": A}},
        {"id": "a-m13", "timestamp": "2026-11-21T09:00:01.000Z", "type": "user",
         "content": [{"text": "One more: rename the route to /fruit (nectarinemark)."}]},
        {"id": "a-m12", "timestamp": "2026-11-20T10:01:09.000Z", "type": "gemini",
         "content": "The list now returns 25 pears per page (rewritten: guavaedit).",
         "thoughts": [], "model": "gemini-3.8-pro"},
    ]  # fmt: skip
    with path.open("ab") as log:
        log.write(b"".join(line(record) for record in resumed))
    report = ingester.run()
    assert report.events == 1 and not report.problems  # a-m13; a-m12 replaced, not added
    after = ids(store, A)
    assert set(after) - set(before) == {f"gemini:{A}:a-m13"}
    assert len(after) == len(before) + 1
    with store.read() as txn:
        rewritten = get_event(store, txn, f"gemini:{A}:a-m12")
        cursor = store.get(txn, "files", str(path).encode())
    assert rewritten is not None and cursor is not None and "guavaedit" in rewritten["text"]
    assert rewritten["line"] == cursor["lines"]  # its line is the later one
    raw = read_mirror_line(store, settings.home, rewritten["m"], rewritten["line"])
    assert raw is not None and b"guavaedit" in raw
    assert ingester.run().events == 0


def test_sources_of_an_event_is_its_line(env: Env) -> None:
    settings, home, store, _ = env
    lines = (home / CHAT).read_bytes().splitlines()
    with store.read() as txn:
        for name in ("a-m1", "call:run_shell_command__call_a1", "a-m8", "rewind:L25"):
            event = get_event(store, txn, f"gemini:{A}:{name}")
            assert event is not None, name
            raw = read_mirror_line(store, settings.home, event["m"], event["line"])
            assert raw == lines[event["line"] - 1], name
    assert b"cloudberryfinal" in lines[21]  # a-m8's later version, line 22


def test_the_user_gemini_md_is_a_memory_event(env: Env) -> None:
    _, home, store, _ = env
    memory = home / ".gemini" / "GEMINI.md"
    [event_id] = ids(store, f"memory:{memory}")
    with store.read() as txn:
        event = get_event(store, txn, event_id)
    assert event is not None and event["kind"] == "memory"
    assert "greengagerule" in event["text"]
