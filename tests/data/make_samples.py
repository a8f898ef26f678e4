"""Writes the project's own sample agent logs (claude-code/, codex/) next to this file.

Run `python tests/data/make_samples.py` after changing it; the output is committed. The logs
follow each agent's on-disk format; the sessions, ids and phrases are the ones the tests ask
about (a token-bucket limiter in demo-app, a notes exporter in CJK, a CI build fix, a Japanese
UI), the rest is filler written for these samples. Deterministic: the same bytes every run.
"""

from __future__ import annotations

import json
from pathlib import Path

import zstandard

HERE = Path(__file__).resolve().parent


def dump(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def write(rel: str, lines: list[dict], *, cut: str | None = None) -> None:
    """One JSONL file; `cut` is a half-written last record (no newline), as a live agent leaves it."""
    path = HERE / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(dump(line) + "\n" for line in lines) + (cut or "")
    path.write_bytes(text.encode())


# --- claude-code ---------------------------------------------------------------------------------

A = "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10"
B = "c41d2e8f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
C = "0b9e8d7c-6f5a-4e3d-9c2b-1a0f9e8d7c6b"
OLD = "9d8c7b6a-5f4e-4d3c-8b2a-1908171615aa"
SUB = "a3f9c2e1b7d40568"
DEMO = "/home/dev/demo-app"
NOTES = "/home/dev/文档/notes-app"


def uid(prefix: str, n: int) -> str:
    return f"{prefix}{n:07x}-0000-4000-8000-{n:012x}"


class Claude:
    """Lines of one Claude Code transcript, chained by parentUuid."""

    def __init__(self, session: str, prefix: str, cwd: str, version: str, branch: str, **extra):
        self.session, self.prefix, self.cwd = session, prefix, cwd
        self.version, self.branch, self.extra = version, branch, extra
        self.lines: list[dict] = []
        self.parent: str | None = None

    def raw(self, obj: dict) -> None:
        self.lines.append(obj)

    def entry(self, n: int, time: str, kind: str, parent: object = "chain", **fields) -> str:
        uuid = uid(self.prefix, n)
        self.lines.append({
            "parentUuid": self.parent if parent == "chain" else parent, "isSidechain": bool(self.extra),
            "userType": "external", "cwd": self.cwd, "sessionId": self.session, "version": self.version,
            "gitBranch": self.branch, "type": kind, **fields, **self.extra, "uuid": uuid, "timestamp": time,
        })  # fmt: skip
        self.parent = uuid
        return uuid

    def user(self, n: int, time: str, content: object, **fields) -> str:
        return self.entry(n, time, "user", message={"role": "user", "content": content}, **fields)

    def assistant(
        self, n: int, time: str, block: dict, msg: str, model: str = "claude-opus-4-5"
    ) -> str:
        message = {"id": msg, "type": "message", "role": "assistant", "model": model, "content": [block],
                   "stop_reason": None, "usage": {"input_tokens": 12, "output_tokens": 80}}  # fmt: skip
        return self.entry(n, time, "assistant", message=message, requestId="req_" + msg[4:])

    def text(self, n: int, time: str, text: str, msg: str, **kw) -> str:
        return self.assistant(n, time, {"type": "text", "text": text}, msg, **kw)

    def think(self, n: int, time: str, text: str, msg: str) -> str:
        return self.assistant(
            n, time, {"type": "thinking", "thinking": text, "signature": "c2lnbmF0dXJl"}, msg
        )

    def tool(self, n: int, time: str, tool_id: str, name: str, args: dict, msg: str, **kw) -> str:
        block = {"type": "tool_use", "id": tool_id, "name": name, "input": args}
        return self.assistant(n, time, block, msg, **kw)

    def result(
        self, n: int, time: str, tool_id: str, content: object, error: bool = False, **fields
    ) -> str:
        block = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
        if error:
            block["is_error"] = True
        return self.user(n, time, [block], **fields)


def claude_session_a() -> None:
    s = Claude(A, "a", DEMO, "2.1.241", "feat/rate-limit")
    s.raw(
        {
            "type": "summary",
            "summary": "Earlier work: express skeleton",
            "leafUuid": "9d8c7b6a-5f4e-4d3c-8b2a-000000000099",
        }
    )
    s.raw({"type": "permission-mode", "permissionMode": "default", "sessionId": A})
    s.raw(
        {
            "type": "file-history-snapshot",
            "messageId": uid("a", 1),
            "isSnapshotUpdate": False,
            "snapshot": {
                "messageId": uid("a", 1),
                "trackedFileBackups": {},
                "timestamp": "2026-10-20T09:14:03.120Z",
            },
        }
    )
    s.user(1, "2026-10-20T09:14:03.118Z", "Add a token-bucket rate limiter to src/server.ts (10 req/s, burst 20) "
           "and cover it with a vitest test.")  # fmt: skip
    s.think(2, "2026-10-20T09:14:07.402Z", "The user wants requests throttled per client; look at the middleware "
            "order before writing anything.", "msg_01SampleLimiterA")  # fmt: skip
    s.text(
        3,
        "2026-10-20T09:14:08.015Z",
        "I'll check where middleware is mounted.",
        "msg_01SampleLimiterA",
    )
    s.tool(
        4,
        "2026-10-20T09:14:08.600Z",
        "toolu_01SampleGrep",
        "Bash",
        {"command": "grep -n 'app.use' src/server.ts", "description": "List mounted middleware"},
        "msg_01SampleLimiterA",
    )
    s.result(5, "2026-10-20T09:14:09.100Z", "toolu_01SampleGrep", "src/server.ts:9:app.use(requestLog())\n"
             "src/server.ts:10:app.use(bodyJson())")  # fmt: skip
    s.tool(6, "2026-10-20T09:14:12.900Z", "toolu_01SampleTask", "Task",
           {"description": "Map the middleware folder", "prompt": "List every middleware under src/mw/ with its signature.",
            "subagent_type": "general-purpose"}, "msg_01SampleLimiterB")  # fmt: skip
    listing = "src/mw/requestLog.ts: requestLog() -> Handler\nsrc/mw/bodyJson.ts: bodyJson(max?) -> Handler"
    s.result(7, "2026-10-20T09:14:40.000Z", "toolu_01SampleTask", [{"type": "text", "text": listing}],
             toolUseResult={"status": "completed", "agentId": SUB, "content": [{"type": "text", "text": listing}],
                            "totalDurationMs": 27000})  # fmt: skip
    s.tool(8, "2026-10-20T09:14:50.000Z", "toolu_01SampleWrite", "Write",
           {"file_path": f"{DEMO}/src/mw/rateLimit.ts", "content": "export function rateLimit() { /* bucket */ }\n"},
           "msg_01SampleLimiterC")  # fmt: skip
    s.result(
        9,
        "2026-10-20T09:14:50.400Z",
        "toolu_01SampleWrite",
        f"File created successfully at: {DEMO}/src/mw/rateLimit.ts",
    )
    s.raw(
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "timestamp": "2026-10-20T09:14:55.000Z",
            "sessionId": A,
            "content": "note the limiter in the README as well",
        }
    )
    s.tool(
        10,
        "2026-10-20T09:15:01.000Z",
        "toolu_01SampleVitest",
        "Bash",
        {"command": "npx vitest run", "description": "Run the vitest suite"},
        "msg_01SampleLimiterD",
    )
    s.result(11, "2026-10-20T09:15:09.000Z", "toolu_01SampleVitest",
             "Output too large (61.0KB). Full output saved to: /home/dev/.claude/projects/-home-dev-demo-app/"
             f"{A}/tool-results/toolu_01SampleVitest.txt\n\nPreview:\n vitest v3.2.4\n ✓ test/rateLimit.test.ts (4 tests)",
             toolUseResult={"stdout": " vitest v3.2.4 ... (sample stops here)", "stderr": "", "interrupted": False})  # fmt: skip
    s.raw(
        {
            "type": "queue-operation",
            "operation": "dequeue",
            "timestamp": "2026-10-20T09:15:10.000Z",
            "sessionId": A,
        }
    )
    s.user(12, "2026-10-20T09:15:10.100Z", "note the limiter in the README as well")
    s.text(13, "2026-10-20T09:15:25.000Z", "Done: `src/mw/rateLimit.ts` is a token bucket (10 req/s, burst 20) "
           "mounted before the routes, with four vitest cases, and the README has a Rate limits section.",
           "msg_01SampleLimiterE")  # fmt: skip
    s.entry(14, "2026-10-20T09:15:27.000Z", "system", subtype="stop_hook_summary", hookCount=1,
            hookInfos=[{"command": "~/.claude/hooks/ping.sh"}], hookErrors=[], preventedContinuation=False,
            stopReason="", hasOutput=False, level="suggestion")  # fmt: skip
    s.raw({"type": "ai-title", "aiTitle": "Token-bucket limiter for the server", "sessionId": A})
    s.user(15, "2026-10-20T09:31:44.000Z", [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                     "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="}},
        {"type": "text", "text": "The limiter test hangs on CI, see the screenshot."}])  # fmt: skip
    s.text(
        16,
        "2026-10-20T09:31:58.000Z",
        "It sleeps on the real clock; switch it to vi.useFakeTimers().",
        "msg_01SampleLimiterF",
    )
    s.entry(17, "2026-10-20T09:40:10.555Z", "system", parent=None, logicalParentUuid=uid("a", 16),
            subtype="compact_boundary", content="Conversation compacted", isMeta=False, level="info",
            compactMetadata={"trigger": "manual", "preTokens": 39000})  # fmt: skip
    s.user(18, "2026-10-20T09:40:10.560Z", "This session is being continued from a previous conversation that ran out "
           "of context. Summary: a token bucket limiter was added and tested; the CI hang came from real timers.",
           isCompactSummary=True, isVisibleInTranscriptOnly=True)  # fmt: skip
    s.user(19, "2026-10-20T09:40:10.570Z", "<command-name>/compact</command-name>\n<command-message>compact</command-message>\n"
           "<command-args></command-args>")  # fmt: skip
    s.user(20, "2026-10-20T09:40:10.580Z", "<local-command-stdout>Compacted</local-command-stdout>")
    s.user(21, "2026-10-20T09:41:00.000Z", "Rename the option `burst` to `capacity`.")
    s.tool(22, "2026-10-20T09:41:05.000Z", "toolu_01SampleEdit", "Edit",
           {"file_path": f"{DEMO}/src/mw/rateLimit.ts", "old_string": "burst = 20", "new_string": "capacity = 20"},
           "msg_01SampleLimiterG")  # fmt: skip
    s.result(23, "2026-10-20T09:41:06.000Z", "toolu_01SampleEdit",
             "<tool_use_error>String to replace not found in file.\nString: burst = 20</tool_use_error>", error=True,
             toolUseResult="Error: String to replace not found in file.")  # fmt: skip
    s.text(
        24,
        "2026-10-20T09:41:30.000Z",
        "The option is now `capacity` everywhere it was used.",
        "msg_01SampleLimiterH",
    )
    s.raw({"type": "custom-title", "customTitle": "rate-limiter", "sessionId": A})
    s.raw(
        {
            "type": "last-prompt",
            "lastPrompt": "Rename the option `burst` to `capacity`.",
            "sessionId": A,
        }
    )
    write(f"claude-code/projects/-home-dev-demo-app/{A}.jsonl", s.lines)

    sub = Claude(A, "b", DEMO, "2.1.241", "feat/rate-limit", agentId=SUB)
    sub.parent = None
    sub.user(
        1, "2026-10-20T09:14:13.000Z", "List every middleware under src/mw/ with its signature."
    )
    sub.tool(2, "2026-10-20T09:14:15.000Z", "toolu_01SampleGlob", "Glob", {"pattern": "src/mw/*.ts"},
             "msg_01SampleSub", model="claude-haiku-4-5")  # fmt: skip
    sub.result(
        3,
        "2026-10-20T09:14:15.300Z",
        "toolu_01SampleGlob",
        f"{DEMO}/src/mw/requestLog.ts\n{DEMO}/src/mw/bodyJson.ts",
    )
    sub.text(4, "2026-10-20T09:14:39.000Z", listing, "msg_01SampleSub2", model="claude-haiku-4-5")
    folder = f"claude-code/projects/-home-dev-demo-app/{A}/subagents"
    write(f"{folder}/agent-{SUB}.jsonl", sub.lines)
    meta = {"agentType": "general-purpose", "description": "Map the middleware folder",
            "toolUseId": "toolu_01SampleTask", "spawnDepth": 1}  # fmt: skip
    (HERE / folder / f"agent-{SUB}.meta.json").write_text(json.dumps(meta, indent=2) + "\n")

    old = Claude(OLD, "c", DEMO, "1.0.98", "main", agentId="5e1d7c90")
    old.parent = None
    old.user(1, "2026-08-02T14:00:01.000Z", "Check whether /health answers with JSON.")
    old.text(2, "2026-08-02T14:00:09.000Z", "It does: `{\"ok\":true}` with content-type application/json.",
             "msg_01SampleOld", model="claude-sonnet-4")  # fmt: skip
    old.user(3, "2026-08-02T14:01:00.000Z", "And the status code?")
    old.text(
        4,
        "2026-08-02T14:01:04.000Z",
        "200, with no caching headers.",
        "msg_01SampleOld2",
        model="claude-sonnet-4",
    )
    write("claude-code/projects/-home-dev-demo-app/agent-5e1d7c90.jsonl", old.lines)


