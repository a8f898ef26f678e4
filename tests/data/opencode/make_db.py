"""Builds the project's own OpenCode sample: `<root>/.local/share/opencode/opencode.db` and the
whole output of a large command in `tool-output/` beside it, as OpenCode lays out a home (its
global instructions, `~/.config/opencode/AGENTS.md`, are tests/data/memory/opencode/AGENTS.md).
Standard library only; the tests build it in a temporary folder (no binary is kept in the
repository): `python tests/data/opencode/make_db.py <root>` writes one by hand.

The tables follow OpenCode 1.18's (drizzle migrations: session, message and part with JSON
`data`, epoch-ms times), with columns the parser never reads kept so that its queries are tried
against the real shape, and the tables it must never read filled with fake secrets. The content
is written for these samples and deterministic:
- A (`SESSION_A`, /home/dev/lighthouse-api): a prompt from `opencode run` (wrapped in quotes,
  an inner quote escaped), reasoning, a read, a test run that exits 2 (recorded as completed),
  an edit that fails, a listing too large for the row (its head only in `tool-output/`), a
  sub-agent task; then a second turn still running (reasoning and text not finished, a tool
  running, one pending).
- B (`SESSION_B`, /home/dev/灯台/harbor-ui): Chinese and Japanese, typed (no quotes), with a
  compaction (its part and the summary message) and an answer that failed (APIError).
- C (`SESSION_C`): the sub-agent A's task started (`parent_id` = A).
- D (`SESSION_D`): a session just opened, still under its placeholder title.
- E (`SESSION_E`): a fork of A, which copied A's first prompt (with its time, under new ids)
  before its own.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE project (
  id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT, icon_url TEXT,
  icon_url_override TEXT, icon_color TEXT, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, time_initialized INTEGER, sandboxes TEXT NOT NULL, commands TEXT);
CREATE TABLE session (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT,
  slug TEXT NOT NULL, directory TEXT NOT NULL, path TEXT, title TEXT NOT NULL,
  version TEXT NOT NULL, share_url TEXT, summary_additions INTEGER, summary_deletions INTEGER,
  summary_files INTEGER, summary_diffs TEXT, metadata TEXT, cost REAL DEFAULT 0 NOT NULL,
  tokens_input INTEGER DEFAULT 0 NOT NULL, tokens_output INTEGER DEFAULT 0 NOT NULL,
  tokens_reasoning INTEGER DEFAULT 0 NOT NULL, tokens_cache_read INTEGER DEFAULT 0 NOT NULL,
  tokens_cache_write INTEGER DEFAULT 0 NOT NULL, revert TEXT, permission TEXT, agent TEXT,
  model TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
  time_compacting INTEGER, time_archived INTEGER,
  FOREIGN KEY (project_id) REFERENCES project(id) ON DELETE CASCADE);
CREATE TABLE message (
  id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL,
  FOREIGN KEY (session_id) REFERENCES session(id) ON DELETE CASCADE);
CREATE TABLE part (
  id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL,
  FOREIGN KEY (message_id) REFERENCES message(id) ON DELETE CASCADE);
CREATE TABLE event (
  id TEXT PRIMARY KEY, aggregate_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,
  data TEXT NOT NULL);
CREATE TABLE account (
  id TEXT PRIMARY KEY, email TEXT NOT NULL, url TEXT NOT NULL, access_token TEXT NOT NULL,
  refresh_token TEXT NOT NULL, token_expiry INTEGER, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL);
CREATE TABLE credential (
  id TEXT PRIMARY KEY, integration_id TEXT, label TEXT NOT NULL, value TEXT NOT NULL,
  connector_id TEXT, method_id TEXT, active INTEGER, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL);
CREATE TABLE session_share (
  session_id TEXT PRIMARY KEY, id TEXT NOT NULL, secret TEXT NOT NULL, url TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
CREATE INDEX session_parent_idx ON session (parent_id);
"""

T0 = 1793300000000  # 2026-10-29, session A
T1 = 1793400000000  # session B
T2 = 1793500000000  # session D

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def ident(prefix: str, ms: int, seed: str) -> str:
    """An id shaped as OpenCode's ascending ones: the time in hex first, so ids sort by time."""
    digest = hashlib.sha256(("origin-opencode-sample/" + seed).encode()).digest()
    tail = "".join(_BASE62[b % 62] for b in digest[:14])
    return f"{prefix}_{(ms * 0x1000 + 1) & 0xFFFF_FFFF_FFFF:012x}{tail}"


