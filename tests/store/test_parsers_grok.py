"""The Grok Build parsers (updates.jsonl, summary.json) over the project's own samples
(tests/data/grok, written by make_samples.py there) and synthetic lines. grok-cli's grok.db is
tested in test_parsers_grok_cli.py, the cross-check against the shared fixtures in
test_parsers_grok_fixtures.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
import pytest
from parse_support import all_text, events, fixture_root, merged, read_lines

from origin_store.model import EventRecord, ParseProblem, Record, SessionFact
from origin_store.parsers.base import FileKind, file_line
from origin_store.parsers.grok import (
    build as grok_build,
)
from origin_store.parsers.grok import (
    build_text as grok_build_text,
)
from origin_store.parsers.grok import (
    cli as grok_cli,
)
from origin_store.parsers.grok import (
    source as grok,
)

A = "019b4c10-2e3f-7a41-8b52-c3d4e5f6a7b8"
B = "019b4c11-5a6b-7c7d-8e8f-909192939495"
F = "019b4c20-0a1b-7c2d-8e3f-a0b1c2d3e4f5"
C = "019b5d00-aaaa-7bbb-8ccc-0123456789ab"
DEMO = "/home/dev/demo-app"
NOTES = "/home/dev/文档/notes-app"
DIRS = {A: (DEMO, A), B: (DEMO, B), F: (DEMO, F), C: (NOTES, C)}


def rel(session: str, name: str = "updates.jsonl") -> str:
    cwd, sid = DIRS[session]
    return f"sessions/{quote(cwd, safe='')}/{sid}/{name}"


def lines_of(session: str) -> list[bytes]:
    return read_lines(fixture_root("grok") / rel(session))


def feed(session: str, lines: list[bytes] | None = None) -> tuple[list[Record], dict[str, Any]]:
    """A session's complete lines through one state, as the store reads them (no flush)."""
    state = grok_build.start(rel(session))
    records: list[Record] = []
    for number, line in enumerate(lines_of(session) if lines is None else lines, start=1):
        records.extend(grok_build.parse(line, number, state))
    return records, state


def read(session: str) -> list[Record]:
    """A session read to its end, the message still open released."""
    records, state = feed(session)
    return records + grok_build.flush(state)


def summary_of(session: str) -> list[Record]:
    path = fixture_root("grok") / rel(session, "summary.json")
    line = file_line(str(path), path.read_bytes(), 1795000000000)
    return grok.parse_summary(line, 1, grok.start_summary(rel(session, "summary.json")))


def everything() -> list[Record]:
    return [r for s in DIRS for r in read(s) + summary_of(s)]


def by_id(records: list[Record]) -> dict[str, EventRecord]:
    return {e.id: e for e in events(records)}


def eid(session: str, number: int) -> str:
    return f"grok:{session}-{number:04d}"


# --- where the logs are -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, ["/home/someone/.grok"]),
        ({"GROK_HOME": "/srv/grok"}, ["/srv/grok", "/home/someone/.grok"]),
        ({"GROK_HOME": "/home/someone/.grok"}, ["/home/someone/.grok"]),
    ],
)
def test_roots_follow_grok_home_and_keep_grok_cli_home(
    environ: dict[str, str], expected: list[str]
) -> None:
    assert grok.roots(environ, Path("/home/someone")) == [Path(p) for p in expected]
    assert grok.SOURCE.roots is grok.roots


def test_patterns_find_updates_and_summaries_only() -> None:
    root = fixture_root("grok")

    def found(kind: FileKind) -> set[str]:
        return {p.relative_to(root).as_posix() for pat in kind.patterns for p in root.glob(pat)}

    assert found(grok_build.UPDATES) == {rel(s) for s in DIRS}
    assert found(grok.SUMMARY) == {rel(s, "summary.json") for s in DIRS}
    assert found(grok_cli.DATABASE) == {"grok.db"}  # built by make_db.py in the samples' copy
    assert grok.SUMMARY.whole and not grok_build.UPDATES.snapshots
    assert [kind.name for kind in grok.SOURCE.files] == ["updates", "summary", "grok_db"]
    # prompt_history, chat_history (copies of the updates), signals and the API key are not read
    read = set().union(*(found(kind) for kind in grok.SOURCE.files))
    assert {p.rpartition("/")[2] for p in read} == {"updates.jsonl", "summary.json", "grok.db"}