def claude_session_b() -> None:
    s = Claude(B, "d", NOTES, "2.1.230", "main")
    s.raw({"type": "mode", "mode": "default", "sessionId": B})
    s.raw({"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": B})
    s.user(
        1, "2026-10-21T02:05:11.500Z", "帮我把笔记导出功能改成输出 Markdown，文件名就用笔记的标题。"
    )
    s.think(
        2,
        "2026-10-21T02:05:15.000Z",
        "先找到导出函数，再处理标题里不能做文件名的字符。",
        "msg_01SampleNotesA",
    )
    s.tool(3, "2026-10-21T02:05:16.000Z", "toolu_01SampleNotesGrep", "Grep", {"pattern": "exportNote", "path": "src"},
           "msg_01SampleNotesA")  # fmt: skip
    s.result(
        4, "2026-10-21T02:05:16.300Z", "toolu_01SampleNotesGrep", "Found 1 file\nsrc/export.ts"
    )
    s.text(
        5,
        "2026-10-21T02:05:40.000Z",
        "好了：笔记现在导出为 .md，文件名取自标题，非法字符会被替换。",
        "msg_01SampleNotesB",
    )
    s.raw({"type": "ai-title", "aiTitle": "笔记导出为 Markdown", "sessionId": B})
    # Resumed the next day in the same file, on a newer version and another branch.
    s.version, s.branch = "2.1.241", "fix/导出-文件名"
    s.raw({"type": "mode", "mode": "default", "sessionId": B})
    s.raw({"type": "ai-title", "aiTitle": "笔记导出为 Markdown", "sessionId": B})
    s.user(6, "2026-10-22T01:00:00.000Z", "続けて：タイトルに日本語が入るときのテストも書いて。")
    s.tool(7, "2026-10-22T01:00:10.000Z", "toolu_01SampleNotesTest", "Bash", {"command": "npm test -- export"},
           "msg_01SampleNotesC")  # fmt: skip
    s.result(
        8,
        "2026-10-22T01:00:20.000Z",
        "toolu_01SampleNotesTest",
        "PASS test/export.test.ts\n  ✓ 标题作为文件名\n  ✓ 日本語のタイトル",
    )
    s.entry(9, "2026-10-22T01:00:21.000Z", "system", subtype="api_error", level="error",
            content="API Error (529 overloaded) · retrying")  # fmt: skip
    s.text(
        10,
        "2026-10-22T01:00:30.000Z",
        "テストを追加しました。笔记标题里的「/」会换成「-」。",
        "msg_01SampleNotesD",
    )
    s.raw({"type": "ai-title", "aiTitle": "笔记导出：Markdown 与日文文件名测试", "sessionId": B})
    write(f"claude-code/projects/-home-dev----notes-app/{B}.jsonl", s.lines)


