"""The real `claude` and `codex` each hold a session with the scripted model (a prompt, shell
calls they really run, a large output, a failure and an answer); Origin ingests what they
wrote, and a real `origin mcp` must find every word of it where it belongs, trace it to the
log's own line, and add nothing on a second ingest. When an agent changes its format, this is
the test that says so."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from model_server import tool_outputs
from real_sessions import RUNNERS, SCRIPT, WORDS, Run, Word, expected_raw, file_line

pytestmark = [pytest.mark.clients, pytest.mark.e2e]

CLIS = tuple(RUNNERS)


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


@pytest.mark.parametrize("cli", CLIS)
def test_the_cli_ran_the_commands_and_answered(sessions: Callable[[str], Run], cli: str) -> None:
    run = sessions(cli)
    assert "kestrel" in run.stdout, run.stdout
    outputs = tool_outputs(run.requests[-1]["body"])
    assert len(outputs) >= len(SCRIPT.steps), outputs
    # Origin's `search` answered, through the server the CLI started: no entries yet.
    assert "entries" in outputs[-3] and "saxifrage" not in outputs[-3], outputs[-3]
    assert "glacier" in outputs[-1] and "3" in outputs[-1], outputs[-1]
    # The CLI's own `origin mcp` may have ingested the session already: no errors either way.
    assert not run.found.first["errors"], run.found.first


@pytest.mark.parametrize(("cli", "word"), each([(c, w) for c in CLIS for w in WORDS]))
def test_each_thing_is_one_event_of_its_role_and_kind(
    sessions: Callable[[str], Run], cli: str, word: Word
) -> None:
    events = sessions(cli).found.events[word.word]
    got = [(e["role"], e["kind"]) for e in events]
    assert got == [(word.role, word.kind)], [(e["id"], e["kind"], e["text"][:120]) for e in events]


@pytest.mark.parametrize(("cli", "word"), each([(c, w) for c in CLIS for w in WORDS if w.failed]))
def test_a_failure_is_marked(sessions: Callable[[str], Run], cli: str, word: Word) -> None:
    events = sessions(cli).found.events[word.word]
    assert events and all(e["text"].startswith("[error] ") for e in events), events


@pytest.mark.parametrize(("cli", "word"), each([(c, w) for c in CLIS for w in WORDS if w.mcp]))
def test_an_mcp_call_names_its_server(sessions: Callable[[str], Run], cli: str, word: Word) -> None:
    events = sessions(cli).found.events[word.word]
    assert events and all("mcp__origin" in e["text"] for e in events), events


@pytest.mark.parametrize("cli", CLIS)
def test_sources_is_the_log_files_own_line(sessions: Callable[[str], Run], cli: str) -> None:
    run = sessions(cli)
    assert run.found.sources
    for event_id, sources in run.found.sources.items():
        [source] = sources
        assert source["event_id"] == event_id
        assert Path(source["original_file"]).is_relative_to(run.logs), source["original_file"]
        if "/tool-results/" in source["original_file"]:
            # A large output Claude Code kept beside the session is read whole as one row, as a
            # database's row is: raw is that row as read, the file's text in it.
            text = Path(source["original_file"]).read_text()
            head = '{"table":"file","key":' + json.dumps(source["original_file"])
            assert source["raw"].startswith(head), (event_id, source["raw"][:200])
            assert json.dumps(text[:1000])[1:-1] in source["raw"], event_id
            continue
        line = file_line(source["original_file"], source["line"])
        assert source["raw"] == expected_raw(line), (event_id, source["line"])


@pytest.mark.parametrize("cli", CLIS)
def test_a_second_ingest_adds_nothing(sessions: Callable[[str], Run], cli: str) -> None:
    found = sessions(cli).found
    assert found.second["events"] == 0 and found.second["lines"] == 0, found.second
    assert found.timeline and found.timeline_again == found.timeline
