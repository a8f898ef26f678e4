"""Gemini CLI sessions: ``.gemini/tmp/<project>/chats/session-<minute>-<id8>.jsonl``.

A file opens with a metadata line and a ``$set`` checkpoint holding the injected
``<session_context>`` message; every message is a line of its own and each line but the
metadata is followed by a ``$set`` of ``lastUpdated``. A model message that calls a tool is
written twice under one id, first without its ``toolCalls`` and then with them, and the tool's
result follows as a ``user`` message of the ``functionResponse`` (the copy the model is sent).
A session resumed a day or more later gets a new metadata line and a checkpoint of its whole
history, as ``gemini --resume`` writes them.

Events, as Origin's parser makes them: ``gemini:<session>:<message id>`` a prompt or an answer,
``…:thought:<n>`` a thought of a model message, ``…:call:<tool call id>`` and
``…:result:<tool call id>`` a tool call and its result. Shell commands that fail are recorded
as ``success`` with ``Exit Code`` in the output; their results are errors.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from .common import dump, iso, uuid4
from .context import Context
from .session import Plan, Session
from .turns import ANSWER, EDIT, PROMPT, READ, SHELL, TEXT, THINKING, Step, Turn, conversation

MODELS = ("gemini-3.8-pro", "gemini-3.8-pro", "gemini-3.8-flash", "gemini-3.5-pro")
#: A later turn this long after the previous one is a ``--resume`` of the session.
RESUME_MS = 3_600_000


def short_id(cwd: str) -> str:
    """The project's name in ``projects.json`` and its folders: the root's basename."""
    return cwd.rstrip("/").rsplit("/", 1)[-1] or "root"


def project_hash(cwd: str) -> str:
    return hashlib.sha256(cwd.encode()).hexdigest()


def session_context(cwd: str, home: str, when_ms: int) -> str:
    day = time.strftime("%A, %B %-d, %Y", time.gmtime(when_ms // 1000))
    return (
        "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
        f"Today's date is {day} (formatted according to the user's locale).\n"
        f"My operating system is: linux\nThe project's temporary directory is: "
        f"{home}/.gemini/tmp/{short_id(cwd)}\n- **Workspace Directories:**\n  - {cwd}\n"
        "- **Directory Structure:**\n\nShowing up to 200 items (files + folders).\n\n"
        f"{cwd}/\n├───README.md\n└───.git/...\n\n</session_context>"
    )


def shell_output(out: str, code: int, pgid: int) -> str:
    exit_line = f"Exit Code: {code}\n" if code else ""
    return f"<untrusted_context>\nOutput: {out}\n{exit_line}Process Group PGID: {pgid}\n</untrusted_context>"


class GeminiSession(Session):
    """One session's ``lines``; ``generate()`` fills them and the events."""

    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.session_id = uuid4(self.rng)
        self.model = self.pick(MODELS)
        self.title = self.text.description()[:80]
        self.context_id = f"{self.rng.getrandbits(128):032x}"
        self.history: list[dict[str, Any]] = []
        self.updated = plan.start_ms

    def conversation_turns(self, budget: int) -> list[Turn]:
        """The chat's turns: the generator's, or a demo's script in a subclass."""
        return conversation(self, budget)

    def relpath(self) -> str:
        minute = time.strftime("%Y-%m-%dT%H-%M", time.gmtime(self.plan.start_ms // 1000))
        chats = f".gemini/tmp/{short_id(self.project.cwd)}/chats"
        return f"{chats}/session-{minute}-{self.session_id[:8]}.jsonl"

    def _set(self, at: int, **fields: Any) -> None:
        self.updated = max(self.updated, at)
        self.lines.append(dump({"$set": {**fields, "lastUpdated": iso(self.updated)}}))

    def _open(self, at: int, resumed: bool) -> None:
        meta = {
            "sessionId": self.session_id,
            "projectHash": project_hash(self.project.cwd),
            "startTime": iso(at),
            "lastUpdated": iso(at),
            "kind": "main",
        }
        self.lines.append(dump(meta))
        home = self.project.cwd.split("/")[:3]
        text = session_context(self.project.cwd, "/".join(home), at)
        first: dict[str, Any] = {"id": self.context_id, "timestamp": iso(at), "type": "user"}
        first["content"] = [{"text": text}]
        if resumed:
            stamp = iso(at)
            messages = [first] + [{**m, "timestamp": stamp} for m in self.history]
            self._set(at, messages=messages)
            self.lines.append(dump({"$set": {"sessionId": self.session_id}}))
        else:
            self._set(at, messages=[first])

    def _message(self, record: dict[str, Any], at: int) -> None:
        self.lines.append(dump(record))
        self._set(at)

    def generate(self) -> None:
        self._open(self.plan.start_ms, False)
        last = self.plan.start_ms
        for turn in self.conversation_turns(self.budget):
            if turn.started - last > RESUME_MS and self.history:
                self._open(turn.started - 2000, True)
            self._turn(turn)
            if turn.index == 0:  # the session-summary service names the session
                self._set(turn.ended + 1500, summary=self.title)
            last = turn.ended

    def _turn(self, turn: Turn) -> None:
        prompt = turn.steps[0]
        assert prompt.kind == PROMPT
        mid = uuid4(self.rng)
        record: dict[str, Any] = {"id": mid, "timestamp": iso(prompt.at), "type": "user"}
        record["content"] = [{"text": prompt.text}]
        self._message(record, prompt.at)
        self.history.append(record)
        self.row(
            f"gemini:{self.session_id}:{mid}",
            prompt.text,
            "message",
            "user",
            prompt.cjk,
            at=prompt.at,
        )
        thoughts: list[Step] = []
        said: Step | None = None
        for step in turn.steps[1:]:
            if step.kind == THINKING:
                thoughts.append(step)
            elif step.kind == TEXT:
                said = step
            else:
                self._reply(thoughts, said, step)
                thoughts, said = [], None
        if thoughts or said:
            self._reply(thoughts, said, None)

    def _tokens(self) -> dict[str, int]:
        r = self.rng.random
        tokens = {
            "input": 9000 + int(r() * 90_000),
            "output": 20 + int(r() * 3000),
            "cached": int(r() * 60_000),
            "thoughts": int(r() * 900),
            "tool": 0,
        }
        tokens["total"] = tokens["input"] + tokens["output"] + tokens["thoughts"]
        return tokens

    def _reply(self, thoughts: list[Step], said: Step | None, step: Step | None) -> None:
        """One model message: its thoughts, its text (commentary or the answer) and at most one
        tool call, written again with the call once it ran."""
        answer = step if step is not None and step.kind == ANSWER else said
        tool = step if step is not None and step.tool else None
        firsts = [s.at for s in (*thoughts, answer, tool) if s is not None]
        at = min(firsts)
        mid = uuid4(self.rng)
        sid = self.session_id
        record: dict[str, Any] = {
            "id": mid,
            "timestamp": iso(at),
            "type": "gemini",
            "content": answer.text if answer else "",
            "thoughts": [
                {"subject": _subject(t.text), "description": t.text, "timestamp": iso(t.at)}
                for t in thoughts
            ],
            "tokens": self._tokens(),
            "model": self.model,
        }
        parts: list[dict[str, Any]] = [
            {"text": f"**{_subject(t.text)}** {t.text}", "thought": True} for t in thoughts
        ]
        for n, t in enumerate(thoughts):
            self.row(f"gemini:{sid}:{mid}:thought:{n}", t.text, "meta", "assistant", t.cjk, at=t.at)
        if answer is not None:
            parts.append({"text": answer.text})
            self.row(f"gemini:{sid}:{mid}", answer.text, "message", "assistant", answer.cjk, at=at)
        if tool is None:
            self._message(record, at)
            self.history.append({**record, "content": parts})
            for key in ("thoughts", "tokens", "model"):
                self.history[-1].pop(key)
            return
        self._message(record, at)
        call_id = f"{_NAMES[tool.kind]}__call_{self.rng.getrandbits(64):016x}"
        name, args, output, display, shown = _tool(
            self.project.cwd, tool, self.rng.randrange(900, 60_000)
        )
        response = {
            "functionResponse": {"id": call_id, "name": name, "response": {"output": output}}
        }
        call = {
            "id": call_id,
            "name": name,
            "args": args,
            "result": [response],
            "status": "success",
            "timestamp": iso(tool.done),
            "resultDisplay": display,
            "description": args.get("description") or args.get("file_path", ""),
            "displayName": _DISPLAY[tool.kind],
            "renderOutputAsMarkdown": tool.kind != SHELL,
        }
        self.lines.append(dump({**record, "toolCalls": [call]}))
        self.row(
            f"gemini:{sid}:{mid}:call:{call_id}",
            f"{name} {dump(args).decode()}",
            "tool_use",
            "assistant",
            False,
            at=tool.at,
        )
        labelled = f"[error] {shown}" if tool.code else shown
        self.row(
            f"gemini:{sid}:{mid}:result:{call_id}",
            labelled,
            "tool_result",
            "system",
            False,
            at=tool.done,
        )
        copy: dict[str, Any] = {
            "id": uuid4(self.rng),
            "timestamp": iso(tool.done + 2),
            "type": "user",
        }
        copy["content"] = [response]
        self._message(copy, tool.done + 2)
        parts.append({"functionCall": {"id": call_id, "name": name, "args": args}})
        self.history.append({"id": mid, "timestamp": iso(at), "type": "gemini", "content": parts})
        self.history.append({**copy, "id": f"{mid}_response"})
        self.history.append(copy)


def _subject(text: str) -> str:
    words = text.split()[:4]
    return " ".join(words).rstrip(".,:;") or "Thinking"


_NAMES = {READ: "read_file", EDIT: "replace", SHELL: "run_shell_command"}
_DISPLAY = {READ: "ReadFile", EDIT: "Edit", SHELL: "Shell"}


def _tool(cwd: str, step: Step, pgid: int) -> tuple[str, dict[str, Any], str, Any, str]:
    """(name, args, the model's copy of the output, the UI's copy, the result as Origin shows it)."""
    path = f"{cwd}/{step.path}"
    if step.kind == SHELL:
        args = {"command": step.command, "description": f"Run {step.command[:60]}"}
        output = shell_output(step.text, step.code, pgid)
        return _NAMES[SHELL], args, output, step.text, output
    if step.kind == READ:
        args = {"file_path": path}
        return _NAMES[READ], args, step.text, "", step.text
    args = {
        "file_path": path,
        "old_string": step.old,
        "new_string": step.new,
        "instruction": step.text,
    }
    output = f"Successfully modified file: {path} (1 replacements)."
    name = step.path.rsplit("/", 1)[-1]
    diff = "".join(f"-{line}\n" for line in step.old.split("\n")) + "".join(
        f"+{line}\n" for line in step.new.split("\n")
    )
    display = {
        "fileDiff": f"Index: {name}\n===================================================================\n"
        f"--- {name}\tCurrent\n+++ {name}\tProposed\n{diff}",
        "fileName": name,
        "filePath": path,
        "originalContent": step.old,
        "newContent": step.new,
    }
    return _NAMES[EDIT], args, output, display, output