def claude_session_c() -> None:
    s = Claude(C, "e", DEMO, "2.1.241", "main")
    s.raw({"type": "permission-mode", "permissionMode": "plan", "sessionId": C})
    s.user(
        1,
        "2026-10-22T09:00:00.000Z",
        "Plan a migration of the config loader to TOML; read only, no edits yet.",
    )
    s.think(
        2,
        "2026-10-22T09:00:04.000Z",
        "Plan mode, so only reading: find the loader and who calls it.",
        "msg_01SamplePlanA",
    )
    s.tool(3, "2026-10-22T09:00:05.000Z", "toolu_01SamplePlanRead", "Read", {"file_path": f"{DEMO}/src/config.ts"},
           "msg_01SamplePlanA")  # fmt: skip
    s.result(
        4,
        "2026-10-22T09:00:05.200Z",
        "toolu_01SamplePlanRead",
        "     1\texport const load = () => JSON.parse(raw)",
    )
    s.text(
        5,
        "2026-10-22T09:00:20.000Z",
        "Plan: add a TOML reader, keep JSON as a fallback for a release.",
        "msg_01SamplePlanB",
    )
    s.user(6, "2026-10-22T09:01:00.000Z", "Keep the JSON fallback for exactly one release.")
    cut = dump(
        {
            "parentUuid": uid("e", 6),
            "isSidechain": False,
            "cwd": DEMO,
            "sessionId": C,
            "type": "assistant",
        }
    )[:70]
    write(f"claude-code/projects/-home-dev-demo-app/{C}.jsonl", s.lines, cut=cut)


