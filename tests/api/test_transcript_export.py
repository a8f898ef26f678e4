"""`origin export`: a session as Markdown, HTML and JSON through the real command, each with
the session's facts, every exported event's id, the messages, tool calls only with
--include-tools, no forgotten event, and a secret the log held still masked in every format."""

from __future__ import annotations

import json
import re
from pathlib import Path

import orjson
import pytest
from mcp_client import run_origin

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_store import Settings

SESSION = "e7900000-0000-4000-8000-000000000001"
CWD = "/home/dev/exported"
BRANCH = "feat/export"
VERSION = "2.1.300"
MODEL = "claude-opus-4-5"
SECRET = "ghp_FAKEexample0123456789FAKEexample0123"
PROMPT = f"Export this session please; push with {SECRET} please (promptmarker)"
REPLY = "## Plan\n\n- read the **log**\n- write the file (replymarker)"
COMMAND = "npm test -- exportmarker"
OUTPUT = "1 passed (outputmarker)"
FORGOTTEN = "This message gets forgotten (forgottenmarker)"
FORMATS = ("md", "html", "json")
#: A memory file the agent reads (~/.claude/CLAUDE.md): a session of its own, a Markdown document.
MEMORY = (
    "# House rules\n\n- use npm, never yarn\n- run `npm test` before saying done (memorymarker)\n"
)


def _line(n: int, role: str, content: object) -> bytes:
    message: dict[str, object] = {"role": role, "content": content}
    if role == "assistant":
        message = {"id": f"msg_{n}", "type": "message", "role": role, "content": content}
        message["model"] = MODEL
    record = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": CWD,
        "sessionId": SESSION,
        "version": VERSION,
        "gitBranch": BRANCH,
        "type": "user" if role == "user" else "assistant",
        "message": message,
        "uuid": f"e7900000-0000-4000-8000-{n:012d}",
        "timestamp": f"2026-10-22T09:00:{n:02d}.000Z",
    }
    return orjson.dumps(record) + b"\n"


