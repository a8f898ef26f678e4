"""Cursor chats: the IDE's ``cursorDiskKV`` rows and the ``cursor-agent`` CLI's ``store.db``.

IDE (origin_store/parsers/cursor/ide.py): a chat is a ``composerData:<composerId>`` row and one
``bubbleId:<composerId>:<bubbleId>`` row per message; each step of the conversation is its own
bubble, so events are ``cursor:<composerId>:<bubbleId>`` for a prompt or an answer, ``…:thinking``
for thinking, ``…:call`` and ``…:result`` for a tool bubble. The formats module writes every
chat's rows into one ``globalStorage/state.vscdb`` and a workspace database per folder.

CLI (cursor_cli.py): ``chats/<md5(cwd)>/<agentId>/store.db``, content-addressed JSON blobs (a
system prompt, then per turn the user's query, assistant messages of parts and tool results) and
a protobuf root per turn. A blob is ``cursor:<agentId>:<sha256>``, or ``…#<part index>`` when it
holds several parts; its time is the chat's ``createdAt`` plus its row number, as the parser
gives it (the CLI stores no times of its own).
"""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import quote

from .common import dump, iso, uuid4
from .context import Context
from .session import Plan, Session
from .turns import EDIT, PROMPT, READ, SHELL, THINKING, Step, Turn, conversation

MODELS = ("claude-4.5-sonnet", "gpt-5.5", "claude-4.5-sonnet", "composer-1", "gemini-3-pro")
KV_SCHEMA = """
CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
"""
CLI_SCHEMA = """
CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
"""
#: Cursor's tool numbers, as its bubbles keep them.
_TOOL_NUMBERS = {READ: 5, SHELL: 15, EDIT: 38}


def file_uri(path: str) -> str:
    return "file://" + quote(path)


def _rich_text(text: str) -> str:
    """The editor's copy of a typed prompt (Lexical JSON), which Origin never reads."""
    leaf = {
        "detail": 0,
        "format": 0,
        "mode": "normal",
        "style": "",
        "text": text,
        "type": "text",
        "version": 1,
    }
    paragraph = {
        "children": [leaf],
        "direction": "ltr",
        "format": "",
        "indent": 0,
        "type": "paragraph",
        "version": 1,
    }
    root = {
        "children": [paragraph],
        "direction": "ltr",
        "format": "",
        "indent": 0,
        "type": "root",
        "version": 1,
    }
    return dump({"root": root}).decode()


class CursorIdeSession(Session):
    """One IDE chat: ``kv`` holds its ``cursorDiskKV`` rows, composer last."""

    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.session_id = uuid4(self.rng)
        self.model = self.pick(MODELS)
        self.title = self.text.description()[:80]
        self.kv: list[tuple[str, str]] = []
        self.ended = plan.start_ms

    def conversation_turns(self, budget: int) -> list[Turn]:
        """The chat's turns: the generator's, or a demo's script in a subclass."""
        return conversation(self, budget)

    def generate(self) -> None:
        headers: list[dict[str, Any]] = []
        for turn in self.conversation_turns(self.budget):
            for step in turn.steps:
                bubble = uuid4(self.rng)
                data = self._bubble(bubble, step)
                headers.append({"bubbleId": bubble, "type": data["type"]})
                self.kv.append((f"bubbleId:{self.session_id}:{bubble}", dump(data).decode()))
            self.ended = turn.ended
        p = self.project
        composer = {
            "_v": 10,
            "composerId": self.session_id,
            "name": self.title,
            "createdAt": self.plan.start_ms,
            "lastUpdatedAt": self.ended,
            "status": "completed",
            "unifiedMode": "agent",
            "modelConfig": {"modelName": self.model, "maxMode": False},
            "fullConversationHeadersOnly": headers,
            "text": "",
            "richText": "",
            "contextTokensUsed": self.rng.randrange(8000, 180_000),
            "hasUnreadMessages": False,
            "workspaceIdentifier": {
                "id": hashlib.md5(p.cwd.encode()).hexdigest(),
                "uri": {
                    "fsPath": p.cwd,
                    "external": file_uri(p.cwd),
                    "path": p.cwd,
                    "scheme": "file",
                },
            },
        }
        self.kv.append((f"composerData:{self.session_id}", dump(composer).decode()))

    def _bubble(self, bubble: str, step: Step) -> dict[str, Any]:
        base = f"cursor:{self.session_id}:{bubble}"
        at = iso(step.at)
        if step.kind == PROMPT:
            self.row(base, step.text, "message", "user", step.cjk, at=step.at)
            return {
                "_v": 3,
                "type": 1,
                "bubbleId": bubble,
                "createdAt": at,
                "text": step.text,
                "richText": _rich_text(step.text),
                "context": {"fileSelections": []},
            }
        data: dict[str, Any] = {
            "_v": 3,
            "type": 2,
            "bubbleId": bubble,
            "createdAt": at,
            "requestId": uuid4(self.rng),
            "isAgentic": True,
            "tokenCount": {"inputTokens": 0, "outputTokens": 0},
        }
        if step.kind == THINKING:
            data["text"] = ""
            data["thinking"] = {"text": step.text}
            self.row(base + ":thinking", step.text, "meta", "assistant", step.cjk, at=step.at)
        elif step.tool:
            data["text"] = ""
            data["capabilityType"] = 15
            data["toolFormerData"] = self._tool(base, step)
        else:
            data["text"] = step.text
            self.row(base, step.text, "message", "assistant", step.cjk, at=step.at)
        return data

    def _tool(self, base: str, step: Step) -> dict[str, Any]:
        name, args, result, text = _IDE_TOOLS[step.kind](step)
        raw = dump(args).decode()
        self.row(base + ":call", f"{name} {raw}", "tool_use", "assistant", False, at=step.at)
        shown = f"[error: exit code {step.code}] {text}" if step.code else text
        self.row(base + ":result", shown, "tool_result", "system", False, at=step.at)
        return {
            "tool": _TOOL_NUMBERS[step.kind],
            "toolCallId": "toolu_" + uuid4(self.rng)[:23],
            "name": name,
            "status": "completed",
            "rawArgs": raw,
            "params": raw,
            "result": dump(result).decode(),
            "additionalData": {},
        }


