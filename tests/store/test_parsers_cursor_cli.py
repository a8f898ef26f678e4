"""The cursor-agent CLI's `store.db` (meta, message blobs, the newest root) and its
`meta.json`, over the sample databases and on row lines written here."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest
from parse_support import events
from test_parsers_cursor import build_home, row_log

from origin_store.model import ParseProblem, Record, SessionFact
from origin_store.parsers.base import file_line, row_line
from origin_store.parsers.cursor import cli as cursor_cli

AGENT = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"
AGENT_WIKI = "8a9b0c1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d"
TIDE_DIR = "1c84dbee7e95b260df1497173240e210"  # md5("/home/dev/tide")
STORE = f".cursor/chats/{TIDE_DIR}/{AGENT}/store.db"
STORE_WIKI = f".cursor/chats/dbef580bbaf553f9be7f22050cd3264f/{AGENT_WIKI}/store.db"
CREATED = 1793100000000


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_home(tmp_path_factory.mktemp("cursor-cli") / "home")


def parse_store(home: Path, relpath: str) -> list[Record]:
    state = cursor_cli.start(relpath.removeprefix(".cursor/"))
    lines = row_log(cursor_cli.CLI_DB, home / relpath)
    return [
        r for number, line in enumerate(lines, 1) for r in cursor_cli.parse(line, number, state)
    ]


BLOBS = [
    # row number, block, role, kind, rendered text
    (1, None, "system", "system", "You are an agent in the Cursor CLI. (sample)"),
    (2, None, "user", "message", "Stream search results as NDJSON instead of one array."),
    (3, 0, "assistant", "message", "I'll switch the handler to a stream."),
    (3, 1, "assistant", "tool_use", 'Shell {"command":"npm test -- stream"}'),
    (4, None, "system", "tool_result", "[error] 1 failing: expected newline"),
    (5, 0, "assistant", "meta", "Each object needs a trailing newline."),
    (5, 1, "assistant", "message", "Fixed: every result line ends with a newline."),
]


def test_message_blobs_in_the_order_they_were_written(home: Path) -> None:
    evs = events(parse_store(home, STORE))
    got = [(e.time - CREATED, e.role, e.kind, e.rendered) for e in evs]
    assert got == [(number, role, kind, text) for number, _, role, kind, text in BLOBS]
    for event, (_, block, *_) in zip(evs, BLOBS, strict=True):
        blob = event.id.removeprefix(f"cursor:{AGENT}:").split("#")[0]
        assert len(blob) == 64 and event.id.endswith("" if block is None else f"#{block}")
        assert (event.session, event.cwd) == (AGENT, "/home/dev/tide")


def test_the_user_info_note_is_not_the_users_words(home: Path) -> None:
    text = "\n".join(e.text for e in events(parse_store(home, STORE)))
    assert "OS Version" not in text and "<user_query>" not in text


TITLE = "Stream search results as NDJSON"
FACTS = [
    # store, title, rank, prompt, cwd
    (STORE, TITLE, 20, f"{TITLE} instead of one array.", "/home/dev/tide"),
    (STORE_WIKI, None, None, "给 wiki 加全文搜索的高亮。", "/home/dev/笔记/wiki"),
]  # fmt: skip


@pytest.mark.parametrize(("relpath", "title", "rank", "prompt", "cwd"), FACTS)
def test_chat_facts(
    home: Path, relpath: str, title: str | None, rank: int | None, prompt: str, cwd: str
) -> None:
    facts = [r for r in parse_store(home, relpath) if isinstance(r, SessionFact)]
    titles = sorted((f.title_rank, f.title) for f in facts if f.title)
    assert (titles[-1] if titles else (None, None)) == (rank, title)
    assert [f.prompt for f in facts if f.prompt] == [prompt]
    assert [f.cwd for f in facts if f.cwd] == [cwd]  # the first source that names it, once


def test_meta_json_title_outranks_the_stores_name(home: Path) -> None:
    facts = [r for r in parse_store(home, STORE) if isinstance(r, SessionFact) and r.title]
    assert [(f.title, f.title_rank) for f in facts] == [(TITLE, 20), ("Stream search results", 15)]


def test_only_json_blobs_and_the_newest_root_are_read(home: Path) -> None:
    lines = [orjson.loads(line) for line in row_log(cursor_cli.CLI_DB, home / STORE)]
    assert [line["table"] for line in lines] == ["file", "meta"] + ["root"] + ["blobs"] * 5
    assert [line["row"]["n"] for line in lines if line["table"] == "blobs"] == [1, 2, 3, 4, 5]
    assert lines[2]["row"].keys() == {"slot", "data"}  # one root, however many turns wrote one


# --- rows written here -----------------------------------------------------------------------------


def varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    return bytes([*out, value])


def field(number: int, wire: int, payload: bytes) -> bytes:
    return varint((number << 3) | wire) + payload


ROOTS = [
    ("ids then the workspace", field(1, 2, varint(2) + b"ab") + field(9, 2, varint(8) + b"file:///"), "file:///"),
    ("numbers and fixed fields skipped", field(3, 0, varint(300)) + field(4, 1, b"12345678") + field(5, 5, b"1234")
     + field(9, 2, varint(1) + b"x"), "x"),
    ("no workspace", field(1, 2, varint(2) + b"ab"), None),
    ("a length past the end", field(9, 2, varint(50) + b"short"), None),
    ("an unknown wire type", field(9, 3, b""), None),
    ("a varint that never ends", b"\x80\x80\x80", None),
    ("nothing", b"", None),
]  # fmt: skip


@pytest.mark.parametrize(("data", "expected"), [r[1:] for r in ROOTS], ids=[r[0] for r in ROOTS])
def test_root_workspace(data: bytes, expected: str | None) -> None:
    assert cursor_cli.root_workspace(data) == expected


def blob_line(message: object, number: int = 1) -> bytes:
    data = orjson.dumps(message).decode() if not isinstance(message, str) else message
    return row_line("blobs", "b" * 64, {"id": "b" * 64, "n": number, "data": data})


def user(text: str) -> dict[str, object]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def test_a_workspace_named_in_a_query_is_the_cwd_only_when_its_md5_is_the_folders() -> None:
    note = "<user_info>\nWorkspace Path: {}\n</user_info>\n<user_query>\nhi\n</user_query>"
    state = cursor_cli.start(f"chats/{TIDE_DIR}/a/store.db")
    wrong = cursor_cli.parse(blob_line(user(note.format("/home/dev/other"))), 1, state)
    assert not [r for r in wrong if isinstance(r, SessionFact) and r.cwd]
    right = cursor_cli.parse(blob_line(user(note.format("/home/dev/tide"))), 2, state)
    assert [r.cwd for r in right if isinstance(r, SessionFact) and r.cwd] == ["/home/dev/tide"]
    assert hashlib.md5(b"/home/dev/tide").hexdigest() == TIDE_DIR


LINES = [
    ("meta that is not hex", row_line("meta", "0", {"key": "0", "value": "zz"}), "bad-field"),
    ("meta of the default name", row_line("meta", "0", {"value": b'{"name":"New Agent","createdAt":5}'.hex()}), []),
    ("a damaged meta.json", file_line("/c/meta.json", b"{", 1), "invalid-json"),
    ("another sibling", file_line("/c/other.json", b"{", 1), []),
    ("a blob that is not JSON", blob_line("{cut"), "invalid-json"),
    ("a blob of an unknown role", blob_line({"role": "developer", "content": "x"}), []),
    ("a JSON null blob", blob_line("null"), []),
    ("a root that is not base64", row_line("root", "latest", {"data": {"base64": "%%"}}), []),
]  # fmt: skip


@pytest.mark.parametrize(("line", "expected"), [r[1:] for r in LINES], ids=[r[0] for r in LINES])
def test_odd_lines(line: bytes, expected: list[object] | str) -> None:
    records = cursor_cli.parse(line, 1, cursor_cli.start("chats/d/a/store.db"))
    if isinstance(expected, str):
        assert [r.reason for r in records if isinstance(r, ParseProblem)] == [expected]
    else:
        assert records == expected


def test_without_a_creation_time_events_have_no_time() -> None:
    [event] = events(cursor_cli.parse(blob_line(user("hello"), 7), 1, cursor_cli.start("x")))
    assert (event.time, event.session, event.text) == (0, "unknown", "hello")
