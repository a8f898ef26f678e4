"""Builds the project's own ZCode sample database: `<root>/cli/db/db.sqlite`, as ZCode lays out
`~/.zcode`. Standard library only; the tests build it in a temporary folder (no binary is kept in
the repository): `python tests/data/zcode/make_db.py <root>` writes one by hand.

The schema follows ZCode's (opencode-derived: session, message, part with JSON `data`, epoch-ms
times), with columns the parser never reads kept so that its queries are tried against the real
shape. The content is written for these samples and deterministic:
- A (`SESSION_A`, /home/dev/inventory-api): typed prompt with `inputIntent`, a file part, a
  synthetic part; reasoning, text, tools (read, a test run that exits 1, an edit that fails);
  a todo reminder; and a second turn still running (a tool running, one pending, reasoning and
  text not finished).
- B (`SESSION_B`, /home/dev/笔记/sync-service): Chinese and Japanese, a compaction (timeline
  message, compaction part, summary message with its boundary part), an aborted answer.
- C (`SESSION_C`): a sub-agent child of A.
- D (`SESSION_D`): a fork of A, which copied A's first messages (with their times) before its own.
- E (`SESSION_E`): a session just opened, still under its placeholder title.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import uuid
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE session (
  id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, slug TEXT, directory TEXT NOT NULL,
  title TEXT, version TEXT, task_type TEXT, permission TEXT, workspace_id TEXT,
  summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_compacting INTEGER,
  time_archived INTEGER);
CREATE TABLE message (
  id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL,
  sequence INTEGER);
CREATE TABLE part (
  id TEXT PRIMARY KEY, message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
  data TEXT NOT NULL, sequence INTEGER);
CREATE TABLE session_entry (
  id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE local_setting (key TEXT PRIMARY KEY, value TEXT);
CREATE INDEX message_session_idx ON message(session_id);
CREATE INDEX part_message_idx ON part(message_id);
"""

T0 = 1794000000000  # 2026-11-07, session A
T1 = 1794100000000  # session B
T2 = 1794200000000  # session E


def uid(seed: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "origin-zcode-sample/" + seed))


def b36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while number:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
    return out or "0"


def message_id(ms: int, seed: str) -> str:
    return f"msg_{b36(ms)}_{uid(seed)}"


def part_id(ms: int, seed: str) -> str:
    return f"part_{b36(ms)}_{uid(seed)}"


SESSION_A = f"sess_{uid('a')}"
SESSION_B = f"sess_{uid('b')}"
SESSION_C = f"sess_subagent_agent_{uid('c')}"
SESSION_D = f"sess_{uid('d')}"
SESSION_E = f"sess_{uid('e')}"
CWD_A = "/home/dev/inventory-api"
CWD_B = "/home/dev/笔记/sync-service"
VERSION = "0.16.7"

#: The running turn of session A, which the tests finish.
RUNNING_MESSAGE = message_id(T0 + 60000, "a-a3")
RUNNING_REASONING = part_id(T0 + 61000, "a-a3-reasoning")
RUNNING_TEXT = part_id(T0 + 64000, "a-a3-text")
RUNNING_TOOL = part_id(T0 + 62000, "a-a3-bash")
PENDING_TOOL = part_id(T0 + 63000, "a-a3-grep")


def dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Writer:
    """Rows of one database, with the sequence numbers ZCode keeps per session and message."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection
        self.sequences: dict[str, int] = {}

    def next(self, scope: str) -> int:
        self.sequences[scope] = self.sequences.get(scope, -1) + 1
        return self.sequences[scope]

    def session(self, sid: str, **fields: Any) -> None:
        row = {"id": sid, "slug": sid.replace("_", "-"), "version": VERSION, **fields}
        row.setdefault("time_updated", row["time_created"])
        row["permission"] = dump({"mode": "default"})
        names = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        self.connection.execute(
            f"INSERT INTO session ({names}) VALUES ({marks})", list(row.values())
        )

    def message(self, sid: str, ms: int, seed: str, data: dict[str, Any]) -> str:
        mid = message_id(ms, seed)
        data = {**data, "time": {"created": ms, **data.get("time", {})}}
        completed = data["time"].get("completed", ms)
        self.connection.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?, ?)",
            (mid, sid, ms, completed, dump(data), self.next(sid)),
        )
        return mid

    def part(self, sid: str, mid: str, ms: int, seed: str, data: dict[str, Any]) -> str:
        pid = part_id(ms, seed)
        self.connection.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?, ?)",
            (pid, mid, sid, ms, ms, dump(data), self.next(mid)),
        )
        return pid


def user(turn: str, kind: str = "real_user", intent: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"role": "user", "anchor": {"turnId": turn}, "semantics": {"kind": kind}}
    if intent is not None:
        data["metadata"] = {"inputIntent": {"text": intent}}
    return data


def assistant(cwd: str, parent: str, completed: int | None, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "role": "assistant",
        "parentID": parent,
        "providerId": "zai",
        "modelId": "GLM-5.2",
        "mode": "build",
        "agent": "build",
        "path": {"cwd": cwd, "root": cwd},
        **extra,
    }
    if completed is not None:
        data["time"] = {"completed": completed}
    return data


def tool(call: str, name: str, status: str, start: int, **state: Any) -> dict[str, Any]:
    times = {"start": start} if status == "running" else {"start": start, "end": start + 40}
    body: dict[str, Any] = {"status": status, "time": times, **state}
    return {"type": "tool", "callID": call, "tool": name, "state": body}


def session_a(w: Writer) -> None:
    a = SESSION_A
    w.session(a, directory=CWD_A, title="Retry failed webhook deliveries", task_type="interactive",
              project_id="proj_inventory-api", time_created=T0, time_updated=T0 + 64000)  # fmt: skip
    prompt = "Retry failed webhook deliveries with exponential backoff."
    u1 = w.message(a, T0 + 10, "a-u1", user("turn_a1", intent=prompt))
    w.part(
        a, u1, T0 + 11, "a-u1-text", {"type": "text", "text": prompt + "\n@src/webhooks/deliver.ts"}
    )
    w.part(a, u1, T0 + 12, "a-u1-synthetic", {"type": "text", "synthetic": True, "text":
           'Called the Read tool with the following input: {"filePath":"src/webhooks/deliver.ts"}'})  # fmt: skip
    w.part(a, u1, T0 + 13, "a-u1-file", {"type": "file", "mime": "text/plain", "filename": "deliver.ts",
           "url": f"file://{CWD_A}/src/webhooks/deliver.ts"})  # fmt: skip
    a1 = w.message(a, T0 + 1000, "a-a1", assistant(CWD_A, u1, T0 + 30000, finish="tool-calls"))
    w.part(a, a1, T0 + 1001, "a-a1-step", {"type": "step-start"})
    w.part(a, a1, T0 + 2000, "a-a1-reasoning", {"type": "reasoning", "time": {"start": T0 + 1100, "end": T0 + 2000},
           "text": "Deliveries are sent once in deliver.ts; a retry queue with a backoff fits there."})  # fmt: skip
    w.part(a, a1, T0 + 2100, "a-a1-text", {"type": "text", "text": "Reading the delivery code first.",
           "time": {"start": T0 + 2050, "end": T0 + 2100}})  # fmt: skip
    w.part(a, a1, T0 + 3000, "a-a1-read", tool("call_read1", "read", "completed", T0 + 3000,
           input={"filePath": f"{CWD_A}/src/webhooks/deliver.ts"},
           output="1\texport async function deliver(hook) { return post(hook.url, hook.body); }\n",
           title="src/webhooks/deliver.ts", metadata={"schemaVersion": 1}))  # fmt: skip
    w.part(a, a1, T0 + 9000, "a-a1-edit", tool("call_edit1", "edit", "error", T0 + 9000,
           input={"filePath": f"{CWD_A}/src/webhooks/deliver.ts", "oldString": "post(",
                  "newString": "withBackoff(post)("},
           error="oldString appears 3 times; add surrounding lines"))  # fmt: skip
    w.part(a, a1, T0 + 20000, "a-a1-bash", tool("call_bash1", "bash", "completed", T0 + 20000,
           input={"command": "npm test -- webhooks", "description": "Run webhook tests"},
           output="FAIL test/webhooks.test.ts\n  expected 3 attempts, got 1\n",
           metadata={"schemaVersion": 1, "exit": 1}))  # fmt: skip
    w.part(a, a1, T0 + 30000, "a-a1-finish", {"type": "step-finish", "reason": "tool-calls",
           "tokens": {"input": 9100, "output": 300, "reasoning": 80, "cache": {"read": 8000, "write": 0}}})  # fmt: skip
    a2 = w.message(a, T0 + 31000, "a-a2", assistant(CWD_A, u1, T0 + 40000, finish="stop"))
    w.part(a, a2, T0 + 39000, "a-a2-text", {"type": "text",
           "text": "Failed deliveries now retry up to 3 times (1 s, 4 s, 16 s); the webhook tests pass."})  # fmt: skip
    reminder = w.message(a, T0 + 50000, "a-u2", user("turn_a2", kind="todo_reminder"))
    w.part(a, reminder, T0 + 50001, "a-u2-text", {"type": "text", "text":
           "<system-reminder>Todo: a dead-letter table for failing deliveries.</system-reminder>"})  # fmt: skip
    u3 = w.message(a, T0 + 55000, "a-u3", user("turn_a2", intent="Also log each retry attempt."))
    w.part(a, u3, T0 + 55001, "a-u3-text", {"type": "text", "text": "Also log each retry attempt."})
    # The second turn is still running: nothing of its reasoning or answer is final yet.
    a3 = w.message(a, T0 + 60000, "a-a3", assistant(CWD_A, u3, None))
    assert a3 == RUNNING_MESSAGE
    w.part(a, a3, T0 + 61000, "a-a3-reasoning", {"type": "reasoning", "time": {"start": T0 + 61000},
           "text": "Log with the attempt number and the"})  # fmt: skip
    w.part(a, a3, T0 + 62000, "a-a3-bash", tool("call_bash2", "bash", "running", T0 + 62000,
           input={"command": "grep -rn retry src/webhooks", "description": "Find retry code"}))  # fmt: skip
    w.part(a, a3, T0 + 63000, "a-a3-grep", {"type": "tool", "callID": "call_grep2", "tool": "grep",
           "state": {"status": "pending", "input": {}, "raw": '{"pattern":"logg'}})  # fmt: skip
    w.part(a, a3, T0 + 64000, "a-a3-text", {"type": "text", "text": "Adding a log line",
           "time": {"start": T0 + 64000}})  # fmt: skip


def session_b(w: Writer) -> None:
    b = SESSION_B
    w.session(b, directory=CWD_B, title="同步冲突的合并策略", task_type="interactive",
              time_created=T1, time_updated=T1 + 900000)  # fmt: skip
    u1 = w.message(
        b, T1 + 5, "b-u1", user("turn_b1", intent="同步冲突时按字段合并，不要整条覆盖。")
    )
    w.part(
        b, u1, T1 + 6, "b-u1-text", {"type": "text", "text": "同步冲突时按字段合并，不要整条覆盖。"}
    )
    a1 = w.message(b, T1 + 1000, "b-a1", assistant(CWD_B, u1, T1 + 50000, finish="stop"))
    w.part(
        b,
        a1,
        T1 + 2000,
        "b-a1-reasoning",
        {"type": "reasoning", "text": "先比较两边的 updated_at，再逐字段合并。"},
    )
    w.part(b, a1, T1 + 49000, "b-a1-text", {"type": "text",
           "text": "已改为逐字段合并：较新的字段获胜，冲突写入 merge_log。"})  # fmt: skip
    # A compaction: its timeline message, then the summary the model continues from.
    host = w.message(b, T1 + 600000, "b-h1", {"role": "assistant", "semantics": {"kind": "timeline_event"},
                     "time": {"completed": T1 + 611000}, "providerId": "zai", "modelId": "GLM-5.2"})  # fmt: skip
    operation = "cmp_" + uid("b-cmp")
    w.part(b, host, T1 + 600001, "b-h1-timeline", {"type": "timeline", "kind": "context_compaction",
           "operationId": operation, "timelineStatus": "completed"})  # fmt: skip
    w.part(b, host, T1 + 600002, "b-h1-compaction", {"type": "compaction", "auto": False,
           "operationId": operation, "timelineStatus": "completed", "preCompactTokenCount": 150000,
           "truePostCompactTokenCount": 7200, "summaryMessageId": message_id(T1 + 610000, "b-s1")})  # fmt: skip
    s1 = w.message(b, T1 + 610000, "b-s1", {"role": "user", "summary": True,
                   "semantics": {"kind": "compact_summary"}})  # fmt: skip
    w.part(b, s1, T1 + 610001, "b-s1-text", {"type": "text",
           "text": "[摘要] 同步冲突已改为逐字段合并，冲突记录在 merge_log。待办：冲突提示的界面。"})  # fmt: skip
    w.part(b, s1, T1 + 610002, "b-s1-boundary", {"type": "compaction", "compactBoundary": True,
           "lastSummarizedMessageId": a1})  # fmt: skip
    u2 = w.message(b, T1 + 700000, "b-u2", user("turn_b2", intent="競合の通知を画面に出して。"))
    w.part(b, u2, T1 + 700001, "b-u2-text", {"type": "text", "text": "競合の通知を画面に出して。"})
    error = {"name": "MessageAbortedError", "data": {"message": "The operation was aborted."}}
    a2 = w.message(b, T1 + 701000, "b-a2", assistant(CWD_B, u2, None, error=error))
    w.part(b, a2, T1 + 705000, "b-a2-text", {"type": "text", "text": "通知バナーを追加しています"})


def session_c(w: Writer) -> None:
    c = SESSION_C
    w.session(c, directory=CWD_A, title="Explore: existing retry helpers", task_type="subagent_child",
              parent_id=SESSION_A, time_created=T0 + 4000, time_updated=T0 + 8000)  # fmt: skip
    u1 = w.message(c, T0 + 4001, "c-u1", user("turn_c1", kind="subagent_task"))
    w.part(
        c,
        u1,
        T0 + 4002,
        "c-u1-text",
        {"type": "text", "text": "List any retry or backoff helpers under src/."},
    )
    a1 = w.message(
        c,
        T0 + 4500,
        "c-a1",
        assistant(CWD_A, u1, T0 + 8000, finish="stop", modelId="GLM-5.2-Flash"),
    )
    w.part(c, a1, T0 + 4600, "c-a1-grep", tool("call_grep1", "grep", "completed", T0 + 4600,
           input={"pattern": "retry|backoff", "path": "src"}, output="No matches found"))  # fmt: skip
    w.part(
        c,
        a1,
        T0 + 7900,
        "c-a1-text",
        {"type": "text", "text": "There is no retry helper; deliver.ts posts once."},
    )


def session_d(w: Writer) -> None:
    d = SESSION_D
    forked = T0 + 45000
    w.session(d, directory=CWD_A, title="Fork of Retry failed webhook deliveries", task_type="fork",
              parent_id=SESSION_A, time_created=forked, time_updated=forked + 9000)  # fmt: skip
    # The copies keep the times of the messages they copy, before the fork was made.
    prompt = "Retry failed webhook deliveries with exponential backoff."
    u1 = w.message(d, T0 + 10, "d-u1", user("turn_a1", intent=prompt))
    w.part(d, u1, T0 + 11, "d-u1-text", {"type": "text", "text": prompt})
    a1 = w.message(d, T0 + 31000, "d-a1", assistant(CWD_A, u1, T0 + 40000, finish="stop"))
    w.part(d, a1, T0 + 39000, "d-a1-text", {"type": "text",
           "text": "Failed deliveries now retry up to 3 times (1 s, 4 s, 16 s); the webhook tests pass."})  # fmt: skip
    u2 = w.message(
        d, forked + 1000, "d-u2", user("turn_d1", intent="Use a jittered backoff instead.")
    )
    w.part(
        d,
        u2,
        forked + 1001,
        "d-u2-text",
        {"type": "text", "text": "Use a jittered backoff instead."},
    )
    a2 = w.message(d, forked + 2000, "d-a2", assistant(CWD_A, u2, forked + 9000, finish="stop"))
    w.part(
        d,
        a2,
        forked + 8000,
        "d-a2-text",
        {"type": "text", "text": "Backoff now adds up to 20 % random jitter."},
    )


def session_e(w: Writer) -> None:
    e = SESSION_E
    w.session(e, directory=CWD_A, title="New session - 2026-11-09T12:26:40.000Z", task_type="interactive",
              time_created=T2, time_updated=T2 + 10)  # fmt: skip
    u1 = w.message(
        e, T2 + 5, "e-u1", user("turn_e1", intent="Why is the inventory count negative?")
    )
    w.part(
        e, u1, T2 + 6, "e-u1-text", {"type": "text", "text": "Why is the inventory count negative?"}
    )


def build(root: Path) -> Path:
    """Writes `<root>/cli/db/db.sqlite` anew and returns its path."""
    path = root / "cli" / "db" / "db.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    connection = sqlite3.connect(path)
    try:
        connection.executescript(SCHEMA)
        writer = Writer(connection)
        for fill in (session_a, session_b, session_c, session_d, session_e):
            fill(writer)
        # What a real database keeps beside the chats: never read.
        connection.execute(
            "INSERT INTO local_setting VALUES ('provider.apiKey', 'FAKE-zcode-key-DO-NOT-INGEST')"
        )
        connection.commit()
        connection.execute("PRAGMA user_version = 22")
    finally:
        connection.close()
    return path


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()))
