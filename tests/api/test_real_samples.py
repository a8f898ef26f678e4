"""Logs the real CLIs wrote (`make test-clients` runs them; kept in tests/data/<agent>/real/,
named by the version that wrote them): each thing of the session is found once, with its role
and kind, by the tools. The same checks as tests/clients/test_real_sessions.py, on every run
of the suite rather than only where npm installed the CLIs."""

from __future__ import annotations

import shutil
from typing import Any

import pytest
from helpers import DATA, fixture_env

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_store import Settings

#: (source, the sample, where the agent keeps such a log under its root)
SAMPLES = {
    "claude-code": (
        DATA / "claude-code" / "real" / "claude-code-2.1.197.jsonl",
        "projects/-tmp-home-dev-demo-app/a0213d74-ec44-40d9-a5df-eea821422e47.jsonl",
    ),
    "codex": (
        DATA / "codex" / "real" / "codex-0.171.0.jsonl",
        "sessions/2026/12/02/rollout-2026-12-02T07-06-52-01a23593-dceb-7fd3-85f7-1c3f229bc1d1.jsonl",
    ),
}
#: (what, its word, role, kind, whether it is a failure)
WORDS = [
    ("prompt", "periwinkle", "user", "message", False),
    ("call", "lanternfish", "assistant", "tool_use", False),
    ("failing call", "pelican", "assistant", "tool_use", False),
    ("failure", "glacier", "system", "tool_result", True),
    ("answer", "kestrel", "assistant", "message", False),
]


def cases() -> list[Any]:
    return [
        pytest.param(source, word, id=f"{source}-{word[0]}") for source in SAMPLES for word in WORDS
    ]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("real")
    root = tmp / "logs"
    for source, (sample, place) in SAMPLES.items():
        target = root / source / place
        target.parent.mkdir(parents=True)
        shutil.copyfile(sample, target)
    env = {**fixture_env(tmp, root=root), "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0"}
    with Origin.open(Settings.from_env(env)) as origin:
        report = origin.ingest()
        assert report.events > 0 and not report.errors and not report.problems, report
        yield origin


@pytest.mark.parametrize(("source", "word"), cases())
def test_each_thing_is_one_event_of_its_role_and_kind(
    archive: Origin, source: str, word: tuple[str, str, str, str, bool]
) -> None:
    _, text, role, kind, failed = word
    args = {"query": text, "scope": "events", "include_tools": True, "source": source}
    events = call(archive, "search", args, Caller("test", "testbox"))["events"]
    assert [(e["role"], e["kind"]) for e in events] == [(role, kind)], events
    assert events[0]["text"].startswith("[error] ") == failed, events[0]["text"]
