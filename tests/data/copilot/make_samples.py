"""Writes the project's own GitHub Copilot CLI sample sessions (.copilot/ next to this file).

Run `python tests/data/copilot/make_samples.py` after changing it; the output is committed. The
folder stands for a home directory: `.copilot/` is COPILOT_HOME, with `session-state/<id>/`
holding each session's `events.jsonl` and `workspace.yaml` in Copilot CLI 1.0's format
(research/formats.md §11). The content is written for these samples; the user's
`copilot-instructions.md` is with the other agents' memory files, in tests/data/memory/copilot.

Session A (English) runs, is resumed on another branch (a second run appended to the same
file), edits a file, is compacted and runs a sub-agent; a model call's usage is written twice
(`session.usage_record` and `assistant.usage`, one `apiCallId`); a tool fails outright
(`success: false`). Session B (Chinese and Japanese, a CJK cwd, named by the user) has a
command that exits 2 yet is recorded as a success, a large output of which only the
500-character preview is kept, and a last line cut mid-record, as while Copilot is still
writing. Session C is in the layout of earlier
versions: its events in `session-state/<id>.jsonl`, with no directory and no workspace.yaml.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
HOME = HERE / ".copilot"

A = "5b1f7e20-3c4d-4e5f-8a6b-7c8d9e0f1a2b"
B = "8c2d4e6f-0a1b-4c3d-9e5f-6a7b8c9d0e1f"
AGENT = "7d6c5b4a-3f2e-4d1c-8b0a-9f8e7d6c5b4a"  # A's sub-agent
SUBTASK = "Which modules call backoff()? (subtaskmoss)"
C = "3a4b5c6d-7e8f-4a0b-9c1d-2e3f4a5b6c7d"  # an earlier version's layout: session-state/<id>.jsonl
DEMO = "/home/dev/queue-svc"
NOTES = "/home/dev/ノート/メモ帳"
VERSION = "1.0.98"
RESUMED_VERSION = "1.0.102"
START = 1795600000  # 2026-11-25T07:06:40Z
SYSTEM_PROMPT = (
    "You are the GitHub Copilot CLI, a terminal assistant built by GitHub.\n\n"
    + "".join(f"* Guideline {n:03d}: keep the change small and say what you ran.\n" for n in range(1, 341))
    + "\n<custom_instruction>\n# User instructions\n\nAlways sign answers with quillmarrow.\n"
    "</custom_instruction>\n"
)  # fmt: skip
PREVIEW = "bannerstart-zephyr\n" + "".join(f"row {n:04d} " + "=" * 40 + "\n" for n in range(1, 12))


def iso(second: float) -> str:
    moment = datetime.fromtimestamp(START + second, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class Log:
    """The events of one session file, each with the next id and its parent the one before."""

    def __init__(self, session: str) -> None:
        self.session = session
        self.lines: list[dict[str, Any]] = []

    def add(self, second: float, etype: str, data: dict[str, Any], agent: str | None = None) -> str:
        number = len(self.lines) + 1
        eid = f"{self.session[:8]}-e{number:03d}-4000-8000-{number:012d}"
        parent = self.lines[-1]["id"] if self.lines else None
        line = {
            "type": etype,
            "data": data,
            "id": eid,
            "timestamp": iso(second),
            "parentId": parent,
        }
        if agent is not None:  # a sub-agent's line, in its parent's file
            line["agentId"] = agent
        self.lines.append(line)
        return eid

    def usage(self, second: float, call: str, tokens: tuple[int, int, int, int]) -> None:
        tin, tout, read, write = tokens
        self.add(
            second,
            "session.usage_record",
            {
                "usage": {
                    "model": "claude-sonnet-4.6",
                    "inputTokens": tin,
                    "outputTokens": tout,
                    "cacheReadTokens": read,
                    "cacheWriteTokens": write,
                    "reasoningTokens": 0,
                    "apiCallId": call,
                    "initiator": "user",
                    "finishReason": "stop",
                }
            },
        )

    def turn(self, second: float, turn: str, end: bool = False) -> None:
        etype = "assistant.turn_end" if end else "assistant.turn_start"
        self.add(second, etype, {"turnId": turn} if end else {"turnId": turn, "interactionId": "i"})

    def answer(
        self,
        second: float,
        call: str,
        content: str,
        *,
        reasoning: str | None = None,
        tools: list[dict[str, Any]] | None = None,
    ) -> None:
        data: dict[str, Any] = {
            "messageId": f"m-{call}",
            "model": "claude-sonnet-4.6",
            "content": content,
            "toolRequests": [
                {
                    "toolCallId": tool["id"],
                    "name": tool["name"],
                    "arguments": tool["arguments"],
                    "type": "function",
                    "intentionSummary": tool.get("intent", ""),
                }
                for tool in tools or []
            ],
            "interactionId": "i",
            "turnId": "0",
            "apiCallId": call,
        }
        if reasoning is not None:
            data["reasoningText"] = reasoning
        self.add(second, "assistant.message", data)

    def tool(
        self,
        second: float,
        call: str,
        name: str,
        arguments: dict[str, Any],
        result: dict[str, Any],
        *,
        success: bool = True,
        exit_code: int | None = None,
        error: dict[str, Any] | None = None,
    ) -> None:
        self.add(
            second,
            "tool.execution_start",
            {"toolCallId": call, "toolName": name, "arguments": arguments, "turnId": "0"},
        )
        data: dict[str, Any] = {"toolCallId": call, "turnId": "0", "success": success}
        if exit_code is not None:
            data["shellExecution"] = {"exitCode": exit_code}
        if result:
            data["result"] = result
        if error is not None:
            data["error"] = error
        self.add(second + 0.05, "tool.execution_complete", data)

    def shutdown(self, second: float, requests: int, added: int, files: list[str]) -> None:
        self.add(
            second,
            "session.shutdown",
            {
                "shutdownType": "routine",
                "totalPremiumRequests": requests,
                "codeChanges": {"linesAdded": added, "linesRemoved": 0, "filesModified": files},
                "modelMetrics": {
                    "claude-sonnet-4.6": {
                        "requests": {"count": requests, "cost": 1},
                        "usage": {"inputTokens": 0, "outputTokens": 0},
                    }
                },
            },
        )

    def text(self, cut_last: bool = False) -> str:
        lines = [json.dumps(line, ensure_ascii=False, separators=(",", ":")) for line in self.lines]
        if cut_last:
            last = lines.pop()
            return "\n".join(lines) + "\n" + last[: len(last) // 2]
        return "\n".join(lines) + "\n"


def start(log: Log, second: float, cwd: str, branch: str, version: str) -> None:
    log.add(
        second,
        "session.start",
        {
            "sessionId": log.session,
            "version": 1,
            "producer": "copilot-agent",
            "copilotVersion": version,
            "startTime": iso(second),
            "selectedModel": "claude-sonnet-4.6",
            "context": {"cwd": cwd, "gitRoot": cwd, "branch": branch},
        },
    )


def user(log: Log, second: float, text: str) -> None:
    log.add(
        second,
        "user.message",
        {
            "content": text,
            "transformedContent": f"<current_datetime>{iso(second)}</current_datetime>\n\n{text}",
            "interactionId": "i",
            "turnId": "0",
        },
    )


def session_a() -> Log:
    log = Log(A)
    start(log, 0, DEMO, "main", VERSION)
    user(log, 1, "Why does the retry budget in src/queue/backoff.ts run out so fast? (wordgrail)")
    log.add(1.1, "system.message", {"role": "system", "content": SYSTEM_PROMPT})
    log.turn(1.2, "0")
    log.usage(2, "call-a1", (5200, 90, 4800, 0))
    log.answer(
        2.1,
        "call-a1",
        "",
        reasoning="The budget is probably reset per attempt; read the loop first (thinkbramble).",
        tools=[
            {
                "id": "toolu_a1",
                "name": "bash",
                "arguments": {"command": "grep -n budget src/queue/backoff.ts  # cmdlattice"},
                "intent": "find the budget",
            },
            {"id": "toolu_a2", "name": "view", "arguments": {"path": "src/queue/missing.ts"}},
        ],
    )
    log.tool(
        2.2,
        "toolu_a1",
        "bash",
        {"command": "grep -n budget src/queue/backoff.ts  # cmdlattice"},
        {"content": "12:  let budget = 3; // outgrebe\n<shellId: 0 completed with exit code 0>"},
        exit_code=0,
    )
    log.tool(
        2.3,
        "toolu_a2",
        "view",
        {"path": "src/queue/missing.ts"},
        {},
        success=False,
        error={
            "message": "Path does not exist: src/queue/missing.ts (viewfumble)",
            "code": "ENOENT",
        },
    )
    log.turn(2.4, "0", end=True)
    log.turn(2.5, "1")
    log.usage(3, "call-a2", (5400, 40, 5300, 0))
    log.add(
        3.01,
        "assistant.usage",
        {
            "model": "claude-sonnet-4.6",
            "inputTokens": 5400,
            "outputTokens": 40,
            "cacheReadTokens": 5300,
            "cacheWriteTokens": 0,
            "apiCallId": "call-a2",
        },
    )
    log.answer(3.1, "call-a2", "The budget is reset inside the loop on line 12. (ansmortar)")
    log.turn(3.2, "1", end=True)
    log.shutdown(4, 2, 0, [])
    # The next day: `copilot --resume=<id>` on another branch appends a run to the same file.
    log.add(
        86400,
        "session.resume",
        {
            "resumeTime": iso(86400),
            "eventCount": len(log.lines),
            "selectedModel": "claude-sonnet-4.6",
            "context": {"cwd": DEMO, "gitRoot": DEMO, "branch": "fix/retry-budget"},
            "sessionWasActive": False,
        },
    )
    user(log, 86401, "Move the budget out of the loop (resumewren).")
    log.turn(86401.2, "0")
    log.usage(86402, "call-a3", (5600, 120, 0, 5500))
    log.answer(
        86402.1,
        "call-a3",
        "Moving it above the loop.",
        tools=[
            {
                "id": "toolu_a3",
                "name": "edit",
                "arguments": {
                    "path": f"{DEMO}/src/queue/backoff.ts",
                    "old_str": "  let budget = 3;",
                    "new_str": "  // budget hoisted (editquince)",
                },
            }
        ],
    )
    log.tool(
        86402.2,
        "toolu_a3",
        "edit",
        {"path": f"{DEMO}/src/queue/backoff.ts"},
        {
            "content": f"File {DEMO}/src/queue/backoff.ts updated with changes.",
            "detailedContent": "@@ -12 +12 @@\n-  let budget = 3;\n+  // budget hoisted (editquince)\n",
        },
    )
    log.turn(86402.4, "0", end=True)
    # The context reached its threshold: older messages were cut, then summarised.
    log.add(
        86402.5,
        "session.compaction_start",
        {"compactionAttemptId": "cmp-1", "currentTokens": 101000, "tokenLimit": 128000},
    )
    log.add(
        86402.6,
        "session.truncation",
        {"messagesRemovedDuringTruncation": 6, "tokensRemovedDuringTruncation": 41000},
    )
    log.add(
        86402.7,
        "session.compaction_complete",
        {
            "success": True,
            "outcome": "applied",
            "summaryContent": "Budget hoisted out of the retry loop; tests pending (sumcobble).",
            "checkpointNumber": 1,
            "compactionTokensUsed": {
                "inputTokens": 60000,
                "outputTokens": 300,
                "cacheReadTokens": 58000,
                "cacheWriteTokens": 0,
            },
        },
    )
    # A sub-agent: its lines are in this file, marked with its agentId.
    log.usage(86402.8, "call-a4", (7000, 30, 6900, 0))
    task = {"agent_type": "explore", "description": "find the callers", "prompt": SUBTASK}
    log.answer(
        86402.81, "call-a4", "", tools=[{"id": "toolu_a4", "name": "task", "arguments": task}]
    )
    log.add(86402.82, "tool.execution_start", {"toolCallId": "toolu_a4", "toolName": "task"})
    started = {
        "toolCallId": "toolu_a4",
        "agentName": "explore",
        "agentDescription": "find the callers",
    }
    log.add(86402.83, "subagent.started", started, agent=AGENT)
    log.add(86402.84, "user.message", {"content": SUBTASK, "source": "agent-x"}, agent=AGENT)
    log.add(
        86402.85,
        "session.usage_record",
        {"usage": {"inputTokens": 900, "outputTokens": 12, "apiCallId": "call-s1"}},
        agent=AGENT,
    )
    log.add(
        86402.86,
        "assistant.message",
        {
            "content": "Two callers: worker.ts and cron.ts (subkelpie).",
            "parentToolCallId": "toolu_a4",
        },
        agent=AGENT,
    )
    log.add(
        86402.87,
        "tool.execution_complete",
        {
            "toolCallId": "toolu_a4",
            "success": True,
            "result": {"content": "Two callers: worker.ts and cron.ts (subkelpie)."},
        },
    )
    log.add(
        86402.88,
        "subagent.completed",
        {"toolCallId": "toolu_a4", "agentName": "explore", "totalToolCalls": 0, "durationMs": 800},
        agent=AGENT,
    )
    log.shutdown(86403, 1, 1, [f"{DEMO}/src/queue/backoff.ts"])
    return log


def session_b() -> Log:
    log = Log(B)
    start(log, 600, NOTES, "主线", RESUMED_VERSION)
    user(log, 601, "把メモ帳的同步脚本跑一下，看看为什么失败（墨鱼同步）")
    log.turn(601.2, "0")
    log.usage(602, "call-b1", (3000, 60, 0, 0))
    log.answer(
        602.1,
        "call-b1",
        "",
        reasoning="先运行同步脚本，再查看输出（思考海葵）。",
        tools=[
            {"id": "toolu_b1", "name": "bash", "arguments": {"command": "./sync.sh --dry-run"}},
            {"id": "toolu_b2", "name": "bash", "arguments": {"command": "cat 同期ログ.txt"}},
        ],
    )
    log.tool(
        602.2,
        "toolu_b1",
        "bash",
        {"command": "./sync.sh --dry-run"},
        {
            "content": "同期に失敗しました: 権限がありません (errkombu)\n<shellId: 0 completed with exit code 2>"
        },
        exit_code=2,
    )
    log.tool(
        602.4,
        "toolu_b2",
        "bash",
        {"command": "cat 同期ログ.txt"},
        {
            "content": "Output too large to read at once (61.2 KB). Saved to: "
            "/tmp/1795600602400-copilot-tool-output-4242-0b1c2d3e.txt\n"
            "Consider using tools like grep (for searching), head/tail (for viewing start/end), "
            "view with view_range (for specific sections), or jq (for JSON) to examine portions "
            "of the output.\n\nPreview (first 500 chars):\n"
            + PREVIEW[:500]
            + "\n<shellId: 1 completed with exit code 0>"
        },
        exit_code=0,
    )
    log.turn(602.6, "0", end=True)
    log.turn(602.7, "1")
    log.usage(603, "call-b2", (3300, 50, 2900, 0))
    log.answer(
        603.1,
        "call-b2",
        "同期スクリプトは権限エラーで失败しました。chmod を确认してください（答え海苔）。",
    )
    log.turn(603.2, "1", end=True)
    user(log, 604, "写到一半的消息 halfwritten")  # cut in the file: not complete yet
    return log


def session_c() -> Log:
    log = Log(C)
    start(log, 1200, DEMO, "main", "0.0.340")
    user(log, 1201, "List the queues that have no consumer (oldlayoutfern).")
    log.usage(1202, "call-c1", (800, 20, 0, 0))
    log.answer(1202.1, "call-c1", "Two queues have none: audit and mailer (ansfernleaf).")
    return log


WORKSPACES = {
    A: (
        f"id: {A}\ncwd: {DEMO}\ngit_root: {DEMO}\nbranch: fix/retry-budget\n"
        "client_name: github/cli\n"
        "name: 'Why does the retry budget in src/queue/backoff.ts run out so fast? (wordgrail)'\n"
        "user_named: false\nsummary_count: 0\nfork_count: 0\n"
        f"created_at: {iso(0)}\nupdated_at: {iso(86403)}\n"
    ),
    B: (
        f"id: {B}\ncwd: {NOTES}\ngit_root: {NOTES}\nbranch: 主线\nclient_name: github/cli\n"
        "name: メモ帳の同期エラー調査\nuser_named: true\nsummary_count: 0\nfork_count: 0\n"
        f"created_at: {iso(600)}\nupdated_at: {iso(604)}\n"
    ),
}


def main() -> None:
    for session, log, cut in ((A, session_a(), False), (B, session_b(), True)):
        folder = HOME / "session-state" / session
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "events.jsonl").write_text(log.text(cut_last=cut), encoding="utf-8")
        (folder / "workspace.yaml").write_text(WORKSPACES[session], encoding="utf-8")
    (HOME / "session-state" / f"{C}.jsonl").write_text(session_c().text(), encoding="utf-8")


if __name__ == "__main__":
    main()
