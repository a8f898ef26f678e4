"""The Gemini CLI, Qwen Code, Copilot CLI and OpenCode writers against the files the real CLIs
write: every line parses, every record has the fields of its kind in the real files (Gemini CLI
0.x, Qwen Code 0.15, Copilot CLI 1.0.102, OpenCode 1.18.33, research/formats.md §8-§11), ids
have the real shapes, and a failed shell command is recorded as the CLIs record it (a success
with the exit code beside it or in the output)."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from origin_api.samples.common import output_parts
from origin_api.samples.formats import HOME, OPENCODE_DATA, FormatInfo, generate_formats
from origin_store.parsers.base import split_output

SEED = 11
EVENTS = 1500
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

#: The fields of each record in the real Gemini CLI session files.
GEMINI_META = {"sessionId", "projectHash", "startTime", "lastUpdated", "kind"}
GEMINI_MESSAGE = {"id", "timestamp", "type", "content"}
GEMINI_MODEL = GEMINI_MESSAGE | {"thoughts", "tokens", "model"}
GEMINI_CALL = {
    "id", "name", "args", "result", "status", "timestamp", "resultDisplay", "description",
    "displayName", "renderOutputAsMarkdown",
}  # fmt: skip
GEMINI_TOKENS = {"input", "output", "cached", "thoughts", "tool", "total"}
#: Qwen Code's ChatRecord: the fields every record has, then each type's own.
QWEN_COMMON = {
    "uuid",
    "parentUuid",
    "sessionId",
    "timestamp",
    "type",
    "cwd",
    "version",
    "gitBranch",
}
QWEN_OWN = {
    "user": {"message"},
    "assistant": {"model", "message", "usageMetadata"},
    "tool_result": {"message", "toolCallResult"},
    "system": {"subtype", "systemPayload"},
}
QWEN_USAGE = {
    "promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount", "totalTokenCount",
    "cachedContentTokenCount",
}  # fmt: skip
#: The data fields of each Copilot CLI event type (a generated event holds some of them).
COPILOT_DATA = {
    "session.start": {
        "alreadyInUse", "context", "contextTier", "copilotVersion", "producer", "remoteSteerable",
        "selectedModel", "sessionId", "startTime", "version",
    },
    "session.resume": {
        "alreadyInUse", "context", "contextTier", "eventCount", "eventsFileSizeBytes",
        "remoteSteerable", "resumeTime", "selectedModel", "sessionLimits", "sessionWasActive",
    },
    "user.message": {
        "content", "delivery", "interactionId", "messageId", "parentAgentTaskId",
        "supportedNativeDocumentMimeTypes", "transformedContent", "turnId",
    },
    "system.message": {"content", "interactionId", "metadata", "role"},
    "assistant.turn_start": {"interactionId", "turnId"},
    "session.usage_record": {"usage"},
    "assistant.message": {
        "apiCallId", "content", "interactionId", "messageId", "model", "originatingMessageId",
        "reasoningText", "rte", "toolRequests", "turnId",
    },
    "tool.execution_start": {
        "arguments", "model", "shellToolInfo", "toolCallId", "toolName", "toolTitle", "turnId",
    },
    "tool.execution_complete": {
        "fileEdits", "interactionId", "model", "result", "rte", "shellExecution", "success",
        "toolCallId", "toolTelemetry", "turnId",
    },
    "assistant.turn_end": {"turnId"},
    "session.shutdown": {
        "accountingSnapshot", "agentMetrics", "codeChanges", "conversationTokens", "currentModel",
        "currentTokens", "eventsFileSizeBytes", "modelMetrics", "providerModelMetrics",
        "sessionStartTime", "shutdownType", "systemTokens", "toolDefinitionsTokens",
        "totalApiDurationMs", "totalNanoAiu", "totalPremiumRequests", "usageAccountingWatermarks",
    },
}  # fmt: skip
COPILOT_WORKSPACE = [
    "id", "cwd", "git_root", "branch", "client_name", "name", "user_named", "summary_count",
    "fork_count", "created_at", "updated_at",
]  # fmt: skip
#: OpenCode 1.18.33's columns of the tables Origin reads (`PRAGMA table_info`).
OPENCODE_COLUMNS = {
    "project": [
        "id", "worktree", "vcs", "name", "icon_url", "icon_url_override", "icon_color",
        "time_created", "time_updated", "time_initialized", "sandboxes", "commands",
    ],
    "session": [
        "id", "project_id", "workspace_id", "parent_id", "slug", "directory", "path", "title",
        "version", "share_url", "summary_additions", "summary_deletions", "summary_files",
        "summary_diffs", "metadata", "cost", "tokens_input", "tokens_output", "tokens_reasoning",
        "tokens_cache_read", "tokens_cache_write", "revert", "permission", "agent", "model",
        "time_created", "time_updated", "time_compacting", "time_archived",
    ],
    "message": ["id", "session_id", "time_created", "time_updated", "data"],
    "part": ["id", "message_id", "session_id", "time_created", "time_updated", "data"],
}  # fmt: skip
OPENCODE_USER = {"role", "time", "agent", "model", "summary"}
OPENCODE_ASSISTANT = {
    "parentID", "role", "mode", "agent", "path", "cost", "tokens", "modelID", "providerID", "time",
    "finish",
}  # fmt: skip
OPENCODE_PARTS = {
    "text": {"type", "text"},
    "reasoning": {"type", "text", "time"},
    "tool": {"type", "tool", "callID", "state"},
    "step-start": {"type", "snapshot"},
    "step-finish": {"type", "reason", "snapshot", "tokens", "cost"},
}
OPENCODE_ID = re.compile(r"^(ses|msg|prt)_[0-9a-f]{12}[0-9A-Za-z]{14}$")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, FormatInfo]]:
    out = tmp_path_factory.mktemp("shapes") / "corpus"
    sources = ("gemini", "opencode", "copilot", "qwen")
    return out / HOME, generate_formats(out, EVENTS, SEED, sources)


def _lines(path: Path) -> list[dict[str, Any]]:
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    return [orjson.loads(line) for line in raw.splitlines()]


def test_gemini_files_are_gemini_cli_s(corpus: tuple[Path, dict[str, FormatInfo]]) -> None:
    home, infos = corpus
    registry = orjson.loads((home / ".gemini/projects.json").read_bytes())["projects"]
    files = sorted((home / ".gemini/tmp").glob("*/chats/session-*.jsonl"))
    assert len(files) == infos["gemini"].sessions > 1
    calls = failed = resumed = 0
    for path in files:
        project = path.parent.parent
        root = (project / ".project_root").read_text(encoding="utf-8")
        assert registry[root] == project.name
        assert (home / ".gemini/history" / project.name / ".project_root").read_text() == root
        lines = _lines(path)
        meta = lines[0]
        assert set(meta) == GEMINI_META and meta["kind"] == "main" and UUID.match(meta["sessionId"])
        assert re.fullmatch(
            r"session-\d{4}-\d\d-\d\dT\d\d-\d\d-" + meta["sessionId"][:8], path.stem
        )
        context = lines[1]["$set"]["messages"][0]
        assert context["content"][0]["text"].startswith("<session_context>")
        seen: dict[str, dict[str, Any]] = {}
        for number, line in enumerate(lines):
            if "$set" in line:
                assert set(line["$set"]) <= {"messages", "lastUpdated", "sessionId", "summary"}
                continue
            if "type" not in line:
                assert set(line) == GEMINI_META and line["sessionId"] == meta["sessionId"]
                resumed += 1
                continue
            assert ISO.match(line["timestamp"]) and UUID.match(line["id"])
            if line["type"] == "user":
                assert set(line) == GEMINI_MESSAGE
                (part,) = line["content"]
                assert set(part) in ({"text"}, {"functionResponse"})
                continue
            assert line["type"] == "gemini"
            assert set(line) in (GEMINI_MODEL, GEMINI_MODEL | {"toolCalls"})
            assert set(line["tokens"]) == GEMINI_TOKENS and isinstance(line["content"], str)
            assert all(set(t) == {"subject", "description", "timestamp"} for t in line["thoughts"])
            if "toolCalls" not in line:
                seen[line["id"]] = line
                continue
            # Written first without its calls, then again with them; the model's copy follows.
            assert {k: v for k, v in line.items() if k != "toolCalls"} == seen[line["id"]]
            (call,) = line["toolCalls"]
            assert set(call) == GEMINI_CALL and call["status"] == "success"
            assert call["id"].startswith(call["name"] + "__call_")
            after = lines[number + 1]
            assert after["type"] == "user" and after["content"] == call["result"]
            output = call["result"][0]["functionResponse"]["response"]["output"]
            calls += 1
            failed += call["name"] == "run_shell_command" and "\nExit Code: " in output
    assert calls and failed and resumed  # a failure is a success with its exit code in the output


def test_qwen_files_are_qwen_code_s(corpus: tuple[Path, dict[str, FormatInfo]]) -> None:
    home, infos = corpus
    files = sorted((home / ".qwen/projects").glob("*/chats/*.jsonl"))
    assert len(files) == infos["qwen"].sessions > 1
    kinds: Counter[str] = Counter()
    failed = 0
    for path in files:
        parent = None
        calls: set[str] = set()
        for record in _lines(path):
            assert set(record) == QWEN_COMMON | QWEN_OWN[record["type"]]
            assert record["parentUuid"] == parent and record["sessionId"] == path.stem
            assert UUID.match(record["uuid"]) and ISO.match(record["timestamp"])
            assert path.parent.parent.name == re.sub(r"[^A-Za-z0-9]", "-", record["cwd"])
            parent = record["uuid"]
            kinds[record["type"]] += 1
            if record["type"] == "system":
                kinds[record["subtype"]] += 1
                assert record["subtype"] in ("ui_telemetry", "attribution_snapshot", "custom_title")
                if record["subtype"] == "custom_title":
                    assert set(record["systemPayload"]) == {"customTitle", "titleSource"}
            elif record["type"] == "assistant":
                assert record["message"]["role"] == "model"
                assert set(record["usageMetadata"]) == QWEN_USAGE
                for part in record["message"]["parts"]:
                    assert set(part) in ({"text"}, {"text", "thought"}, {"functionCall"})
                    if "functionCall" in part:
                        calls.add(part["functionCall"]["id"])
            elif record["type"] == "tool_result":
                (part,) = record["message"]["parts"]
                response = part["functionResponse"]
                assert response["id"] == record["toolCallResult"]["callId"] in calls
                assert record["toolCallResult"]["status"] == "success"
                failed += "\nExit Code: 0\n" not in response["response"]["output"] and (
                    "\nExit Code: " in response["response"]["output"]
                )
    assert kinds["user"] and kinds["assistant"] and kinds["tool_result"]
    assert kinds["ui_telemetry"] and kinds["attribution_snapshot"] and failed
    assert kinds["custom_title"] == len(files)


def test_copilot_files_are_copilot_cli_s(corpus: tuple[Path, dict[str, FormatInfo]]) -> None:
    home, infos = corpus
    folders = sorted((home / ".copilot/session-state").iterdir())
    assert len(folders) == infos["copilot"].sessions > 1
    kinds: Counter[str] = Counter()
    failed = 0
    for folder in folders:
        assert UUID.match(folder.name)
        events = _lines(folder / "events.jsonl")
        assert events[0]["type"] == "session.start" and events[-1]["type"] == "session.shutdown"
        assert events[0]["data"]["sessionId"] == folder.name
        parent = None
        requested: set[str] = set()
        for event in events:
            assert set(event) == {"type", "data", "id", "timestamp", "parentId"}
            assert event["parentId"] == parent and UUID.match(event["id"])
            assert ISO.match(event["timestamp"])
            parent = event["id"]
            kinds[event["type"]] += 1
            assert set(event["data"]) <= COPILOT_DATA[event["type"]], event["type"]
            data = event["data"]
            if event["type"] == "assistant.message":
                requested |= {r["toolCallId"] for r in data["toolRequests"]}
            if event["type"] == "tool.execution_complete":
                assert data["toolCallId"] in requested and data["success"] is True
                if data.get("shellExecution", {}).get("exitCode"):
                    failed += 1
                    assert data["result"]["content"].endswith(
                        f"exit code {data['shellExecution']['exitCode']}>"
                    )
        workspace = (folder / "workspace.yaml").read_text(encoding="utf-8").splitlines()
        assert [line.split(":", 1)[0] for line in workspace] == COPILOT_WORKSPACE
        assert workspace[0] == f"id: {folder.name}"
    assert kinds["session.resume"] and kinds["system.message"] == len(folders) and failed


def test_opencode_database_is_opencode_s(corpus: tuple[Path, dict[str, FormatInfo]]) -> None:
    home, infos = corpus
    db = sqlite3.connect(f"file:{home / OPENCODE_DATA / 'opencode.db'}?mode=ro", uri=True)
    try:
        for table, columns in OPENCODE_COLUMNS.items():
            assert [row[1] for row in db.execute(f"PRAGMA table_info({table})")] == columns
        sessions = db.execute("SELECT id, project_id, directory, slug FROM session").fetchall()
        assert len(sessions) == infos["opencode"].sessions > 1
        worktrees = dict(db.execute("SELECT id, worktree FROM project").fetchall())
        for sid, project, directory, slug in sessions:
            assert OPENCODE_ID.match(sid) and worktrees[project] == directory
            assert re.fullmatch(r"[a-z]+-[a-z]+", slug)
        for mid, data in db.execute("SELECT id, data FROM message"):
            assert OPENCODE_ID.match(mid)
            found = orjson.loads(data)
            assert set(found) == (OPENCODE_USER if found["role"] == "user" else OPENCODE_ASSISTANT)
        types: Counter[str] = Counter()
        failed = 0
        rows = db.execute("SELECT id, time_created, data FROM part ORDER BY id")
        for pid, created, data in rows:
            assert OPENCODE_ID.match(pid) and int(pid[4:16], 16) >> 12 == created & 0xFFFFFFFFF
            part = orjson.loads(data)
            types[part["type"]] += 1
            assert OPENCODE_PARTS[part["type"]] <= set(part)
            if part["type"] == "tool":
                state = part["state"]
                assert state["status"] == "completed"
                assert {"input", "output", "metadata", "title", "time"} <= set(state)
                failed += bool(state["metadata"].get("exit"))
        assert set(types) == set(OPENCODE_PARTS) and failed
    finally:
        db.close()


def test_no_settings_or_credentials_are_written(corpus: tuple[Path, dict[str, FormatInfo]]) -> None:
    """The real homes keep settings (MCP env, provider keys) and OpenCode account tables beside
    the logs: the generated ones hold none of them."""
    home, _ = corpus
    names = {p.name for p in home.rglob("*") if p.is_file()}
    assert not names & {"settings.json", "config.json", "opencode.json", "auth.json"}
    db = sqlite3.connect(f"file:{home / OPENCODE_DATA / 'opencode.db'}?mode=ro", uri=True)
    try:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        db.close()
    assert tables == set(OPENCODE_COLUMNS)


@pytest.mark.parametrize("size", [0, 10, 16_000, 16_001, 40_000, 100_003])
def test_output_parts_are_the_parsers_parts(size: int) -> None:
    """The writers predict the events of a long output with the store's rule (the generator
    imports nothing of Origin, so it keeps its own copy)."""
    line = "filler line ........................................\n"
    for text in ((line * (size // len(line) + 1))[:size], "x" * size, ("word " * size)[:size]):
        assert output_parts(text) == split_output(text)
