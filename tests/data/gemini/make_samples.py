"""Writes the project's own Gemini CLI samples (.gemini/ next to this file, laid out as a home).

Run `python tests/data/gemini/make_samples.py` after changing it; the output is committed. The
files follow Gemini CLI 0.61's on-disk format (research/formats.md §8): session files under
`tmp/<project>/chats/` of patch lines (metadata, messages written again under their id when
they change, `$set` metadata and `$set.messages` history checkpoints, `$rewindTo`), a
sub-agent's file in a folder named by its parent session, the project markers; and the user's
GEMINI.md in ../memory/gemini (a test copies it in: other tests count the samples' memory
files). The content is written for these samples. Deterministic: the same bytes every run.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GEMINI = HERE / ".gemini"

A = "6f1c2d3e-4a5b-4c6d-8e7f-a1b2c3d4e5f6"  # summary, resume, re-appended id, rewind
B = "7a2b3c4d-5e6f-4a7b-9c8d-b2c3d4e5f6a7"  # Japanese and Chinese, failures, a cut last line
C = "8b3c4d5e-6f7a-4b8c-8d9e-c3d4e5f6a7b8"  # a large output
SUB = "9c4d5e6f-7a8b-4c9d-8e0f-d4e5f6a7b8c9"  # A's sub-agent
PROJECT = "/home/dev/orchard-api"
SHORT = "orchard-api"
CONTEXT_ID = "d04923d38bb0f6017037e74183378ef4"  # Gemini CLI's stable id of the injected context
MODEL = "gemini-3.8-pro"


def dump(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def stamp(second: float) -> str:
    """2026-11-20T10:00:00.000Z plus `second` seconds."""
    total = round(second * 1000)
    minutes, millis = divmod(total, 60_000)
    return f"2026-11-20T10:{minutes:02d}:{millis // 1000:02d}.{millis % 1000:03d}Z"


def metadata(session: str, second: float, **more: Any) -> dict[str, Any]:
    return {
        "sessionId": session,
        "projectHash": hashlib.sha256(PROJECT.encode()).hexdigest(),
        "startTime": stamp(second),
        "lastUpdated": stamp(second),
        "kind": "main",
    } | more


def context(second: float) -> dict[str, Any]:
    """The injected `<session_context>` user message, with the project's GEMINI.md inside."""
    text = (
        "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
        "Today's date is Friday, November 20, 2026 (formatted according to the user's locale).\n"
        "My operating system is: linux\n"
        f"The project's temporary directory is: /home/dev/.gemini/tmp/{SHORT}\n"
        f"- **Workspace Directories:**\n  - {PROJECT}\n- **Directory Structure:**\n\n"
        f"{PROJECT}/\n├───GEMINI.md\n├───package.json\n└───src/\n\n\n"
        "<loaded_context>\n<project_context>\n"
        f"--- Context from: {PROJECT}/GEMINI.md ---\n# Orchard API\n\nRoutes live in src/routes; "
        "the pear inventory uses the quincebarrow cache.\n"
        f"--- End of Context from: {PROJECT}/GEMINI.md ---\n"
        "</project_context>\n</loaded_context>\n</session_context>"
    )
    return {
        "id": CONTEXT_ID,
        "timestamp": stamp(second),
        "type": "user",
        "content": [{"text": text}],
    }


def user(mid: str, second: float, text: str) -> dict[str, Any]:
    return {"id": mid, "timestamp": stamp(second), "type": "user", "content": [{"text": text}]}


def gemini(mid: str, second: float, content: str = "", **more: Any) -> dict[str, Any]:
    record = {
        "id": mid,
        "timestamp": stamp(second),
        "type": "gemini",
        "content": content,
        "thoughts": [],
        "tokens": {
            "input": 1200,
            "output": 80,
            "cached": 900,
            "thoughts": 40,
            "tool": 0,
            "total": 1320,
        },
        "model": MODEL,
    }
    return record | more


def response(call: str, name: str, output: str) -> list[dict[str, Any]]:
    return [{"functionResponse": {"id": call, "name": name, "response": {"output": output}}}]


def shell_output(text: str, *, code: int = 0, pgid: int = 4100) -> str:
    lines = (
        [f"Output: {text}"]
        + ([f"Exit Code: {code}"] if code else [])
        + [f"Process Group PGID: {pgid}"]
    )
    return "<untrusted_context>\n" + "\n".join(lines) + "\n</untrusted_context>"


def tool(
    call: str, name: str, args: dict[str, Any], second: float, output: str, display: object, *,
    status: str = "success", display_name: str = "Shell",
) -> dict[str, Any]:  # fmt: skip
    return {
        "id": call,
        "name": name,
        "args": args,
        "result": response(call, name, output),
        "status": status,
        "timestamp": stamp(second),
        "resultDisplay": display,
        "description": str(args.get("description") or ""),
        "displayName": display_name,
        "renderOutputAsMarkdown": False,
    }


def updated(second: float) -> dict[str, Any]:
    return {"$set": {"lastUpdated": stamp(second)}}


