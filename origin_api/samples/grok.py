"""Grok sessions: Grok Build's update streams and grok-cli's ``grok.db``.

Grok Build (origin_store/parsers/grok/build.py): ``.grok/sessions/<percent-encoded cwd>/<id>/``
holds ``updates.jsonl``, one ACP update envelope a line, and ``summary.json``. A message is
streamed as chunks that Origin joins into one event, ``grok:<eventId of its first chunk>``; a tool
call is ``grok:<session>:<toolCallId>:call`` and its final update ``…:result``; the title the
session gets after its first turn (``session_info_update``) is one more event. Progress updates
and the commands list are written too and are not events.

grok-cli (grok_cli.py): rows of ``grok.db``; a message is ``grok:<session>:<seq>``, or
``…#<part index>`` when it has several parts, and a session's recap ``grok:<session>:recap``.
The ``tool_calls`` and ``tool_results`` tables repeat the messages, as grok-cli's do.
"""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import quote

import orjson

from .common import dump, iso, uuid4, uuid7
from .context import Context
from .session import Plan, Session
from .turns import EDIT, PROMPT, READ, SHELL, THINKING, Step, Turn, conversation

MODELS = ("grok-4.5", "grok-4.5", "grok-code-fast-2", "grok-4.5-fast")
#: The tool's title and ACP kind, by family.
_KINDS = {
    READ: ("read_file", "read"),
    EDIT: ("edit_file", "edit"),
    SHELL: ("run_command", "execute"),
}
_CHUNKS = {PROMPT: "user_message_chunk", THINKING: "agent_thought_chunk"}
#: (role, kind) of the event a run of chunks becomes.
_CHUNK_EVENTS = {
    "user_message_chunk": ("user", "message"),
    "agent_thought_chunk": ("assistant", "meta"),
    "agent_message_chunk": ("assistant", "message"),
}


