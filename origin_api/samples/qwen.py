"""Qwen Code sessions: ``.qwen/projects/<slug>/chats/<session id>.jsonl``, a tree of records.

Every line is a ``ChatRecord`` chained to the one before it by ``parentUuid``: the prompt (and
an ``attribution_snapshot``), then for each call of the model a ``ui_telemetry`` record of the
API response and an ``assistant`` record whose parts are its thoughts, its text and its function
call; a tool's run is a ``ui_telemetry`` record and a ``tool_result`` record of the
``functionResponse``. A session resumed later appends to the same file.

Events, as Origin's parser makes them: ``qwen:<uuid>`` a prompt, ``qwen:<uuid>:<part index>`` a
part of an assistant record (text, thought, or a function call), ``qwen:<uuid>`` a tool result.
Shell commands that fail are recorded as ``success`` with ``Exit Code`` in the output; their
results are errors.
"""

from __future__ import annotations

from typing import Any

from .common import dump, iso, slug, uuid4
from .context import Context
from .session import Plan, Session
from .turns import ANSWER, EDIT, PROMPT, READ, SHELL, TEXT, THINKING, Step, Turn, conversation

VERSIONS = ("0.14.2", "0.15.3", "0.15.10", "0.15.10")
MODELS = ("qwen3.6-coder-plus", "qwen3.6-coder-plus", "qwen3.6-coder-flash", "qwen3.5-max")


def shell_output(command: str, out: str, code: int, pgid: int) -> str:
    return (
        f"Command: {command}\nDirectory: (root)\nOutput: {out}\nError: (none)\n"
        f"Exit Code: {code}\nSignal: 0\nProcess Group PGID: {pgid}"
    )