def test_start_decodes_the_cwd_from_the_directory() -> None:
    assert grok_build.start(rel(C)) == {"sid": C, "t": 0, "cwd": NOTES}
    assert grok_build.decode_cwd("C%3A%5CUsers%5Cdev") == "C:\\Users\\dev"
    assert grok_build.decode_cwd("demo-app-3f2a9c1d") is None  # a long path's hashed slug
    assert grok_build.start("x") == {"sid": "unknown", "t": 0}


# --- what each line becomes ---------------------------------------------------------------------

EVENTS = [
    # id, role, kind, the text as shown
    (eid(A, 1), "system", "system", "hook user_prompt_submit:\n./scripts/check-prompt.sh success 0 prompt ok"),
    (eid(A, 3), "user", "message", "Add a GET /healthz endpoint that reports the uptime in seconds."),
    (eid(A, 5), "system", "meta", "mode: agent"),
    (eid(A, 6), "assistant", "meta", "Check how routes are wired in src/server.ts first."),
    (eid(A, 8), "assistant", "message", "Reading the server entry point."),
    (f"grok:{A}:call-h1:call", "assistant", "tool_use", 'read_file {"path":"src/server.ts"}'),
    (f"grok:{A}:call-h1:result", "system", "tool_result", "app.get('/health', (_q, r) => r.send('ok'));"),
    (eid(A, 12), "system", "meta",
     f"sub-agent explore: Look for an uptime helper (session {B}, model grok-code-fast-2)"),
    (eid(A, 13), "system", "meta",
     "sub-agent finished: completed, 1 tool calls, 1 turns, 5120 ms\nNo helper exists; process.uptime() is enough."),
    (f"grok:{A}:call-h2:call", "assistant", "tool_use",
     'edit_file {"path":"src/server.ts","old":"app.get(\'/health\'"'),
    (f"grok:{A}:call-h2:result", "system", "tool_result",
     f"diff {DEMO}/src/server.ts\n- app.get('/health'\n+ app.get('/healthz', (_q, r) => r.json("),
    (eid(A, 16), "system", "meta", "plan:\n[completed] Add /healthz route\n[pending] Add a test"),
    (eid(A, 17), "assistant", "message", "Added `GET /healthz` returning `{ uptime }`."),
    (eid(A, 18), "system", "meta", "turn summary: Added GET /healthz"),
    (eid(A, 19), "system", "meta", "session summary: Add /healthz endpoint"),
    (eid(A, 20), "user", "message", "Now add a test using supertest."),
    (eid(A, 21), "system", "system", "retry: API error (status 529 Overloaded); retrying in 4s"),
    (f"grok:{A}:call-h3:call", "assistant", "tool_use", 'run_terminal_command {"command":"npm test"}'),
    (f"grok:{A}:call-h3:result", "system", "tool_result", "[error: exit code 1] Error: Cannot find module 'supertest'"),
    (eid(A, 24), "assistant", "message", "supertest is not installed; shall I add it?"),
    (eid(A, 25), "system", "system", f"rewind to prompt 1: lines 20–24 (from {eid(A, 20)}) are an abandoned branch"),
    (eid(A, 26), "user", "message", "Write the test with node:test and fetch instead.\n[image image/png 72 bytes]"),
    (f"grok:{A}:call-h4:call", "assistant", "tool_use", 'run_terminal_command {"command":"node --test"}'),
    (eid(A, 29), "assistant", "message", "Added test/healthz.test.ts; it passes under node --test."),
    (eid(B, 1), "user", "message", "Is there an uptime helper under src/?"),
    (f"grok:{B}:call-s1:result", "system", "tool_result", "no matches"),
    (eid(C, 1), "user", "message", "给笔记搜索加上日文假名支持，比如「かな」也能搜到「カナ」。"),
    (eid(C, 3), "assistant", "meta", "ひらがなとカタカナを正規化してから比較する。"),
    (eid(C, 5), "system", "system", "<system-reminder>Plan mode is off.</system-reminder>"),
    (eid(C, 6), "system", "meta", "$ git status\nOn branch feat/假名\nnothing to commit"),
    (eid(C, 7), "system", "meta", "recap: 搜索现在忽略平假名与片假名的差异。"),
    (eid(C, 8), "system", "system", "context compacted"),
    (eid(C, 9), "system", "system", "auto compact completed"),
    (f"grok:{C}:L10", "assistant", "message", "カナ検索のテストも追加しました。"),
]  # fmt: skip


