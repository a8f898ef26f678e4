"""ZCode sessions: rows of ``~/.zcode/cli/db/db.sqlite`` (session, message, part).

Events, as Origin's parser makes them (origin_store/parsers/zcode/source.py): ``zcode:<session id>`` a
marker of how the session started; ``zcode:<part id>`` a text or reasoning part; a tool part
``zcode:<part id>:call`` and ``:result``. Every message is complete and every tool part
``completed`` with some output, as in a session that ended, so each part is final. Step parts
(``step-start``, ``step-finish``) are written like ZCode writes them and are not events.
"""

from __future__ import annotations

from typing import Any

from .common import dump, uuid4
from .context import Context
from .session import Plan, Session
from .turns import ANSWER, EDIT, PROMPT, READ, SHELL, THINKING, Step, Turn, conversation

VERSIONS = ("0.16.7", "0.17.2", "0.18.0", "0.18.0")
MODELS = ("GLM-5.2", "GLM-5.2", "GLM-5.1", "GLM-5.2-Flash")
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"

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
CREATE TABLE local_setting (key TEXT PRIMARY KEY, value TEXT);
CREATE INDEX message_session_idx ON message(session_id);
CREATE INDEX part_message_idx ON part(message_id);
"""
SESSION_SQL = "INSERT INTO session VALUES (?,?,NULL,?,?,?,?,?,?,NULL,?,?,?,?,?,NULL,NULL)"
MESSAGE_SQL = "INSERT INTO message VALUES (?, ?, ?, ?, ?, ?)"
PART_SQL = "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?, ?)"


def b36(number: int) -> str:
    out = ""
    while number:
        number, rest = divmod(number, 36)
        out = _B36[rest] + out
    return out or "0"


class ZcodeSession(Session):
    """One session's rows; ``generate()`` fills ``session``, ``messages`` and ``parts``."""

    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.session_id = "sess_" + uuid4(self.rng)
        self.version = self.pick(VERSIONS)
        self.model = self.pick(MODELS)
        self.title = self.text.description()[:80]
        self.session: tuple[Any, ...] = ()
        self.messages: list[tuple[Any, ...]] = []
        self.parts: list[tuple[Any, ...]] = []
        self._sequence: dict[str, int] = {}

    def conversation_turns(self, budget: int) -> list[Turn]:
        """The chat's turns: the generator's, or a demo's script in a subclass."""
        return conversation(self, budget)

    def generate(self) -> None:
        p = self.project
        started = self.now
        fields = (
            ("", "interactive"),
            ("version ", self.version),
            ("cwd ", p.cwd),
            ("title ", self.title),
        )
        words = "session start: " + ", ".join(name + value for name, value in fields)
        self.row(
            f"{self.plan.source}:{self.session_id}", words, "meta", "system", False, at=started
        )
        turns = self.conversation_turns(self.budget)
        for turn in turns:
            self._turn(turn)
        files = self.rng.randrange(1, 12)
        self.session = (
            self.session_id,
            f"proj_{p.name}",
            self.session_id.replace("_", "-"),
            p.cwd,
            self.title,
            self.version,
            "interactive",
            dump({"mode": "default"}).decode(),
            self.rng.randrange(files * 40),
            self.rng.randrange(files * 15),
            files,
            started,
            max(started, turns[-1].ended if turns else started),
        )

    # -- rows ---------------------------------------------------------------------------------

    def _next(self, scope: str) -> int:
        self._sequence[scope] = self._sequence.get(scope, -1) + 1
        return self._sequence[scope]

    def _message(self, at: int, done: int, data: dict[str, Any]) -> str:
        mid = f"msg_{b36(at)}_{uuid4(self.rng)}"
        data["time"] = {"created": at, "completed": done}
        row = (mid, self.session_id, at, done, dump(data).decode(), self._next(self.session_id))
        self.messages.append(row)
        return mid

    def _part(self, mid: str, at: int, done: int, data: dict[str, Any]) -> str:
        pid = f"part_{b36(at)}_{uuid4(self.rng)}"
        row = (pid, mid, self.session_id, at, done, dump(data).decode(), self._next(mid))
        self.parts.append(row)
        return pid

    def _assistant(self, parent: str, steps: list[Step], finish: str) -> None:
        p = self.project
        first, last = steps[0].at, max(steps[-1].at, steps[-1].done)
        r = self.rng.random
        data: dict[str, Any] = {
            "role": "assistant",
            "parentID": parent,
            "providerId": "zai",
            "modelId": self.model,
            "mode": "build",
            "agent": "build",
            "path": {"cwd": p.cwd, "root": p.cwd},
            "finish": finish,
            "tokens": {
                "input": 9000 + int(r() * 90_000),
                "output": 20 + int(r() * 3000),
                "reasoning": int(r() * 900),
                "cache": {"read": int(r() * 80_000), "write": 0},
            },
        }
        mid = self._message(first - 200, last + 50, data)
        self._part(mid, first - 199, first - 199, {"type": "step-start"})
        for step in steps:
            if step.tool:
                self._tool(mid, step)
            else:
                pid = self._part(
                    mid,
                    step.at,
                    step.at,
                    {
                        "type": "reasoning" if step.kind == THINKING else "text",
                        "text": step.text,
                        "time": {"start": step.at - 400, "end": step.at},
                    },
                )
                kind = "meta" if step.kind == THINKING else "message"
                self.row(
                    f"{self.plan.source}:{pid}", step.text, kind, "assistant", step.cjk, at=step.at
                )
        self._part(
            mid,
            last + 40,
            last + 40,
            {"type": "step-finish", "reason": finish, "tokens": data["tokens"]},
        )

    def _turn(self, turn: Turn) -> None:
        prompt = turn.steps[0]
        assert prompt.kind == PROMPT
        data: dict[str, Any] = {
            "role": "user",
            "anchor": {"turnId": "turn_" + uuid4(self.rng)},
            "semantics": {"kind": "real_user"},
            "modelSelection": {"providerId": "zai", "modelId": self.model},
            "metadata": {"inputIntent": {"text": prompt.text}},
        }
        user = self._message(prompt.at, prompt.at, data)
        pid = self._part(user, prompt.at + 1, prompt.at + 1, {"type": "text", "text": prompt.text})
        self.row(
            f"{self.plan.source}:{pid}",
            prompt.text,
            "message",
            "user",
            prompt.cjk,
            at=prompt.at + 1,
        )
        work = [step for step in turn.steps[1:] if step.kind != ANSWER]
        if work:
            self._assistant(user, work, "tool-calls")
        answer = [step for step in turn.steps[1:] if step.kind == ANSWER]
        if answer:
            self._assistant(user, answer, "stop")

    def _tool(self, mid: str, step: Step) -> None:
        cwd = self.project.cwd
        name, args, output = _TOOLS[step.kind](cwd, step)
        metadata: dict[str, Any] = {"schemaVersion": 1, "truncated": False}
        if step.kind == SHELL:
            metadata["exit"] = step.code
        state = {
            "status": "completed",
            "input": args,
            "output": output,
            "title": step.path or step.command,
            "metadata": metadata,
            "time": {"start": step.at, "end": step.done},
        }
        call = "call_" + uuid4(self.rng).replace("-", "")[:24]
        data = {"type": "tool", "callID": call, "tool": name, "state": state}
        pid = self._part(mid, step.at, step.done, data)
        self.row(
            f"{self.plan.source}:{pid}:call",
            f"{name} {dump(args).decode()}",
            "tool_use",
            "assistant",
            False,
            at=step.at,
        )
        shown = f"[error: exit code {step.code}] {output}" if step.code else output
        self.row(
            f"{self.plan.source}:{pid}:result", shown, "tool_result", "system", False, at=step.done
        )


def _read(cwd: str, step: Step) -> tuple[str, dict[str, Any], str]:
    return "read", {"filePath": f"{cwd}/{step.path}"}, step.text


def _edit(cwd: str, step: Step) -> tuple[str, dict[str, Any], str]:
    args = {"filePath": f"{cwd}/{step.path}", "oldString": step.old, "newString": step.new}
    return "edit", args, f"Edit applied successfully.\n{step.text}"


def _shell(cwd: str, step: Step) -> tuple[str, dict[str, Any], str]:
    return "bash", {"command": step.command, "description": f"Run {step.command}"}, step.text


_TOOLS = {READ: _read, EDIT: _edit, SHELL: _shell}
