"""The OpenCode parser cross-checked against the shared fixtures, written by the real OpenCode
1.18.33, and what their README expects of them (sessions, titles, the words of each session);
skipped where ../shared/fixtures is absent."""

from __future__ import annotations

from pathlib import Path

import pytest
from parse_support import events, kind_lines, merged, shared_root

from origin_store.model import EventRecord, ParseProblem, Record
from origin_store.parsers.base import file_line
from origin_store.parsers.memory import MEMORY_KINDS
from origin_store.parsers.opencode import source as opencode
from origin_store.system.globwalk import match_many

S1 = "ses_dcb95d64affeiZphVO4W5OBprk"  # s1, continued by s3
S2 = "ses_dcb959d79ffe550Q0ifJRutrHf"
S4 = "ses_dcb958494ffe80woIiFQWqr6mJ"
TITLE = "Scripted session title"
CWD = "/home/dev/demo-app"


def database() -> Path:
    return shared_root("opencode") / ".local/share/opencode/opencode.db"


@pytest.fixture(scope="module")
def records() -> list[Record]:
    state = opencode.start("opencode.db")
    lines = kind_lines(opencode.DATABASE, database())
    return [r for number, line in enumerate(lines, 1) for r in opencode.parse(line, number, state)]


def found(records: list[Record], word: str) -> list[EventRecord]:
    return [e for e in events(records) if word in e.text]


SESSIONS = [
    # session, first prompt
    (S1, "Please run a quick echo check for plinthocv1 and tell me what it printed."),
    (S2, "请把蓝鲸跳舞的笔记写进文件，然后运行一个会失败的命令。Key: plinthocv2"),
    (S4, "Print a large listing for plinthocv4 and tell me how it ends."),
]


@pytest.mark.parametrize(("session", "prompt"), SESSIONS)
def test_sessions_titles_and_prompts(records: list[Record], session: str, prompt: str) -> None:
    facts = merged(records)[session]
    assert (facts["title"], facts["prompt"], facts["cwd"], facts["parent"]) == (
        TITLE,
        prompt,
        CWD,
        None,
    )
    mine = [e for e in events(records) if e.session == session]
    assert {e.agent_version for e in mine} == {"1.18.33"} and {e.cwd for e in mine} == {CWD}


WORDS = [
    # word, session, role, kind: each found once, in its session, as what it is
    ("plinthocv1", S1, "user", "message"),
    ("mulloocv1", S1, "assistant", "meta"),
    ("cmdquarkocv1", S1, "assistant", "tool_use"),
    ("outfizzocv142", S1, "system", "tool_result"),
    ("ansbrioocv1", S1, "assistant", "message"),
    ("plinthocv3", S1, "user", "message"),
    ("cmdquarkocv3", S1, "assistant", "tool_use"),
    ("outfizzocv342", S1, "system", "tool_result"),
    ("ansbrioocv3", S1, "assistant", "message"),
    ("plinthocv2", S2, "user", "message"),
    ("cmdquarkocv2", S2, "assistant", "tool_use"),
    ("errgrumocv25", S2, "system", "tool_result"),
    ("ansbrioocv2", S2, "assistant", "message"),
    ("蓝鲸跳舞已记录完毕", S2, "assistant", "message"),
    ("plinthocv4", S4, "user", "message"),
    ("cmdquarkocv4", S4, "assistant", "tool_use"),
    ("bigheadocv442", S4, "system", "tool_result"),  # only in tool-output/: its first part
    ("ansbrioocv4", S4, "assistant", "message"),
]


@pytest.mark.parametrize(("word", "session", "role", "kind"), WORDS)
def test_every_word_in_its_place(
    records: list[Record], word: str, session: str, role: str, kind: str
) -> None:
    [event] = found(records, word)
    assert (event.session, event.role, event.kind) == (session, role, kind)


def test_the_file_write_holds_its_words(records: list[Record]) -> None:
    [call] = found(records, "filezestocv2")
    assert call.kind == "tool_use" and call.text.startswith("write ")
    assert "请把蓝鲸跳舞的笔记写进文件" in call.text


def test_the_failing_command_is_an_error(records: list[Record]) -> None:
    [result] = found(records, "errgrumocv25")
    assert result.rendered.startswith("[error: exit code 3] ")


def test_the_large_output_is_whole_in_its_parts(records: list[Record]) -> None:
    output = shared_root("opencode") / ".local/share/opencode/tool-output"
    [whole] = output.iterdir()
    parts = sorted((e for e in events(records) if ":output#" in e.id), key=lambda e: int(e.id[-1]))
    assert "".join(e.text for e in parts) == whole.read_text()
    assert {e.session for e in parts} == {S4}
    assert parts[0].text.startswith("bigheadocv442\n")
    assert "bigtailocv442" in parts[-1].text


def test_no_problems_and_no_quotes_left(records: list[Record]) -> None:
    assert not [r for r in records if isinstance(r, ParseProblem)]
    prompts = [e.text for e in events(records) if e.role == "user"]
    assert len(prompts) == 4 and not any(p.startswith('"') for p in prompts)


def test_the_global_instructions_are_found_under_its_config_root() -> None:
    """Under HOME as OpenCode ran (`~/.config/opencode`): the file the model was sent."""
    home = shared_root("opencode")
    [config] = [r for r in opencode.roots({}, home) if (r / "AGENTS.md").is_file()]
    [kind] = MEMORY_KINDS["opencode"]
    [found_path] = [p for paths in match_many(str(config), list(kind.patterns)) for p in paths]
    data = Path(found_path).read_bytes()
    [event] = events(kind.parse(file_line(found_path, data, 1), 1, kind.start("AGENTS.md")))
    assert "memkelpocvuser" in event.text and event.kind == "memory"