def _ide_read(step: Step) -> tuple[str, dict[str, Any], dict[str, Any], str]:
    lines = step.text.count("\n") + 1
    args = {
        "target_file": step.path,
        "should_read_entire_file": False,
        "start_line_one_indexed": 1,
        "end_line_one_indexed_inclusive": lines,
    }
    return "read_file", args, {"contents": step.text}, step.text


def _ide_edit(step: Step) -> tuple[str, dict[str, Any], dict[str, Any], str]:
    removed, added = step.old.split("\n"), step.new.split("\n")
    diff = "\n".join(["-" + line for line in removed] + ["+" + line for line in added])
    chunk = {
        "diffString": diff,
        "oldStart": 1,
        "newStart": 1,
        "oldLines": len(removed),
        "newLines": len(added),
        "linesRemoved": len(removed),
        "linesAdded": len(added),
    }
    args = {"target_file": step.path, "instructions": step.text, "code_edit": step.new}
    return "edit_file", args, {"diff": {"chunks": [chunk]}, "isApplied": True}, diff


def _ide_shell(step: Step) -> tuple[str, dict[str, Any], dict[str, Any], str]:
    args = {"command": step.command, "is_background": False}
    result = {"output": step.text, "exitCode": step.code, "rejected": False}
    return "run_terminal_cmd", args, result, step.text


_IDE_TOOLS = {READ: _ide_read, EDIT: _ide_edit, SHELL: _ide_shell}


# -- cursor-agent ---------------------------------------------------------------------------


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint((number << 3) | 2) + _varint(len(payload)) + payload


