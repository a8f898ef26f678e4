"""Builds the project's own sample of grok-cli's database: `<root>/grok.db`, where grok-cli keeps
it in `~/.grok` (superagent-ai/grok-cli, schema version 3). Standard library only; the tests build
it in a temporary copy of the samples (no binary is kept in the repository):
`python tests/data/grok/make_db.py <root>` writes one by hand.

The tables have grok-cli's shape (research/formats.md §5.5), the ones the parser never reads
included; `message_json` holds a Vercel AI SDK `ModelMessage`. The content is written for these
samples and deterministic:
- S1 (/home/dev/demo-app): reasoning, text and tool calls, a failed bash install, a compaction
  (its `[Context checkpoint summary]` message and its `compactions` row), a prompt with an image,
  a recap.
- S2 (cwd left empty: its workspace's path): Chinese and Japanese, a tool that fails with
  `success: false`.

`grow(root)` adds what a later read finds: a message, and S1's recap rewritten.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

S1 = "5c2e8a1f9b30"
S2 = "9d41b7e0c6a5"
DEMO = "/home/dev/demo-app"
NOTES = "/home/dev/文档/notes-app"
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

SCHEMA = """
CREATE TABLE workspaces (id TEXT PRIMARY KEY, scope_key TEXT NOT NULL UNIQUE,
  canonical_path TEXT NOT NULL, git_root TEXT, display_name TEXT NOT NULL,
  last_seen_at TEXT NOT NULL) STRICT;
CREATE TABLE sessions (id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  title TEXT, recap_text TEXT, recap_model TEXT, recap_updated_at TEXT, model TEXT NOT NULL,
  mode TEXT NOT NULL, cwd_at_start TEXT NOT NULL, cwd_last TEXT NOT NULL, status TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL) STRICT;
CREATE TABLE messages (session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL, role TEXT NOT NULL, message_json TEXT NOT NULL, created_at TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)) STRICT;
CREATE TABLE tool_calls (id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  message_seq INTEGER NOT NULL, tool_call_id TEXT NOT NULL, tool_name TEXT NOT NULL,
  args_json TEXT NOT NULL, status TEXT NOT NULL, started_at TEXT NOT NULL, completed_at TEXT,
  UNIQUE(session_id, tool_call_id)) STRICT;
CREATE TABLE tool_results (id INTEGER PRIMARY KEY AUTOINCREMENT,
  tool_call_row_id INTEGER NOT NULL REFERENCES tool_calls(id) ON DELETE CASCADE,
  output_kind TEXT NOT NULL, output_json TEXT NOT NULL, success INTEGER NOT NULL,
  created_at TEXT NOT NULL) STRICT;
CREATE TABLE usage_events (id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, message_seq INTEGER,
  source TEXT NOT NULL, model TEXT NOT NULL, input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0, total_tokens INTEGER NOT NULL DEFAULT 0,
  cost_micros INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL) STRICT;
CREATE TABLE compactions (id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  first_kept_seq INTEGER NOT NULL, summary TEXT NOT NULL,
  tokens_before INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL) STRICT;