SESSION_A = ident("ses", T0, "a")
SESSION_B = ident("ses", T1, "b")
SESSION_C = ident("ses", T0 + 30000, "c")
SESSION_D = ident("ses", T2, "d")
SESSION_E = ident("ses", T2 + 50000, "e")
CWD_A = "/home/dev/lighthouse-api"
CWD_B = "/home/dev/灯台/harbor-ui"
VERSION = "1.18.40"
PROJECT = "4c1e0a7f3b2d9e8c6a5f4e3d2c1b0a9f8e7d6c5b"

#: The running turn of session A, which the tests finish.
RUNNING_MESSAGE = ident("msg", T0 + 60000, "a-a4")
RUNNING_TOOL = ident("prt", T0 + 62000, "a-a4-bash")
PENDING_TOOL = ident("prt", T0 + 63000, "a-a4-glob")
RUNNING_TEXT = ident("prt", T0 + 64000, "a-a4-text")
#: The large listing's part and the file its whole output is in.
LARGE_TOOL = ident("prt", T0 + 20000, "a-a2-list")
OUTPUT_NAME = "tool_" + ident("tool", T0 + 20400, "a-a2-output")[5:]
OUTPUT_LINES = 1400


def dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Writer:
    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection
        self.events = 0

    def session(self, sid: str, **fields: Any) -> None:
        row = {
            "id": sid,
            "project_id": PROJECT,
            "slug": "slug-" + sid[-6:].lower(),
            "version": VERSION,
            "agent": "build",
            "model": dump({"id": "lumen-coder-2", "providerID": "lumen", "variant": "default"}),
            **fields,
        }
        row.setdefault("time_updated", row["time_created"])
        names = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        self.connection.execute(
            f"INSERT INTO session ({names}) VALUES ({marks})", list(row.values())
        )

    def message(self, sid: str, ms: int, seed: str, data: dict[str, Any]) -> str:
        mid = ident("msg", ms, seed)
        data = {**data, "time": {"created": ms, **data.get("time", {})}}
        updated = data["time"].get("completed", ms)
        self.connection.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)", (mid, sid, ms, updated, dump(data))
        )
        self.event(sid, "message.updated.1", {"sessionID": sid, "info": {"id": mid, **data}})
        return mid

    def part(self, sid: str, mid: str, ms: int, seed: str, data: dict[str, Any]) -> str:
        pid = ident("prt", ms, seed)
        self.connection.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (pid, mid, sid, ms, ms, dump(data))
        )
        self.event(sid, "message.part.updated.1", {"part": {"id": pid, **data}})
        return pid

    def event(self, sid: str, kind: str, data: dict[str, Any]) -> None:
        """OpenCode's event log repeats every row: never read."""
        self.events += 1
        self.connection.execute(
            "INSERT INTO event VALUES (?, ?, ?, ?, ?)",
            (f"evt_{self.events:06d}", sid, self.events, kind, dump(data)),
        )


def user(**extra: Any) -> dict[str, Any]:
    return {
        "role": "user",
        "agent": "build",
        "model": {"providerID": "lumen", "modelID": "lumen-coder-2"},
        **extra,
    }


def assistant(
    cwd: str, parent: str, completed: int | None, tokens: tuple[int, int, int, int, int] | None
) -> dict[str, Any]:
    """`tokens`: input (no cached token), output, reasoning, cache read, cache write."""
    tin, out, thought, read, made = tokens or (0, 0, 0, 0, 0)
    data: dict[str, Any] = {
        "parentID": parent,
        "role": "assistant",
        "mode": "build",
        "agent": "build",
        "path": {"cwd": cwd, "root": cwd},
        "cost": 0,
        "tokens": {
            "total": tin + out + thought + read + made,
            "input": tin,
            "output": out,
            "reasoning": thought,
            "cache": {"write": made, "read": read},
        },
        "modelID": "lumen-coder-2",
        "providerID": "lumen",
    }
    if completed is not None:
        data["time"] = {"completed": completed}
        data["finish"] = "stop"
    return data


def tool(call: str, name: str, status: str, start: int, **state: Any) -> dict[str, Any]:
    times = {"start": start} if status == "running" else {"start": start, "end": start + 300}
    body: dict[str, Any] = {"status": status, "time": times, **state}
    if status in ("pending",):
        body.pop("time")
    return {"type": "tool", "tool": name, "callID": call, "state": body}