class CursorCliSession(Session):
    """One ``cursor-agent`` chat: ``blobs`` (id, data) in row order, ``meta`` and, for newer
    versions, the ``meta.json`` beside the store."""

    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.session_id = uuid4(self.rng)
        self.model = self.pick(MODELS)
        self.title = self.text.description()[:80]
        self.blobs: list[tuple[str, bytes]] = []
        self.meta = ""
        self.meta_json: bytes | None = None
        self._ids: set[str] = set()
        self._messages: list[bytes] = []

    def conversation_turns(self, budget: int) -> list[Turn]:
        """The chat's turns: the generator's, or a demo's script in a subclass."""
        return conversation(self, budget)

    def relpath(self) -> str:
        folder = hashlib.md5(self.project.cwd.encode()).hexdigest()
        return f".cursor/chats/{folder}/{self.session_id}/store.db"

    def _blob(self, data: bytes) -> tuple[str, int] | None:
        """Stores a blob; (its id, its row number), or None when the store already has it."""
        blob = hashlib.sha256(data).hexdigest()
        if blob in self._ids:
            return None
        self._ids.add(blob)
        self.blobs.append((blob, data))
        return blob, len(self.blobs)

    def _message(self, message: dict[str, Any], events: list[tuple[str, str, str, bool]]) -> None:
        """A JSON message blob and its events: (role, kind, text, cjk) per part kept."""
        found = self._blob(dump(message))
        if found is None:
            return  # the same words again: one blob, one event
        blob, number = found
        self._messages.append(bytes.fromhex(blob))
        base = f"cursor:{self.session_id}:{blob}"
        for index, (role, kind, text, cjk) in enumerate(events):
            eid = f"{base}#{index}" if len(events) > 1 else base
            self.row(eid, text, kind, role, cjk, at=self.plan.start_ms + number)

    def generate(self) -> None:
        cwd = self.project.cwd
        system = (
            f"You are an AI coding assistant, powered by {self.model}. You operate in the Cursor"
            f" CLI, in the workspace {cwd}."
        )
        self._message({"role": "system", "content": system}, [("system", "system", system, False)])
        turns = self.conversation_turns(self.budget)
        root = ""
        for turn in turns:
            self._turn(turn, cwd)
            data = b"".join(_field(1, m) for m in self._messages) + _field(
                9, file_uri(cwd).encode()
            )
            found = self._blob(data)
            root = found[0] if found else root
        ended = turns[-1].ended if turns else self.plan.start_ms
        meta = {
            "agentId": self.session_id,
            "latestRootBlobId": root,
            "name": self.title,
            "mode": "default",
            "createdAt": self.plan.start_ms,
            "lastUsedModel": self.model,
        }
        self.meta = dump(meta).hex()
        if self.rng.random() < 0.5:
            self.meta_json = dump(
                {
                    "schemaVersion": 1,
                    "title": self.title,
                    "cwd": cwd,
                    "createdAtMs": self.plan.start_ms,
                    "updatedAtMs": ended,
                    "hasConversation": True,
                    "isSubagent": False,
                }
            )

    def _turn(self, turn: Turn, cwd: str) -> None:
        prompt = turn.steps[0]
        query = f"<user_query>\n{prompt.text}\n</user_query>"
        if turn.index == 0:
            info = f"<user_info>\nOS Version: linux 6.8.0\nShell: bash\nWorkspace Path: {cwd}\n</user_info>\n"
            query = info + query
        user = {"role": "user", "content": [{"type": "text", "text": query}]}
        self._message(user, [("user", "message", prompt.text.strip(), prompt.cjk)])
        parts: list[dict[str, Any]] = []
        events: list[tuple[str, str, str, bool]] = []
        for step in turn.steps[1:]:
            if not step.tool:
                kind = "meta" if step.kind == THINKING else "message"
                parts.append({"type": "reasoning" if kind == "meta" else "text", "text": step.text})
                events.append(("assistant", kind, step.text, step.cjk))
                continue
            call = "toolu_" + uuid4(self.rng).replace("-", "")[:24]
            name, args, output = _CLI_TOOLS[step.kind](step)
            parts.append({"type": "tool-call", "toolCallId": call, "toolName": name, "args": args})
            events.append(("assistant", "tool_use", f"{name} {dump(args).decode()}", False))
            self._message({"role": "assistant", "content": parts}, events)
            result: dict[str, Any] = {
                "type": "tool-result",
                "toolCallId": call,
                "toolName": name,
                "result": output,
            }
            shown = output
            if step.code:
                result["isError"] = True
                shown = f"[error] {output}"
            self._message(
                {"role": "tool", "content": [result]}, [("system", "tool_result", shown, False)]
            )
            parts, events = [], []
        if parts:
            self._message({"role": "assistant", "content": parts}, events)


def _cli_read(step: Step) -> tuple[str, dict[str, Any], str]:
    return "Read", {"path": step.path}, step.text


def _cli_edit(step: Step) -> tuple[str, dict[str, Any], str]:
    args = {"path": step.path, "old_string": step.old, "new_string": step.new}
    return "StrReplace", args, f"The file {step.path} has been updated."


def _cli_shell(step: Step) -> tuple[str, dict[str, Any], str]:
    return "Shell", {"command": step.command}, step.text


_CLI_TOOLS = {READ: _cli_read, EDIT: _cli_edit, SHELL: _cli_shell}
