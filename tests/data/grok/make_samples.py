"""Writes the project's own Grok Build sample sessions (sessions/ next to this file).

Run `python tests/data/grok/make_samples.py` after changing it; the output is committed. The files
follow Grok Build's on-disk format (research/formats.md §5.1): an `updates.jsonl` of ACP update
envelopes and a pretty-printed `summary.json` per session directory, the directories grouped by
the percent-encoded cwd. The content is written for these samples. grok-cli's grok.db is not
committed: make_db.py builds it where a test asks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

HERE = Path(__file__).resolve().parent

A = "019b4c10-2e3f-7a41-8b52-c3d4e5f6a7b8"  # main session, with a rewind
B = "019b4c11-5a6b-7c7d-8e8f-909192939495"  # A's sub-agent
F = "019b4c20-0a1b-7c2d-8e3f-a0b1c2d3e4f5"  # fork of A
C = "019b5d00-aaaa-7bbb-8ccc-0123456789ab"  # CJK cwd, manual title
DEMO = "/home/dev/demo-app"
NOTES = "/home/dev/文档/notes-app"
START = 1795000000  # 2026-11-18T08:26:40Z
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def dump(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class Stream:
    """The update lines of one session: each an envelope with the next eventId."""

    def __init__(self, session: str) -> None:
        self.session = session
        self.lines: list[dict[str, Any]] = []

    def add(self, second: int, update: dict[str, Any], *, xai: bool = False, **meta: Any) -> None:
        number = len(self.lines) + 1
        stamp = START + second
        envelope_meta = {
            "eventId": f"{self.session}-{number:04d}",
            "agentTimestampMs": stamp * 1000,
        }
        self.lines.append(
            {
                "timestamp": stamp,
                "method": "_x.ai/session/update" if xai else "session/update",
                "params": {
                    "sessionId": self.session,
                    "update": update,
                    "_meta": envelope_meta | meta,
                },
            }
        )

    def user(self, second: int, text: str, index: int, **own: Any) -> None:
        content = {"type": "text", "text": text}
        self.add(
            second,
            {
                "sessionUpdate": "user_message_chunk",
                "content": content,
                "_meta": {"promptIndex": index} | own,
            },
        )

    def agent(self, second: int, text: str, prompt: str, *, thought: bool = False) -> None:
        kind = "agent_thought_chunk" if thought else "agent_message_chunk"
        self.add(
            second,
            {"sessionUpdate": kind, "content": {"type": "text", "text": text}},
            promptId=prompt,
        )

    def call(
        self,
        second: int,
        call: str,
        title: str,
        kind: str,
        raw: dict[str, Any],
        status: str = "in_progress",
    ) -> None:
        update = {
            "sessionUpdate": "tool_call",
            "toolCallId": call,
            "title": title,
            "kind": kind,
            "status": status,
        }
        self.add(second, update | {"rawInput": raw})

    def done(
        self, second: int, call: str, status: str, content: list[dict[str, Any]], **extra: Any
    ) -> None:
        update = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": call,
            "status": status,
            "content": content,
        }
        self.add(second, update | extra)


def text_content(text: str) -> list[dict[str, Any]]:
    return [{"type": "content", "content": {"type": "text", "text": text}}]


def session_a() -> Stream:
    s = Stream(A)
    run = {
        "command": "./scripts/check-prompt.sh",
        "status": "success",
        "exit_code": 0,
        "stdout": "prompt ok",
    }
    s.add(
        0,
        {
            "sessionUpdate": "hook_execution",
            "event_name": "user_prompt_submit",
            "tool_name": None,
            "prompt_id": "p0",
            "runs": [run],
        },
        xai=True,
    )
    s.add(
        0,
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [{"name": "rewind", "description": "Go back"}],
        },
    )
    s.user(1, "Add a GET /healthz endpoint ", 0)
    s.user(1, "that reports the uptime in seconds.", 0)
    s.add(2, {"sessionUpdate": "current_mode_update", "currentModeId": "agent"})
    s.agent(3, "Check how routes are wired ", "p0", thought=True)
    s.agent(3, "in src/server.ts first.", "p0", thought=True)
    s.agent(4, "Reading the server entry point.", "p0")
    s.call(5, "call-h1", "read_file", "read", {"path": "src/server.ts"}, status="pending")
    s.add(
        5, {"sessionUpdate": "tool_call_update", "toolCallId": "call-h1", "status": "in_progress"}
    )
    s.done(6, "call-h1", "completed", text_content("app.get('/health', (_q, r) => r.send('ok'));"))
    s.add(
        7,
        {
            "sessionUpdate": "subagent_spawned",
            "subagent_id": "sa-31",
            "parent_session_id": A,
            "parent_prompt_id": "p0",
            "child_session_id": B,
            "subagent_type": "explore",
            "description": "Look for an uptime helper",
            "model": "grok-code-fast-2",
        },
        xai=True,
    )
    s.add(
        12,
        {
            "sessionUpdate": "subagent_finished",
            "subagent_id": "sa-31",
            "child_session_id": B,
            "status": "completed",
            "error": None,
            "tool_calls": 1,
            "turns": 1,
            "duration_ms": 5120,
            "output": "No helper exists; process.uptime() is enough.",
        },
        xai=True,
    )
    s.call(
        13,
        "call-h2",
        "edit_file",
        "edit",
        {
            "path": "src/server.ts",
            "old": "app.get('/health'",
            "new": "app.get('/healthz', (_q, r) => r.json({ uptime: process.uptime() }));\napp.get('/health'",
        },
    )
    s.done(
        14,
        "call-h2",
        "completed",
        [
            {
                "type": "diff",
                "path": f"{DEMO}/src/server.ts",
                "oldText": "app.get('/health'",
                "newText": "app.get('/healthz', (_q, r) => r.json({ uptime: process.uptime() }));\napp.get('/health'",
            }
        ],
    )
    s.add(
        15,
        {
            "sessionUpdate": "plan",
            "entries": [
                {"content": "Add /healthz route", "priority": "high", "status": "completed"},
                {"content": "Add a test", "priority": "medium", "status": "pending"},
            ],
        },
    )
    s.agent(16, "Added `GET /healthz` returning `{ uptime }`.", "p0")
    s.add(
        17,
        {"sessionUpdate": "last_turn_summary", "summary": "Added GET /healthz", "prompt_id": "p0"},
        xai=True,
    )
    s.add(
        18,
        {"sessionUpdate": "session_summary_generated", "session_summary": "Add /healthz endpoint"},
        xai=True,
    )
    s.user(60, "Now add a test using supertest.", 1)
    s.add(
        61,
        {
            "sessionUpdate": "retry_state",
            "type": "retrying",
            "error_type": "api",
            "message": "API error (status 529 Overloaded); retrying in 4s",
            "attempt": 1,
        },
        xai=True,
    )
    s.call(66, "call-h3", "run_terminal_command", "execute", {"command": "npm test"})
    s.done(
        70,
        "call-h3",
        "failed",
        text_content("Error: Cannot find module 'supertest'"),
        rawOutput={"exit_code": 1},
    )
    s.agent(71, "supertest is not installed; shall I add it?", "p1")
    s.add(
        120,
        {
            "sessionUpdate": "rewind_marker",
            "target_prompt_index": 1,
            "created_at": "2026-11-18T08:28:40.000000Z",
        },
        xai=True,
    )
    s.user(121, "Write the test with node:test and fetch instead.", 1)
    s.add(
        121,
        {
            "sessionUpdate": "user_message_chunk",
            "content": {"type": "image", "mimeType": "image/png", "data": PIXEL},
            "_meta": {"promptIndex": 1},
        },
    )
    s.call(125, "call-h4", "run_terminal_command", "execute", {"command": "node --test"})
    s.agent(130, "Added test/healthz.test.ts; ", "p1b")
    s.agent(130, "it passes under node --test.", "p1b")
    return s


def session_b() -> Stream:
    s = Stream(B)
    s.user(7, "Is there an uptime helper under src/?", 0)
    s.call(8, "call-s1", "grep", "search", {"pattern": "uptime", "path": "src"})
    s.done(9, "call-s1", "completed", text_content("no matches"))
    s.agent(11, "No helper exists; process.uptime() is enough.", "sp0")
    return s


def session_f(parent: Stream) -> tuple[Stream, str]:
    """The fork: A's first eight lines copied (session id rewritten, eventIds kept), then its own,
    the last one still being written."""
    s = Stream(F)
    for line in parent.lines[:8]:
        copied = json.loads(dump(line))
        copied["params"]["sessionId"] = F
        s.lines.append(copied)
    s.user(3600, "In this fork, report the start time too.", 1)
    s.agent(3605, "Adding `startedAt` next to `uptime`.", "fp1")
    s.call(3606, "call-f1", "edit_file", "edit", {"path": "src/server.ts"})
    cut = dump(
        {
            "timestamp": START + 3607,
            "method": "session/update",
            "params": {
                "sessionId": F,
                "update": {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": "call-f1",
                    "status": "comp",
                },
            },
        }
    )
    return s, cut[:150]


def session_c() -> Stream:
    s = Stream(C)
    s.user(86400, "给笔记搜索加上日文假名支持，", 0)
    s.user(86400, "比如「かな」也能搜到「カナ」。", 0)
    s.agent(86402, "ひらがなとカタカナを正規化してから比較する。", "z0", thought=True)
    s.agent(86405, "已在 src/search/normalize.ts 中把片假名统一转换为平假名。", "z0")
    s.user(86406, "<system-reminder>Plan mode is off.</system-reminder>", 1, hostTurn=True)
    s.user(
        86407, "$ git status\nOn branch feat/假名\nnothing to commit", 1, bashCommand="git status"
    )
    s.add(
        86410,
        {
            "sessionUpdate": "session_recap",
            "summary": "搜索现在忽略平假名与片假名的差异。",
            "auto": True,
        },
        xai=True,
    )
    s.add(
        86411,
        {
            "sessionUpdate": "compaction_checkpoint",
            "checkpoint_id": "cp-1",
            "checkpoint_file": "compaction_checkpoints/cp-1.json",
        },
        xai=True,
    )
    s.add(86412, {"sessionUpdate": "auto_compact_completed", "tokens_before": 120000}, xai=True)
    s.lines.append(
        {
            "sessionId": C,
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "カナ検索のテストも追加しました。"},
            },
        }
    )
    s.add(
        86420,
        {"sessionUpdate": "session_summary_generated", "session_summary": "笔记搜索与假名"},
        xai=True,
    )
    return s


def summary(session: str, cwd: str, **fields: Any) -> dict[str, Any]:
    base = {
        "info": {"id": session, "cwd": cwd},
        "session_summary": "",
        "num_messages": 0,
        "current_model_id": "grok-4.5",
        "chat_format_version": 1,
    }
    return base | fields


def write(cwd: str, session: str, stream: Stream, meta: dict[str, Any], cut: str = "") -> None:
    folder = HERE / "sessions" / quote(cwd, safe="") / session
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "updates.jsonl").write_text("".join(dump(line) + "\n" for line in stream.lines) + cut)
    (folder / "summary.json").write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n")


def main() -> None:
    a = session_a()
    write(
        DEMO,
        A,
        a,
        summary(
            A,
            DEMO,
            session_summary="Add /healthz endpoint",
            generated_title="Add /healthz endpoint with a node:test test",
            created_at="2026-11-18T08:26:40.000000Z",
            updated_at="2026-11-18T08:28:50.000000Z",
            head_branch="main",
            last_turn_summary="Added a node:test test for /healthz",
        ),
    )
    write(
        DEMO,
        B,
        session_b(),
        summary(
            B,
            DEMO,
            parent_session_id=A,
            session_kind="subagent",
            hidden=True,
            created_at="2026-11-18T08:26:47.000000Z",
        ),
    )
    fork, cut = session_f(a)
    write(
        DEMO,
        F,
        fork,
        summary(
            F,
            DEMO,
            parent_session_id=A,
            session_kind="fork",
            forked_at="2026-11-18T09:26:40.000000Z",
            inherited_prefix_len=5,
            session_summary="Add /healthz endpoint",
        ),
        cut,
    )
    write(
        NOTES,
        C,
        session_c(),
        summary(
            C,
            NOTES,
            session_summary="笔记搜索与假名",
            generated_title="笔记搜索：支持日文假名",
            title_is_manual=True,
            head_branch="feat/假名",
        ),
    )
    group = HERE / "sessions" / quote(DEMO, safe="")
    (group / "prompt_history.jsonl").write_text(
        dump(
            {
                "prompt": "Add a GET /healthz endpoint that reports the uptime in seconds.",
                "session_id": A,
            }
        )
        + "\n"
    )
    (group / A / "chat_history.jsonl").write_text(
        dump(
            {
                "type": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "<user_query>\nAdd a GET /healthz endpoint\n</user_query>",
                    }
                ],
            }
        )
        + "\n"
    )
    (group / A / "signals.json").write_text(dump({"turns": 2, "tool_calls": 4}) + "\n")
    (HERE / "user-settings.json").write_text(
        dump({"apiKey": "FAKE-xai-sample-key-0000", "baseURL": "https://api.x.ai/v1"}) + "\n"
    )


if __name__ == "__main__":
    main()
