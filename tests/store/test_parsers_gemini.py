"""The Gemini CLI parser over the project's own samples (tests/data/gemini, written by
make_samples.py there) and synthetic lines. The cross-check against the shared fixtures is in
test_parsers_gemini_fixtures.py, the fuzzing in test_parsers_gemini_fuzz.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from parse_support import all_text, events, fixture_root, merged, read_lines

from origin_store.model import EventRecord, ParseProblem, Record, Usage
from origin_store.parsers.base import OUTPUT_PART_CHARS
from origin_store.parsers.gemini import chat
from origin_store.parsers.gemini import source as gemini
from origin_store.textclip import STORED_CHARS

A = "6f1c2d3e-4a5b-4c6d-8e7f-a1b2c3d4e5f6"
B = "7a2b3c4d-5e6f-4a7b-9c8d-b2c3d4e5f6a7"
C = "8b3c4d5e-6f7a-4b8c-8d9e-c3d4e5f6a7b8"
SUB = "9c4d5e6f-7a8b-4c9d-8e0f-d4e5f6a7b8c9"
PROJECT = "/home/dev/orchard-api"
CHATS = "tmp/orchard-api/chats"
FILES = {
    A: f"{CHATS}/session-2026-11-20T10-00-{A[:8]}.jsonl",
    B: f"{CHATS}/session-2026-11-20T10-00-{B[:8]}.jsonl",
    C: f"{CHATS}/session-2026-11-20T10-00-{C[:8]}.jsonl",
    SUB: f"{CHATS}/{A}/{SUB}.jsonl",
}
CONTEXT = "d04923d38bb0f6017037e74183378ef4"


def root() -> Path:
    return fixture_root("gemini") / ".gemini"


def feed(session: str, lines: list[bytes] | None = None) -> tuple[list[Record], dict[str, Any]]:
    """A session file's complete lines through one state, as the store reads them; the state
    goes through JSON between lines, as the store keeps it."""
    state = chat.start(FILES[session])
    records: list[Record] = []
    found = read_lines(root() / FILES[session]) if lines is None else lines
    for number, line in enumerate(found, start=1):
        records.extend(chat.parse(line, number, state))
        state = json.loads(json.dumps(state))
    return records, state


def read(session: str) -> list[Record]:
    return feed(session)[0]


def folded(records: list[Record]) -> dict[str, EventRecord]:
    """Events as the store keeps them from a kind whose batches upsert: the later wins."""
    return {e.id: e for e in events(records)}


def everything() -> list[Record]:
    return [r for session in FILES for r in read(session)]


def eid(session: str, rest: str) -> str:
    return f"gemini:{session}:{rest}"


# --- where the logs are -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, ["/home/someone/.gemini"]),
        ({"GEMINI_CLI_HOME": "/srv/g"}, ["/srv/g/.gemini", "/home/someone/.gemini"]),
        ({"GEMINI_CLI_HOME": "/home/someone"}, ["/home/someone/.gemini"]),
        ({"GEMINI_CLI_HOME": ""}, ["/home/someone/.gemini"]),
    ],
)
def test_roots_follow_gemini_cli_home(environ: dict[str, str], expected: list[str]) -> None:
    assert gemini.roots(environ, Path("/home/someone")) == [Path(p) for p in expected]


def test_patterns_find_sessions_and_sub_agents_only() -> None:
    found = {
        p.relative_to(root()).as_posix()
        for pattern in gemini.CHATS.patterns
        for p in root().glob(pattern)
    }
    assert found == set(FILES.values())
    assert gemini.CHATS.rewrites and gemini.CHATS.upserts and not gemini.CHATS.snapshots
    assert [kind.name for kind in gemini.SOURCE.files] == ["chat"]


def test_start_names_the_sub_agents_parent() -> None:
    assert chat.start(FILES[SUB]) == {"sid": SUB, "t": 0, "seen": "", "parent": A}
    assert chat.start(FILES[A])["sid"] == f"session-2026-11-20T10-00-{A[:8]}"
    assert chat.start("") == {"sid": "unknown", "t": 0, "seen": ""}


# --- what each line becomes ---------------------------------------------------------------------

EVENTS = [
    # id, role, kind, the text as shown
    (eid(A, CONTEXT), "system", "system", "<session_context>\nThis is the Gemini CLI."),
    (eid(A, "a-m1"), "user", "message", "Run the tests of the pear routes, they mention pomegranate."),
    (eid(A, "a-m2:thoughts"), "assistant", "meta", "Checking the medlarvine routes\nRun the tests first."),
    (eid(A, "a-m2:model"), "system", "meta", "model: gemini-3.8-pro"),
    (eid(A, "call:run_shell_command__call_a1"), "assistant", "tool_use",
     'run_shell_command {"command":"npm test -- --grep pomegranate"'),
    (eid(A, "result:run_shell_command__call_a1"), "system", "tool_result",
     "<untrusted_context>\nOutput: 12 passing (pomegranate suite)\nProcess Group PGID: 4100"),
    (eid(A, "a-m4"), "assistant", "message", "All 12 pear route tests pass."),
    (eid(A, "a-m5"), "user", "message", "Raise the page size of the pear list to 25."),
    (eid(A, "call:replace__call_a2"), "assistant", "tool_use",
     'replace {"file_path":"/home/dev/orchard-api/src/routes/pears.ts","old_string":"const limit = 10;"'),
    (eid(A, "result:replace__call_a2"), "system", "tool_result", "Successfully modified file:"),
    (eid(A, "a-m8"), "assistant", "message", "The page size is now 25 (cloudberryfinal)."),
    (eid(A, "a-m9"), "system", "system", "info: Checkpoint saved."),
    (eid(A, "a-m10"), "user", "message", "Actually, undo that idea about tamarillo."),
    (eid(A, "rewind:L25"), "system", "system",
     "rewind: the conversation went back to before message a-m10; the messages from it to here"),
    (eid(A, "a-m11"), "user", "message", "Instead, explain the page size change."),
    (eid(A, "a-m12"), "assistant", "message", "The list now returns 25 pears per page."),
    (eid(B, "b-m1"), "user", "message", "梨のメモを書いて、lint を実行してください。请顺便检查一下库存。"),
    (eid(B, "call:write_file__call_b1"), "assistant", "tool_use",
     'write_file {"file_path":"/home/dev/orchard-api/docs/果樹園.md","content":"# 果樹園メモ\\n'),
    (eid(B, "result:write_file__call_b1"), "system", "tool_result",
     "Successfully created and wrote to new file: /home/dev/orchard-api/docs/果樹園.md."),
    (eid(B, "result:run_shell_command__call_b2"), "system", "tool_result",
     "[error] <untrusted_context>\nOutput: src/梨.ts: 3 problems (kumquatlint)\nExit Code: 2"),
    (eid(B, "result:read_file__call_b3"), "system", "tool_result",
     "[error] File not found: src/missing.ts (yuzumiss)"),
    (eid(B, "result:run_shell_command__call_b4"), "system", "tool_result", "[error] "),
    (eid(B, "b-m4"), "system", "system", "warning: Deploy was cancelled by the user."),
    (eid(B, "b-m5"), "assistant", "message", "メモを書きました。lint は失敗しました（exit 2）。库存检查完毕。"),
    (eid(C, "result:run_shell_command__call_c1"), "system", "tool_result",
     "[part 1 of 5] Output too large. Showing first 8,000 and last 32,000 characters."),
    (eid(SUB, "s-m1"), "user", "message", "Find where the pear list page size (elderlimit) is set."),
    (eid(SUB, "call:grep_search__call_s1"), "assistant", "tool_use",
     'grep_search {"pattern":"limit","dir_path":"src"}'),
    (eid(SUB, "s-m3"), "assistant", "message", "It is set in src/routes/pears.ts line 3."),
]  # fmt: skip


@pytest.mark.parametrize(("event_id", "role", "kind", "shown"), EVENTS)
def test_events(event_id: str, role: str, kind: str, shown: str) -> None:
    session = event_id.split(":")[1]
    event = folded(read(session))[event_id]
    assert (event.session, event.role, event.kind) == (session, role, kind)
    assert event.rendered.startswith(shown)
    assert event.cwd == PROJECT


def test_session_a_is_every_event_listed_and_nothing_twice() -> None:
    """The resume's checkpoints restate every message already given and give none of them
    again; the `functionResponse` user messages repeat their turn's results and give nothing;
    the answer written again under its id is one event with the later words."""
    records = read(A)
    given = {e.id for e in events(records)}
    assert given == {event_id for event_id, *_ in EVENTS if A in event_id}
    assert not [e for e in events(records) if e.id in (eid(A, "a-m3"), eid(A, "a-m7"))]
    lines = read_lines(root() / FILES[A])
    _, state = feed(A, lines[:15])
    assert b'"a-m2_response"' in lines[15]  # the resume's checkpoint of the whole history
    assert chat.parse(lines[15], 16, state) == []
    assert "damsonwick" not in folded(records)[eid(A, "a-m8")].text  # the draft was replaced
    assert "damsonwick" in all_text(records)  # …but was read, and the store replaces it


def test_a_checkpoint_gives_what_the_file_did_not_say() -> None:
    """A file whose history is only in a checkpoint (or that starts with one) is read from it:
    the model's form of a turn gives its reasoning, text and calls."""
    line = orjson.dumps(
        {
            "$set": {
                "messages": [
                    {"id": "x1", "timestamp": "2026-11-20T11:00:00.000Z", "type": "user",
                     "content": [{"text": "Count the quinces"}]},
                    {"id": "x2", "timestamp": "2026-11-20T11:00:01.000Z", "type": "gemini",
                     "content": [{"text": "**Counting** the crates", "thought": True},
                                 {"functionCall": {"id": "c9", "name": "run_shell_command",
                                                   "args": {"command": "wc -l crates.txt"}}},
                                 {"text": "There are 7."}]},
                    {"id": "x2_response", "timestamp": "2026-11-20T11:00:01.000Z", "type": "user",
                     "content": [{"functionResponse": {"id": "c9", "name": "run_shell_command",
                                                       "response": {"output": "7"}}}]},
                ]
            }
        }
    )  # fmt: skip
    state = chat.start(FILES[A]) | {"sid": "s"}
    got = [(e.id, e.kind, e.text) for e in events(chat.parse(line, 1, state))]
    assert got == [
        ("gemini:s:x1", "message", "Count the quinces"),
        ("gemini:s:x2:thoughts", "meta", "**Counting** the crates"),
        ("gemini:s:x2", "message", "There are 7."),
        ("gemini:s:call:c9", "tool_use", 'run_shell_command {"command":"wc -l crates.txt"}'),
    ]
    assert chat.parse(line, 2, state) == []  # the same checkpoint again gives nothing


