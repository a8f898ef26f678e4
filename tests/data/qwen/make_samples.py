"""Writes the project's own Qwen Code sample sessions (`.qwen/` next to this file).

Run `python tests/data/qwen/make_samples.py` after changing it; the output is committed. The
folder stands for a home directory: `.qwen/` is Qwen Code's; its memory files are written with
the other agents' (tests/data/memory/qwen). The files follow what Qwen Code 0.15.10 writes
(research/formats.md §9): one `ChatRecord` a line, chained by uuid/parentUuid, `ui_telemetry`
and `attribution_snapshot` records between the turns, a large output saved under
`tmp/<sha256 of the project>/`, a background agent's transcript under `subagents/`. The content
is written for these samples: a resumed session with a title, a Chinese and Japanese one with a
failed command, a title of the fast model's and a half-written last line, one with a large
output, a failed call, a compression and a command.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
QWEN = HERE / ".qwen"

HARBOR = "/home/dev/harbor-map"
TRAVEL = "/home/dev/文档/旅行-notes"
S1 = "3a7c2e10-5b4d-4f6a-8c9e-1d2f3a4b5c6d"  # resumed, manual title
S2 = "7e1f9a2b-3c4d-4e5f-9a0b-1c2d3e4f5a6b"  # Chinese/Japanese, failed command, cut last line
S3 = "b5d4c3e2-1f0a-4b9c-8d7e-6f5a4b3c2d1e"  # large output, failed call, compression
AGENT = "surveyor-call_a3"  # S1's background agent: `<agent type>-<call id>`, as the CLI names it
BASE = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)


def slug(cwd: str) -> str:
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)


def dump(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class Chat:
    """The records of one session file, each chained to the one before."""

    def __init__(self, session: str, cwd: str, branch: str, version: str) -> None:
        self.session, self.cwd, self.branch, self.version = session, cwd, branch, version
        self.prefix = session[:8]  # of the records' uuids
        self.records: list[dict[str, Any]] = []
        self.parent: str | None = None

    def add(self, second: int, rtype: str, **fields: Any) -> str:
        number = len(self.records) + 1
        uuid = f"{self.prefix}-0000-4000-8000-{number:012x}"
        stamp = BASE + timedelta(seconds=second, milliseconds=number * 7)
        record = {
            "uuid": uuid,
            "parentUuid": self.parent,
            "sessionId": self.session,
            "timestamp": stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "type": rtype,
            "cwd": self.cwd,
            "version": self.version,
            "gitBranch": self.branch,
            **fields,
        }
        self.records.append(record)
        self.parent = uuid
        return uuid

    def user(self, second: int, text: str) -> None:
        self.add(second, "user", message={"role": "user", "parts": [{"text": text}]})

    def telemetry(self, second: int, answer: str | None = None) -> None:
        event: dict[str, Any] = {
            "event.name": "qwen-code.api_response",
            "model": "qwen3-coder-plus",
            "input_token_count": 900,
            "output_token_count": 40,
            "total_token_count": 940,
        }
        if answer is not None:
            event["response_text"] = answer
        self.add(second, "system", subtype="ui_telemetry", systemPayload={"uiEvent": event})

    def assistant(self, second: int, parts: list[dict[str, Any]], tokens: tuple[int, ...]) -> None:
        prompt, cached, candidates, thoughts = tokens
        self.add(
            second,
            "assistant",
            model="qwen3-coder-plus",
            message={"role": "model", "parts": parts},
            usageMetadata={
                "promptTokenCount": prompt,
                "candidatesTokenCount": candidates,
                "thoughtsTokenCount": thoughts,
                "totalTokenCount": prompt + candidates + thoughts,
                "cachedContentTokenCount": cached,
            },
        )

    def result(
        self, second: int, call: str, name: str, response: dict[str, Any], **outcome: Any
    ) -> None:
        part = {"functionResponse": {"id": call, "name": name, "response": response}}
        self.add(
            second,
            "tool_result",
            message={"role": "user", "parts": [part]},
            toolCallResult={"callId": call, **outcome},
        )

    def system(self, second: int, subtype: str, payload: dict[str, Any]) -> None:
        self.add(second, "system", subtype=subtype, systemPayload=payload)

    def write(self, *, cut_last: bool = False) -> Path:
        folder = QWEN / "projects" / slug(self.cwd) / "chats"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [dump(r) + "\n" for r in self.records]
        if cut_last:
            lines[-1] = lines[-1][: len(lines[-1]) // 2]
        path = folder / f"{self.session}.jsonl"
        path.write_text("".join(lines), encoding="utf-8")
        return path


def shell_text(command: str, output: str, code: int, pgid: int) -> str:
    return "\n".join(
        [
            f"Command: {command}",
            "Directory: (root)",
            f"Output: {output or '(empty)'}",
            "Error: (none)",
            f"Exit Code: {code}",
            "Signal: (none)",
            f"Process Group PGID: {pgid}",
        ]
    )


def session_one() -> None:
    chat = Chat(S1, HARBOR, "main", "0.15.9")
    chat.user(0, "Count the tide stations in stations.csv, keyword quillonharbor.")
    chat.system(1, "attribution_snapshot", {"snapshot": {"type": "attribution-snapshot"}})
    chat.telemetry(2)
    command = "wc -l stations.csv  # cmdtidewrack"
    chat.assistant(
        3,
        [
            {
                "text": "**Counting lines** The csv has a header, so subtract one: ponderkelp.",
                "thought": True,
            },
            {"text": "Let me count them."},
            {
                "functionCall": {
                    "id": "call_a1",
                    "name": "run_shell_command",
                    "args": {"command": command, "description": "count"},
                }
            },
        ],
        (1200, 1000, 30, 12),
    )
    output = "43 stations.csv outgullwing"
    chat.result(
        5,
        "call_a1",
        "run_shell_command",
        {"output": shell_text(command, output, 0, 311)},
        status="success",
        resultDisplay=output,
    )
    chat.telemetry(6, "There are 42 tide stations. answerbarnacle")
    chat.assistant(7, [{"text": "There are 42 tide stations. answerbarnacle"}], (1300, 1200, 15, 0))
    # Resumed the next day with a newer CLI: the same file, the chain goes on.
    chat.version = "0.15.10"
    chat.branch = "feat/tides"
    chat.user(86400, "Rename the column to station_id, keyword resumeosprey.")
    chat.telemetry(86401)
    chat.assistant(
        86402,
        [
            {
                "functionCall": {
                    "id": "call_a2",
                    "name": "edit",
                    "args": {
                        "file_path": f"{HARBOR}/stations.csv",
                        "old_string": "id,name",
                        "new_string": "station_id,name",
                    },
                }
            }
        ],
        (1500, 1400, 20, 0),
    )
    chat.result(
        86404,
        "call_a2",
        "edit",
        {"output": f"The file: {HARBOR}/stations.csv has been updated. editpelican"},
        status="success",
        resultDisplay={"fileDiff": "-id,name\n+station_id,name\n", "fileName": "stations.csv"},
    )
    chat.system(
        86405, "custom_title", {"customTitle": "Tide stations 潮汐", "titleSource": "manual"}
    )
    chat.assistant(86406, [{"text": "Renamed. closingheron"}], (1600, 1500, 5, 0))
    chat.system(
        86407, "custom_title", {"customTitle": "Tide stations 潮汐", "titleSource": "manual"}
    )
    # A background agent (its transcript: background_agent), then the harness's notice of its end.
    prompt = "Survey the pier lengths, keyword agentsextant."
    args = {"description": "survey piers", "prompt": prompt, "subagent_type": "surveyor",
            "run_in_background": True}  # fmt: skip
    chat.assistant(86408, [{"functionCall": {"id": "call_a3", "name": "agent", "args": args}}],
                   (1700, 1600, 8, 0))  # fmt: skip
    launched = f"Background agent launched successfully.\nagentId: {AGENT} launchmooring"
    chat.result(86409, "call_a3", "agent", {"output": launched}, status="success",
                resultDisplay={"type": "task_execution", "subagentName": "surveyor",
                               "taskPrompt": prompt, "status": "background", "toolCalls": []})  # fmt: skip
    notice = (f"<task-notification>\n<task-id>{AGENT}</task-id>\n<status>completed</status>\n"
              "<summary>Agent \"survey piers\" completed. noticebuoy</summary>\n</task-notification>")  # fmt: skip
    chat.add(86416, "user", subtype="notification", message={"role": "user", "parts": [{"text": notice}]},
             systemPayload={"displayText": "Agent survey piers completed."})  # fmt: skip
    chat.write()


def session_two() -> None:
    chat = Chat(S2, TRAVEL, "main", "0.15.10")
    chat.user(0, "请把京都旅行的笔记写进文件，然后检查一下。キーワード：もみじ紅葉 linenkoi")
    chat.telemetry(1)
    chat.assistant(
        2,
        [
            {"text": "先写文件。ファイルを書きます。", "thought": True},
            {
                "functionCall": {
                    "id": "call_b1",
                    "name": "write_file",
                    "args": {
                        "file_path": f"{TRAVEL}/kyoto.md",
                        "content": "金阁寺 清水寺 filecormorant\n",
                    },
                }
            },
        ],
        (800, 0, 25, 9),
    )
    chat.result(
        3,
        "call_b1",
        "write_file",
        {"output": f"Successfully created and wrote to new file: {TRAVEL}/kyoto.md."},
        status="success",
        resultDisplay={
            "fileDiff": "+金阁寺 清水寺 filecormorant\n",
            "fileName": "kyoto.md",
            "originalContent": "",
            "newContent": "金阁寺 清水寺 filecormorant\n",
        },
    )
    command = "grep -c 銀閣寺 kyoto.md  # cmdsandpiper"
    chat.assistant(
        4,
        [
            {
                "functionCall": {
                    "id": "call_b2",
                    "name": "run_shell_command",
                    "args": {"command": command},
                }
            }
        ],
        (900, 800, 10, 0),
    )
    chat.result(
        6,
        "call_b2",
        "run_shell_command",
        {"output": shell_text(command, "0 errlamprey", 1, 412)},
        status="success",
        resultDisplay="0 errlamprey",
    )
    chat.system(7, "custom_title", {"customTitle": "京都旅行メモ", "titleSource": "auto"})
    chat.assistant(
        8, [{"text": "笔记已写好；銀閣寺はまだありません。answermarten"}], (1000, 900, 20, 0)
    )
    chat.user(9, "この行は書きかけです cutwhelk")
    chat.write(cut_last=True)


def session_three() -> None:
    chat = Chat(S3, HARBOR, "main", "0.15.10")
    chat.user(0, "Dump the full buoy log, keyword fathomkrill.")
    chat.telemetry(1)
    command = "cat buoys.log  # cmdnarwhal"
    chat.assistant(
        2,
        [
            {
                "functionCall": {
                    "id": "call_c1",
                    "name": "run_shell_command",
                    "args": {"command": command},
                }
            }
        ],
        (700, 0, 12, 0),
    )
    body = "\n".join(
        ["bigstartgrouper"]
        + [f"buoy {n:04d} reading {n * 37 % 1000:03d} knots steady" for n in range(1, 1301)]
        + ["bigendhalibut"]
    )
    whole = shell_text(command, body, 0, 515)
    digest = hashlib.sha256(HARBOR.encode()).hexdigest()
    saved = QWEN / "tmp" / digest / "run_shell_command_9f8e7d6c5b4a.output"
    saved.parent.mkdir(parents=True, exist_ok=True)
    saved.write_text(whole, encoding="utf-8")
    path = f"/home/dev/.qwen/tmp/{digest}/{saved.name}"
    lines = whole.split("\n")
    head, tail = "\n".join(lines[:40]), "\n".join(lines[-200:])
    model_copy = (
        "Tool output was too large and has been truncated.\n"
        f"The full output has been saved to: {path}\n"
        "To read the complete output, use the read_file tool with the absolute file path above.\n"
        "The truncated output below shows the beginning and end of the content. The marker "
        "'... [CONTENT TRUNCATED] ...' indicates where content was removed.\n\n"
        f"Truncated part of the output:\n{head}\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\n{tail}"
    )
    chat.result(
        4,
        "call_c1",
        "run_shell_command",
        {"output": model_copy},
        status="success",
        resultDisplay=f"{body}\nOutput too long and was saved to: {path}",
    )
    chat.assistant(
        5,
        [
            {
                "functionCall": {
                    "id": "call_c2",
                    "name": "read_file",
                    "args": {"absolute_path": f"{HARBOR}/missing-lagoon.txt"},
                }
            }
        ],
        (4000, 3000, 10, 0),
    )
    chat.result(
        6,
        "call_c2",
        "read_file",
        {"error": f"File not found: {HARBOR}/missing-lagoon.txt errcuttlefish"},
        status="error",
        error={},
    )
    chat.system(7, "slash_command", {"phase": "invocation", "rawCommand": "/compress"})
    chat.system(
        8,
        "chat_compression",
        {
            "info": {"originalTokenCount": 5200, "newTokenCount": 900, "compressionStatus": 1},
            "compressedHistory": [
                {
                    "role": "user",
                    "parts": [
                        {"text": "<state_snapshot>buoy log dumped summaryseahorse</state_snapshot>"}
                    ],
                },
                {
                    "role": "model",
                    "parts": [{"text": "Got it. Thanks for the additional context!"}],
                },
                # The recent history kept as it was (as Qwen Code 0.15.10 writes it).
                {
                    "role": "user",
                    "parts": [{"text": "Dump the full buoy log, keyword fathomkrill."}],
                },
            ],
        },
    )
    chat.system(
        9,
        "slash_command",
        {
            "phase": "result",
            "rawCommand": "/compress",
            "outputHistoryItems": [
                {"type": "compression", "text": "Chat history compressed slashmanatee"}
            ],
        },
    )
    chat.assistant(
        10, [{"text": "The log ends with the halibut marker. answerdugong"}], (900, 0, 14, 0)
    )
    chat.write()


def background_agent() -> None:
    """A background agent's transcript: its lines carry the parent's session id, `isSidechain`
    and the agent's id; a fork's first record copies the parent's history."""
    chat = Chat(S1, HARBOR, "main", "0.15.10")
    chat.prefix = "5a3c0e01"
    extra = {"agentId": AGENT, "agentName": "surveyor", "isSidechain": True}
    chat.add(
        86410,
        "system",
        subtype="agent_bootstrap",
        systemPayload={
            "kind": "fork",
            "history": [{"role": "user", "parts": [{"text": "quillonharbor"}]}],
        },
        **extra,
    )
    chat.add(
        86411,
        "user",
        message={
            "role": "user",
            "parts": [{"text": "Survey the pier lengths, keyword agentsextant."}],
        },
        **extra,
    )
    chat.add(
        86412,
        "assistant",
        message={
            "role": "model",
            "parts": [
                {
                    "functionCall": {
                        "id": "call_s1",
                        "name": "glob",
                        "args": {"pattern": "piers/*.csv"},
                    }
                }
            ],
        },
        **extra,
    )
    chat.add(
        86413,
        "tool_result",
        message={
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "call_s1",
                        "name": "glob",
                        "response": {"output": "piers/east.csv agentcompass"},
                    }
                }
            ],
        },
        toolCallResult={"callId": "call_s1", "durationMs": 12},
        **extra,
    )
    chat.add(
        86414,
        "tool_result",
        message={
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "call_s2",
                        "name": "read_file",
                        "response": {"success": False, "error": "EACCES agentbollard"},
                    }
                }
            ],
        },
        toolCallResult={"callId": "call_s2"},
        **extra,
    )
    chat.add(
        86415,
        "assistant",
        message={"role": "model", "parts": [{"text": "The east pier is 240 m. agentplumb"}]},
        **extra,
    )
    folder = QWEN / "projects" / slug(HARBOR) / "subagents" / S1
    folder.mkdir(parents=True, exist_ok=True)
    lines = "".join(dump(r) + "\n" for r in chat.records)
    (folder / f"agent-{AGENT}.jsonl").write_text(lines, encoding="utf-8")
    meta = {"agentId": AGENT, "agentType": "surveyor", "parentSessionId": S1, "status": "completed"}
    (folder / f"agent-{AGENT}.meta.json").write_text(dump(meta), encoding="utf-8")


def memory() -> None:
    """Memory files go with the other agents' (tests/data/memory), laid out as the home's
    folder: the samples' own environment then has none, as its other agents have none."""
    folder = HERE.parent / "memory" / "qwen"
    (folder / "QWEN.md").parent.mkdir(parents=True, exist_ok=True)
    (folder / "QWEN.md").write_text(
        "# My preferences\n\n- Reply tersely. memurchinuser\n", encoding="utf-8"
    )
    auto = folder / "projects" / slug(HARBOR) / "memory"
    auto.mkdir(parents=True, exist_ok=True)
    (auto / "MEMORY.md").write_text(
        "- stations.csv has a header row. memurchinauto\n", encoding="utf-8"
    )


if __name__ == "__main__":
    session_one()
    session_two()
    session_three()
    background_agent()
    memory()