@pytest.mark.parametrize(("event_id", "role", "kind", "shown"), EVENTS)
def test_events(event_id: str, role: str, kind: str, shown: str) -> None:
    session = event_id.removeprefix("grok:")[:36]
    event = by_id(read(session))[event_id]
    assert (event.session, event.role, event.kind) == (session, role, kind)
    assert event.rendered.startswith(shown)
    assert event.cwd == DIRS[session][0]


def test_every_event_is_listed_once() -> None:
    """Lines that say nothing (commands offered, a call still running, an empty hook) give no
    event, and chunks after a message's first give none of their own."""
    for session in (A, B, C):
        ids = [e.id for e in events(read(session))]
        assert len(ids) == len(set(ids))
        listed = {event_id for event_id, *_ in EVENTS if session in event_id}
        if session == A:
            assert set(ids) == listed
    assert eid(A, 2) not in by_id(read(A))  # available_commands_update
    assert f"grok:{A}:call-h4:result" not in by_id(read(A))  # still running


def glued(event: EventRecord) -> list[str]:
    """Places where a label of Origin's sits between two of the log's words with nothing between
    them in the text, which would index the two as one word."""
    text = event.text
    return [
        words
        for offset, words in event.label or ()
        if 0 < offset < len(text) and text[offset - 1].isalnum() and text[offset].isalnum()
    ]


def test_origins_words_never_glue_the_logs_together() -> None:
    for event in events(everything()):
        assert glued(event) == [], (event.id, event.text)
    finished = by_id(read(A))[eid(A, 13)]
    assert finished.text == "completed, 1 1 5120 No helper exists; process.uptime() is enough."
    assert by_id(read(A))[eid(A, 12)].text == (
        f"explore: Look for an uptime helper ({B}, grok-code-fast-2)"
    )


def test_times_are_the_agents_milliseconds() -> None:
    evs = by_id(read(A))
    assert evs[eid(A, 3)].time == 1795000001000  # the first chunk's
    assert evs[f"grok:{A}:call-h3:result"].time == 1795000070000
    assert by_id(read(C))[f"grok:{C}:L10"].time == 1795086412000  # no stamp: the last one seen


# --- chunks -------------------------------------------------------------------------------------


def test_a_message_waits_in_the_state_until_a_line_ends_it() -> None:
    records, state = feed(A, lines_of(A)[:3])
    assert events(records)[-1].id == eid(A, 1)  # the prompt's first chunk: not emitted yet
    assert state["run"]["text"] == "Add a GET /healthz endpoint "
    records, state = feed(A, lines_of(A)[:5])  # the mode update ends the prompt
    assert by_id(records)[eid(A, 3)].text.endswith("uptime in seconds.")
    assert "run" not in state


def test_the_last_message_is_released_by_flush_once() -> None:
    records, state = feed(A)
    assert eid(A, 29) not in by_id(records)
    assert state["run"]["id"] == eid(A, 29)
    released = grok_build.flush(state)
    assert [e.id for e in events(released)] == [eid(A, 29)]
    assert grok_build.flush(state) == []