"""

SUMMARY = "Goal: rate-limit POST /login. Blocked: npm 403; writing our own limiter."


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _message(db: sqlite3.Connection, sid: str, seq: int, message: dict[str, Any], at: str) -> None:
    db.execute(
        "INSERT INTO messages VALUES (?, ?, ?, ?, ?)",
        (sid, seq, message["role"], _json(message), at),
    )


def _tool(db: sqlite3.Connection, sid: str, seq: int, call: str, name: str, ok: bool) -> None:
    """The tool tables repeat the messages (the parser reads the messages alone)."""
    row = db.execute(
        "INSERT INTO tool_calls (session_id, message_seq, tool_call_id, tool_name, args_json, status,"
        " started_at, completed_at) VALUES (?, ?, ?, ?, '{}', 'completed', ?, ?)",
        (sid, seq, call, name, "2026-11-20T10:00:00.000Z", "2026-11-20T10:00:01.000Z"),
    )
    db.execute(
        "INSERT INTO tool_results (tool_call_row_id, output_kind, output_json, success, created_at)"
        " VALUES (?, 'json', '{}', ?, '2026-11-20T10:00:01.000Z')",
        (row.lastrowid, 1 if ok else 0),
    )


def _session_one(db: sqlite3.Connection) -> None:
    at = "2026-11-20T10:00:{:02d}.000Z".format
    db.execute(
        "INSERT INTO sessions VALUES (?, 'w1', ?, ?, 'grok-4.5-fast', ?, 'grok-4.5', 'agent', ?, ?,"
        " 'active', ?, ?)",
        (S1, "Rate-limit the login route", "Login is limited to 5 attempts a minute per IP.",
         at(50), DEMO, DEMO + "/src", at(0), at(50)),
    )  # fmt: skip
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Rate-limit POST /login to 5 attempts per minute per IP."},
        {"role": "assistant", "content": [
            {"type": "reasoning", "text": "Check for an existing limiter first."},
            {"type": "text", "text": "Looking for middleware first."},
            {"type": "tool-call", "toolCallId": "call_k1", "toolName": "grep",
             "input": {"pattern": "rateLimit", "path": "src"}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "call_k1",
            "toolName": "grep", "output": {"type": "json", "value": {
                "success": True, "output": "src/middleware/index.ts:3: export {}"}}}]},
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "call_k2",
            "toolName": "bash", "input": {"command": "npm i express-rate-limit"}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "call_k2",
            "toolName": "bash", "output": {"type": "error-text", "value": "npm ERR! 403 Forbidden"}}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "The install was refused (403); writing a small limiter."}]},
        {"role": "system", "content": "[Context checkpoint summary]\n" + SUMMARY},
        {"role": "user", "content": [
            {"type": "text", "text": "Good, and log refused attempts like this one."},
            {"type": "image", "image": PIXEL, "mediaType": "image/png"}]},
        {"role": "assistant", "content": [{"type": "text",
            "text": "Added src/middleware/loginLimit.ts and a warning for refused attempts."}]},
    ]  # fmt: skip
    for seq, message in enumerate(messages, start=1):
        _message(db, S1, seq, message, at(seq * 5))
    _tool(db, S1, 2, "call_k1", "grep", True)
    _tool(db, S1, 4, "call_k2", "bash", False)
    db.execute(
        "INSERT INTO compactions (session_id, first_kept_seq, summary, tokens_before, created_at)"
        " VALUES (?, 8, ?, 64000, ?)",
        (S1, SUMMARY, at(35)),
    )


def _session_two(db: sqlite3.Connection) -> None:
    at = "2026-11-20T11:00:{:02d}.000Z".format
    db.execute(
        "INSERT INTO sessions VALUES (?, 'w2', ?, NULL, NULL, NULL, 'grok-4.5', 'agent', ?, ?,"
        " 'active', ?, ?)",
        (S2, "笔记导出：日文文件名", "", NOTES, at(0), at(30)),
    )  # fmt: skip
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [
            {"type": "text", "text": "导出的文件名里日文会变成问号（例如「議事録」），请修复。"}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "先检查 Content-Disposition。"},
            {"type": "tool-call", "toolCallId": "call_r1", "toolName": "read_file",
             "input": {"path": "src/export.ts"}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "call_r1",
            "toolName": "read_file", "output": {"type": "text", "value": "res.attachment(title + '.md')"}}]},
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "call_w1",
            "toolName": "write_file", "input": {"path": "out/議事録.md"}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "call_w1",
            "toolName": "write_file", "output": {"type": "json", "value": {
                "success": False, "error": "EACCES: permission denied, open 'out/議事録.md'"}}}]},
        {"role": "assistant", "content": "已改为 RFC 5987 编码，「議事録.md」可以正常下载了。"},
    ]  # fmt: skip
    for seq, message in enumerate(messages, start=1):
        _message(db, S2, seq, message, at(seq * 5))


def build(root: Path) -> Path:
    """A fresh `<root>/grok.db`."""
    path = root / "grok.db"
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    try:
        db.executescript(SCHEMA)
        db.execute(
            "INSERT INTO workspaces VALUES ('w1', ?, ?, ?, 'demo-app', '2026-11-20T10:00:00.000Z')",
            (DEMO, DEMO, DEMO),
        )
        db.execute(
            "INSERT INTO workspaces VALUES ('w2', ?, ?, ?, 'notes-app', '2026-11-20T11:00:00.000Z')",
            (NOTES, NOTES, NOTES),
        )
        _session_one(db)
        _session_two(db)
        db.execute(
            "INSERT INTO usage_events (session_id, message_seq, source, model, input_tokens,"
            " output_tokens, total_tokens, cost_micros, created_at)"
            " VALUES (?, 2, 'agent', 'grok-4.5', 5200, 140, 5340, 1180, '2026-11-20T10:00:10.000Z')",
            (S1,),
        )
        db.execute("PRAGMA user_version = 3")
        db.commit()
    finally:
        db.close()
    return path


def grow(root: Path) -> None:
    """What a later read finds: one more message in S2, and S1's recap rewritten."""
    db = sqlite3.connect(root / "grok.db")
    try:
        message = {"role": "user", "content": "也请给导出加一个测试。"}
        _message(db, S2, 7, message, "2026-11-20T11:05:00.000Z")
        db.execute(
            "UPDATE sessions SET recap_text = ?, recap_updated_at = ?, updated_at = ? WHERE id = ?",
            ("Login is limited and refused attempts are logged.", "2026-11-20T10:09:00.000Z",
             "2026-11-20T10:09:00.000Z", S1),
        )  # fmt: skip
        db.commit()
    finally:
        db.close()


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()))