def session_a() -> list[dict[str, Any]]:
    """A shell call, a summary; resumed (a checkpoint of the whole history, in the model's form),
    an edit, an answer written again under its id with other words, a rewind."""
    call1 = "run_shell_command__call_a1"
    run1 = tool(
        call1,
        "run_shell_command",
        {"command": "npm test -- --grep pomegranate", "description": "run the pear route tests"},
        3.0,
        shell_output("12 passing (pomegranate suite)"),
        "12 passing (pomegranate suite)",
    )
    thoughts = [
        {
            "subject": "Checking the medlarvine routes",
            "description": "Run the tests first.",
            "timestamp": stamp(2.0),
        }
    ]
    first = gemini("a-m2", 2.0, thoughts=thoughts)
    checkpoint = [
        context(60.0),
        user("a-m1", 60.0, "Run the tests of the pear routes, they mention pomegranate."),
        {"id": "a-m2", "timestamp": stamp(60.0), "type": "gemini", "content": [
            {"text": "**Checking the medlarvine routes** Run the tests first.", "thought": True},
            {"functionCall": {"id": call1, "name": "run_shell_command", "args": run1["args"]}}]},
        {"id": "a-m2_response", "timestamp": stamp(60.0), "type": "user",
         "content": response(call1, "run_shell_command", run1["result"][0]["functionResponse"]["response"]["output"])},
        {"id": "a-m4", "timestamp": stamp(60.0), "type": "gemini",
         "content": [{"text": "All 12 pear route tests pass."}]},
    ]  # fmt: skip
    call2 = "replace__call_a2"
    edit = tool(
        call2,
        "replace",
        {
            "file_path": f"{PROJECT}/src/routes/pears.ts",
            "old_string": "const limit = 10;",
            "new_string": "const limit = 25; // sloeberry page size",
            "instruction": "raise the page size",
        },
        63.0,
        f"Successfully modified file: {PROJECT}/src/routes/pears.ts (1 replacements).",
        {
            "fileDiff": "Index: pears.ts\n-const limit = 10;\n+const limit = 25; // sloeberry page size\n",
            "fileName": "pears.ts",
            "filePath": f"{PROJECT}/src/routes/pears.ts",
            "originalContent": "const limit = 10;\n",
            "newContent": "const limit = 25; // sloeberry page size\n",
        },
        display_name="Edit",
    )
    return [
        metadata(A, 0.0),
        {"$set": {"messages": [context(0.0)], "lastUpdated": stamp(0.0)}},
        user("a-m1", 1.0, "Run the tests of the pear routes, they mention pomegranate."),
        updated(1.0),
        first,
        updated(2.0),
        first | {"toolCalls": [run1]},
        {"id": "a-m3", "timestamp": stamp(3.1), "type": "user", "content": run1["result"]},
        updated(3.1),
        gemini("a-m4", 4.0, "All 12 pear route tests pass."),
        updated(4.0),
        {"$set": {"summary": "Pear route tests and page size"}},
        metadata(A, 60.0),
        {"$set": {"messages": [context(60.0)], "lastUpdated": stamp(60.0)}},
        {"$set": {"sessionId": A}},
        {"$set": {"messages": checkpoint, "lastUpdated": stamp(60.0)}},
        user("a-m5", 61.0, "Raise the page size of the pear list to 25."),
        updated(61.0),
        gemini("a-m6", 62.0, "", toolCalls=[edit]),
        {"id": "a-m7", "timestamp": stamp(63.1), "type": "user", "content": edit["result"]},
        gemini("a-m8", 64.0, "Draft answer: damsonwick."),
        gemini("a-m8", 64.0, "The page size is now 25 (cloudberryfinal)."),
        {"id": "a-m9", "timestamp": stamp(65.0), "type": "info", "content": "Checkpoint saved."},
        user("a-m10", 66.0, "Actually, undo that idea about tamarillo."),
        {"$rewindTo": "a-m10"},
        user("a-m11", 68.0, "Instead, explain the page size change."),
        gemini("a-m12", 69.0, "The list now returns 25 pears per page."),
        updated(69.0),
    ]