def test_failures_are_marked_alike_and_only_failures() -> None:
    marked = {e.id for e in events(everything()) if e.label and e.label[0][1] == "[error] "}
    assert marked == {
        eid(B, "result:run_shell_command__call_b2"),  # `status: success`, `Exit Code: 2`
        eid(B, "result:read_file__call_b3"),  # status error
        eid(B, "result:run_shell_command__call_b4"),  # cancelled, no output
    }


def test_every_word_of_a_large_output_is_in_its_parts() -> None:
    """The model's copy keeps 8,000 + 32,000 characters; resultDisplay the whole, which the
    parts give back with the tool's notice and wrapper around it, each part kept whole."""
    parts = [e for e in events(read(C)) if ":result:" in e.id]
    whole = "".join(e.text for e in parts)
    display = orjson.loads(read_lines(root() / FILES[C])[3])["toolCalls"][0]["resultDisplay"]
    assert len(display) > 60_000 and display in whole
    assert whole.startswith("Output too large.") and whole.endswith(
        "plumtailmark\nProcess Group PGID: 4300\n</untrusted_context>"
    )
    assert [e.id for e in parts] == [
        eid(C, "result:run_shell_command__call_c1" + (f"#{n}" if n else "")) for n in range(5)
    ]
    assert all(len(e.text) <= OUTPUT_PART_CHARS and len(e.rendered) <= STORED_CHARS for e in parts)
    middle = "row 00400 " + "~" * 50  # in neither the head nor the tail of the model's copy
    assert middle in whole
    assert [e.time for e in parts] == [1795168821000] * 5  # when the call finished