D = "5d2e8a41-7c3b-4f60-9e1d-3a4b5c6d7e8f"
#: Claude Code writes an output longer than this to tool-results/ (about 100 KB here).
OUTPUT_LINES = 1100


def long_output() -> str:
    """A verbose test run of about 100 KB whose last lines name the one failure."""
    lines = [" RUN  v3.2.4 /home/dev/demo-app", ""]
    for n in range(1, OUTPUT_LINES + 1):
        lines.append(
            f" ✓ test/limiter/bucket_{n:04d}.test.ts > refills token bucket case {n} within budget (3ms)"
        )
    lines += [
        "",
        " ❯ test/limiter/burst.test.ts > burst of 21 requests is refused by the quokkaguard middleware",
        "   AssertionError: expected 429, got 200",
        "",
        f" Test Files  1 failed | {OUTPUT_LINES} passed ({OUTPUT_LINES + 1})",
        "   Duration  4.82s",
    ]  # fmt: skip
    return "\n".join(lines) + "\n"


def claude_session_d() -> None:
    """`claude -p` as Claude Code 2.1.197 writes it: the prompt enqueued, skills and agents
    attached, a Bash output kept out of line in tool-results/, a failed command."""
    s = Claude(D, "f", DEMO, "2.1.197", "main")
    prompt = "Run the limiter tests verbosely and tell me what fails."
    s.raw({"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-10-23T08:00:00.100Z",
           "sessionId": D, "content": prompt})  # fmt: skip
    s.raw({"type": "queue-operation", "operation": "dequeue", "timestamp": "2026-10-23T08:00:00.105Z",
           "sessionId": D})  # fmt: skip
    s.user(1, "2026-10-23T08:00:00.400Z", prompt, promptId="9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
           permissionMode="default", promptSource="sdk", entrypoint="sdk-cli")  # fmt: skip
    s.entry(2, "2026-10-23T08:00:00.398Z", "attachment", attachment={
        "type": "agent_listing_delta", "addedTypes": ["Explore", "general-purpose"],
        "addedLines": ["- Explore: Fast read-only search agent for locating code. (Tools: Glob, Grep, Read)",
                       "- general-purpose: General-purpose agent for researching complex questions. (Tools: *)"],
        "removedTypes": [], "isInitial": True, "showConcurrencyNote": True,
    }, entrypoint="sdk-cli")  # fmt: skip
    s.entry(3, "2026-10-23T08:00:00.398Z", "attachment", attachment={
        "type": "skill_listing",
        "content": "- verify: Run the project's checks before saying a change is done.\n- code-review: Review the current diff for bugs.",
        "isInitial": True, "names": ["verify", "code-review"],
    }, entrypoint="sdk-cli")  # fmt: skip
    s.tool(4, "2026-10-23T08:00:01.200Z", "toolu_01SampleVerboseRun", "Bash",
           {"command": "npx vitest --run --reporter=verbose test/limiter", "description": "Run the limiter tests"},
           "msg_01SampleVerboseA", model="claude-sonnet-4-5")  # fmt: skip
    text = long_output()
    path = f"/home/dev/.claude/projects/-home-dev-demo-app/{D}/tool-results/b7q2k9x4m.txt"
    size = len(text.encode())
    preview = text.encode()[:2048].decode("utf-8", "ignore")
    preview = preview[: preview.rfind("\n") + 1]
    persisted = (f"<persisted-output>\nOutput too large ({size / 1024:.1f}KB). Full output saved to: {path}\n\n"
                 f"Preview (first 2KB):\n{preview}...\n</persisted-output>")  # fmt: skip
    s.result(5, "2026-10-23T08:00:06.300Z", "toolu_01SampleVerboseRun", persisted,
             toolUseResult={"stdout": text[:30000], "stderr": "", "interrupted": False, "isImage": False,
                            "noOutputExpected": False, "persistedOutputPath": path, "persistedOutputSize": size},
             sourceToolAssistantUUID=uid("f", 4), entrypoint="sdk-cli")  # fmt: skip
    s.tool(6, "2026-10-23T08:00:07.000Z", "toolu_01SampleFailingGrep", "Bash",
           {"command": "grep -rn quokkaguard src/ ; exit 3", "description": "Find the middleware"},
           "msg_01SampleVerboseB", model="claude-sonnet-4-5")  # fmt: skip
    s.raw({"type": "last-prompt", "lastPrompt": prompt, "leafUuid": uid("f", 6), "sessionId": D})
    s.result(7, "2026-10-23T08:00:07.300Z", "toolu_01SampleFailingGrep", "Exit code 3\nsrc/mw/quokkaguard.ts:4:export const quokkaguard = limit(20)",
             error=True, toolUseResult="Error: Exit code 3\nsrc/mw/quokkaguard.ts:4:export const quokkaguard = limit(20)",
             sourceToolAssistantUUID=uid("f", 6), entrypoint="sdk-cli")  # fmt: skip
    s.text(8, "2026-10-23T08:00:09.000Z", "The burst test fails: quokkaguard lets a 21st request through.",
           "msg_01SampleVerboseC", model="claude-sonnet-4-5")  # fmt: skip
    write(f"claude-code/projects/-home-dev-demo-app/{D}.jsonl", s.lines)
    side = HERE / f"claude-code/projects/-home-dev-demo-app/{D}/tool-results/b7q2k9x4m.txt"
    side.parent.mkdir(parents=True, exist_ok=True)
    side.write_bytes(text.encode())


