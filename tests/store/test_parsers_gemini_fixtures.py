"""The Gemini CLI parser cross-checked against the shared fixtures (written by Gemini CLI 0.61.0
itself) and what their README expects of them; skipped where ../shared/fixtures is absent."""

from __future__ import annotations

from pathlib import Path

import pytest
from parse_support import events, merged, read_lines, shared_root

from origin_store.model import EventRecord, ParseProblem, Record
from origin_store.parsers.gemini import chat
from origin_store.parsers.gemini import source as gemini

S1 = "0a1853bf-411b-43a6-9c9a-e4a703c8a893"  # s1, and s3 resumed in the same file
S2 = "3d494d63-5c2a-4c94-a3ee-aa3d42468410"
S4 = "7ced18ee-f6a1-4c7a-ad29-7d3c064743db"
PROJECT = "/home/dev/demo-app"


def root() -> Path:
    return shared_root("gemini") / ".gemini"


def files() -> dict[str, Path]:
    found = [p for pattern in gemini.CHATS.patterns for p in root().glob(pattern)]
    return {p.name.rsplit("-", 1)[1].removesuffix(".jsonl"): p for p in found}


def read(session: str) -> list[Record]:
    path = files()[session[:8]]
    state = chat.start(path.relative_to(root()).as_posix())
    return [
        r
        for number, line in enumerate(read_lines(path), start=1)
        for r in chat.parse(line, number, state)
    ]


def folded(session: str) -> dict[str, EventRecord]:
    return {e.id: e for e in events(read(session))}


def test_the_sessions_are_those_the_readme_lists() -> None:
    assert set(files()) == {S1[:8], S2[:8], S4[:8]}
    for session in (S1, S2, S4):
        records = read(session)
        assert not [r for r in records if isinstance(r, ParseProblem)]
        assert {e.session for e in events(records)} == {session}
        facts = merged(records)[session]
        assert facts["title"] is None and facts["cwd"] == PROJECT and facts["prompt"]


#: Each session's words (fixtures README): where they must be, and as what.
WORDS = [
    (S1, "plinthgmv1", "user", "message"),
    (S1, "mullogmv1", "assistant", "meta"),
    (S1, "cmdquarkgmv1", "assistant", "tool_use"),
    (S1, "outfizzgmv142", "system", "tool_result"),
    (S1, "ansbriogmv1", "assistant", "message"),
    (S1, "plinthgmv3", "user", "message"),
    (S1, "cmdquarkgmv3", "assistant", "tool_use"),
    (S1, "outfizzgmv342", "system", "tool_result"),
    (S1, "ansbriogmv3", "assistant", "message"),
    (S1, "memkelpgmvproj", "system", "system"),
    (S2, "plinthgmv2", "user", "message"),
    (S2, "filezestgmv2", "assistant", "tool_use"),  # and in the result, which shows the file
    (S2, "cmdquarkgmv2", "assistant", "tool_use"),
    (S2, "errgrumgmv25", "system", "tool_result"),
    (S2, "蓝鲸跳舞已记录完毕", "assistant", "message"),
    (S4, "plinthgmv4", "user", "message"),
    (S4, "bigheadgmv442", "system", "tool_result"),
    (S4, "bigtailgmv442", "system", "tool_result"),
    (S4, "ansbriogmv4", "assistant", "message"),
]


@pytest.mark.parametrize(("session", "word", "role", "kind"), WORDS)
def test_every_word_once_where_it_belongs(session: str, word: str, role: str, kind: str) -> None:
    holding = [(e.role, e.kind) for e in folded(session).values() if word in e.text]
    also = [("system", "tool_result")] if word == "filezestgmv2" else []
    assert holding == [(role, kind), *also]


def test_the_resume_adds_only_the_new_turn() -> None:
    """The resume's checkpoints restate s1 whole; only s3's turn is new, and no message of s1
    is read twice (nor replaced by the checkpoint's form of it)."""
    records = read(S1)
    ids = [e.id for e in events(records)]
    first = ids.index(f"gemini:{S1}:a528415a-6f71-44af-884f-97c29437401f")  # plinthgmv3
    assert not set(ids[first:]) & set(ids[:first])
    assert "".join(e.text for e in events(records)).count("plinthgmv1") == 1


def test_the_failed_command_is_marked_and_the_write_is_not() -> None:
    results = {e.id.rsplit(":", 1)[1]: e for e in folded(S2).values() if e.kind == "tool_result"}
    assert results["run_shell_command__call_53671aa88eb8429d"].rendered.startswith(
        "[error] <untrusted_context>\nOutput: errgrumgmv25\nExit Code: 3"
    )
    assert results["write_file__call_4cd6314f5f9643fa"].label is None


def test_the_large_output_is_whole_like_the_saved_file() -> None:
    """resultDisplay's whole output between the tool's wrapper is the offloaded file's text."""
    saved = next(root().glob("tmp/demo-app/tool-outputs/*/*.txt")).read_text()
    parts = [e for e in folded(S4).values() if e.kind == "tool_result"]
    whole = "".join(e.text for e in parts)
    notice, _, rest = whole.partition("\n")
    assert notice.startswith("Output too large.") and rest == saved
    assert len(parts) == 4