class GrokBuildSession(Session):
    """One Grok Build session: ``lines`` of its ``updates.jsonl`` and its ``summary``."""

    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.session_id = uuid7(self.rng, plan.start_ms)
        self.model = self.pick(MODELS)
        self.title = self.text.description()[:80]
        self.summary = b""

    def conversation_turns(self, budget: int) -> list[Turn]:
        """The chat's turns: the generator's, or a demo's script in a subclass."""
        return conversation(self, budget)

    def relpath(self) -> str:
        return f".grok/sessions/{quote(self.project.cwd, safe='')}/{self.session_id}"

    def _add(self, at: int, update: dict[str, Any], xai: bool = False, **meta: Any) -> str:
        """An envelope line; returns its eventId."""
        event = f"{self.session_id}-{len(self.lines) + 1:04d}"
        params = {
            "sessionId": self.session_id,
            "update": update,
            "_meta": {"eventId": event, "agentTimestampMs": at, **meta},
        }
        method = "_x.ai/session/update" if xai else "session/update"
        self.lines.append(dump({"timestamp": at // 1000, "method": method, "params": params}))
        return event

    def generate(self) -> None:
        start = self.plan.start_ms
        commands = [{"name": name, "description": about} for name, about in _COMMANDS]
        update = {"sessionUpdate": "available_commands_update", "availableCommands": commands}
        self._add(start, update)
        turns = self.conversation_turns(self.budget - 1)  # the title is one more event
        for turn in turns:
            self._turn(turn)
            if turn.index == 0:
                at = turn.ended + 800
                event = self._add(at, {"sessionUpdate": "session_info_update", "title": self.title})
                cjk = self.plan.lang != "en"
                self.row(f"grok:{event}", f"title: {self.title}", "meta", "system", cjk, at=at)
        ended = turns[-1].ended if turns else start
        p = self.project
        summary = {
            "info": {"id": self.session_id, "cwd": p.cwd},
            "session_summary": self.title,
            "num_messages": len(turns),
            "current_model_id": self.model,
            "chat_format_version": 1,
            "generated_title": self.title,
            "title_is_manual": False,
            "created_at": _rfc3339(start),
            "updated_at": _rfc3339(ended),
            "last_active_at": _rfc3339(ended),
            "head_branch": self.pick(p.branches),
            "git_root_dir": p.cwd,
            "reasoning_effort": self.pick(("medium", "high")),
        }
        self.summary = orjson.dumps(summary, option=orjson.OPT_INDENT_2)

    def _chunks(self, step: Step, update: str, own: dict[str, Any] | None, **meta: Any) -> None:
        """A message streamed in pieces; Origin joins them into the first piece's event."""
        text = step.text
        cuts = sorted(self.rng.randrange(1, len(text)) for _ in range(min(len(text) // 300, 8)))
        first = ""
        for number, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(text)], strict=True)):
            if a == b:
                continue
            content: dict[str, Any] = {"sessionUpdate": update}
            content["content"] = {"type": "text", "text": text[a:b]}
            if own is not None:
                content["_meta"] = own
            event = self._add(step.at + number * 40, content, **meta)
            first = first or event
        role, kind = _CHUNK_EVENTS[update]
        self.row(f"grok:{first}", text, kind, role, step.cjk, at=step.at)

    def _turn(self, turn: Turn) -> None:
        prompt_id = uuid4(self.rng)
        for step in turn.steps:
            if step.kind == PROMPT:
                self._chunks(step, _CHUNKS[PROMPT], {"promptIndex": turn.index})
            elif step.tool:
                self._tool(step, prompt_id)
            else:
                update = _CHUNKS.get(step.kind, "agent_message_chunk")
                tokens = 9000 + int(self.rng.random() * 120_000)
                self._chunks(step, update, None, promptId=prompt_id, totalTokens=tokens)

    def _tool(self, step: Step, prompt_id: str) -> None:
        call = "call_" + uuid4(self.rng).replace("-", "")[:24]
        title, kind = _KINDS[step.kind]
        raw, content, text = _build_tool(self.project.cwd, step)
        update: dict[str, Any] = {
            "sessionUpdate": "tool_call",
            "toolCallId": call,
            "title": title,
            "kind": kind,
            "status": "pending",
            "rawInput": raw,
        }
        if step.path:
            update["locations"] = [{"path": f"{self.project.cwd}/{step.path}"}]
        self._add(step.at, update, promptId=prompt_id)
        self.row(
            f"grok:{self.session_id}:{call}:call",
            f"{title} {dump(raw).decode()}",
            "tool_use",
            "assistant",
            False,
            at=step.at,
        )
        running = {"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "in_progress"}
        self._add(step.at + 5, running, promptId=prompt_id)
        status = "failed" if step.code else "completed"
        done: dict[str, Any] = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": call,
            "status": status,
            "content": content,
        }
        if step.kind == SHELL:
            done["rawOutput"] = {"exit_code": step.code}
        self._add(step.done, done, promptId=prompt_id)
        self.row(
            f"grok:{self.session_id}:{call}:result",
            text,
            "tool_result",
            "system",
            False,
            at=step.done,
        )


_COMMANDS = (
    ("compact", "Compact the conversation"),
    ("rewind", "Go back to an earlier prompt"),
    ("fork", "Fork this session"),
    ("model", "Switch the model"),
)


def _rfc3339(ms: int) -> str:
    return iso(ms)[:-1] + "000Z"


def _build_tool(cwd: str, step: Step) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """(rawInput, the final update's content, the result event's text as Origin shows it)."""
    if step.kind == EDIT:
        path = f"{cwd}/{step.path}"
        diff = {"type": "diff", "path": path, "oldText": step.old, "newText": step.new}
        raw = {"path": step.path, "old": step.old, "new": step.new}
        shown = f"diff {path}" + "".join(
            f"\n{mark}{text}" for mark, text in (("- ", step.old), ("+ ", step.new)) if text
        )
        return raw, [diff], shown
    raw = {"path": step.path} if step.kind == READ else {"command": step.command}
    content = [{"type": "content", "content": {"type": "text", "text": step.text}}]
    return raw, content, f"[error: exit code {step.code}] {step.text}" if step.code else step.text


# -- grok-cli ----------------------------------------------------------------------------------

CLI_SCHEMA = """
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
CREATE TABLE compactions (id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  first_kept_seq INTEGER NOT NULL, summary TEXT NOT NULL,
  tokens_before INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL) STRICT;
"""
_CLI_TOOLS = {READ: "read_file", EDIT: "str_replace_editor", SHELL: "bash"}


#: An assistant message's part: (the part, its event's kind, its event's text, mostly CJK).
_Part = tuple[dict[str, Any], str, str, bool]


def workspace_id(cwd: str) -> str:
    return hashlib.sha1(cwd.encode()).hexdigest()[:16]


class GrokCliSession(Session):
    """One grok-cli session: its ``session`` row, ``messages`` and tool rows (``tools``: the
    call's row and its result's, numbered by the caller, which owns the id sequence)."""

    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.session_id = f"{self.rng.getrandbits(48):012x}"
        self.model = self.pick(MODELS)
        self.title = self.text.description()[:80]
        self.session: tuple[Any, ...] = ()
        self.messages: list[tuple[Any, ...]] = []
        self.tools: list[tuple[tuple[Any, ...], tuple[Any, ...]]] = []

    def conversation_turns(self, budget: int) -> list[Turn]:
        """The chat's turns: the generator's, or a demo's script in a subclass."""
        return conversation(self, budget)

    def recap(self) -> str:
        """The session's recap (grok-cli writes one for some sessions)."""
        return " ".join(self.text.en_sentence() for _ in range(2))

    def _message(self, role: str, content: object, at: int) -> int:
        seq = len(self.messages) + 1
        message = dump({"role": role, "content": content}).decode()
        self.messages.append((self.session_id, seq, role, message, iso(at)))
        return seq

    def _parts(self, parts: list[_Part], at: int) -> int:
        """An assistant message of parts: (part, kind, event text, cjk) each."""
        seq = self._message("assistant", [part for part, _, _, _ in parts], at)
        for index, (_, kind, text, cjk) in enumerate(parts):
            eid = f"grok:{self.session_id}:{seq}" + (f"#{index}" if len(parts) > 1 else "")
            self.row(eid, text, kind, "assistant", cjk, at=at)
        return seq

    def generate(self) -> None:
        p, start = self.project, self.plan.start_ms
        recap = self.rng.random() < 0.5
        turns = self.conversation_turns(self.budget - recap)
        for turn in turns:
            self._turn(turn)
        ended = turns[-1].ended if turns else start
        summary = None
        if recap:
            summary = self.recap()
            eid = f"grok:{self.session_id}:recap"
            self.row(eid, f"recap: {summary}", "meta", "system", False, at=ended)
        self.session = (
            self.session_id,
            workspace_id(p.cwd),
            self.title,
            summary,
            self.model if recap else None,
            iso(ended) if recap else None,
            self.model,
            "agent",
            p.cwd,
            p.cwd,
            "active",
            iso(start),
            iso(ended),
        )

    def _turn(self, turn: Turn) -> None:
        prompt = turn.steps[0]
        content: object = prompt.text
        if self.rng.random() < 0.5:
            content = [{"type": "text", "text": prompt.text}]
        seq = self._message("user", content, prompt.at)
        eid = f"grok:{self.session_id}:{seq}"
        self.row(eid, prompt.text, "message", "user", prompt.cjk, at=prompt.at)
        parts: list[_Part] = []
        for step in turn.steps[1:]:
            if step.tool:
                self._tool(step, parts)
                parts = []
                continue
            kind = "meta" if step.kind == THINKING else "message"
            part = {"type": "reasoning" if kind == "meta" else "text", "text": step.text}
            parts.append((part, kind, step.text, step.cjk))
        if parts:
            self._parts(parts, turn.steps[-1].at)

    def _tool(self, step: Step, parts: list[_Part]) -> None:
        call, name = "call_" + uuid4(self.rng).replace("-", "")[:20], _CLI_TOOLS[step.kind]
        args: dict[str, Any] = (
            {"path": step.path} if step.kind == READ else {"command": step.command}
        )
        if step.kind == EDIT:
            args = {
                "command": "str_replace",
                "path": step.path,
                "old_str": step.old,
                "new_str": step.new,
            }
        part = {"type": "tool-call", "toolCallId": call, "toolName": name, "input": args}
        seq = self._parts(
            [*parts, (part, "tool_use", f"{name} {dump(args).decode()}", False)], step.at
        )
        value: dict[str, Any] = {"success": not step.code, "output": step.text}
        if step.code:
            value["error"] = f"Command failed with exit code {step.code}"
        output = {"type": "json", "value": value}
        result = {"type": "tool-result", "toolCallId": call, "toolName": name, "output": output}
        self._message("tool", [result], step.done)
        self.row(
            f"grok:{self.session_id}:{seq + 1}",
            f"[error] {step.text}" if step.code else step.text,
            "tool_result",
            "system",
            False,
            at=step.done,
        )
        status = "completed" if not step.code else "failed"
        self.tools.append(
            (
                (
                    self.session_id,
                    seq,
                    call,
                    name,
                    dump(args).decode(),
                    status,
                    iso(step.at),
                    iso(step.done),
                ),
                ("json", dump(value).decode(), int(not step.code), iso(step.done)),
            )
        )