# --- codex ---------------------------------------------------------------------------------------

CI = "019a0b1c-2d3e-7f40-8a51-6b7c8d9e0f12"
WEB = "019a0f2e-5b6c-7d81-9e02-a3b4c5d6e7f8"
CSUB = "019a0f31-0a0b-7c0d-8e0f-101112131415"
COLD = "0199f8a0-1111-7222-8333-444455556666"
WEBDIR = "/home/dev/プロジェクト/web_ui"


def item(time: str, kind: str, payload: dict) -> dict:
    return {"timestamp": time, "type": kind, "payload": payload}


def msg(time: str, role: str, text: str) -> dict:
    kind = "output_text" if role == "assistant" else "input_text"
    return item(
        time,
        "response_item",
        {"type": "message", "role": role, "content": [{"type": kind, "text": text}]},
    )


def event(time: str, kind: str, **fields) -> dict:
    return item(time, "event_msg", {"type": kind, **fields})


def meta(time: str, sid: str, cwd: str, version: str = "0.131.0", **fields) -> dict:
    return item(
        time,
        "session_meta",
        {
            "id": sid,
            "timestamp": time,
            "cwd": cwd,
            "originator": "codex_cli_rs",
            "cli_version": version,
            "source": "cli",
            "model_provider": "openai",
            **fields,
        },
    )


def turn(
    time: str,
    turn_id: str,
    cwd: str,
    model: str,
    effort: str,
    approval: str,
    sandbox: str,
    date: str,
    tz: str,
) -> dict:
    return item(time, "turn_context", {"turn_id": turn_id, "cwd": cwd, "current_date": date, "timezone": tz,
                                       "approval_policy": approval, "sandbox_policy": {"type": sandbox},
                                       "model": model, "effort": effort, "summary": "auto"})  # fmt: skip


def call(time: str, name: str, args: dict, call_id: str) -> dict:
    return item(time, "response_item", {"type": "function_call", "name": name, "arguments": json.dumps(args),
                                         "call_id": call_id})  # fmt: skip


def output(time: str, call_id: str, out: object, kind: str = "function_call_output") -> dict:
    return item(time, "response_item", {"type": kind, "call_id": call_id, "output": out})


