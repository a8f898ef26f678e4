"""OpenCode sessions: rows of ``~/.local/share/opencode/opencode.db`` (project, session,
message, part), in the columns OpenCode 1.18 creates.

Ids are OpenCode's: a prefix, twelve hex digits of the time in ms times 4096 plus a counter
(a session's inverted, so the newest sorts first) and fourteen random base62 characters.

Events, as Origin's parser makes them: ``opencode:<session id>`` a marker of how the session
started; ``opencode:<part id>`` a text or reasoning part; a tool part ``opencode:<part id>:call``
and ``:result``. Every part is final (``completed``); step parts are written as OpenCode writes
them and are not events. A shell command that fails is ``completed`` with ``metadata.exit`` set:
its result is an error (``[error: exit code N]``, as ZCode's, whose rows are OpenCode's).
"""

from __future__ import annotations

import hashlib
from typing import Any

from .common import ONE_PART, b62, dump
from .context import Context
from .session import Plan, Session
from .turns import ANSWER, EDIT, PROMPT, READ, SHELL, THINKING, Step, Turn, conversation

VERSIONS = ("1.16.4", "1.17.9", "1.18.33", "1.18.33")
#: (providerID, modelID)
MODELS = (
    ("anthropic", "claude-sonnet-4-8"),
    ("anthropic", "claude-sonnet-4-8"),
    ("openai", "gpt-5.4"),
    ("opencode", "big-pickle"),
)
_WORDS = ("stellar", "glowing", "eager", "quiet", "brave", "misty", "swift", "calm", "lucky")
_NOUNS = ("circuit", "planet", "island", "harbor", "comet", "forest", "engine", "garden")

#: The tables Origin reads, as OpenCode's migrations leave them.
SCHEMA = """
CREATE TABLE `project` (
          `id` text PRIMARY KEY,
          `worktree` text NOT NULL,
          `vcs` text,
          `name` text,
          `icon_url` text,
          `icon_url_override` text,
          `icon_color` text,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `time_initialized` integer,
          `sandboxes` text NOT NULL,
          `commands` text
        );
CREATE TABLE `session` (
          `id` text PRIMARY KEY,
          `project_id` text NOT NULL,
          `workspace_id` text,
          `parent_id` text,
          `slug` text NOT NULL,
          `directory` text NOT NULL,
          `path` text,
          `title` text NOT NULL,
          `version` text NOT NULL,
          `share_url` text,
          `summary_additions` integer,
          `summary_deletions` integer,
          `summary_files` integer,
          `summary_diffs` text,
          `metadata` text,
          `cost` real DEFAULT 0 NOT NULL,
          `tokens_input` integer DEFAULT 0 NOT NULL,
          `tokens_output` integer DEFAULT 0 NOT NULL,
          `tokens_reasoning` integer DEFAULT 0 NOT NULL,
          `tokens_cache_read` integer DEFAULT 0 NOT NULL,
          `tokens_cache_write` integer DEFAULT 0 NOT NULL,
          `revert` text,
          `permission` text,
          `agent` text,
          `model` text,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `time_compacting` integer,
          `time_archived` integer,
          CONSTRAINT `fk_session_project_id_project_id_fk`
          FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
        );
CREATE INDEX `session_project_idx` ON `session` (`project_id`);
CREATE INDEX `session_workspace_idx` ON `session` (`workspace_id`);
CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);
CREATE TABLE `message` (
          `id` text PRIMARY KEY,
          `session_id` text NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `data` text NOT NULL,
          CONSTRAINT `fk_message_session_id_session_id_fk`
          FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
        );
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE TABLE `part` (
          `id` text PRIMARY KEY,
          `message_id` text NOT NULL,
          `session_id` text NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `data` text NOT NULL,
          CONSTRAINT `fk_part_message_id_message_id_fk`
          FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE
        );
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
CREATE INDEX `part_session_idx` ON `part` (`session_id`);
"""
PROJECT_SQL = (
    "INSERT INTO project VALUES (?, ?, 'git', NULL, NULL, NULL, NULL, ?, ?, NULL, '[]', NULL)"
)
SESSION_SQL = (
    "INSERT INTO session VALUES (?,?,NULL,NULL,?,?,'',?,?,NULL,?,?,?,NULL,NULL,?,?,?,?,?,0,NULL,"
    "?,'build',?,?,?,NULL,NULL)"
)
MESSAGE_SQL = "INSERT INTO message VALUES (?, ?, ?, ?, ?)"
PART_SQL = "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)"
PERMISSION = [{"permission": "question", "pattern": "*", "action": "deny"}]


