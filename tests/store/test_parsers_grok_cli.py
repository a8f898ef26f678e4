"""The grok-cli parser over the project's own grok.db (built at test time by
tests/data/grok/make_db.py) read as the store reads it, through its row log, and over rows of
every shape the tables can hold."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest
from parse_support import all_text, events, fixture_root, kind_lines, merged

from origin_store.model import EventRecord, ParseProblem, Record, SessionFact
from origin_store.parsers.base import row_line
from origin_store.parsers.grok import cli as grok_cli

S1 = "5c2e8a1f9b30"
S2 = "9d41b7e0c6a5"
DEMO = "/home/dev/demo-app"
NOTES = "/home/dev/文档/notes-app"


def make_db() -> ModuleType:
    """The sample builder, for the tests that change the database between two reads."""
    builder = Path(__file__).resolve().parents[1] / "data" / "grok" / "make_db.py"
    spec = importlib.util.spec_from_file_location("grok_make_db", builder)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rows(root: Path | None = None) -> list[bytes]:
    return kind_lines(grok_cli.DATABASE, (root or fixture_root("grok")) / "grok.db")


def parse_all(lines: list[bytes]) -> list[Record]:
    state = grok_cli.start("grok.db")
    return [
        r for number, line in enumerate(lines, start=1) for r in grok_cli.parse(line, number, state)
    ]


def by_id(records: list[Record]) -> dict[str, EventRecord]:
    return {e.id: e for e in events(records)}


EVENTS = [
    # id, role, kind, the text as shown, cwd
    (f"grok:{S1}:1", "user", "message", "Rate-limit POST /login to 5 attempts per minute per IP.", DEMO),
    (f"grok:{S1}:2#0", "assistant", "meta", "Check for an existing limiter first.", DEMO),
    (f"grok:{S1}:2#1", "assistant", "message", "Looking for middleware first.", DEMO),
    (f"grok:{S1}:2#2", "assistant", "tool_use", 'grep {"pattern":"rateLimit","path":"src"}', DEMO),
    (f"grok:{S1}:3", "system", "tool_result", "src/middleware/index.ts:3: export {}", DEMO),
    (f"grok:{S1}:4", "assistant", "tool_use", 'bash {"command":"npm i express-rate-limit"}', DEMO),
    (f"grok:{S1}:5", "system", "tool_result", "[error] npm ERR! 403 Forbidden", DEMO),
    (f"grok:{S1}:6", "assistant", "message", "The install was refused (403); writing a small limiter.", DEMO),
    (f"grok:{S1}:7", "system", "system", "[Context checkpoint summary]\nGoal: rate-limit POST /login.", DEMO),
    (f"grok:{S1}:8", "user", "message",
     "Good, and log refused attempts like this one.\n[image image/png 72 bytes]", DEMO),
    (f"grok:{S1}:9", "assistant", "message", "Added src/middleware/loginLimit.ts", DEMO),
    (f"grok:{S1}:compaction:1", "system", "system",
     "context compacted: 64000 tokens before, kept from message 8", DEMO),
    (f"grok:{S1}:recap", "system", "meta", "recap: Login is limited to 5 attempts a minute per IP.", DEMO),
    (f"grok:{S2}:1", "user", "message", "导出的文件名里日文会变成问号（例如「議事録」），请修复。", NOTES),
    (f"grok:{S2}:2#0", "assistant", "message", "先检查 Content-Disposition。", NOTES),
    (f"grok:{S2}:2#1", "assistant", "tool_use", 'read_file {"path":"src/export.ts"}', NOTES),
    (f"grok:{S2}:3", "system", "tool_result", "res.attachment(title + '.md')", NOTES),
    (f"grok:{S2}:4", "assistant", "tool_use", 'write_file {"path":"out/議事録.md"}', NOTES),
    (f"grok:{S2}:5", "system", "tool_result", "[error] EACCES: permission denied, open 'out/議事録.md'", NOTES),
    (f"grok:{S2}:6", "assistant", "message", "已改为 RFC 5987 编码，「議事録.md」可以正常下载了。", NOTES),
]  # fmt: skip


@pytest.mark.parametrize(("event_id", "role", "kind", "shown", "cwd"), EVENTS)
def test_events(event_id: str, role: str, kind: str, shown: str, cwd: str) -> None:
    event = by_id(parse_all(rows()))[event_id]
    assert (event.role, event.kind, event.cwd) == (role, kind, cwd)
    assert event.session == event_id.split(":")[1]
    assert event.rendered.startswith(shown)


def test_every_event_is_listed_and_none_is_twice() -> None:
    records = parse_all(rows())
    assert [e.id for e in events(records)] == list(by_id(records))
    assert set(by_id(records)) == {event_id for event_id, *_ in EVENTS}
    assert not [r for r in records if isinstance(r, ParseProblem)]


def test_origins_words_never_glue_the_logs_together() -> None:
    for event in events(parse_all(rows())):
        text = event.text
        for offset, _ in event.label or ():
            assert not (0 < offset < len(text) and text[offset - 1 : offset + 1].isalnum())
    assert by_id(parse_all(rows()))[f"grok:{S1}:compaction:1"].text == "64000 8"


def test_times_are_the_rows() -> None:
    evs = by_id(parse_all(rows()))
    assert evs[f"grok:{S1}:1"].time == 1795168805000  # 2026-11-20T10:00:05.000Z
    assert evs[f"grok:{S1}:recap"].time == 1795168850000  # recap_updated_at


def test_sessions() -> None:
    facts = merged(parse_all(rows()))
    assert facts[S1] | {"rank": 0} == {
        "title": "Rate-limit the login route",
        "rank": 0,
        "prompt": "Rate-limit POST /login to 5 attempts per minute per IP.",
        "cwd": DEMO,
        "parent": None,
    }
    assert (facts[S2]["title"], facts[S2]["cwd"]) == ("笔记导出：日文文件名", NOTES)
    assert facts[S2]["prompt"] == "导出的文件名里日文会变成问号（例如「議事録」），请修复。"


def test_the_queries_read_only_what_the_parser_needs() -> None:
    columns: dict[str, set[str]] = {}
    for line in rows():
        row = orjson.loads(line)
        columns.setdefault(row["table"], set()).update(row["row"])
    assert columns == {
        "sessions": {"id", "title", "recap_text", "recap_updated_at", "created_at", "cwd"},
        "messages": {
            "session_id",
            "seq",
            "role",
            "message_json",
            "created_at",
            "cwd",
            "first_prompt",
        },
        "compactions": {"id", "session_id", "first_kept_seq", "tokens_before", "created_at", "cwd"},
    }


def test_a_grown_database_keeps_its_ids(tmp_path: Path) -> None:
    """A second read after grok-cli wrote more: rows that did not change are the same lines (the
    row log appends none of them), a new message is new, and a rewritten recap is the same event
    said anew (the store replaces it)."""
    shutil.copy(fixture_root("grok") / "grok.db", tmp_path / "grok.db")
    before = rows(tmp_path)
    make_db().grow(tmp_path)
    after = rows(tmp_path)
    changed = [line for line in after if line not in before]
    assert [orjson.loads(line)["key"] for line in changed] == [S1, f"{S2}/7"]
    first, second = by_id(parse_all(before)), by_id(parse_all(changed))
    assert set(second) == {f"grok:{S1}:recap", f"grok:{S2}:7"}
    assert second[f"grok:{S1}:recap"].text == "Login is limited and refused attempts are logged."
    assert first[f"grok:{S1}:recap"].text != second[f"grok:{S1}:recap"].text
    assert {e.id for e in events(parse_all(after))} == set(first) | set(second)


# --- rows of every shape ------------------------------------------------------------------------


def message(role: str, message: object, seq: object = 3, **extra: Any) -> bytes:
    raw = message if isinstance(message, str) else orjson.dumps(message).decode()
    row = {"session_id": S1, "seq": seq, "role": role, "message_json": raw}
    return row_line(
        "messages", f"{S1}/{seq}", row | {"created_at": "2026-11-20T10:00:00.000Z"} | extra
    )


OUTPUTS = [
    ({"type": "text", "value": "plain"}, "plain"),
    ({"type": "json", "value": {"success": True, "output": "out"}}, "out"),
    ({"type": "json", "value": {"success": False, "error": "boom"}}, "[error] boom"),
    ({"type": "json", "value": {"rows": 2}}, '{"rows":2}'),
    ({"type": "error-json", "value": {"code": 7}}, '[error] {"code":7}'),
    ({"type": "error-text", "value": "denied"}, "[error] denied"),
    ("bare", '"bare"'),
]


@pytest.mark.parametrize(("output", "shown"), OUTPUTS)
def test_tool_outputs(output: object, shown: str) -> None:
    part = {"type": "tool-result", "toolCallId": "c", "toolName": "t", "output": output}
    out = events(grok_cli.parse(message("tool", {"role": "tool", "content": [part]}), 1, {}))
    assert [(e.kind, e.rendered) for e in out] == [("tool_result", shown)]


PROMPTS = [
    # content, first_prompt, the prompt fact
    ("typed", 1, "typed"),
    ("typed", 0, None),
    ([{"type": "file", "data": "QUJD", "mediaType": "text/plain", "filename": "a.txt"}], 1, "[file a.txt 3 bytes]"),
    ([{"type": "image", "image": "https://x.test/a.png"}], 1, "[image https://x.test/a.png]"),
    ("   ", 1, None),
]  # fmt: skip


@pytest.mark.parametrize(("content", "first", "prompt"), PROMPTS)
def test_user_messages(content: object, first: int, prompt: str | None) -> None:
    out = grok_cli.parse(
        message("user", {"role": "user", "content": content}, first_prompt=first), 1, {}
    )
    assert [f.prompt for f in out if isinstance(f, SessionFact)] == ([prompt] if prompt else [])
    typed = isinstance(content, list) or (isinstance(content, str) and content.strip())
    assert [e.role for e in events(out)] == (["user"] if typed else [])


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (message("user", "{cut"), "invalid-json"),
        (message("user", [1]), "bad-field"),
        (message("user", {"role": "user", "content": "x"}, seq="3"), "bad-field"),
        (row_line("messages", "k", {"seq": 1, "message_json": "{}"}), "bad-field"),
        (row_line("sessions", "k", {"title": "t"}), "bad-field"),
        (b"{cut", "invalid-json"),
        (b'{"table": "messages"}', "bad-field"),
    ],
)
def test_bad_rows_are_problems(line: bytes, reason: str) -> None:
    out = grok_cli.parse(line, 1, {})
    assert reason in [r.reason for r in out if isinstance(r, ParseProblem)]


def test_other_tables_and_parts_say_nothing() -> None:
    assert grok_cli.parse(row_line("usage_events", "1", {"source": "agent"}), 1, {}) == []
    assert grok_cli.parse(b"", 1, {}) == []
    odd = {
        "role": "assistant",
        "content": [5, {"type": "step-start"}, {"type": "text", "text": " "}],
    }
    assert grok_cli.parse(message("assistant", odd), 1, {}) == []


def test_no_secret_is_read() -> None:
    root = fixture_root("grok")
    assert "FAKE-" in (root / "user-settings.json").read_text()
    assert not [
        p
        for pattern in grok_cli.DATABASE.patterns
        for p in root.glob(pattern)
        if p.suffix == ".json"
    ]
    assert "FAKE-" not in all_text(parse_all(rows()))
