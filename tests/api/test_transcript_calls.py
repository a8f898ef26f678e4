"""Tool calls read from their event text as each agent writes them (the shapes are those of
tests/data's sessions), and tool outputs with their size: commands, diffs, arguments, folds."""

from __future__ import annotations

from typing import Any

import pytest

from origin_api.transcript import event_html, file_name
from origin_api.transcript.calls import read_call
from origin_api.transcript.outputs import read_output


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ('Bash {"command":"npx vitest --run","description":"Run the tests"}', "npx vitest --run"),
        ('exec_command {"cmd":"cat src/server.ts"}', "cat src/server.ts"),
        ('shell {"command":["bash","-lc","npm test"],"workdir":"/home/dev/app"}', "npm test"),
        ('local_shell {"type":"exec","command":["ls","-la","my dir"]}', "ls -la 'my dir'"),
        ('run_terminal_cmd {"command":"npm test -- tokenize"}', "npm test -- tokenize"),
        ('Shell {"command":"npm test -- stream"}', "npm test -- stream"),
        ('run_terminal_command {"command":"npm test"}', "npm test"),
        ('bash {"command":"npm test -- webhooks","description":"Run webhook tests"}', "npm test -- webhooks"),
        ('Bash {"command":"printf \'a\\\\nb\'"}', "printf 'a\\nb'"),
        ('run_shell_command {"command":"npm test","dir_path":"api"}', "npm test"),
        ('powershell {"command":"Get-ChildItem src","description":"list"}', "Get-ChildItem src"),
    ],
)  # fmt: skip
def test_each_agents_shell_call_is_a_command(text: str, command: str):
    call = read_call(text)
    assert (call.kind, call.command) == ("command", command)


def test_gemini_clis_shell_call_names_where_it_ran():
    assert read_call('run_shell_command {"command":"ls","dir_path":"api"}').workdir == "api"


@pytest.mark.parametrize(
    ("text", "path", "lines"),
    [
        (
            'Edit {"file_path":"/app/src/rateLimit.ts","old_string":"burst = 20","new_string":"capacity = 20"}',
            "/app/src/rateLimit.ts",
            ["-burst = 20", "+capacity = 20"],
        ),
        (
            'MultiEdit {"file_path":"a.py","edits":[{"old_string":"x = 1","new_string":"x = 2"},'
            '{"old_string":"y","new_string":"z"}]}',
            "a.py",
            ["-x = 1", "+x = 2", "-y", "+z"],
        ),
        (
            'Write {"file_path":"/app/new.ts","content":"export const a = 1\\nexport const b = 2\\n"}',
            "/app/new.ts",
            ["--- /dev/null", "+export const a = 1", "+export const b = 2"],
        ),
        (
            'edit_file {"path":"src/server.ts","old":"app.get(\'/health\'","new":"app.get(\'/healthz\'"}',
            "src/server.ts",
            ["-app.get('/health'", "+app.get('/healthz'"],
        ),
        (
            'edit {"filePath":"/inv/deliver.ts","oldString":"post(","newString":"withBackoff(post)("}',
            "/inv/deliver.ts",
            ["-post(", "+withBackoff(post)("],
        ),
        (
            'replace {"file_path":"/o/pears.ts","old_string":"limit = 10","new_string":"limit = 25"}',
            "/o/pears.ts",
            ["-limit = 10", "+limit = 25"],
        ),
        (
            'edit {"path":"/q/src/backoff.ts","old_str":"let budget = 3;","new_str":"// hoisted"}',
            "/q/src/backoff.ts",
            ["-let budget = 3;", "+// hoisted"],
        ),
        (
            'create {"path":"/q/notes.txt","file_text":"filezest\\n蓝鲸\\n"}',
            "/q/notes.txt",
            ["--- /dev/null", "+filezest", "+蓝鲸"],
        ),
        (
            "apply_patch *** Begin Patch\n*** Add File: tsconfig.build.json\n+{ }\n*** End Patch",
            None,
            ["*** Add File: tsconfig.build.json", "+{ }"],
        ),
        (
            'apply_patch {"patchText":"*** Begin Patch\\n*** Add File: beam.css\\n+.beam {}\\n*** End Patch"}',
            None,
            ["*** Add File: beam.css", "+.beam {}"],
        ),
    ],
)  # fmt: skip
def test_each_agents_edit_or_write_is_a_diff(text: str, path: str | None, lines: list[str]):
    call = read_call(text)
    assert call.kind == "edit" and call.path == path
    diff = (call.diff or "").splitlines()
    assert all(line in diff for line in lines), diff