def step(w: Writer, sid: str, mid: str, ms: int, seed: str, finish: bool = False) -> None:
    data: dict[str, Any] = {"type": "step-finish" if finish else "step-start", "snapshot": "0" * 40}
    if finish:
        data |= {"reason": "stop", "cost": 0, "tokens": {"input": 1, "output": 1}}
    w.part(sid, mid, ms, seed, data)


def large_output() -> str:
    """The listing's whole output: its first line only in the file, its last also in the row."""
    filler = [f"asset {n:05d} ok ................................" for n in range(OUTPUT_LINES)]
    return "\n".join(["lanternhead77", *filler, "lanterntail77"]) + "\n"


def session_a(w: Writer, data_dir: Path) -> None:
    a = SESSION_A
    w.session(a, directory=CWD_A, title="Throttle the beacon endpoint",
              time_created=T0, time_updated=T0 + 64000)  # fmt: skip
    u1 = w.message(a, T0 + 10, "a-u1", user())
    w.part(a, u1, T0 + 11, "a-u1-text", {"type": "text",
           "text": '"Throttle POST /beacon to 5 per second per \\"device\\" (glimmerword)."'})  # fmt: skip
    a1 = w.message(
        a, T0 + 1000, "a-a1", assistant(CWD_A, u1, T0 + 10000, (1200, 90, 40, 8000, 300))
    )
    step(w, a, a1, T0 + 1001, "a-a1-step")
    w.part(a, a1, T0 + 1500, "a-a1-reasoning", {"type": "reasoning",
           "text": "A leaky counter per device id fits; the handler is in beacon.ts (quillthought).",
           "time": {"start": T0 + 1100, "end": T0 + 1500}})  # fmt: skip
    w.part(a, a1, T0 + 2000, "a-a1-read", tool("call_r1", "read", "completed", T0 + 2000,
           input={"filePath": f"{CWD_A}/src/beacon.ts"},
           output="<file>\n00001| export function beacon(req) { return keep(req.body) }\n</file>",
           title="src/beacon.ts", metadata={"preview": "export function beacon", "truncated": False}))  # fmt: skip
    w.part(a, a1, T0 + 5000, "a-a1-test", tool("call_t1", "bash", "completed", T0 + 5000,
           input={"command": "npm test -- beacon", "description": "Run beacon tests"},
           output="FAIL test/beacon.test.ts\n  expected 429, got 200 (brinefault)\n",
           title="npm test -- beacon",
           metadata={"output": "FAIL test/beacon.test.ts\n  expected 429, got 200 (brinefault)\n",
                     "exit": 2, "truncated": False, "description": "Run beacon tests"}))  # fmt: skip
    w.part(a, a1, T0 + 8000, "a-a1-edit", tool("call_e1", "edit", "error", T0 + 8000,
           input={"filePath": f"{CWD_A}/src/beacon.ts", "oldString": "keep(",
                  "newString": "throttled(keep)("},
           error="Error: oldString found multiple times (mossmatch)"))  # fmt: skip
    step(w, a, a1, T0 + 9999, "a-a1-finish", finish=True)
    # The listing: its whole output written to tool-output/, its tail kept in the row.
    whole = large_output()
    path = data_dir / "tool-output" / OUTPUT_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(whole)
    shown = f"/home/dev/.local/share/opencode/tool-output/{OUTPUT_NAME}"
    tail = "\n".join(whole.splitlines()[-120:]) + "\n"
    a2 = w.message(a, T0 + 15000, "a-a2", assistant(CWD_A, u1, T0 + 25000, (2100, 60, 0, 9000, 0)))
    step(w, a, a2, T0 + 15001, "a-a2-step")
    w.part(a, a2, T0 + 20000, "a-a2-list", tool("call_l1", "bash", "completed", T0 + 20000,
           input={"command": "ls -l assets/ | cat", "description": "List the assets"},
           output=f"...output truncated...\n\nFull output saved to: {shown}\n\n{tail}",
           title="ls -l assets/ | cat",
           metadata={"output": whole[-30000:], "exit": 0, "truncated": True, "outputPath": shown}))  # fmt: skip
    assert ident("prt", T0 + 20000, "a-a2-list") == LARGE_TOOL
    w.part(a, a2, T0 + 22000, "a-a2-task", tool("call_k1", "task", "completed", T0 + 22000,
           input={"description": "Find throttle helpers", "prompt": "Look for throttles in src/.",
                  "subagent_type": "general"},
           output="No throttle helper exists; beacon.ts stores directly.",
           title="Find throttle helpers", metadata={"sessionId": SESSION_C}))  # fmt: skip
    w.part(a, a2, T0 + 24000, "a-a2-text", {"type": "text",
           "text": "Added a per-device throttle (5/s); the beacon tests pass now. tallowdone",
           "time": {"start": T0 + 23000, "end": T0 + 24000}})  # fmt: skip
    step(w, a, a2, T0 + 24999, "a-a2-finish", finish=True)
    # The second turn is still running.
    u2 = w.message(a, T0 + 55000, "a-u2", user())
    w.part(
        a, u2, T0 + 55001, "a-u2-text", {"type": "text", "text": "Also log every rejected beacon."}
    )
    a4 = w.message(a, T0 + 60000, "a-a4", assistant(CWD_A, u2, None, None))
    assert a4 == RUNNING_MESSAGE
    step(w, a, a4, T0 + 60001, "a-a4-step")
    w.part(a, a4, T0 + 61000, "a-a4-reasoning", {"type": "reasoning", "text": "Log the device and",
           "time": {"start": T0 + 61000}})  # fmt: skip
    w.part(a, a4, T0 + 62000, "a-a4-bash", tool("call_b4", "bash", "running", T0 + 62000,
           input={"command": "grep -rn reject src", "description": "Find rejections"},
           title="grep -rn reject src"))  # fmt: skip
    w.part(a, a4, T0 + 63000, "a-a4-glob", tool("call_g4", "glob", "pending", T0 + 63000,
           input={}, raw='{"pattern":"src/**/log'))  # fmt: skip
    w.part(a, a4, T0 + 64000, "a-a4-text", {"type": "text", "text": "Adding a log line for",
           "time": {"start": T0 + 64000}})  # fmt: skip