class QwenSession(Session):
    """One session's ``lines``; ``generate()`` fills them and the events."""

    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.session_id = uuid4(self.rng)
        self.version = self.pick(VERSIONS)
        self.model = self.pick(MODELS)
        self.title = self.text.description()[:80]
        self.branch = self.pick(self.project.branches)
        self.parent: str | None = None
        self.prompts = 0

    def conversation_turns(self, budget: int) -> list[Turn]:
        """The chat's turns: the generator's, or a demo's script in a subclass."""
        return conversation(self, budget)

    def relpath(self) -> str:
        return f".qwen/projects/{slug(self.project.cwd)}/chats/{self.session_id}.jsonl"

    def _record(self, at: int, kind: str, **fields: Any) -> str:
        uid = uuid4(self.rng)
        record = {
            "uuid": uid,
            "parentUuid": self.parent,
            "sessionId": self.session_id,
            "timestamp": iso(at),
            "type": kind,
            "cwd": self.project.cwd,
            "version": self.version,
            "gitBranch": self.branch,
            **fields,
        }
        self.lines.append(dump(record))
        self.parent = uid
        return uid

    def _telemetry(self, at: int, event: dict[str, Any]) -> None:
        event = {"event.name": event.pop("name"), "event.timestamp": iso(at), **event}
        self._record(at, "system", subtype="ui_telemetry", systemPayload={"uiEvent": event})

    def generate(self) -> None:
        for turn in self.conversation_turns(self.budget):
            self._turn(turn)
            if turn.index == 0:  # the auto-title of a fast model, after the first answer
                payload = {"customTitle": self.title, "titleSource": "auto"}
                at = turn.ended + 900
                self._record(at, "system", subtype="custom_title", systemPayload=payload)

    def _turn(self, turn: Turn) -> None:
        prompt = turn.steps[0]
        assert prompt.kind == PROMPT
        self.prompts += 1
        message = {"role": "user", "parts": [{"text": prompt.text}]}
        uid = self._record(prompt.at, "user", message=message)
        self.row(f"qwen:{uid}", prompt.text, "message", "user", prompt.cjk, at=prompt.at)
        snapshot = {
            "type": "attribution-snapshot",
            "version": 1,
            "surface": "cli",
            "fileStates": {},
            "promptCount": self.prompts,
            "promptCountAtLastCommit": 0,
        }
        self._record(
            prompt.at + 6,
            "system",
            subtype="attribution_snapshot",
            systemPayload={"snapshot": snapshot},
        )
        prompt_id = f"{self.rng.getrandbits(52):013x}"
        pending: list[Step] = []
        for step in turn.steps[1:]:
            pending.append(step)
            if step.kind not in (THINKING, TEXT):
                self._response(pending, prompt_id)
                pending = []
        if pending:
            self._response(pending, prompt_id)

    def _response(self, steps: list[Step], prompt_id: str) -> None:
        """One answer of the model: a telemetry record, the assistant record of its parts, and
        the run of the tool it called."""
        r = self.rng.random
        at = steps[0].at
        usage = {
            "promptTokenCount": 9000 + int(r() * 90_000),
            "candidatesTokenCount": 20 + int(r() * 3000),
            "thoughtsTokenCount": int(r() * 900),
            "cachedContentTokenCount": int(r() * 60_000),
        }
        usage["totalTokenCount"] = (
            usage["promptTokenCount"] + usage["candidatesTokenCount"] + usage["thoughtsTokenCount"]
        )
        response_id = f"chatcmpl-{self.rng.getrandbits(80):020x}"
        telemetry: dict[str, Any] = {
            "name": "qwen-code.api_response",
            "response_id": response_id,
            "model": self.model,
            "status_code": 200,
            "duration_ms": 300 + int(r() * 9000),
            "input_token_count": usage["promptTokenCount"],
            "output_token_count": usage["candidatesTokenCount"],
            "cached_content_token_count": usage["cachedContentTokenCount"],
            "thoughts_token_count": usage["thoughtsTokenCount"],
            "total_token_count": usage["totalTokenCount"],
        }
        said = [s for s in steps if s.kind == ANSWER]
        if said:
            telemetry["response_text"] = said[0].text
        telemetry.update(prompt_id=prompt_id, auth_type="openai")
        self._telemetry(at - 15, telemetry)
        parts: list[dict[str, Any]] = []
        tool = steps[-1] if steps[-1].tool else None
        call_id = f"call_{self.rng.getrandbits(80):020x}"
        name, output, shown = "", "", ""
        args: dict[str, Any] = {}
        display: Any = ""
        for step in steps:
            if step.kind == THINKING:
                parts.append({"text": step.text, "thought": True})
            elif step.tool:
                name, args, output, display, shown = _tool(
                    self.project.cwd, step, self.rng.randrange(300, 60_000)
                )
                parts.append({"functionCall": {"id": call_id, "name": name, "args": args}})
            else:
                parts.append({"text": step.text})
        message = {"role": "model", "parts": parts}
        uid = self._record(at, "assistant", model=self.model, message=message, usageMetadata=usage)
        for n, step in enumerate(steps):
            if step.tool:
                self.row(
                    f"qwen:{uid}:{n}",
                    f"{name} {dump(args).decode()}",
                    "tool_use",
                    "assistant",
                    False,
                    at=at,
                )
            else:
                kind = "meta" if step.kind == THINKING else "message"
                self.row(f"qwen:{uid}:{n}", step.text, kind, "assistant", step.cjk, at=at)
        if tool is None:
            return
        run = {
            "name": "qwen-code.tool_call",
            "function_name": name,
            "function_args": args,
            "duration_ms": max(1, tool.done - tool.at),
            "status": "success",
            "success": True,
            "decision": "auto_accept",
            "prompt_id": prompt_id,
            "response_id": response_id,
            "tool_type": "native",
            "content_length": len(output),
        }
        self._telemetry(tool.done - 12, run)
        response = {
            "functionResponse": {"id": call_id, "name": name, "response": {"output": output}}
        }
        result = {"callId": call_id, "status": "success", "resultDisplay": display}
        message = {"role": "user", "parts": [response]}
        uid = self._record(tool.done, "tool_result", message=message, toolCallResult=result)
        labelled = f"[error] {shown}" if tool.code else shown
        self.row(f"qwen:{uid}", labelled, "tool_result", "system", False, at=tool.done)


def _tool(cwd: str, step: Step, pgid: int) -> tuple[str, dict[str, Any], str, Any, str]:
    """(name, args, the model's copy of the output, the UI's copy, the result as Origin shows it)."""
    path = f"{cwd}/{step.path}"
    if step.kind == SHELL:
        args = {"command": step.command, "description": f"Run {step.command[:60]}"}
        output = shell_output(step.command, step.text, step.code, pgid)
        return "run_shell_command", args, output, step.text, output
    if step.kind == READ:
        return "read_file", {"absolute_path": path}, step.text, "", step.text
    assert step.kind == EDIT
    args = {"file_path": path, "old_string": step.old, "new_string": step.new}
    output = f"The file: {path} has been updated."
    name = step.path.rsplit("/", 1)[-1]
    diff = "".join(f"-{line}\n" for line in step.old.split("\n")) + "".join(
        f"+{line}\n" for line in step.new.split("\n")
    )
    display = {
        "fileDiff": f"Index: {name}\n===================================================================\n"
        f"--- {name}\tCurrent\n+++ {name}\tProposed\n{diff}",
        "fileName": name,
        "originalContent": step.old,
        "newContent": step.new,
    }
    return "edit", args, output, display, output