def session_b() -> list[dict[str, Any]]:
    """Japanese and Chinese words; a file written; a command that fails yet is recorded as a
    success; a call that errs; a cancelled one; the file's last line half written."""
    write = tool(
        "write_file__call_b1",
        "write_file",
        {
            "file_path": f"{PROJECT}/docs/果樹園.md",
            "content": "# 果樹園メモ\n梨の在庫は木曜日に数える。\n",
        },
        11.0,
        f"Successfully created and wrote to new file: {PROJECT}/docs/果樹園.md.",
        {
            "fileDiff": "+# 果樹園メモ\n+梨の在庫は木曜日に数える。\n",
            "fileName": "果樹園.md",
            "newContent": "# 果樹園メモ\n",
        },
        display_name="WriteFile",
    )
    failing = tool(
        "run_shell_command__call_b2",
        "run_shell_command",
        {"command": "npm run lint -- src/梨.ts", "description": "lint"},
        12.0,
        shell_output("src/梨.ts: 3 problems (kumquatlint)", code=2, pgid=4200),
        "src/梨.ts: 3 problems (kumquatlint)",
    )
    errored = tool(
        "read_file__call_b3",
        "read_file",
        {"file_path": f"{PROJECT}/src/missing.ts"},
        13.0,
        "",
        "File not found: src/missing.ts",
        status="error",
        display_name="ReadFile",
    )
    errored["result"] = [{"functionResponse": {"id": "read_file__call_b3", "name": "read_file",
                          "response": {"error": "File not found: src/missing.ts (yuzumiss)"}}}]  # fmt: skip
    cancelled = tool(
        "run_shell_command__call_b4",
        "run_shell_command",
        {"command": "npm run deploy", "description": "deploy"},
        14.0,
        "",
        "",
        status="cancelled",
    )
    cancelled["result"] = []
    return [
        metadata(B, 10.0),
        {"$set": {"messages": [context(10.0)], "lastUpdated": stamp(10.0)}},
        user("b-m1", 10.5, "梨のメモを書いて、lint を実行してください。请顺便检查一下库存。"),
        gemini("b-m2", 11.0, "", toolCalls=[write]),
        gemini("b-m3", 12.0, "", toolCalls=[failing, errored, cancelled]),
        {"id": "b-m4", "timestamp": stamp(14.1), "type": "warning", "content": "Deploy was cancelled by the user."},
        gemini("b-m5", 15.0, "メモを書きました。lint は失敗しました（exit 2）。库存检查完毕。"),
        updated(15.0),
    ]  # fmt: skip


def large_output() -> str:
    lines = (
        ["plumheadmark"] + [f"row {n:05d} {'~' * 50}" for n in range(1, 1101)] + ["plumtailmark"]
    )
    return "\n".join(lines)


def session_c() -> list[dict[str, Any]]:
    """A shell output over 40,000 characters: cut in the model's copy, whole in resultDisplay."""
    whole = large_output()
    wrapped = (
        f"<untrusted_context>\nOutput: {whole}\nProcess Group PGID: 4300\n</untrusted_context>"
    )
    saved = f"/home/dev/.gemini/tmp/{SHORT}/tool-outputs/session-{C}/run_shell_command__call_c1.txt"
    head, tail = wrapped[:8000], wrapped[-32000:]
    model = (
        f"Output too large. Showing first 8,000 and last 32,000 characters. For full output see: {saved}\n"
        f"{head}\n\n... [{len(wrapped) - 40000:,} characters omitted] ...\n\n{tail}"
    )
    big = tool(
        "run_shell_command__call_c1",
        "run_shell_command",
        {"command": "node scripts/dump-rows.js", "description": "dump the rows"},
        21.0,
        model,
        whole,
    )
    return [
        metadata(C, 20.0),
        {"$set": {"messages": [context(20.0)], "lastUpdated": stamp(20.0)}},
        user("c-m1", 20.5, "Dump every orchard row and tell me the last one."),
        gemini("c-m2", 21.0, "", toolCalls=[big]),
        {"id": "c-m3", "timestamp": stamp(21.1), "type": "user", "content": big["result"]},
        gemini("c-m4", 22.0, "The last row is followed by plumtailmark."),
    ]


def session_sub() -> list[dict[str, Any]]:
    """A sub-agent of A: its own session, its directories in the metadata."""
    grep = tool(
        "grep_search__call_s1",
        "grep_search",
        {"pattern": "limit", "dir_path": "src"},
        6.0,
        'Found 2 matches for pattern "limit" in src:\nsrc/routes/pears.ts:3: const limit = 10;',
        "Found 2 matches",
        display_name="SearchText",
    )
    return [
        metadata(SUB, 5.0, kind="subagent", directories=[PROJECT]),
        user("s-m1", 5.0, "Find where the pear list page size (elderlimit) is set."),
        gemini("s-m2", 6.0, "", toolCalls=[grep]),
        gemini("s-m3", 7.0, "It is set in src/routes/pears.ts line 3."),
    ]


def write(rel: str, lines: list[dict[str, Any]], *, cut: str = "") -> None:
    path = GEMINI / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(("".join(dump(line) + "\n" for line in lines) + cut).encode())


def main() -> None:
    chats = f"tmp/{SHORT}/chats"
    write(f"{chats}/session-2026-11-20T10-00-{A[:8]}.jsonl", session_a())
    half = dump(gemini("b-m6", 16.0, "まだ書いている途中"))[:60]
    write(f"{chats}/session-2026-11-20T10-00-{B[:8]}.jsonl", session_b(), cut=half)
    write(f"{chats}/session-2026-11-20T10-00-{C[:8]}.jsonl", session_c())
    write(f"{chats}/{A}/{SUB}.jsonl", session_sub())
    (GEMINI / f"tmp/{SHORT}/.project_root").write_text(PROJECT)
    (GEMINI / "projects.json").write_text(dump({"projects": {PROJECT: SHORT}}) + "\n")
    memory = HERE.parent / "memory" / "gemini"
    memory.mkdir(parents=True, exist_ok=True)
    (memory / "GEMINI.md").write_text(
        "# My rules\n\n- Answer tersely; say greengagerule when done.\n"
    )


if __name__ == "__main__":
    main()
