"""The Qwen Code parser cross-checked against the shared fixtures, which the real CLI (0.15.10)
wrote, and what their README expects of them (sessions, titles, words); skipped where
../shared/fixtures is absent."""

from __future__ import annotations

from pathlib import Path

import pytest
from parse_support import events, merged, read_lines, shared_root

from origin_store.model import EventRecord, ParseProblem, Record
from origin_store.parsers.qwen import chats

S13 = "cc4992f2-f5e6-4da8-b090-c86b8aa017ac"  # s1, then s3 resumed in the same file
S2 = "68a68cb8-6699-41bb-9d4e-5d972da60e30"
S4 = "95b15f53-5fbf-440e-9aee-34ff54d51bab"


def home() -> Path:
    return shared_root("qwen") / ".qwen"


def read(session: str) -> list[Record]:
    [path] = home().glob(f"projects/*/chats/{session}.jsonl")
    state = chats.start(path.relative_to(home()).as_posix())
    return [
        r
        for number, line in enumerate(read_lines(path), start=1)
        for r in chats.parse(line, number, state)
    ]


def everything() -> list[Record]:
    return [r for session in (S13, S2, S4) for r in read(session)]


def test_the_sessions_are_those_the_readme_lists() -> None:
    assert {p.stem for p in home().glob("projects/*/chats/*.jsonl")} == {S13, S2, S4}
    records = everything()
    assert not [r for r in records if isinstance(r, ParseProblem)]
    assert {e.session for e in events(records)} == {S13, S2, S4}
    facts = merged(records)
    for session, prompt in (
        (S13, "Please run a quick echo"),
        (S2, "请把蓝鲸跳舞"),
        (S4, "Print a large"),
    ):
        assert facts[session]["title"] is None  # no custom_title: the prompt stands in
        assert facts[session]["prompt"].startswith(prompt)
        assert facts[session]["cwd"] == "/home/dev/demo-app"


#: The README's words, each in one event only, of the kind it belongs to; a command's words
#: also in its result, whose model copy begins `Command: <the command>`.
WORDS = [
    ("plinthqwv1", "message"), ("mulloqwv1", "meta"), ("cmdquarkqwv1", "tool_use tool_result"),
    ("outfizzqwv142", "tool_result"), ("ansbrioqwv1", "message"), ("plinthqwv3", "message"),
    ("outfizzqwv342", "tool_result"), ("ansbrioqwv3", "message"), ("plinthqwv2", "message"),
    ("filezestqwv2", "tool_use"), ("errgrumqwv25", "tool_result"), ("ansbrioqwv2", "message"),
    ("plinthqwv4", "message"), ("cmdquarkqwv4", "tool_use"), ("bigheadqwv442", "tool_result"),
    ("ansbrioqwv4", "message"), ("蓝鲸跳舞已记录完毕", "message"),
]  # fmt: skip


@pytest.mark.parametrize(("word", "kind"), WORDS)
def test_each_word_once(word: str, kind: str) -> None:
    found = [e for e in events(everything()) if word in e.text]
    assert [e.kind for e in found] == kind.split(), word


def test_the_failed_command_is_an_error() -> None:
    results = {e.id: e for e in events(read(S2)) if e.kind == "tool_result"}
    failed = [e for e in results.values() if "errgrumqwv25" in e.text]
    assert [e.rendered[:8] for e in failed] == ["[error] "]
    assert not [
        e for e in results.values() if e.rendered.startswith("[error] ") and e not in failed
    ]


def test_the_large_output_whole_in_parts() -> None:
    """Every line the command printed is in the result's parts, once, each small enough to be
    kept whole; the saved file holds nothing more of it."""
    parts: list[EventRecord] = [e for e in events(read(S4)) if e.kind == "tool_result"]
    assert len(parts) > 1 and all(len(e.text) <= 16_000 for e in parts)
    text = "".join(e.text for e in parts)
    saved = next(home().glob("tmp/*/run_shell_command_*.output")).read_text()
    printed = saved.split("Output: ", 1)[1].split("\nError: ")[0]
    assert printed in text and text.count("filler line 00500 ") == 1