def test_a_write_cut_on_the_page_is_read_as_far_as_it_goes():
    call = read_call(
        'Write {"file_path":"/a.ts","content":"line 1\\nline 2\\nli… [4,000 characters cut]'
    )
    assert call.kind == "edit" and call.cut and "+line 2" in (call.diff or "")


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        (
            'Task {"description":"Map it","prompt":"List every\\nmiddleware","n":[1]}',
            [("description", "Map it"), ("prompt", "List every\nmiddleware"), ("n", "[\n  1\n]")],
        ),
        ('mcp__origin__search {"query":"lint decision"}', [("query", "lint decision")]),
        ('Read {"file_path":"/app/src/config.ts"}', [("file_path", "/app/src/config.ts")]),
    ],
)
def test_other_calls_show_each_argument_unescaped(text: str, fields: list[tuple[str, str]]):
    call = read_call(text)
    assert call.kind == "call" and call.fields == fields


@pytest.mark.parametrize("text", ["read_file", "image_generation a cat", "Bash not json", "Bash {"])
def test_what_is_not_a_json_object_stays_text(text: str):
    call = read_call(text)
    assert call.kind == "call" and call.fields == [] and call.name == text.split(" ")[0]


@pytest.mark.parametrize(
    ("text", "mark", "facts", "size", "long"),
    [
        ("3 passed", "", [], "1 line, 8 B", False),
        ("[error: exit code 1] FAIL x\nexpected 429", "[error: exit code 1]", [], "2 lines, 19 B", False),
        (
            "[error] Chunk ID: 7c\nWall time: 0.01 seconds\nProcess exited with code 3\nOutput:\nnpm error\n",
            "[error]",
            ["Chunk ID: 7c", "Wall time: 0.01 seconds", "Process exited with code 3"],
            "1 line, 9 B",
            False,
        ),
        ("\n".join(["x" * 79] * 412), "", [], "412 lines, 33 KB", True),
        ("a\nb… [38,000 characters cut]", "", [], "2+ lines, 38 KB", True),
    ],
)  # fmt: skip
def test_outputs_are_split_and_sized(text: str, mark: str, facts: list[str], size: str, long: bool):
    output = read_output(text)
    assert (output.mark, output.facts, output.size, output.long) == (mark, facts, size, long)


def test_an_output_after_a_command_is_its_output_and_a_long_one_is_folded():
    command = {"kind": "tool_use", "text": 'Bash {"command":"seq 500"}'}
    long = {"kind": "tool_result", "text": "\n".join(str(n) for n in range(500))}
    html = str(event_html(long, command))
    assert '<div class="output paired">' in html
    assert '<details class="fold"><summary>Output: 500 lines, 1.9 KB</summary>' in html
    alone = str(event_html({"kind": "tool_result", "text": "ok"}, {"kind": "message", "text": "x"}))
    assert '<div class="output">' in alone and "<details" not in alone


def test_a_command_is_highlighted_as_shell_and_an_edit_as_a_diff():
    command = str(event_html({"kind": "tool_use", "text": 'Bash {"command":"echo hi | wc"}'}))
    assert '<pre class="code shell"><code><span class="nb">echo</span>' in command
    edit = str(
        event_html(
            {"kind": "tool_use", "text": 'Edit {"file_path":"a","old_string":"x","new_string":"y"}'}
        )
    )
    assert '<pre class="code diff">' in edit and '<span class="gi">+y</span>' in edit


def test_a_memory_file_is_a_markdown_document():
    html = str(event_html({"kind": "memory", "text": "# Project rules\n\n- use npm\n- no any"}))
    assert html.startswith('<div class="md memory"><h1>Project rules</h1>')
    assert "<li>use npm</li>" in html


@pytest.mark.parametrize(
    ("source", "session", "name"),
    [
        ("claude-code", "7f3c9a52-1d4e", "claude-code-7f3c9a52-1d4e.md"),
        (
            "claude-code",
            "memory:/home/dev/文档/CLAUDE.md",
            "claude-code-memory-home-dev-CLAUDE.md.md",
        ),
        ("codex", '../"\r\nSet-Cookie: x', "codex-..-Set-Cookie-x.md"),
    ],
)
def test_a_download_is_named_in_plain_ascii(source: str, session: str, name: str):
    """The name goes in a Content-Disposition header: ASCII, no quote, no path, no newline."""
    header: Any = {"source": source, "session": session}
    assert file_name(header, "md") == name


def test_qwen_codes_shell_call_names_its_directory():
    call = read_call('run_shell_command {"command":"wc -l stations.csv","directory":"data"}')
    assert (call.kind, call.command, call.workdir) == ("command", "wc -l stations.csv", "data")
    edit = read_call('edit {"file_path":"/h/s.csv","old_string":"id,name","new_string":"sid,name"}')
    assert (edit.kind, edit.path) == ("edit", "/h/s.csv") and "+sid,name" in (edit.diff or "")