def project_id(cwd: str) -> str:
    """The project's id: its repository's root commit (here a hash of the folder)."""
    return hashlib.sha1(f"root-commit:{cwd}".encode()).hexdigest()


class OpencodeSession(Session):
    """One session's rows; ``generate()`` fills ``session``, ``messages`` and ``parts``."""

    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self._counter = 0
        self.session_id = self._id("ses", plan.start_ms, descending=True)
        self.version = self.pick(VERSIONS)
        self.provider, self.model = self.pick(MODELS)
        self.title = self.text.description()[:80]
        self.session: tuple[Any, ...] = ()
        self.messages: list[tuple[Any, ...]] = []
        self.parts: list[tuple[Any, ...]] = []
        self.ended = plan.start_ms

    def conversation_turns(self, budget: int) -> list[Turn]:
        """The chat's turns: the generator's, or a demo's script in a subclass."""
        return conversation(self, budget)

    def _id(self, prefix: str, ms: int, descending: bool = False) -> str:
        self._counter = (self._counter + 1) % 0x1000
        number = ms * 0x1000 + self._counter
        if descending:
            number = ~number
        return f"{prefix}_{number & 0xFFFFFFFFFFFF:012x}{b62(self.rng, 14)}"

    def generate(self) -> None:
        p = self.project
        started = self.plan.start_ms
        fields = (
            ("version ", self.version),
            ("model ", f"{self.provider}/{self.model}"),
            ("cwd ", p.cwd),
            ("title ", self.title),
        )
        words = "session start: " + ", ".join(name + value for name, value in fields)
        self.row(f"opencode:{self.session_id}", words, "meta", "system", False, at=started)
        turns = self.conversation_turns(self.budget)
        totals = [0, 0, 0, 0]
        for turn in turns:
            for tokens in self._turn(turn):
                totals = [a + b for a, b in zip(totals, tokens, strict=True)]
        self.ended = max(started, turns[-1].ended if turns else started)
        files = self.rng.randrange(1, 12)
        slug = f"{self.pick(_WORDS)}-{self.pick(_NOUNS)}"
        model = {"id": self.model, "providerID": self.provider, "variant": "default"}
        self.session = (
            self.session_id,
            project_id(p.cwd),
            slug,
            p.cwd,
            self.title,
            self.version,
            self.rng.randrange(files * 40),
            self.rng.randrange(files * 15),
            files,
            round(self.rng.random() * 2, 4),
            *totals,
            dump(PERMISSION).decode(),
            dump(model).decode(),
            started,
            self.ended + 300,
        )

    def _message(self, at: int, done: int, data: dict[str, Any]) -> str:
        mid = self._id("msg", at)
        self.messages.append((mid, self.session_id, at, done, dump(data).decode()))
        return mid

    def _part(self, mid: str, at: int, done: int, data: dict[str, Any]) -> str:
        pid = self._id("prt", at)
        self.parts.append((pid, mid, self.session_id, at, done, dump(data).decode()))
        return pid

    def _turn(self, turn: Turn) -> list[list[int]]:
        prompt = turn.steps[0]
        assert prompt.kind == PROMPT
        data: dict[str, Any] = {
            "role": "user",
            "time": {"created": prompt.at},
            "agent": "build",
            "model": {"providerID": self.provider, "modelID": self.model},
            "summary": {"diffs": []},
        }
        user = self._message(prompt.at, prompt.at + 5, data)
        pid = self._part(user, prompt.at + 1, prompt.at + 3, {"type": "text", "text": prompt.text})
        self.row(f"opencode:{pid}", prompt.text, "message", "user", prompt.cjk, at=prompt.at + 1)
        used: list[list[int]] = []
        work = [step for step in turn.steps[1:] if step.kind != ANSWER]
        if work:
            used.append(self._assistant(user, work, "tool-calls"))
        answer = [step for step in turn.steps[1:] if step.kind == ANSWER]
        if answer:
            used.append(self._assistant(user, answer, "stop"))
        return used

    def _assistant(self, parent: str, steps: list[Step], finish: str) -> list[int]:
        p = self.project
        first, last = steps[0].at, max(steps[-1].at, steps[-1].done)
        r = self.rng.random
        used = [9000 + int(r() * 90_000), 20 + int(r() * 3000), int(r() * 900), int(r() * 80_000)]
        tokens = {
            "input": used[0],
            "output": used[1],
            "reasoning": used[2],
            "cache": {"write": 0, "read": used[3]},
        }
        total = used[0] + used[1] + used[2]
        data: dict[str, Any] = {
            "parentID": parent,
            "role": "assistant",
            "mode": "build",
            "agent": "build",
            "path": {"cwd": p.cwd, "root": p.cwd},
            "cost": 0,
            "tokens": {"total": total, **tokens},
            "modelID": self.model,
            "providerID": self.provider,
            "time": {"created": first - 200, "completed": last + 50},
            "finish": finish,
        }
        mid = self._message(first - 200, last + 52, data)
        snapshot = f"{self.rng.getrandbits(160):040x}"
        self._part(mid, first - 199, first - 197, {"snapshot": snapshot, "type": "step-start"})
        for step in steps:
            if step.tool:
                self._tool(mid, step)
                continue
            kind = "reasoning" if step.kind == THINKING else "text"
            part = {"type": kind, "text": step.text, "time": {"start": step.at, "end": step.at + 5}}
            pid = self._part(mid, step.at, step.at + 9, part)
            event = "meta" if step.kind == THINKING else "message"
            self.row(f"opencode:{pid}", step.text, event, "assistant", step.cjk, at=step.at)
        finished = {
            "reason": finish,
            "snapshot": snapshot,
            "type": "step-finish",
            "tokens": data["tokens"],
            "cost": 0,
        }
        self._part(mid, last + 40, last + 42, finished)
        return used

    def _tool(self, mid: str, step: Step) -> None:
        name, args, output, title = _TOOLS[step.kind](self.project.cwd, step)
        metadata: dict[str, Any] = {"output": output, "truncated": False}
        if step.kind == SHELL:
            metadata["exit"] = step.code
        state = {
            "status": "completed",
            "input": args,
            "output": output,
            "metadata": metadata,
            "title": title,
            "time": {"start": step.at, "end": step.done},
        }
        call = f"call_{self.rng.getrandbits(80):020x}"
        pid = self._part(
            mid,
            step.at - 15,
            step.done + 2,
            {"type": "tool", "tool": name, "callID": call, "state": state},
        )
        text = f"{name} {dump(args).decode()}"
        self.row(f"opencode:{pid}:call", text, "tool_use", "assistant", False, at=step.at)
        shown = f"[error: exit code {step.code}] {output}" if step.code else output
        self.row(f"opencode:{pid}:result", shown, "tool_result", "system", False, at=step.done)


def _read(cwd: str, step: Step) -> tuple[str, dict[str, Any], str, str]:
    lines = step.text[:ONE_PART].split("\n")  # numbered, it stays within what an event shows
    numbered = "\n".join(f"{n:05d}| {line}" for n, line in enumerate(lines, 1))
    return "read", {"filePath": f"{cwd}/{step.path}"}, f"<file>\n{numbered}\n</file>", step.path


def _edit(cwd: str, step: Step) -> tuple[str, dict[str, Any], str, str]:
    args = {"filePath": f"{cwd}/{step.path}", "oldString": step.old, "newString": step.new}
    return "edit", args, "Edit applied successfully.", step.path


def _shell(cwd: str, step: Step) -> tuple[str, dict[str, Any], str, str]:
    args = {"command": step.command, "description": f"Run {step.command[:60]}"}
    return "bash", args, step.text, step.command


_TOOLS = {READ: _read, EDIT: _edit, SHELL: _shell}
