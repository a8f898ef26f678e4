"""The real `claude`, `codex`, `gemini`, `qwen`, `opencode` and `copilot` each hold a session
with the scripted model (a prompt, shell calls they really run, a large output, a failure, the
reasoning where the CLI keeps it, and an answer); Origin ingests what they wrote, and a real
`origin mcp` must find every word of it where it belongs, trace it to the log's own line (or
the database's row), and add nothing on a second ingest. When an agent changes its format, this
is the test that says so."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from model_server import tool_outputs
from real_sessions import (
    LOOKUP,
    RUNNERS,
    SCRIPTS,
    WORDS_OF,
    Run,
    Word,
    expected_raw,
    file_line,
)

pytestmark = [pytest.mark.clients, pytest.mark.e2e]

CLIS = tuple(RUNNERS)
#: Every CLI's words, one case each.
CASES = [(cli, word) for cli in CLIS for word in WORDS_OF[cli]]
#: A failed call's mark at the start of its result: `[error] `, or with what failed in it
#: (`[error: exit code 3] `), as the transcript reads it (origin_api/transcript/outputs.py).
FAILED = re.compile(r"^\[error(?:: [^\]\n]{1,80})?\] ")
#: The head of a raw line that is a row as read (a database's row, or a file read whole).
ROW = re.compile(r'\{"table":"(\w+)","key":("(?:[^"\\]|\\.)*")')


def each(cases: list[tuple[str, Word]]) -> list[object]:
    return [pytest.param(cli, word, id=f"{cli}-{word.what}") for cli, word in cases]


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], Run]]:
    """Each CLI's session, run once for the module on the first test that asks for it."""
    runs: dict[str, Run] = {}

    def get(cli: str) -> Run:
        if cli not in runs:
            runs[cli] = RUNNERS[cli](tmp_path_factory.mktemp(cli))
        return runs[cli]

    yield get


def read(sessions: Callable[[str], Run], cli: str) -> Run:
    """The CLI's session, for a test of what Origin found of it."""
    return sessions(cli)


@pytest.mark.parametrize("cli", CLIS)
def test_the_cli_ran_the_commands_and_answered(sessions: Callable[[str], Run], cli: str) -> None:
    run = sessions(cli)
    steps = SCRIPTS[cli].steps
    assert "kestrel" in run.stdout, run.stdout
    # The longest history sent (a side request, such as a title's, may come after it).
    outputs = max((tool_outputs(r["body"]) for r in run.requests), key=len)
    assert len(outputs) >= len(steps), outputs
    if LOOKUP in steps:
        # Origin's `search` answered, through the server the CLI started: no entries yet.
        lookup = outputs[steps.index(LOOKUP) - len(steps)]
        assert "entries" in lookup and "saxifrage" not in lookup, lookup
    assert "glacier" in outputs[-1], outputs[-1]
    if cli != "opencode":  # OpenCode tells the model the output only, not the exit status
        assert "3" in outputs[-1], outputs[-1]
    # The CLI's own `origin mcp` may have ingested the session already: no errors either way.
    assert not run.found.first["errors"], run.found.first


@pytest.mark.parametrize(("cli", "word"), each(CASES))
def test_each_thing_is_one_event_of_its_role_and_kind(
    sessions: Callable[[str], Run], cli: str, word: Word
) -> None:
    events = read(sessions, cli).found.events[word.word]
    got = sorted((e["role"], e["kind"]) for e in events)
    expected = sorted([(word.role, word.kind), *word.also])
    assert got == expected, [(e["id"], e["kind"], e["text"][:120]) for e in events]


@pytest.mark.parametrize(("cli", "word"), each([(c, w) for c, w in CASES if w.failed]))
def test_a_failure_is_marked(sessions: Callable[[str], Run], cli: str, word: Word) -> None:
    events = read(sessions, cli).found.events[word.word]
    assert events and all(FAILED.match(e["text"]) for e in events), events


@pytest.mark.parametrize(("cli", "word"), each([(c, w) for c, w in CASES if w.mcp]))
def test_an_mcp_call_names_its_server(sessions: Callable[[str], Run], cli: str, word: Word) -> None:
    events = read(sessions, cli).found.events[word.word]
    assert events and all("mcp__origin" in e["text"] for e in events), events


@pytest.mark.parametrize("cli", CLIS)
def test_sources_is_the_log_files_own_line(sessions: Callable[[str], Run], cli: str) -> None:
    run = read(sessions, cli)
    assert run.found.sources
    for event_id, sources in run.found.sources.items():
        [source] = sources
        assert source["event_id"] == event_id
        assert Path(source["original_file"]).is_relative_to(run.logs), source["original_file"]
        row = ROW.match(source["raw"])
        if row is None:
            line = file_line(source["original_file"], source["line"])
            assert source["raw"] == expected_raw(line), (event_id, source["line"])
        elif row[1] == "file":
            # A file kept beside the log (Claude Code's and OpenCode's large outputs) is read
            # whole as one row, as a database's row is: raw is that row as read, the file's
            # text in it, cited as the file itself or as a row of the database's row log.
            kept = json.loads(row[2])
            cited = source["original_file"]
            assert cited in (kept, *_databases(run.logs)), (event_id, kept, cited)
            assert Path(kept).is_relative_to(run.logs), (event_id, kept)
            text = Path(kept).read_text()
            assert json.dumps(text[:1000])[1:-1] in source["raw"], event_id
        else:
            # A database's row (OpenCode's): its table and key, a row the database holds.
            assert source["line"] >= 1, source
            assert _row(source["original_file"], row[1], json.loads(row[2])), (event_id, row[0])


def _databases(logs: Path) -> list[str]:
    return [str(path) for path in logs.glob("*.db")]


def _row(database: str, table: str, key: str) -> tuple[Any, ...] | None:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        found: tuple[Any, ...] | None = db.execute(
            f"SELECT * FROM {table} WHERE id = ?",
            (key,),
        ).fetchone()
    return found


@pytest.mark.parametrize("cli", CLIS)
def test_a_second_ingest_adds_nothing(sessions: Callable[[str], Run], cli: str) -> None:
    found = read(sessions, cli).found
    assert found.second["events"] == 0 and found.second["lines"] == 0, found.second
    assert found.timeline and found.timeline_again == found.timeline