@pytest.mark.parametrize("cut", [1, 3, 4, 6, 9, 20, 25, 26, 27, 29])
def test_a_grown_file_gives_the_same_records(cut: int) -> None:
    """Read up to `cut`, the state kept as the store keeps it (JSON), then the rest: the same
    records, the same ids, nothing twice."""
    lines = lines_of(A)
    first, state = feed(A, lines[:cut])
    state = json.loads(json.dumps(state))
    rest: list[Record] = []
    for number, line in enumerate(lines[cut:], start=cut + 1):
        rest.extend(grok_build.parse(line, number, state))
    assert first + rest + grok_build.flush(state) == read(A)


def test_a_long_message_goes_out_in_pieces() -> None:
    state = grok_build.start(rel(A))
    piece = "x" * 6000
    out: list[Record] = []
    for number in range(1, 6):
        out += grok_build.parse(chunk(A, number, piece), number, state)
    out += grok_build.flush(state)
    texts = [(e.id, len(e.text)) for e in events(out)]
    assert texts == [(eid(A, 1), 18000), (eid(A, 4), 12000)]
    huge = grok_build.parse(chunk(A, 6, "y" * grok_build.RUN_CHARS), 6, state)
    assert [(e.id, len(e.text)) for e in events(huge)] == [(eid(A, 6), grok_build.RUN_CHARS)]
    assert "run" not in state  # emitted at once, never held


