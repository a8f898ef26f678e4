"""The Copilot CLI parsers cross-checked against the shared fixtures, which the real CLI wrote
(Copilot CLI 1.0.102), and what their README expects of them: sessions, titles, the resumed
run, the failed command, the large output's preview, the instructions in the system prompt.
Skipped where ../shared/fixtures is absent."""

from __future__ import annotations

from pathlib import Path

import pytest
from parse_support import events, kind_lines, merged, shared_root

from origin_store.model import EventRecord, ParseProblem, Record
from origin_store.parsers.copilot import events as copilot_events
from origin_store.parsers.copilot import source as copilot
from origin_store.parsers.copilot import workspace

MAIN = "4e0d36ce-56f8-4414-823f-08aab05088c0"  # s1, resumed as s3
CJK = "6a2e9d99-a2c0-4e73-b869-58a137ef1344"  # s2: Chinese, a file written, a failing command
LARGE = "33cea1c2-73d8-496a-a4c8-003b44cd572a"  # s4: a ~56 KB output


def root() -> Path:
    return shared_root("copilot") / ".copilot"


def read_session(session: str) -> list[Record]:
    """A session as the store reads it: its events to the last complete line, its workspace."""
    folder = f"session-state/{session}"
    state = copilot_events.start(f"{folder}/events.jsonl")
    records: list[Record] = []
    for number, line in enumerate(kind_lines(copilot.EVENTS, root() / folder / "events.jsonl"), 1):
        records.extend(copilot_events.parse(line, number, state))
    yaml = root() / folder / "workspace.yaml"
    for line in kind_lines(copilot.WORKSPACE, yaml):
        records.extend(workspace.parse(line, 1, workspace.start(f"{folder}/workspace.yaml")))
    return records


def everything() -> list[Record]:
    return [r for session in (MAIN, CJK, LARGE) for r in read_session(session)]


def texts(records: list[Record], kind: str | None = None) -> str:
    return "\n".join(e.rendered for e in events(records) if kind is None or e.kind == kind)


def test_the_sessions_are_those_the_readme_lists() -> None:
    found = {p.parent.name for p in root().glob("session-state/*/events.jsonl")}
    assert found == {MAIN, CJK, LARGE}
    records = everything()
    assert {e.session for e in events(records)} == found
    assert not [r for r in records if isinstance(r, ParseProblem)]
    ids = [e.id for e in events(records)]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize(
    ("session", "title"),
    [
        (MAIN, "Please run a quick echo check for plinthcpv1 and tell me what it printed."),
        (CJK, "请把蓝鲸跳舞的笔记写进文件，然后运行一个会失败的命令。Key: plinthcpv2"),
        (LARGE, "Print a large listing for plinthcpv4 and tell me how it ends."),
    ],
)
def test_titles_are_the_workspace_names(session: str, title: str) -> None:
    facts = merged(read_session(session))[session]
    assert facts["title"] == title == facts["prompt"]  # the name is the first prompt here
    assert facts["cwd"] == "/home/dev/demo-app"


#: (session, kind, words that must be found in events of that kind)
WORDS = [
    (MAIN, "message", "plinthcpv1"), (MAIN, "meta", "mullocpv1"), (MAIN, "tool_use", "cmdquarkcpv1"),
    (MAIN, "tool_result", "outfizzcpv142"), (MAIN, "message", "ansbriocpv1"),
    (MAIN, "message", "plinthcpv3"), (MAIN, "tool_use", "cmdquarkcpv3"),
    (MAIN, "tool_result", "outfizzcpv342"), (MAIN, "message", "ansbriocpv3"),
    (MAIN, "system", "memkelpcpvuser"), (MAIN, "system", "memkelpcpvproj"),
    (MAIN, "system", "memkelpcpvagents"),
    (CJK, "message", "请把蓝鲸跳舞的笔记写进文件"), (CJK, "tool_use", "filezestcpv2"),
    (CJK, "tool_result", "filezestcpv2"), (CJK, "tool_use", "cmdquarkcpv2"),
    (CJK, "tool_result", "errgrumcpv25"), (CJK, "message", "蓝鲸跳舞已记录完毕"),
    (LARGE, "message", "plinthcpv4"), (LARGE, "tool_use", "cmdquarkcpv4"),
    (LARGE, "tool_result", "bigheadcpv442"), (LARGE, "message", "ansbriocpv4"),
]  # fmt: skip


@pytest.mark.parametrize(("session", "kind", "word"), WORDS)
def test_every_word_is_where_it_belongs(session: str, kind: str, word: str) -> None:
    assert word in texts(read_session(session), kind)


def test_words_that_were_never_persisted_are_not_invented() -> None:
    """The large output's end went to the OS temp dir only; the typed prompt, not the one with
    the harness's date stamp, is the user's message."""
    everything_said = texts(everything())
    assert "bigtailcpv442" not in everything_said
    assert "<current_datetime>" not in texts(everything(), "message")


def test_the_failing_command_is_an_error_and_the_others_are_not() -> None:
    results = [e for e in events(everything()) if e.kind == "tool_result"]
    failed = [e for e in results if e.rendered.startswith("[error] ")]
    assert [e.text.split("\n")[0] for e in failed] == ["errgrumcpv25"]
    assert len(results) == 5  # s1, s3, the write, the failing command, s4


def test_the_resumed_run_appends_and_keeps_the_first_runs_ids() -> None:
    lines = kind_lines(copilot.EVENTS, root() / f"session-state/{MAIN}/events.jsonl")
    shutdown = next(n for n, line in enumerate(lines, 1) if b'"session.shutdown"' in line)
    state = copilot_events.start(f"session-state/{MAIN}/events.jsonl")
    first = [
        r
        for n, line in enumerate(lines[:shutdown], 1)
        for r in copilot_events.parse(line, n, state)
    ]
    whole = [r for r in read_session(MAIN) if isinstance(r, EventRecord)]
    assert [e.id for e in events(first)] == [e.id for e in whole][: len(events(first))]
    metas = [e.rendered for e in whole if e.kind == "meta" and e.role == "system"]
    assert [m.split(",")[0].split(" (")[0] for m in metas] == [
        "session started", "session ended", "session resumed", "session ended"
    ]  # fmt: skip


def test_each_model_call_is_counted_once() -> None:
    """Every `session.usage_record` is one API call (12 in, 7 out from the fake model)."""
    for session, calls in ((MAIN, 4), (CJK, 3), (LARGE, 2)):
        usages = [e.usage for e in events(read_session(session)) if e.usage is not None]
        assert len(usages) == calls
        assert {(u.tokens_in, u.cached, u.tokens_out) for u in usages} == {(12, 0, 7)}


def test_versions_models_and_branches() -> None:
    for event in events(everything()):
        assert (event.agent_version, event.git_branch) == ("1.0.102", "main")