def codex_ci() -> None:
    t1, t2 = "019a0b1c-3000-7a00-8000-00000000a001", "019a0b1d-4000-7a00-8000-00000000a002"
    patch = '*** Begin Patch\n*** Add File: tsconfig.build.json\n+{ "extends": "./tsconfig.json", "include": ["src"] }\n*** End Patch'
    answer = "The CI build also compiles test/, whose types are missing there; tsconfig.build.json now limits the build to src."
    lines = [
        meta("2026-10-20T09:14:03.310Z", CI, DEMO, git={"branch": "main", "commit_hash": "4b1c0de"},
             base_instructions={"text": "You are Codex (sample instructions, shortened)."}),
        msg("2026-10-20T09:14:03.312Z", "developer", "<permissions instructions>\nSandbox: workspace-write; approvals on request.\n</permissions instructions>"),
        msg("2026-10-20T09:14:03.312Z", "user", f"# AGENTS.md instructions for {DEMO}\n\n<INSTRUCTIONS>\nUse npm.\n</INSTRUCTIONS>"),
        msg("2026-10-20T09:14:03.313Z", "user", f"<environment_context>\n  <cwd>{DEMO}</cwd>\n</environment_context>"),
        turn("2026-10-20T09:14:03.313Z", t1, DEMO, "gpt-5.5", "high", "on-request", "workspace-write", "2026-10-20", "Asia/Shanghai"),
        event("2026-10-20T09:14:03.314Z", "task_started", turn_id=t1, model_context_window=258400),
        msg("2026-10-20T09:14:03.315Z", "user", "Why does `npm run build` fail on CI when it passes on my laptop?"),
        event("2026-10-20T09:14:03.315Z", "user_message", message="Why does `npm run build` fail on CI when it passes on my laptop?", images=[]),
        event("2026-10-20T09:14:03.900Z", "token_count", info={"total_token_usage": {"total_tokens": 9000}}),
        item("2026-10-20T09:14:07.110Z", "response_item", {"type": "reasoning", "summary": [
            {"type": "summary_text", "text": "**Reading the build config**\n\nLooking at package.json and tsconfig."}],
            "content": None, "encrypted_content": "gAAAAA-sample-FAKEencrypted"}),
        event("2026-10-20T09:14:07.111Z", "agent_reasoning", text="**Reading the build config**"),
        call("2026-10-20T09:14:07.402Z", "exec_command", {"cmd": "cat package.json tsconfig.json", "workdir": DEMO}, "call_SampleCat"),
        event("2026-10-20T09:14:07.520Z", "exec_command_end", call_id="call_SampleCat", exit_code=0),
        output("2026-10-20T09:14:07.521Z", "call_SampleCat", "Chunk ID: 7c1d2e\nProcess exited with code 0\nOutput:\n"
               "{ \"scripts\": { \"build\": \"tsc\" } }\n{ \"include\": [\"src\", \"test\"] }"),
        event("2026-10-20T09:14:07.600Z", "token_count", info={"total_token_usage": {"total_tokens": 9700}}),
        item("2026-10-20T09:14:12.004Z", "response_item", {"type": "reasoning", "summary": [], "content": None,
                                                           "encrypted_content": "gAAAAA-sample-FAKEencrypted"}),
        item("2026-10-20T09:14:12.880Z", "response_item", {"type": "custom_tool_call", "status": "completed",
                                                           "call_id": "call_SamplePatch", "name": "apply_patch", "input": patch}),
        event("2026-10-20T09:14:12.990Z", "patch_apply_end", call_id="call_SamplePatch", success=True,
              stdout="Success. Updated the following files:\nA tsconfig.build.json\n"),
        output("2026-10-20T09:14:12.991Z", "call_SamplePatch",
               json.dumps({"output": "Success. Updated the following files:\nA tsconfig.build.json\n", "metadata": {"exit_code": 0}}),
               kind="custom_tool_call_output"),
        msg("2026-10-20T09:14:16.300Z", "assistant", answer),
        event("2026-10-20T09:14:16.301Z", "agent_message", message=answer, phase="final_answer"),
        event("2026-10-20T09:14:16.380Z", "token_count", info={"total_token_usage": {"total_tokens": 10800}}),
        event("2026-10-20T09:14:16.381Z", "task_complete", turn_id=t1, last_agent_message=answer[:40]),
        event("2026-10-20T09:14:18.020Z", "thread_name_updated", thread_id=CI, thread_name="CI build fix"),
        turn("2026-10-20T09:20:40.001Z", t2, DEMO, "gpt-5.5", "high", "on-request", "workspace-write", "2026-10-20", "Asia/Shanghai"),
        event("2026-10-20T09:20:40.002Z", "task_started", turn_id=t2, model_context_window=258400),
        msg("2026-10-20T09:20:40.003Z", "user", "Now run the test suite."),
        event("2026-10-20T09:20:40.003Z", "user_message", message="Now run the test suite.", images=[]),
        call("2026-10-20T09:20:43.500Z", "shell", {"command": ["bash", "-lc", "npm test"], "workdir": DEMO}, "call_SampleTest"),
        output("2026-10-20T09:20:51.010Z", "call_SampleTest",
               json.dumps({"output": "FAIL test/rateLimit.test.ts > refills slowly\nexpected 429, got 200\n",
                           "metadata": {"exit_code": 1, "duration_seconds": 7.1}})),
        msg("2026-10-20T09:20:55.420Z", "assistant", "The build passes; one limiter test is timing-sensitive and fails."),
        event("2026-10-20T09:20:55.421Z", "agent_message", message="The build passes; one limiter test is timing-sensitive and fails."),
        event("2026-10-20T09:20:55.500Z", "task_complete", turn_id=t2),
        item("2026-10-20T09:31:02.000Z", "compacted", {
            "message": "Summary of the conversation so far: the build is fixed with tsconfig.build.json; a timing test still fails.",
            "replacement_history": [{"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "earlier turns, one flaky test remains."}]}]}),
        event("2026-10-20T09:31:02.001Z", "context_compacted"),
    ]  # fmt: skip
    write(f"codex/sessions/2026/10/20/rollout-2026-10-20T17-14-03-{CI}.jsonl", lines)


def codex_web() -> None:
    t1, t2, t3 = (f"019a0f2e-{n}000-7b00-8000-00000000b00{n}" for n in (1, 2, 3))
    ask = "ログイン画面の文言を全部日本語にしてください。ボタンは「ログイン」と「キャンセル」。"
    lines = [
        meta("2026-10-21T02:05:11.020Z", WEB, WEBDIR, git={"branch": "i18n/ja"}),
        msg("2026-10-21T02:05:11.022Z", "user", f"<environment_context>\n  <cwd>{WEBDIR}</cwd>\n</environment_context>"),
        turn("2026-10-21T02:05:11.023Z", t1, WEBDIR, "gpt-5.5", "medium", "never", "danger-full-access", "2026-10-21", "Asia/Tokyo"),
        event("2026-10-21T02:05:11.024Z", "task_started", turn_id=t1),
        msg("2026-10-21T02:05:11.025Z", "user", ask),
        event("2026-10-21T02:05:11.025Z", "user_message", message=ask, images=[]),
        call("2026-10-21T02:05:15.010Z", "exec_command", {"cmd": "rg -n 'Log in|Cancel' src/login"}, "call_SampleRg"),
        output("2026-10-21T02:05:15.200Z", "call_SampleRg", "Process exited with code 0\nOutput:\nsrc/login/Form.tsx:18:<button>Log in</button>"),
        msg("2026-10-21T02:05:16.000Z", "assistant", "Form.tsx の2つのボタンを置き換えます。"),
        msg("2026-10-21T02:05:23.400Z", "assistant", "ボタンを「ログイン」「キャンセル」に変えました。"),
        event("2026-10-21T02:05:23.401Z", "agent_message", message="ボタンを「ログイン」「キャンセル」に変えました。"),
        event("2026-10-21T02:05:23.450Z", "task_complete", turn_id=t1),
        turn("2026-10-21T02:06:00.001Z", t2, WEBDIR, "gpt-5.5", "medium", "never", "danger-full-access", "2026-10-21", "Asia/Tokyo"),
        msg("2026-10-21T02:06:00.003Z", "user", "エラーメッセージもお願い"),
        event("2026-10-21T02:06:04.900Z", "turn_aborted", turn_id=t2, reason="interrupted"),
        # Resumed the next day: no second session_meta.
        turn("2026-10-22T01:30:00.102Z", t3, WEBDIR, "gpt-5.5-codex", "high", "never", "danger-full-access", "2026-10-22", "Asia/Tokyo"),
        msg("2026-10-22T01:30:00.104Z", "user", "继续：错误提示也改成日文。"),
        event("2026-10-22T01:30:00.104Z", "user_message", message="继续：错误提示也改成日文。", images=[]),
        msg("2026-10-22T01:30:12.020Z", "assistant", "已完成：错误提示现在是日文（「パスワードが違います」）。"),
        event("2026-10-22T01:30:12.090Z", "task_complete", turn_id=t3),
    ]  # fmt: skip
    write(f"codex/sessions/2026/10/21/rollout-2026-10-21T11-05-11-{WEB}.jsonl", lines)


def codex_sub() -> None:
    source = {
        "subagent": {
            "thread_spawn": {
                "parent_thread_id": WEB,
                "depth": 1,
                "agent_nickname": "Scout",
                "agent_role": "explorer",
            }
        }
    }
    lines = [
        meta("2026-10-21T02:20:40.010Z", CSUB, WEBDIR, session_id=WEB, parent_thread_id=WEB, source=source),
        msg("2026-10-21T02:05:11.025Z", "user", "ログイン画面の文言を全部日本語にしてください。ボタンは「ログイン」と「キャンセル」。"),
        turn("2026-10-21T02:20:40.020Z", "019a0f31-1000-7c00-8000-00000000c001", WEBDIR, "gpt-5.5-mini", "low", "never",
             "danger-full-access", "2026-10-21", "Asia/Tokyo"),
        msg("2026-10-21T02:20:40.022Z", "user", "List every user-visible English string still in src/ as file:line."),
        call("2026-10-21T02:20:43.600Z", "exec_command", {"cmd": "rg -n '>[A-Z][a-z]+<' src"}, "call_SampleStrings"),
        output("2026-10-21T02:20:43.800Z", "call_SampleStrings", "Process exited with code 0\nOutput:\nsrc/settings/Page.tsx:7:<h1>Settings</h1>"),
        msg("2026-10-21T02:20:46.000Z", "user", "Include the placeholder attributes too."),
    ]  # fmt: skip
    cut = '{"timestamp":"2026-10-21T02:20:47.250Z","type":"response_item","payload":{"type":"mess'
    write(f"codex/sessions/2026/10/21/rollout-2026-10-21T11-20-40-{CSUB}.jsonl", lines, cut=cut)


def codex_cold() -> None:
    answer = "It builds an Express app with a single /health route and listens on port 3000."
    lines = [
        item("2026-10-19T13:00:00.010Z", "session_meta", {"id": COLD, "timestamp": "2026-10-19T13:00:00.001Z", "cwd": DEMO,
             "originator": "codex_exec", "cli_version": "0.129.2", "source": "exec", "model_provider": "openai"}),
        turn("2026-10-19T13:00:00.012Z", "0199f8a0-2000-7000-8000-00000000d001", DEMO, "gpt-5.5", "low", "never",
             "read-only", "2026-10-19", "UTC"),
        msg("2026-10-19T13:00:00.014Z", "user", "Summarize what src/server.ts does in one sentence."),
        call("2026-10-19T13:00:03.100Z", "exec_command", {"cmd": "cat src/server.ts"}, "call_SampleSed"),
        output("2026-10-19T13:00:03.200Z", "call_SampleSed", "Process exited with code 0\nOutput:\nconst app = express();"),
        msg("2026-10-19T13:00:05.600Z", "assistant", answer),
    ]  # fmt: skip
    data = "".join(dump(line) + "\n" for line in lines).encode()
    path = HERE / f"codex/sessions/2026/10/19/rollout-2026-10-19T21-00-00-{COLD}.jsonl.zst"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(zstandard.ZstdCompressor(level=3, write_checksum=True).compress(data))


EXEC = "019a1c2d-3e4f-7a50-8b61-7c8d9e0fa1b2"


def codex_exec() -> None:
    """`codex exec` as Codex 0.171 writes it: every line with an `ordinal`, an MCP tool called
    through its namespace, a failed shell command whose exit code is in its output's header and
    in an `item_completed` event."""
    turn_id = "019a1c2d-3f00-7a00-8000-00000000e001"
    failed = 'Chunk ID: 7c31d0\nWall time: 0.0100 seconds\nProcess exited with code 3\nOriginal token count: 14\nOutput:\nnpm error Missing script: "lint:strict"\n'
    lines = [
        meta("2026-10-23T09:00:00.210Z", EXEC, DEMO, version="0.171.0", originator="codex_exec", source="exec",
             thread_source="user", session_id=EXEC, history_mode="paginated"),
        event("2026-10-23T09:00:00.212Z", "task_started", turn_id=turn_id, started_at=1792746000,
              model_context_window=258400, collaboration_mode_kind="default"),
        msg("2026-10-23T09:00:00.330Z", "developer", "<skills_instructions>\n## Skills\n- verify: run the checks\n</skills_instructions>"),
        msg("2026-10-23T09:00:00.330Z", "user", f"<environment_context>\n  <cwd>{DEMO}</cwd>\n  <shell>bash</shell>\n  <current_date>2026-10-23</current_date>\n</environment_context>"),
        item("2026-10-23T09:00:00.335Z", "world_state", {"full": True, "state": {"current_date": "2026-10-23", "timezone": "Etc/UTC"}}),
        turn("2026-10-23T09:00:00.335Z", turn_id, DEMO, "gpt-5.5", "medium", "never", "danger-full-access", "2026-10-23", "Etc/UTC"),
        msg("2026-10-23T09:00:00.346Z", "user", "Ask Origin what we decided about lint, then run the strict lint."),
        event("2026-10-23T09:00:00.347Z", "item_completed", thread_id=EXEC, turn_id=turn_id,
              item={"type": "UserMessage", "id": "019a1c2d-4117-74c3-9489-062986a6a318",
                    "content": [{"type": "text", "text": "Ask Origin what we decided about lint, then run the strict lint.", "text_elements": []}]}),
        item("2026-10-23T09:00:01.100Z", "response_item", {"type": "function_call", "id": "fc_sample01", "name": "search",
             "namespace": "mcp__origin", "arguments": json.dumps({"query": "lint decision"}), "call_id": "call_SampleMcpSearch01"}),
        event("2026-10-23T09:00:01.380Z", "item_completed", thread_id=EXEC, turn_id=turn_id,
              item={"type": "McpToolCall", "id": "call_SampleMcpSearch01", "server": "origin", "tool": "search",
                    "arguments": {"query": "lint decision"}, "readOnlyHint": True, "status": "completed",
                    "result": {"content": [{"type": "text", "text": '{"entries":[],"events":[{"text":"Use lint:strict in CI only"}]}'}],
                               "isError": False}}),
        output("2026-10-23T09:00:01.400Z", "call_SampleMcpSearch01", [
            {"type": "input_text", "text": "Wall time: 0.5453 seconds\nOutput:"},
            {"type": "input_text", "text": '{"entries":[],"events":[{"text":"Use lint:strict in CI only"}]}'},
        ]),
        call("2026-10-23T09:00:02.000Z", "exec_command", {"cmd": "npm run lint:strict"}, "call_SampleStrictLint01"),
        event("2026-10-23T09:00:02.500Z", "item_completed", thread_id=EXEC, turn_id=turn_id,
              item={"type": "CommandExecution", "id": "call_SampleStrictLint01", "process_id": "6639",
                    "command": ["/bin/bash", "-lc", "npm run lint:strict"], "cwd": f"file://{DEMO}",
                    "source": "unified_exec_startup", "status": "failed",
                    "aggregated_output": 'npm error Missing script: "lint:strict"\n', "exit_code": 3,
                    "duration": {"secs": 0, "nanos": 7021}}),
        output("2026-10-23T09:00:02.550Z", "call_SampleStrictLint01", failed),
        msg("2026-10-23T09:00:03.000Z", "assistant", "There is no lint:strict script; Origin says it runs in CI only."),
        event("2026-10-23T09:00:03.010Z", "task_complete", turn_id=turn_id,
              last_agent_message="There is no lint:strict script; Origin says it runs in CI only.", duration_ms=2800),
    ]  # fmt: skip
    lines = [
        {"timestamp": line["timestamp"], "ordinal": number, "type": line["type"], "payload": line["payload"]}
        for number, line in enumerate(lines)
    ]  # fmt: skip
    write(f"codex/sessions/2026/10/23/rollout-2026-10-23T09-00-00-{EXEC}.jsonl", lines)


def codex_index() -> None:
    write("codex/session_index.jsonl", [
        {"id": CI, "thread_name": "CI build fix", "updated_at": "2026-10-20T09:14:18.020000Z"},
        {"id": WEB, "thread_name": "web_ui 日本語化", "updated_at": "2026-10-21T02:05:30.000000Z"},
        {"id": CI, "thread_name": "Fix CI build (tsconfig.build.json)", "updated_at": "2026-10-20T10:02:11.000000Z"},
    ])  # fmt: skip


def main() -> None:
    claude_session_a()
    claude_session_b()
    claude_session_c()
    claude_session_d()
    codex_ci()
    codex_web()
    codex_sub()
    codex_cold()
    codex_exec()
    codex_index()


if __name__ == "__main__":
    main()