def session_b(w: Writer) -> None:
    b = SESSION_B
    w.session(b, directory=CWD_B, title="灯台のアニメーション", time_created=T1,
              time_updated=T1 + 900000)  # fmt: skip
    u1 = w.message(b, T1 + 5, "b-u1", user())
    w.part(
        b,
        u1,
        T1 + 6,
        "b-u1-text",
        {"type": "text", "text": "灯台的光束动画太快了，请放慢到四秒一圈。"},
    )
    a1 = w.message(b, T1 + 1000, "b-a1", assistant(CWD_B, u1, T1 + 50000, (800, 70, 0, 0, 0)))
    w.part(b, a1, T1 + 2000, "b-a1-reasoning", {"type": "reasoning",
           "text": "先找到 keyframes，再把 duration 改成 4s。",
           "time": {"start": T1 + 1500, "end": T1 + 2000}})  # fmt: skip
    w.part(b, a1, T1 + 3000, "b-a1-write", tool("call_w1", "write", "completed", T1 + 3000,
           input={"filePath": f"{CWD_B}/src/beam.css", "content": ".beam { animation: spin 4s linear infinite; }\n"},
           output="Wrote file successfully.", title="src/beam.css",
           metadata={"filepath": f"{CWD_B}/src/beam.css", "exists": True, "truncated": False}))  # fmt: skip
    w.part(b, a1, T1 + 49000, "b-a1-text", {"type": "text",
           "text": "光束现在四秒转一圈。アニメーションを緩やかにしました。",
           "time": {"start": T1 + 48000, "end": T1 + 49000}})  # fmt: skip
    # A compaction: the user message that asks for it, then the summary the model continues from.
    c1 = w.message(b, T1 + 600000, "b-c1", user())
    w.part(b, c1, T1 + 600001, "b-c1-compaction", {"type": "compaction", "auto": True})
    s1 = w.message(b, T1 + 601000, "b-s1", {**assistant(CWD_B, c1, T1 + 610000, (5000, 400, 0, 0, 0)),
                   "summary": True, "mode": "compaction", "agent": "compaction"})  # fmt: skip
    w.part(b, s1, T1 + 609000, "b-s1-text", {"type": "text",
           "text": "[要約] 光束は四秒で一周。残り：灯台の色を夜間モードで変える。",
           "time": {"start": T1 + 602000, "end": T1 + 609000}})  # fmt: skip
    u2 = w.message(b, T1 + 700000, "b-u2", user())
    w.part(b, u2, T1 + 700001, "b-u2-text", {"type": "text", "text": "夜間モードの色も変えて。"})
    failed = assistant(CWD_B, u2, None, None)
    failed["error"] = {"name": "APIError", "data": {"message": "Quota exceeded (kelpstall)",
                       "statusCode": 429, "isRetryable": True}}  # fmt: skip
    a2 = w.message(b, T1 + 701000, "b-a2", failed)
    w.part(b, a2, T1 + 705000, "b-a2-text", {"type": "text", "text": "夜間モードの配色を",
           "time": {"start": T1 + 704000}})  # fmt: skip