def chunk(session: str, number: int, text: str, kind: str = "agent_message_chunk") -> bytes:
    update = {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
    meta = {"eventId": f"{session}-{number:04d}", "promptId": "p"}
    envelope = {"timestamp": 1795000000 + number, "method": "session/update"}
    return orjson.dumps(
        envelope | {"params": {"sessionId": session, "update": update, "_meta": meta}}
    )


# --- forks, rewinds, sub-agents -----------------------------------------------------------------


def test_a_fork_skips_the_lines_it_copied_from_its_parent() -> None:
    fork = read(F)
    assert all(r.session == F for r in fork if isinstance(r, EventRecord | SessionFact))
    assert not set(by_id(fork)) & set(by_id(read(A)))
    assert [e.id for e in events(fork)] == [eid(F, 9), eid(F, 10), f"grok:{F}:call-f1:call"]
    records, _ = feed(F, lines_of(F)[:8])
    assert records == []  # the copies: no event, no fact, no problem


def test_a_truncated_last_line_waits_and_is_read_once_complete() -> None:
    path = fixture_root("grok") / rel(F)
    raw = path.read_bytes()
    assert not raw.endswith(b"\n") and len(lines_of(F)) == 11  # the cut line is not fed
    _, state = feed(F)
    done = chunk_done(F, 12, "call-f1")
    assert [e.id for e in events(grok_build.parse(done, 12, state))] == [f"grok:{F}:call-f1:result"]
    half = raw.rsplit(b"\n", 1)[1]
    assert [type(r) for r in grok_build.parse(half, 12, grok_build.start(rel(F)))] == [ParseProblem]


def chunk_done(session: str, number: int, call: str) -> bytes:
    update: dict[str, Any] = {"sessionUpdate": "tool_call_update", "toolCallId": call}
    update["status"] = "completed"
    update |= {"content": [{"type": "content", "content": {"type": "text", "text": "ok"}}]}
    params = {
        "sessionId": session,
        "update": update,
        "_meta": {"eventId": f"{session}-{number:04d}"},
    }
    return orjson.dumps({"timestamp": 1795003608, "method": "session/update", "params": params})


def test_a_rewind_names_the_abandoned_branch_which_stays() -> None:
    records, state = feed(A)
    evs = by_id(records)
    marker = evs[eid(A, 25)]
    assert marker.text == "1"  # the log's own word; the rest is Origin's label
    assert "lines 20–24" in marker.rendered and eid(A, 20) in marker.rendered
    for abandoned in (eid(A, 20), f"grok:{A}:call-h3:result", eid(A, 24)):
        assert abandoned in evs
    assert state["prompts"] == [[0, 3, eid(A, 3)], [1, 26, eid(A, 26)]]


def test_a_rewind_past_what_is_remembered_still_says_so() -> None:
    update = {"sessionUpdate": "rewind_marker", "target_prompt_index": 4}
    line = orjson.dumps(
        {"params": {"sessionId": A, "update": update, "_meta": {"eventId": f"{A}-0009"}}}
    )
    out = events(grok_build.parse(line, 9, grok_build.start(rel(A))))
    assert (
        out[0].rendered
        == "rewind to prompt 4: the turns from that prompt to here are an abandoned branch"
    )


# --- sessions -----------------------------------------------------------------------------------

SESSIONS = [
    # session, title, prompt, cwd, parent
    (A, "Add /healthz endpoint with a node:test test",
     "Add a GET /healthz endpoint that reports the uptime in seconds.", DEMO, None),
    (B, None, "Is there an uptime helper under src/?", DEMO, A),
    (F, "Add /healthz endpoint", "In this fork, report the start time too.", DEMO, A),
    (C, "笔记搜索：支持日文假名", "给笔记搜索加上日文假名支持，比如「かな」也能搜到「カナ」。", NOTES, None),
]  # fmt: skip


@pytest.mark.parametrize(("session", "title", "prompt", "cwd", "parent"), SESSIONS)
def test_sessions(
    session: str, title: str | None, prompt: str, cwd: str, parent: str | None
) -> None:
    facts = merged(everything())[session]
    assert (facts["title"], facts["prompt"], facts["cwd"], facts["parent"]) == (
        title,
        prompt,
        cwd,
        parent,
    )


def test_summary_titles_rank_manual_over_generated_over_summary() -> None:
    facts = [r for r in summary_of(A) + summary_of(C) if isinstance(r, SessionFact)]
    ranks = {(r.title, r.title_rank) for r in facts if r.title}
    assert ranks == {
        ("Add /healthz endpoint with a node:test test", grok_build_text.GENERATED_TITLE_RANK),
        ("Add /healthz endpoint", grok_build_text.SUMMARY_TITLE_RANK),
        ("笔记搜索：支持日文假名", grok_build_text.MANUAL_TITLE_RANK),
        ("笔记搜索与假名", grok_build_text.SUMMARY_TITLE_RANK),
    }
    assert {r.time for r in facts} == {1795000000000}  # the file's mtime


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{", "invalid-json"),
        ("[1]", "not-an-object"),
        ('{"info": 5, "title_is_manual": true}', None),
    ],
)
def test_summary_problems(text: str, expected: str | None) -> None:
    line = file_line("/x/summary.json", text.encode())
    out = grok.parse_summary(line, 1, grok.start_summary(rel(A, "summary.json")))
    if expected is None:
        assert out == [SessionFact(A, "grok", cwd=DEMO)]  # the directory names the session
    else:
        assert [r.reason for r in out if isinstance(r, ParseProblem)] == [expected]
    assert grok.parse_summary(b'{"table": 1}', 1, {})[0] == ParseProblem(
        "bad-field", "a row log line needs table, key and row"
    )


# --- synthetic lines ----------------------------------------------------------------------------


def envelope(update: dict[str, Any], event_id: str | None = None, **meta: Any) -> bytes:
    found = {"eventId": event_id} if event_id else {}
    params = {"sessionId": A, "update": update, "_meta": found | meta}
    return orjson.dumps(
        {"timestamp": 1795000000, "method": "_x.ai/session/update", "params": params}
    )