def test_sessions_titles_prompts_parents() -> None:
    facts = merged(everything())
    assert {s: (f["title"], f["prompt"], f["cwd"], f["parent"]) for s, f in facts.items()} == {
        A: ("Pear route tests and page size",
            "Run the tests of the pear routes, they mention pomegranate.", PROJECT, None),
        B: (None, "梨のメモを書いて、lint を実行してください。请顺便检查一下库存。", PROJECT, None),
        C: (None, "Dump every orchard row and tell me the last one.", PROJECT, None),
        SUB: (None, "Find where the pear list page size (elderlimit) is set.", PROJECT, A),
    }  # fmt: skip


def test_usage_is_on_one_event_per_model_turn() -> None:
    """Each gemini message's tokens once, on the same event in every version of it: input and
    tool-use prompt read (cached among them), answer and reasoning written."""
    records = read(A)
    carriers = {e.id: e.usage for e in folded(records).values() if e.usage}
    assert carriers == {
        eid(A, "a-m2:thoughts"): Usage(1200, 900, 120),
        eid(A, "a-m4"): Usage(1200, 900, 120),
        eid(A, "call:replace__call_a2"): Usage(1200, 900, 120),
        eid(A, "a-m8"): Usage(1200, 900, 120),
        eid(A, "a-m12"): Usage(1200, 900, 120),
    }


