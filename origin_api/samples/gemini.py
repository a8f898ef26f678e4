"""Gemini CLI sessions: ``.gemini/tmp/<project>/chats/session-<minute>-<id8>.jsonl``.

A file opens with a metadata line and a ``$set`` checkpoint holding the injected
``<session_context>`` message; every message is a line of its own and each line but the
metadata is followed by a ``$set`` of ``lastUpdated``. A model message that calls a tool is
written twice under one id, first without its ``toolCalls`` and then with them, and the tool's
result follows as a ``user`` message of the ``functionResponse`` (the copy the model is sent).
A session resumed a day or more later gets a new metadata line and a checkpoint of its whole
history, as ``gemini --resume`` writes them.

Events, as Origin's parser makes them: ``gemini:<session>:<message id>`` the injected context
(a system event), a prompt or a model's text; ``…:thoughts`` a model message's thoughts and
``…:model`` the note of the model, on its first message; ``gemini:<session>:call:<call id>``
and ``…:result:<call id>`` (``#<n>`` after the first part of a long one) a tool call and its
result. A message written again, or restated by a checkpoint, gives the same ids. Shell
commands that fail are recorded as ``success`` with ``Exit Code`` in the output; their results
are errors.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import orjson

from .common import ONE_PART, dump, file_diff, iso, result_texts, uuid4
from .context import Context
from .session import Plan, Session
from .turns import EDIT, PROMPT, READ, SHELL, Call, Step, Turn, conversation, model_calls

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
        self.model_said = False

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
        start = self.plan.start_ms
        self._open(start, False)
        context = orjson.loads(self.lines[-1])["$set"]["messages"][0]
        eid = f"gemini:{self.session_id}:{self.context_id}"
        self.row(eid, context["content"][0]["text"], "system", "system", False, at=start)
        last = start
        turns = self.conversation_turns(self.budget - 1)  # and the note of the model
        for turn in turns:
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
        eid = f"gemini:{self.session_id}:{mid}"
        self.row(eid, prompt.text, "message", "user", prompt.cjk, at=prompt.at)
        for call in model_calls(turn.steps[1:]):
            self._reply(call)

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

    def _reply(self, turn: Call) -> None:
        """One model message: its thoughts, its text and at most one tool call, written again
        with the call once it ran, then the model's copy of the call's result."""
        at = turn.at
        mid = uuid4(self.rng)
        base = f"gemini:{self.session_id}:{mid}"
        said = turn.text
        thoughts = [(_subject(t.text), _description(t.text), t) for t in turn.thoughts]
        record: dict[str, Any] = {
            "id": mid,
            "timestamp": iso(at),
            "type": "gemini",
            "content": said.text if said else "",
            "thoughts": [
                {"subject": subject, "description": about, "timestamp": iso(t.at)}
                for subject, about, t in thoughts
            ],
            "tokens": self._tokens(),
            "model": self.model,
        }
        if thoughts:
            text = "\n\n".join(f"{subject}\n{about}" for subject, about, _ in thoughts)
            cjk = all(t.cjk for t in turn.thoughts)
            self.row(f"{base}:thoughts", text, "meta", "assistant", cjk, at=at)
        if not self.model_said:
            self.row(f"{base}:model", f"model: {self.model}", "meta", "system", False, at=at)
            self.model_said = True
        if said is not None:
            self.row(base, said.text, "message", "assistant", said.cjk, at=at)
        self._message(record, at)
        parts: list[dict[str, Any]] = [
            {"text": f"**{subject}** {about}", "thought": True} for subject, about, _ in thoughts
        ]
        if said is not None:
            parts.append({"text": said.text})
        if turn.tool is not None:
            self._tool_call(turn.tool, record, parts, at)
        else:
            self.history.append(
                {"id": mid, "timestamp": iso(at), "type": "gemini", "content": parts}
            )

    def _tool_call(
        self, tool: Step, record: dict[str, Any], parts: list[dict[str, Any]], at: int
    ) -> None:
        """The model's message ``record`` written again with its call of ``tool`` once it ran,
        then the model's copy of the result; the message's ``parts`` in the history end with
        the call."""
        sid, mid = self.session_id, record["id"]
        call_id = f"{_NAMES[tool.kind]}__call_{self.rng.getrandbits(64):016x}"
        pgid = self.rng.randrange(900, 60_000)
        name, args, output, display, shown = _tool(self.project.cwd, tool, pgid)
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
        words = f"{name} {dump(args).decode()}"
        self.row(f"gemini:{sid}:call:{call_id}", words, "tool_use", "assistant", False, at=at)
        for number, text in enumerate(result_texts(shown, bool(tool.code))):
            eid = f"gemini:{sid}:result:{call_id}{f'#{number}' if number else ''}"
            self.row(eid, text, "tool_result", "system", False, at=tool.done)
        copy: dict[str, Any] = {"id": uuid4(self.rng), "timestamp": iso(tool.done + 2)}
        copy.update(type="user", content=[response])
        self._message(copy, tool.done + 2)
        parts.append({"functionCall": {"id": call_id, "name": name, "args": args}})
        self.history.append({"id": mid, "timestamp": iso(at), "type": "gemini", "content": parts})
        self.history.append({**copy, "id": f"{mid}_response"})
        self.history.append(copy)


def _subject(text: str) -> str:
    """The heading Gemini gives a thought: here its first words."""
    return " ".join(text.split(" ")[:4]).rstrip(".,:;?!") or "Thinking"


def _description(text: str) -> str:
    rest = text.split(" ", 4)[4:]
    return rest[0] if rest and rest[0].strip() else text


_NAMES = {READ: "read_file", EDIT: "replace", SHELL: "run_shell_command"}
_DISPLAY = {READ: "ReadFile", EDIT: "Edit", SHELL: "Shell"}


def _tool(cwd: str, step: Step, pgid: int) -> tuple[str, dict[str, Any], str, Any, str]:
    """(name, args, the model's copy of the output, the UI's copy, the result as Origin shows it)."""
    out = step.text[:ONE_PART]
    path = f"{cwd}/{step.path}"
    if step.kind == SHELL:
        args = {"command": step.command, "description": f"Run {step.command[:60]}"}
        output = shell_output(out, step.code, pgid)
        return _NAMES[SHELL], args, output, out, output
    if step.kind == READ:
        args = {"file_path": path}
        return _NAMES[READ], args, out, "", out
    args = {
        "file_path": path,
        "old_string": step.old,
        "new_string": step.new,
        "instruction": step.text,
    }
    output = f"Successfully modified file: {path} (1 replacements)."
    name = step.path.rsplit("/", 1)[-1]
    display = {
        "fileDiff": file_diff(name, step.old, step.new),
        "fileName": name,
        "filePath": path,
        "originalContent": step.old,
        "newContent": step.new,
    }
    return _NAMES[EDIT], args, output, display, output
