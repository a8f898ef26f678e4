"""Copilot CLI's samples through the real store (LMDB, mirrors, row logs): its sessions with their
titles and projects, a second pass that adds nothing, a resumed run appended to a session's file
that adds only its own events, a half-written line that waits, a rewritten workspace.yaml that
renames the session, the user's and a project's instructions files as memory events, and each
event traced to the line it came from."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from helpers import DATA
from mirror_support import read_mirror_line

from origin_store import Ingester, Settings, Store
from origin_store.ingest.report import IngestReport
from origin_store.parsers.registry import SOURCES
from origin_store.reader import get_event, get_session, iter_sessions, session_event_ids
from origin_store.records import SessionDoc

A = "5b1f7e20-3c4d-4e5f-8a6b-7c8d9e0f1a2b"
B = "8c2d4e6f-0a1b-4c3d-9e5f-6a7b8c9d0e1f"
C = "3a4b5c6d-7e8f-4a0b-9c1d-2e3f4a5b6c7d"  # session-state/<id>.jsonl, no workspace.yaml
ONLY = {"copilot": SOURCES["copilot"]}
#: The agents' copied home, the settings, the store, its ingester and the first pass's report.
Ingested = tuple[Path, Settings, Store, Ingester, IngestReport]


@pytest.fixture
def ingested(tmp_path: Path) -> Iterator[Ingested]:
    home = Path(shutil.copytree(DATA / "copilot" / ".copilot", tmp_path / "agents" / ".copilot"))
    shutil.copy(DATA / "memory" / "copilot" / "copilot-instructions.md", home)
    env = {
        "HOME": str(tmp_path / "home"),
        "ORIGIN_HOME": str(tmp_path / "origin"),
        "COPILOT_HOME": str(home),
        "ORIGIN_DEVICE": "testbox",
        "ORIGIN_WATCH_INTERVAL_MS": "0",
    }
    settings = Settings.from_env(env)
    store = Store.open(settings.home)
    ingester = Ingester(store, settings, ONLY)
    report = ingester.run()
    yield home, settings, store, ingester, report
    store.close()


def ids(store: Store, session: str) -> set[str]:
    with store.read() as txn:
        return set(session_event_ids(store, txn, "copilot", session))


def session(store: Store, sid: str) -> SessionDoc:
    with store.read() as txn:
        found = get_session(store, txn, "copilot", sid)
    assert found is not None
    return found


def test_sessions_titles_prompts_projects(ingested: Ingested) -> None:
    _, _, store, _, report = ingested
    assert (
        not report.errors and not report.problems and report.events == 37
    )  # 25 + 8 + 3 + the instructions file
    a, b = session(store, A), session(store, B)
    assert (
        a["title"]
        == a["prompt"]
        == ("Why does the retry budget in src/queue/backoff.ts run out so fast? (wordgrail)")
    )
    assert (b["title"], b["prompt"]) == (
        "メモ帳の同期エラー調査",
        "把メモ帳的同步脚本跑一下，看看为什么失败（墨鱼同步）",
    )
    assert (a["project"], b["project"]) == ("queue-svc", "メモ帳")
    sub = session(store, f"{A}/agent-7d6c5b4a-3f2e-4d1c-8b0a-9f8e7d6c5b4a")
    assert (sub["parent"], sub["project"], sub["events"]) == (A, "queue-svc", 2)
    c = session(store, C)
    assert c["title"] is None and (c["prompt"] or "").startswith("List the queues")
    assert a["started"] == 1795600000000 and a["ended"] == 1795686403000  # both runs


def test_a_second_pass_adds_nothing(ingested: Ingested) -> None:
    _, _, store, ingester, first = ingested
    again = ingester.run()
    assert again.events == 0 and again.files_changed == 0
    with store.read() as txn:
        total = sum(s["events"] for s in iter_sessions(store, txn))
    assert total == first.events


def test_an_appended_resume_adds_only_its_events(ingested: Ingested) -> None:
    home, _, store, ingester, _ = ingested
    log = home / "session-state" / A / "events.jsonl"
    before = ids(store, A)
    run = [
        {"type": "session.resume", "data": {"context": {"cwd": "/home/dev/queue-svc", "branch": "main"},
         "selectedModel": "gpt-5.2"}, "id": "r2-1", "timestamp": "2026-11-27T08:00:00.000Z"},
        {"type": "user.message", "data": {"content": "One more look (thirdrun)."}, "id": "r2-2",
         "timestamp": "2026-11-27T08:00:01.000Z"},
        {"type": "assistant.turn_start", "data": {"turnId": "0"}, "id": "r2-3",
         "timestamp": "2026-11-27T08:00:01.100Z"},
        {"type": "session.shutdown", "data": {"shutdownType": "routine"}, "id": "r2-4",
         "timestamp": "2026-11-27T08:00:02.000Z"},
    ]  # fmt: skip
    with log.open("ab") as f:
        f.write(b"".join(orjson.dumps(line) + b"\n" for line in run))
    report = ingester.run()
    assert report.events == 3 and report.rewritten == 0
    assert ids(store, A) - before == {"copilot:r2-1", "copilot:r2-2", "copilot:r2-4"}
    assert before <= ids(store, A)
    with store.read() as txn:
        resumed = get_event(store, txn, "copilot:r2-2")
    assert resumed is not None and resumed["git_branch"] == "main"
    assert session(store, A)["ended"] == 1795766402000


def test_the_half_written_line_waits_then_counts(ingested: Ingested) -> None:
    home, settings, store, ingester, _ = ingested
    log = home / "session-state" / B / "events.jsonl"
    data = log.read_bytes()
    assert not data.endswith(b"\n")
    assert not [i for i in ids(store, B) if "e014" in i]
    head = data[: data.rfind(b"\n") + 1]
    line = json.dumps(
        {"type": "user.message", "data": {"content": "写到一半的消息 halfwritten"},
         "id": "8c2d4e6f-e014-4000-8000-000000000014", "timestamp": "2026-11-25T07:16:44.000Z"},
        ensure_ascii=False,
    ).encode()  # fmt: skip
    log.write_bytes(head + line + b"\n")
    report = ingester.run()
    assert report.events == 1
    event_id = "copilot:8c2d4e6f-e014-4000-8000-000000000014"
    with store.read() as txn:
        event = get_event(store, txn, event_id)
    assert event is not None and event["text"] == "写到一半的消息 halfwritten"
    # `sources`: the event's mirror line is the line as the log holds it.
    assert read_mirror_line(store, settings.home, event["m"], event["line"]) == line


def test_sources_give_each_events_own_line(ingested: Ingested) -> None:
    home, settings, store, _, _ = ingested
    lines = (home / "session-state" / A / "events.jsonl").read_bytes().split(b"\n")
    with store.read() as txn:
        for event_id in sorted(ids(store, A)):
            event = get_event(store, txn, event_id)
            assert event is not None
            raw = read_mirror_line(store, settings.home, event["m"], event["line"])
            assert raw is not None and raw == lines[event["line"] - 1]
            assert orjson.loads(raw)["id"] in event_id


def test_a_rewritten_workspace_renames_the_session(ingested: Ingested) -> None:
    home, _, store, ingester, _ = ingested
    yaml = home / "session-state" / A / "workspace.yaml"
    text = yaml.read_text(encoding="utf-8")
    renamed = text.replace(
        "name: 'Why does the retry budget in src/queue/backoff.ts run out so fast? (wordgrail)'",
        "name: Retry budget hoisting",
    ).replace("user_named: false", "user_named: true")
    assert renamed != text
    yaml.write_text(renamed, encoding="utf-8")
    stamp = yaml.stat().st_mtime + 5
    os.utime(yaml, (stamp, stamp))
    report = ingester.run()
    assert report.events == 0 and report.files_changed == 1
    assert session(store, A)["title"] == "Retry budget hoisting"
    assert (session(store, A)["prompt"] or "").startswith("Why does the retry budget")


def test_the_users_instructions_file_is_a_memory_event(ingested: Ingested) -> None:
    home, _, store, _, _ = ingested
    path = home / "copilot-instructions.md"
    memory = session(store, f"memory:{path}")
    assert memory is not None and memory["title"] == ".copilot/copilot-instructions.md"
    [event_id] = ids(store, f"memory:{path}")
    with store.read() as txn:
        event = get_event(store, txn, event_id)
    assert event is not None and event["kind"] == "memory" and "quillmarrow" in event["text"]


def test_a_projects_instructions_are_memory_events(ingested: Ingested, tmp_path: Path) -> None:
    """The files Copilot reads in a session's directory: filed under copilot, which is the first
    agent to read `.github/copilot-instructions.md` (AGENTS.md there is Codex's)."""
    home, _, store, ingester, _ = ingested
    project = tmp_path / "billing"
    (project / ".github" / "instructions").mkdir(parents=True)
    (project / ".github" / "copilot-instructions.md").write_text("Use decimal money (projkelp).\n")
    (project / ".github" / "instructions" / "api.instructions.md").write_text(
        "---\napplyTo: 'src/api/**'\n---\nReturn problem+json (apikelp).\n"
    )
    folder = home / "session-state" / "0c0d0e0f-1a1b-4c1d-8e1f-2a2b2c2d2e2f"
    folder.mkdir()
    start = {"type": "session.start", "id": "p-1", "timestamp": "2026-11-28T08:00:00.000Z",
             "data": {"copilotVersion": "1.0.102", "context": {"cwd": str(project)}}}  # fmt: skip
    (folder / "events.jsonl").write_bytes(orjson.dumps(start) + b"\n")
    ingester.run()  # learns the session's cwd
    ingester.run()  # looks for its project's files there
    with store.read() as txn:
        found = {
            s["title"]: s["session"]
            for s in iter_sessions(store, txn)
            if s["source"] == "copilot" and s["session"].startswith("memory:")
        }
        texts = {
            title: get_event(store, txn, next(iter(ids(store, session))))
            for title, session in found.items()
        }
    assert set(found) == {
        ".copilot/copilot-instructions.md",
        "billing/.github/copilot-instructions.md",
        "billing/.github/instructions/api.instructions.md",
    }
    for title, word in (
        ("billing/.github/copilot-instructions.md", "projkelp"),
        ("billing/.github/instructions/api.instructions.md", "apikelp"),
    ):
        event = texts[title]
        assert event is not None and event["kind"] == "memory" and word in event["text"]