def session_c(w: Writer) -> None:
    c = SESSION_C
    w.session(c, directory=CWD_A, title="Find throttle helpers (@general subagent)",
              parent_id=SESSION_A, time_created=T0 + 22100, time_updated=T0 + 23900)  # fmt: skip
    u1 = w.message(c, T0 + 22110, "c-u1", user(agent="general"))
    w.part(c, u1, T0 + 22111, "c-u1-text", {"type": "text", "text": "Look for throttles in src/."})
    a1 = w.message(c, T0 + 22200, "c-a1", assistant(CWD_A, u1, T0 + 23900, (400, 30, 0, 0, 0)))
    w.part(c, a1, T0 + 22300, "c-a1-grep", tool("call_g1", "grep", "completed", T0 + 22300,
           input={"pattern": "throttle", "path": "src"}, output="No files found", title="throttle"))  # fmt: skip
    w.part(c, a1, T0 + 23800, "c-a1-text", {"type": "text",
           "text": "No throttle helper exists; beacon.ts stores directly. (sprucefind)",
           "time": {"start": T0 + 23700, "end": T0 + 23800}})  # fmt: skip


def session_d(w: Writer) -> None:
    d = SESSION_D
    w.session(d, directory=CWD_A, title="New session - 2026-12-05T20:53:20.000Z",
              time_created=T2, time_updated=T2 + 10)  # fmt: skip
    u1 = w.message(d, T2 + 5, "d-u1", user())
    w.part(d, u1, T2 + 6, "d-u1-text", {"type": "text", "text": "Why does the beacon queue grow?"})


def session_e(w: Writer) -> None:
    e = SESSION_E
    forked = T2 + 50000
    w.session(e, directory=CWD_A, title="Throttle the beacon endpoint (fork #1)",
              time_created=forked, time_updated=forked + 9000)  # fmt: skip
    # The copy keeps the time of the message it copies, from before the fork was made.
    u1 = w.message(e, T0 + 10, "e-u1", user())
    w.part(e, u1, forked + 1, "e-u1-text", {"type": "text",
           "text": '"Throttle POST /beacon to 5 per second per \\"device\\" (glimmerword)."'})  # fmt: skip
    u2 = w.message(e, forked + 1000, "e-u2", user())
    w.part(e, u2, forked + 1001, "e-u2-text", {"type": "text", "text": "Throttle per IP instead."})


def build(root: Path) -> Path:
    """Writes `<root>/.local/share/opencode/opencode.db` (and its tool output) anew and returns
    the database's path."""
    data_dir = root / ".local" / "share" / "opencode"
    path = data_dir / "opencode.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    connection = sqlite3.connect(path)
    try:
        connection.executescript(SCHEMA)
        connection.execute(
            "INSERT INTO project VALUES (?, ?, 'git', NULL, NULL, NULL, NULL, ?, ?, NULL, '[]', NULL)",
            (PROJECT, CWD_A, T0, T0),
        )
        writer = Writer(connection)
        session_a(writer, data_dir)
        for fill in (session_b, session_c, session_d, session_e):
            fill(writer)
        # What a real database keeps beside the chats: never read.
        connection.execute(
            "INSERT INTO account VALUES ('acc_1', 'dev@example.invalid', 'https://example.invalid',"
            " 'FAKE-opencode-access-DO-NOT-INGEST', 'FAKE-opencode-refresh-DO-NOT-INGEST', NULL, ?, ?)",
            (T0, T0),
        )
        connection.execute(
            "INSERT INTO credential VALUES ('cred_1', NULL, 'lumen', 'FAKE-opencode-key-DO-NOT-INGEST',"
            " NULL, NULL, 1, ?, ?)",
            (T0, T0),
        )
        connection.execute(
            "INSERT INTO session_share VALUES (?, 'shr_1', 'FAKE-opencode-share-DO-NOT-INGEST',"
            " 'https://example.invalid/s/1', ?, ?)",
            (SESSION_A, T0, T0),
        )
        connection.commit()
    finally:
        connection.close()
    return path


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()))
