"""The Grok parsers cross-checked against the shared fixtures and what their README expects of
them (sessions, titles); skipped where ../shared/fixtures is absent."""

from __future__ import annotations

from pathlib import Path

import pytest
from parse_support import events, kind_lines, merged, shared_root

from origin_store.model import EventRecord, ParseProblem, Record
from origin_store.parsers.grok import build as grok_build
from origin_store.parsers.grok import cli as grok_cli
from origin_store.parsers.grok import source as grok

MAIN = "019a2b3c-4d5e-7f60-8a71-b2c3d4e5f601"
SUB = "019a2b3d-1111-7222-8333-944455566677"
FORK = "019a2b9f-0a1b-7c2d-8e3f-405162738495"
NOTES = "019a3001-aaaa-7bbb-8ccc-ddddeeeeffff"


def root() -> Path:
    return shared_root("grok")


def sessions() -> dict[str, Path]:
    """Each Build session's directory, by session id."""
    return {path.parent.name: path.parent for path in root().glob("sessions/*/*/updates.jsonl")}


def read_session(session: str) -> list[Record]:
    """A Build session as the store reads it: its update stream to the end (the message still
    open released) and its summary.json."""
    folder = sessions()[session]
    updates = folder.relative_to(root()).as_posix() + "/updates.jsonl"
    state = grok_build.start(updates)
    records: list[Record] = []
    for number, line in enumerate(kind_lines(grok_build.UPDATES, root() / updates), start=1):
        records.extend(grok_build.parse(line, number, state))
    records.extend(grok_build.flush(state))
    summary = folder / "summary.json"
    for line in kind_lines(grok.SUMMARY, summary):
        relpath = summary.relative_to(root()).as_posix()
        records.extend(grok.parse_summary(line, 1, grok.start_summary(relpath)))
    return records


def read_database() -> list[Record]:
    state = grok_cli.start("grok.db")
    lines = kind_lines(grok_cli.DATABASE, root() / "grok.db")
    return [r for number, line in enumerate(lines, 1) for r in grok_cli.parse(line, number, state)]


def everything() -> list[Record]:
    return [r for session in sessions() for r in read_session(session)] + read_database()


EXPECTED = [
    # session, title (fixtures README), parent
    (MAIN, "Add /version endpoint with test", None),
    (SUB, None, MAIN),
    (FORK, None, MAIN),
    (NOTES, "ノート一覧：並び順と相対時刻", None),
    ("3e9a1c7b5d20", "Add structured logging", None),
    ("b04d6e8f1a23", "导出文件名支持日文", None),
]


def test_the_sessions_are_those_the_readme_lists() -> None:
    assert set(sessions()) == {MAIN, SUB, FORK, NOTES}
    records = everything()
    assert {e.session for e in events(records)} == {session for session, *_ in EXPECTED}
    assert not [r for r in records if isinstance(r, ParseProblem)]


@pytest.mark.parametrize(("session", "title", "parent"), EXPECTED)
def test_titles_and_parents(session: str, title: str | None, parent: str | None) -> None:
    facts = merged(everything())[session]
    assert (facts["title"], facts["parent"]) == (title, parent)
    assert facts["prompt"] and facts["cwd"]


def test_chunks_joined_and_the_rewound_turn_named() -> None:
    evs = {e.id: e for e in events(read_session(MAIN))}
    prompt = evs[f"grok:{MAIN}-0002"]
    assert prompt.text == "Add a GET /version endpoint that returns the version from package.json."
    assert f"grok:{MAIN}-0003" not in evs
    marker = evs[f"grok:{MAIN}-0022"]
    assert "lines 17–21" in marker.rendered and f"grok:{MAIN}-0017" in marker.rendered
    assert f"grok:{MAIN}-0024" in evs  # the file's last message, released at its end
    assert evs[f"grok:{MAIN}:call-3:result"].rendered.startswith("[error: exit code 1] ")


def test_the_fork_has_its_own_lines_only() -> None:
    fork: list[EventRecord] = events(read_session(FORK))
    assert [e.id for e in fork] == [f"grok:{FORK}-0010", f"grok:{FORK}-0011"]
    assert not {e.id for e in fork} & {e.id for e in events(read_session(MAIN))}


def test_grok_cli_rows() -> None:
    evs = {e.id: e for e in events(read_database())}
    assert (
        evs["grok:3e9a1c7b5d20:5"].rendered == "[error] npm ERR! network request failed (offline)"
    )
    assert evs["grok:3e9a1c7b5d20:7"].kind == "system"
    compaction = evs["grok:3e9a1c7b5d20:compaction:1"]
    assert (compaction.text, compaction.rendered) == (
        "98000 8",
        "context compacted: 98000 tokens before, kept from message 8",
    )