RENAMES = [
    # update, envelope _meta, expected (title, rank)
    ({"sessionUpdate": "session_summary_generated", "session_summary": "s"}, {}, ("s", 10)),
    ({"sessionUpdate": "session_summary_generated", "session_summary": "s"}, {"x.ai/titleIsManual": True}, ("s", 30)),
    ({"sessionUpdate": "session_info_update", "title": "t"}, {}, ("t", 20)),
    ({"sessionUpdate": "session_info_update", "title": "t", "_meta": {"x.ai/titleIsManual": True}}, {}, ("t", 30)),
    ({"sessionUpdate": "session_info_update", "title": "t", "_meta": {"x.ai/titleIsManual": False}}, {}, ("t", 20)),
]  # fmt: skip


@pytest.mark.parametrize(("update", "meta", "expected"), RENAMES)
def test_renames_are_ranked_titles(
    update: dict[str, Any], meta: dict[str, Any], expected: tuple[str, int]
) -> None:
    out = grok_build.parse(envelope(update, f"{A}-0001", **meta), 1, grok_build.start(rel(A)))
    assert [(r.title, r.title_rank) for r in out if isinstance(r, SessionFact) and r.title] == [
        expected
    ]


CONTENT = [
    ({"type": "text", "text": "hi"}, "hi"),
    (
        {"type": "image", "mimeType": "image/jpeg", "data": "A" * 400},
        "[image image/jpeg 300 bytes]",
    ),
    ({"type": "audio", "mimeType": "audio/wav", "data": "A" * 8}, "[audio audio/wav 6 bytes]"),
    ({"type": "image", "uri": "data:image/png;base64,AAAA"}, "[image]"),
    ({"type": "resource_link", "uri": "file:///x.md", "name": "x.md"}, "[resource_link x.md]"),
    ({"type": "resource", "resource": {"uri": "file:///y", "text": "body"}}, "body"),
    (
        {"type": "resource", "resource": {"uri": "file:///y", "blob": "AAAA"}},
        "[resource file:///y]",
    ),
    ({"type": 5}, ""),
    ("plain", "plain"),
    (None, ""),
]


@pytest.mark.parametrize(("block", "expected"), CONTENT)
def test_content_text(block: object, expected: str) -> None:
    assert grok_build_text.content_text(block) == expected


@pytest.mark.parametrize(
    ("event_id", "copied"),
    [
        (f"{A}-0001", False),
        (f"{B}-0001", True),  # another session's record: a fork's copy
        ("evt-0001", False),  # not a session id: an id scheme of its own
        (f"{B}-x", False),
    ],
)
def test_only_lines_naming_another_session_are_copies(event_id: str, copied: bool) -> None:
    line = envelope({"sessionUpdate": "last_turn_summary", "summary": "done"}, event_id)
    assert (grok_build.parse(line, 1, grok_build.start(rel(A))) == []) is copied


def test_hostile_lines_are_problems_or_nothing() -> None:
    state = grok_build.start(rel(A))
    assert [
        r.reason for r in grok_build.parse(b"{cut", 1, state) if isinstance(r, ParseProblem)
    ] == ["invalid-json"]
    assert grok_build.parse(b'"text"', 2, state)[0] == ParseProblem("not-an-object", "str")
    for line in (b"", b"{}", b'{"params": {"update": 5}}', b'{"params": {"update": {}}}'):
        assert grok_build.parse(line, 3, state) == []
    unknown = envelope({"sessionUpdate": "usage_update", "used": 5}, f"{A}-0004")
    assert grok_build.parse(unknown, 4, state) == []
    no_id = envelope({"sessionUpdate": "tool_call", "title": "t", "status": "failed"})
    assert [e.id for e in events(grok_build.parse(no_id, 5, state))] == [
        f"grok:{A}:L5",
        f"grok:{A}:L5:result",
    ]
    assert json.loads(json.dumps(state)) == state


def test_state_stays_small() -> None:
    for session in DIRS:
        _, state = feed(session)
        assert len(json.dumps(state)) < 1000


def test_no_secret_is_read() -> None:
    assert "FAKE-" in (fixture_root("grok") / "user-settings.json").read_text()
    text = all_text(everything())
    assert "FAKE-" not in text
    assert "iVBORw0KGgo" not in text  # the pasted image's base64
