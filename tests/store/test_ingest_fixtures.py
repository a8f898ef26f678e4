"""Ingesting the real-format fixtures end to end: sessions, titles, prompts, projects, tails."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import SHARED_FIXTURES, fixture_env
from mirror_support import read_mirror_line

from origin_store import Ingester, Settings, Store
from origin_store.parsers.registry import SOURCES
from origin_store.reader import get_session, iter_sessions, session_event_ids

EXPECTED = {
    ("claude-code", "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10"): (
        "rate-limiter",
        "Add a token-bucket rate limiter",
        "demo-app",
    ),
    ("claude-code", "c41d2e8f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"): (
        "笔记导出：Markdown 与日文文件名测试",
        "帮我把笔记导出功能",
        "notes-app",
    ),
    ("claude-code", "0b9e8d7c-6f5a-4e3d-9c2b-1a0f9e8d7c6b"): (
        None,
        "Plan a migration of the config loader",
        "demo-app",
    ),
    ("claude-code", "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10/agent-a3f9c2e1b7d40568"): (
        None,
        "List every middleware",
        "demo-app",
    ),
    ("claude-code", "9d8c7b6a-5f4e-4d3c-8b2a-1908171615aa/agent-5e1d7c90"): (
        None,
        "Check whether /health",
        "demo-app",
    ),
    ("codex", "019a0b1c-2d3e-7f40-8a51-6b7c8d9e0f12"): (
        "Fix CI build (tsconfig.build.json)",
        "Why does `npm run build`",
        "demo-app",
    ),
    ("codex", "019a0f2e-5b6c-7d81-9e02-a3b4c5d6e7f8"): (
        "web_ui 日本語化",
        "ログイン画面の文言",
        "web_ui",
    ),
    ("codex", "019a0f31-0a0b-7c0d-8e0f-101112131415"): (
        None,
        "List every user-visible English string",
        "web_ui",
    ),
    ("codex", "0199f8a0-1111-7222-8333-444455556666"): (
        None,
        "Summarize what src/server.ts does",
        "demo-app",
    ),
}


KINDS = {(source.name, kind.name): kind for source in SOURCES.values() for kind in source.kinds}


@pytest.fixture
def ingested(tmp_path: Path, fixtures_dir: Path):
    settings = Settings.from_env(fixture_env(tmp_path, copy=True))
    store = Store.open(settings.home)
    ingester = Ingester(store, settings, SOURCES)
    report = ingester.run()
    yield settings, store, ingester, report
    store.close()


def test_every_fixture_session_with_title_prompt_and_project(ingested):
    settings, store, _, report = ingested
    assert not report.errors and report.events > 100
    with store.read() as txn:
        sessions = {
            (s["source"], s["session"]): s for s in iter_sessions(store, txn) if s["events"]
        }
    assert set(EXPECTED) <= set(sessions), set(EXPECTED) - set(sessions)
    for key, (title, prompt, project) in EXPECTED.items():
        session = sessions[key]
        assert session["title"] == title, key
        assert (session["prompt"] or "").startswith(prompt), key
        assert session["project"] == project, key
        assert session["started"] <= session["ended"], key


def test_truncated_last_lines_wait_then_complete(ingested, tmp_path: Path):
    settings, store, ingester, _ = ingested
    log = (
        Path(settings.environ["CLAUDE_CONFIG_DIR"])
        / "projects/-home-dev-demo-app/0b9e8d7c-6f5a-4e3d-9c2b-1a0f9e8d7c6b.jsonl"
    )
    data = log.read_bytes()
    assert not data.endswith(b"\n")
    with store.read() as txn:
        before = list(
            session_event_ids(store, txn, "claude-code", "0b9e8d7c-6f5a-4e3d-9c2b-1a0f9e8d7c6b")
        )
    tail = data.rsplit(b"\n", 1)[1]
    # The agent finishes writing the line: replace the cut record with a whole one.
    complete = (
        b'{"type":"user","uuid":"feedface-0000-4000-8000-000000000001","sessionId":"0b9e8d7c-6f5a-4e3d-9c2b-1a0f9e8d7c6b",'
        b'"cwd":"/home/dev/demo-app","timestamp":"2026-10-22T10:00:00.000Z",'
        b'"message":{"role":"user","content":"finished line"}}\n'
    )
    log.write_bytes(data[: len(data) - len(tail)] + complete)
    report = ingester.run()
    assert report.events == 1 and report.rewritten == 0
    with store.read() as txn:
        after = list(
            session_event_ids(store, txn, "claude-code", "0b9e8d7c-6f5a-4e3d-9c2b-1a0f9e8d7c6b")
        )
        cursor = store.get(txn, "files", str(log).encode())
    assert set(after) - set(before) == {"claude-code:feedface-0000-4000-8000-000000000001"}
    last = read_mirror_line(store, settings.home, cursor["mirror"]["id"], cursor["lines"])
    assert last + b"\n" == complete


def test_reingest_is_idempotent(ingested):
    settings, store, ingester, first = ingested
    again = ingester.run()
    assert again.events == 0 and again.files_changed == 0
    store2_settings = Settings.from_env(
        {**settings.environ, "ORIGIN_HOME": str(settings.home) + "-2"}
    )
    other = Store.open(store2_settings.home)
    try:
        assert Ingester(other, store2_settings, SOURCES).run().events == first.events
    finally:
        other.close()


def test_subagent_sessions_name_their_parent(ingested):
    _, store, _, _ = ingested
    with store.read() as txn:
        sub = get_session(store, txn, "codex", "019a0f31-0a0b-7c0d-8e0f-101112131415")
        claude_sub = get_session(
            store, txn, "claude-code", "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10/agent-a3f9c2e1b7d40568"
        )
    assert sub["parent"] == "019a0f2e-5b6c-7d81-9e02-a3b4c5d6e7f8"
    assert claude_sub["parent"] == "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10"


def test_every_truncated_fixture_line_waits(ingested):
    settings, store, _, _ = ingested
    truncated = []
    with store.read() as txn:
        for key, _ in txn.cursor(db=store.dbs["files"]):
            path = Path(key.decode())
            data = path.read_bytes()
            if path.suffix == ".zst":
                continue
            cursor = store.get(txn, "files", key)
            if KINDS[cursor["source"], cursor["kind"]].snapshots:
                continue  # a database or a whole file: its lines are its row log's
            assert cursor["lines"] == data.count(b"\n"), path
            assert cursor["offset"] == data.rfind(b"\n") + 1, path
            if not data.endswith(b"\n"):
                truncated.append(path.name)
    assert "0b9e8d7c-6f5a-4e3d-9c2b-1a0f9e8d7c6b.jsonl" in truncated
    assert "rollout-2026-10-21T11-20-40-019a0f31-0a0b-7c0d-8e0f-101112131415.jsonl" in truncated


#: Copilot names a session by its first prompt until the user renames it.
COPILOT_S1 = "Please run a quick echo check for plinthcpv1 and tell me what it printed."
COPILOT_S2 = "请把蓝鲸跳舞的笔记写进文件，然后运行一个会失败的命令。Key: plinthcpv2"

#: The shared fixtures' README: (source, session id prefix) -> its title, or "" for a session
#: whose agent gave none (the prompt stands in for it).
SHARED_EXPECTED = {
    ("cursor", "3c1e5a7b"): "Fix flaky rate limit test",
    ("cursor", "8e2f4a6c"): "",
    ("cursor", "d1e2f3a4"): "Add request id middleware",
    ("cursor", "0a1b2c3d"): "",
    ("cursor", "6a7b8c9d"): "",
    ("cursor", "1d2c3b4a"): "",
    ("cursor", "9c8b7a6f"): "",
    ("zcode", "sess_68f56030"): "Add pagination to GET /notes",
    ("zcode", "sess_56cddbe6"): "为笔记加标签功能",
    ("zcode", "sess_subagent_agent_51c91c87"): "Explore: existing pagination helpers",
    ("grok", "019a2b3c"): "Add /version endpoint with test",
    ("grok", "019a2b3d"): "",
    ("grok", "019a2b9f"): "",
    ("grok", "019a3001"): "ノート一覧：並び順と相対時刻",
    ("grok", "3e9a1c7b5d20"): "Add structured logging",
    ("grok", "b04d6e8f1a23"): "导出文件名支持日文",
    ("qwen", "cc4992f2"): "",
    ("qwen", "68a68cb8"): "",
    ("qwen", "95b15f53"): "",
    ("gemini", "0a1853bf"): "",
    ("gemini", "3d494d63"): "",
    ("gemini", "7ced18ee"): "",
    ("opencode", "ses_dcb95d64"): "Scripted session title",
    ("opencode", "ses_dcb959d7"): "Scripted session title",
    ("opencode", "ses_dcb95849"): "Scripted session title",
    ("copilot", "4e0d36ce"): COPILOT_S1,
    ("copilot", "6a2e9d99"): COPILOT_S2,
    ("copilot", "33cea1c2"): "Print a large listing for plinthcpv4 and tell me how it ends.",
}


@pytest.mark.skipif(not SHARED_FIXTURES.is_dir(), reason="no shared fixtures beside the project")
def test_the_shared_fixtures_of_every_source_ingest_as_their_readme_says(tmp_path: Path):
    settings = Settings.from_env(fixture_env(tmp_path, root=SHARED_FIXTURES))
    store = Store.open(settings.home)
    try:
        first = Ingester(store, settings, SOURCES).run()
        assert not first.errors and first.events > 200 and not first.problems
        with store.read() as txn:
            sessions = [s for s in iter_sessions(store, txn) if s["events"]]
        for (source, prefix), title in SHARED_EXPECTED.items():
            [found] = [
                s for s in sessions if s["source"] == source and s["session"].startswith(prefix)
            ]
            assert (found["title"] or "") == title, (source, prefix)
            assert found["title"] or found["prompt"], (source, prefix)
            if found["started"] is None:
                print("no times:", source, prefix)
            else:
                assert found["started"] <= found["ended"], (source, prefix)
        # The empty Cursor draft has no events, so no session is listed for it.
        assert not [s for s in sessions if s["session"].startswith("5b7d9f1a")]
        again = Ingester(store, settings, SOURCES).run()
        assert again.events == 0 and again.files_changed == 0
    finally:
        store.close()
