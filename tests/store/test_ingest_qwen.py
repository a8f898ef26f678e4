"""Qwen Code's samples ingested through the real store: sessions and titles, memory files as
memory events, a second pass that adds nothing, appended and completed lines that add only
their own events, and each event traced to its line as read."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import DATA
from mirror_support import read_mirror_line

from origin_store import Ingester, Settings, Store
from origin_store.parsers.registry import SOURCES
from origin_store.reader import (
    get_event,
    get_session,
    iter_sessions,
    mirror_info,
    session_event_ids,
)

S1 = "3a7c2e10-5b4d-4f6a-8c9e-1d2f3a4b5c6d"
S2 = "7e1f9a2b-3c4d-4e5f-9a0b-1c2d3e4f5a6b"
S3 = "b5d4c3e2-1f0a-4b9c-8d7e-6f5a4b3c2d1e"
S4 = "c0ffee00-1111-4222-8333-444455556666"  # written here: its cwd is a real folder
CHATS = "projects/-home-dev-harbor-map/chats"

Ingested = tuple[Settings, Store, Ingester, Path]


@pytest.fixture
def ingested(tmp_path: Path) -> Iterator[Ingested]:
    home = Path(shutil.copytree(DATA / "qwen" / ".qwen", tmp_path / "qwen"))
    shutil.copytree(DATA / "memory" / "qwen", home, dirs_exist_ok=True)  # QWEN.md, MEMORY.md
    project = tmp_path / "dockside"
    project.mkdir()
    (project / "QWEN.md").write_text("Moor on the east pier. memurchinpier\n", encoding="utf-8")
    record = {
        "uuid": "c0ffee00-0000-4000-8000-000000000001",
        "parentUuid": None,
        "sessionId": S4,
        "timestamp": "2026-11-23T09:00:00.000Z",
        "type": "user",
        "cwd": str(project),
        "version": "0.15.10",
        "message": {"role": "user", "parts": [{"text": "Where do we moor?"}]},
    }
    folder = home / "projects" / "dockside" / "chats"
    folder.mkdir(parents=True)
    (folder / f"{S4}.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    environ = {
        "HOME": str(tmp_path / "home"),
        "ORIGIN_HOME": str(tmp_path / "origin"),
        "QWEN_HOME": str(home),
    }
    settings = Settings.from_env(environ)
    store = Store.open(settings.home)
    ingester = Ingester(store, settings, {"qwen": SOURCES["qwen"]})
    first = ingester.run()
    assert not first.errors and not first.problems and first.events > 30
    # The sessions' folders are known from the first pass: the next reads their memory files.
    assert ingester.run().events == 1
    yield settings, store, ingester, home
    store.close()


def ids(store: Store, session: str) -> list[str]:
    with store.read() as txn:
        return list(session_event_ids(store, txn, "qwen", session))


def test_sessions_titles_prompts(ingested: Ingested) -> None:
    _, store, _, _ = ingested
    with store.read() as txn:
        found = {s: get_session(store, txn, "qwen", s) for s in (S1, S2, S3, S4)}
    assert {s: (d or {}).get("title") for s, d in found.items()} == {
        S1: "Tide stations 潮汐",
        S2: "京都旅行メモ",
        S3: None,
        S4: None,
    }
    assert all(d and d["prompt"] and d["started"] <= d["ended"] for d in found.values())
    assert found[S1] and found[S1]["project"] == "harbor-map"
    with store.read() as txn:
        agent = get_session(store, txn, "qwen", f"{S1}/agent-surveyor-call_a3")
    assert agent and agent["parent"] == S1 and agent["project"] == "harbor-map"


def test_memory_files_are_memory_events(ingested: Ingested) -> None:
    _, store, _, _ = ingested
    texts: dict[str, str] = {}
    with store.read() as txn:
        for session in iter_sessions(store, txn):
            if session["source"] == "qwen" and session["session"].startswith("memory:"):
                for event_id in session_event_ids(store, txn, "qwen", session["session"]):
                    event = get_event(store, txn, event_id)
                    assert event is not None and event["kind"] == "memory"
                    texts[session["session"]] = event["text"]
    words = sorted(w for text in texts.values() for w in text.split() if w.startswith("memurchin"))
    # ~/.qwen/QWEN.md, the auto-memory's MEMORY.md, a project's QWEN.md
    assert words == ["memurchinauto", "memurchinpier", "memurchinuser"]


def test_a_second_pass_adds_nothing(ingested: Ingested) -> None:
    _, _, ingester, _ = ingested
    again = ingester.run()
    assert again.events == 0 and again.files_changed == 0


def test_appended_and_completed_lines_add_only_their_events(ingested: Ingested) -> None:
    _, store, ingester, home = ingested
    before = set(ids(store, S1))
    log = home / CHATS / f"{S1}.jsonl"
    last = json.loads(log.read_text(encoding="utf-8").splitlines()[-1])
    more = {
        **last,
        "uuid": "3a7c2e10-0000-4000-8000-0000000000ff",
        "parentUuid": last["uuid"],
        "timestamp": "2026-11-22T08:00:00.000Z",
        "type": "user",
        "message": {"role": "user", "parts": [{"text": "One more pass, tidewrackagain."}]},
    }
    more.pop("subtype"), more.pop("systemPayload")
    with log.open("a", encoding="utf-8") as f:
        f.write(json.dumps(more, ensure_ascii=False) + "\n")
    report = ingester.run()
    assert report.events == 1
    assert set(ids(store, S1)) - before == {f"qwen:{more['uuid']}"}
    # The half-written last line of S2, finished by the agent.
    cut = home / "projects/-home-dev-------notes/chats" / f"{S2}.jsonl"
    data = cut.read_bytes()
    done = data[: data.rfind(b"\n") + 1]
    previous = json.loads(done.splitlines()[-1])
    record = {
        **previous,
        "uuid": f"{S2[:8]}-0000-4000-8000-{9:012x}",
        "parentUuid": previous["uuid"],
        "type": "user",
        "message": {"role": "user", "parts": [{"text": "この行は書きかけです cutwhelk"}]},
    }
    for extra in ("model", "usageMetadata"):
        record.pop(extra, None)
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()
    assert line.startswith(data[len(done) :])  # what the agent had begun to write
    cut.write_bytes(done + line + b"\n")
    before2 = set(ids(store, S2))
    assert ingester.run().events == 1
    assert set(ids(store, S2)) - before2 == {f"qwen:{record['uuid']}"}


def test_sources_give_the_line_as_read(ingested: Ingested) -> None:
    settings, store, _, home = ingested
    log = home / CHATS / f"{S3}.jsonl"
    lines = log.read_bytes().split(b"\n")
    with store.read() as txn:
        for event_id in session_event_ids(store, txn, "qwen", S3):
            event = get_event(store, txn, event_id)
            assert event is not None
            mirror = mirror_info(store, txn, event["m"])
            assert mirror is not None and mirror["original_file"] == str(log)
            raw = read_mirror_line(store, settings.home, event["m"], event["line"])
            assert raw == lines[event["line"] - 1], event_id
            assert json.loads(raw)["uuid"] == event_id.removeprefix("qwen:").split("#")[0]