def test_the_half_written_last_line_waits() -> None:
    data = (root() / FILES[B]).read_bytes()
    assert not data.endswith(b"\n")
    assert "まだ書いている途中" not in all_text(read(B))


def test_state_stays_small() -> None:
    """The ids given are kept as seven characters each (the context, twelve messages and the
    checkpoint's `a-m2_response`); nothing else grows with the file."""
    _, state = feed(A)
    assert len(state["seen"]) == 7 * 14
    assert set(state) == {"sid", "t", "seen", "cwd", "prompt_sent", "model"}


def test_the_project_is_the_one_whose_hash_the_metadata_names() -> None:
    meta = orjson.dumps({"sessionId": "s", "projectHash": _sha("/w/two"), "kind": "main"})
    context = orjson.dumps(
        {
            "$set": {
                "messages": [
                    {"id": "c", "type": "user", "content": [{"text": "<session_context>\n"
                     "- **Workspace Directories:**\n  - /w/one\n  - /w/two\n- **Directory Structure:**"}]}
                ]
            }
        }
    )  # fmt: skip
    state = chat.start("tmp/x/chats/session-1.jsonl")
    records = chat.parse(meta, 1, state) + chat.parse(context, 2, state)
    assert merged(records)["s"]["cwd"] == "/w/two"
    older = orjson.dumps(
        {"id": "u", "type": "user",
         "content": "<session_context>\nI'm currently working in the directory: /w/old\n"}
    )  # fmt: skip
    assert merged(chat.parse(older, 1, chat.start("x")))["x"]["cwd"] == "/w/old"


def _sha(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()


BAD = [
    (b"", []),
    (b"   ", []),
    (b"[1, 2]", ["not-an-object"]),
    (b"{not json", ["invalid-json"]),
    (b'{"$set": 5}', []),
    (b'{"$rewindTo": null}', ["event"]),
    (b'{"id": 5, "type": "user", "content": {"text": "a lone part"}}', ["event"]),
    (b'{"id": "m", "type": "gemini", "content": null, "toolCalls": [5, {"status": 3}]}', ["event"]),
    (b'{"id": "m", "type": "user", "content": [{"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]}',
     ["event"]),
]  # fmt: skip


@pytest.mark.parametrize(("line", "shapes"), BAD)
def test_odd_lines_give_a_problem_or_what_they_say(line: bytes, shapes: list[str]) -> None:
    out = chat.parse(line, 1, chat.start(FILES[A]) | {"sid": "s"})
    got = [
        r.reason if isinstance(r, ParseProblem) else "event"
        for r in out
        if isinstance(r, ParseProblem | EventRecord)
    ]
    assert got == shapes
