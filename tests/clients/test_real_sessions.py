"""The real `claude` and `codex` each hold a session with the scripted model (a prompt, shell
calls they really run, a large output, a failure and an answer); Origin ingests what they
wrote, and a real `origin mcp` must find every word of it where it belongs, trace it to the
log's own line, and add nothing on a second ingest. When an agent changes its format, this is
the test that says so.

A check that fails for a gap the parsers do not cover yet is marked xfail (strict) with the
gap's name: it turns into a failure the day the gap is closed, so that the mark is removed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from model_server import tool_outputs
from real_sessions import RUNNERS, SCRIPT, WORDS, Run, Word, expected_raw, file_line

pytestmark = [pytest.mark.clients, pytest.mark.e2e]

CLIS = tuple(RUNNERS)

#: The gaps known in the parsers, by (source, word), for the check of how each thing is filed
#: and for the check that a failure is marked: each marks that one check xfail.
FILING_GAPS = {
    ("claude-code", "periwinkle"): "Claude Code's queue-operation enqueue line repeats the "
    "prompt, filed as a second event",
    ("claude-code", "marigold"): "Claude Code keeps a large output in tool-results/<id>.txt "
    "beside the session, which the parser does not read",
}
FAILURE_GAPS = {
    ("codex", "glacier"): "Codex 0.171 says a command failed only by `Process exited with code "
    "N` in its output, which the parser does not mark as a failure",
}

MCP_GAPS = {
    ("codex", "saxifrage"): "Codex 0.171 names an MCP tool's server in the call's `namespace`, "
    "which the parser leaves out",
}


def with_gaps(cases: list[tuple[str, Word]], gaps: dict[tuple[str, str], str]) -> list[object]:
    return [
        pytest.param(
            cli,
            word,
            id=f"{cli}-{word.what}",
            marks=[pytest.mark.xfail(strict=True, reason=gaps[cli, word.word])]
            if (cli, word.word) in gaps
            else [],
        )
        for cli, word in cases
    ]


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


@pytest.mark.parametrize(
    ("cli", "word"), with_gaps([(c, w) for c in CLIS for w in WORDS], FILING_GAPS)
)
def test_each_thing_is_one_event_of_its_role_and_kind(
    sessions: Callable[[str], Run], cli: str, word: Word
) -> None:
    events = sessions(cli).found.events[word.word]
    got = [(e["role"], e["kind"]) for e in events]
    assert got == [(word.role, word.kind)], [(e["id"], e["kind"], e["text"][:120]) for e in events]


@pytest.mark.parametrize(
    ("cli", "word"), with_gaps([(c, w) for c in CLIS for w in WORDS if w.failed], FAILURE_GAPS)
)
def test_a_failure_is_marked(sessions: Callable[[str], Run], cli: str, word: Word) -> None:
    events = sessions(cli).found.events[word.word]
    assert events and all(e["text"].startswith("[error] ") for e in events), events


@pytest.mark.parametrize(
    ("cli", "word"), with_gaps([(c, w) for c in CLIS for w in WORDS if w.mcp], MCP_GAPS)
)
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
        line = file_line(source["original_file"], source["line"])
        assert source["raw"] == expected_raw(line), (event_id, source["line"])


@pytest.mark.parametrize("cli", CLIS)
def test_a_second_ingest_adds_nothing(sessions: Callable[[str], Run], cli: str) -> None:
    found = sessions(cli).found
    assert found.second["events"] == 0 and found.second["lines"] == 0, found.second
    assert found.timeline and found.timeline_again == found.timeline