def event_id(n: int) -> str:
    return f"claude-code:e7900000-0000-4000-8000-{n:012d}"


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An archive of one Claude Code session: a prompt holding a secret, a Markdown reply, a
    Bash call and its output, and a message then forgotten."""
    root = tmp_path_factory.mktemp("export")
    folder = root / "claude" / "projects" / "-home-dev-exported"
    folder.mkdir(parents=True)
    tool = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": COMMAND}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": OUTPUT}
    lines = [
        _line(1, "user", PROMPT),
        _line(2, "assistant", [{"type": "text", "text": REPLY}]),
        _line(3, "assistant", [tool]),
        _line(4, "user", [result]),
        _line(5, "assistant", [{"type": "text", "text": FORGOTTEN}]),
        _line(6, "assistant", [{"type": "text", "text": "Done."}]),
    ]
    (folder / f"{SESSION}.jsonl").write_bytes(b"".join(lines))
    (root / "claude" / "CLAUDE.md").write_text(MEMORY, encoding="utf-8")
    values = {
        "HOME": str(root / "home"),
        "ORIGIN_HOME": str(root / "origin"),
        "CLAUDE_CONFIG_DIR": str(root / "claude"),
        "CODEX_HOME": str(root / "none"),
        "ZCODE_STORAGE_DIR": str(root / "none"),
        "GROK_HOME": str(root / "none"),
        "ORIGIN_WATCH_INTERVAL_MS": "0",
        "ORIGIN_CLI_LINGER_S": "0",
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
    }
    with Origin.open(Settings.from_env(values)) as origin:
        origin.ingest()
        call(origin, "forget", {"id": event_id(5), "reason": "test"}, Caller("user", "testbox"))
    return values


def _export(env: dict[str, str], *args: str) -> str:
    done = run_origin(env, "export", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_has_the_facts_the_ids_and_the_messages(env: dict[str, str], fmt: str):
    out = _export(env, SESSION, "--format", fmt)
    for fact in (SESSION, "claude-code", CWD, BRANCH, VERSION, MODEL, "2026-10-22T09:00:01"):
        assert fact in out, (fmt, fact)
    for n in (1, 2, 6):
        assert event_id(n) in out, (fmt, n)
    assert "promptmarker" in out and "replymarker" in out
    for absent in ("exportmarker", "outputmarker", event_id(3), event_id(4)):
        assert absent not in out, (fmt, absent)  # tool calls only with --include-tools


@pytest.mark.parametrize("fmt", FORMATS)
def test_include_tools_adds_the_call_and_its_output(env: dict[str, str], fmt: str):
    out = _export(env, SESSION, "--format", fmt, "--include-tools")
    assert "exportmarker" in out and "outputmarker" in out
    assert event_id(3) in out and event_id(4) in out


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("tools", [False, True])
def test_forgotten_is_never_exported_and_the_secret_stays_masked(
    env: dict[str, str], fmt: str, tools: bool
):
    out = _export(env, SESSION, "--format", fmt, *(["--include-tools"] if tools else []))
    assert "forgottenmarker" not in out and event_id(5) not in out
    assert SECRET not in out and SECRET[:12] not in out
    assert "[redacted github-token]" in out


def test_markdown_reads_as_a_conversation(env: dict[str, str]):
    out = _export(env, SESSION)
    assert out.startswith("# Export this session please")
    assert "| Branch | feat/export |" in out
    assert f"\n`{event_id(1)}`\n" in out
    assert REPLY in out  # the agent's Markdown, as written
    assert re.search(r"^\*2 events left out \(tool calls and results", out, flags=re.M)
    tools = _export(env, SESSION, "--include-tools")
    assert f"```sh\n{COMMAND}\n```" in tools and f"```text\n{OUTPUT}\n```" in tools


def test_html_is_one_standalone_page_with_no_script(env: dict[str, str]):
    out = _export(env, SESSION, "--format", "html", "--include-tools")
    assert out.startswith("<!doctype html>")
    assert "<script" not in out.lower() and "<link" not in out and "src=" not in out
    assert f'id="{event_id(1)}"' in out and "<h2>Plan</h2>" in out
    assert '<pre class="code shell">' in out  # the command, highlighted as shell
    assert "<style>" in out and ".code .k" in out  # its own styles and the code colours


def test_json_is_typed_with_the_header_and_every_event(env: dict[str, str]):
    doc = json.loads(_export(env, SESSION, "--format", "json", "--include-tools"))
    assert doc["format"] == "origin-transcript" and doc["version"] == 1
    header = doc["header"]
    assert (header["cwd"], header["git_branch"], header["model"]) == (CWD, BRANCH, MODEL)
    assert (header["events"], header["exported"], header["include_tools"]) == (5, 5, True)
    assert [event["id"] for event in doc["events"]] == [event_id(n) for n in (1, 2, 3, 4, 6)]
    messages = json.loads(_export(env, SESSION, "--format", "json"))
    assert [event["id"] for event in messages["events"]] == [event_id(n) for n in (1, 2, 6)]
    assert messages["events"][2]["left_out"] == 2


def test_an_event_id_exports_its_session_and_o_writes_a_file(env: dict[str, str], tmp_path: Path):
    target = tmp_path / "out.md"
    done = run_origin(env, "export", event_id(2), "-o", str(target))
    assert done.returncode == 0 and done.stdout == ""
    assert str(target) in done.stderr
    assert SESSION in target.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such-session"], "error: Unknown session no-such-session."),
        ([event_id(5)], f"error: Unknown session {event_id(5)}."),  # a forgotten event
        ([SESSION, "--format", "pdf"], "error: no format pdf: md, html or json."),
    ],
)
def test_what_cannot_be_exported_is_one_line_and_a_failure(
    env: dict[str, str], args: list[str], message: str
):
    done = run_origin(env, "export", *args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == message


def test_a_memory_file_exports_as_the_document_it_is(env: dict[str, str]):
    session = "memory:" + str(Path(env["CLAUDE_CONFIG_DIR"]) / "CLAUDE.md")
    md = _export(env, session, "--source", "claude-code")
    assert MEMORY.strip() in md and "memory" in md
    html = _export(env, session, "--format", "html")
    assert '<div class="md memory"><h1>House rules</h1>' in html
    assert "<li>use npm, never yarn</li>" in html
