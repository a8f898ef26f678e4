"""Qwen Code sessions: ``.qwen/projects/<slug>/chats/<session id>.jsonl``, a tree of records.

Every line is a ``ChatRecord`` chained to the one before it by ``parentUuid``: the prompt (and
an ``attribution_snapshot``), then for each call of the model a ``ui_telemetry`` record of the
API response and an ``assistant`` record whose parts are its thoughts, its text and its function
call; a tool's run is a ``ui_telemetry`` record and a ``tool_result`` record of the
``functionResponse``. A session resumed later appends to the same file.

Events, as Origin's parser makes them: ``qwen:<uuid>`` of a record with one event (a prompt, a
tool's result, the session's title), ``qwen:<uuid>#<n>`` of one with several (the parts of an
assistant record: thoughts, text, a function call; a long result's parts).
Shell commands that fail are recorded as ``success`` with ``Exit Code`` in the output; their
results are errors.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .common import ONE_PART, dump, file_diff, iso, result_texts, slug, uuid4
from .context import Context
from .session import Plan, Session
from .turns import EDIT, PROMPT, READ, SHELL, Call, Step, Turn, conversation, model_calls

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
        turns = self.conversation_turns(self.budget - 1)  # and the title
        for turn in turns:
            self._turn(turn)
            if turn.index == 0:  # the auto-title of a fast model, after the first answer
                payload = {"customTitle": self.title, "titleSource": "auto"}
                at = turn.ended + 900
                uid = self._record(at, "system", subtype="custom_title", systemPayload=payload)
                text = f"custom_title: {self.title}"
                self.row(f"qwen:{uid}", text, "meta", "system", self.plan.lang != "en", at=at)

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
        payload = {"snapshot": snapshot}
        self._record(prompt.at + 6, "system", subtype="attribution_snapshot", systemPayload=payload)
        prompt_id = f"{self.rng.getrandbits(52):013x}"
        for call in model_calls(turn.steps[1:]):
            self._response(call, prompt_id)

    def _response(self, call: Call, prompt_id: str) -> None:
        """One answer of the model: a telemetry record, the assistant record of its parts, and
        the run of the tool it called."""
        at = call.at
        usage = self._usage()
        response_id = f"chatcmpl-{self.rng.getrandbits(80):020x}"
        self._telemetry(at - 15, self._api_response(call, usage, prompt_id, response_id))
        parts: list[dict[str, Any]] = [{"text": t.text, "thought": True} for t in call.thoughts]
        events = [(t.text, "meta", t.cjk) for t in call.thoughts]
        if call.text is not None:
            parts.append({"text": call.text.text})
            events.append((call.text.text, "message", call.text.cjk))
        call_id = f"call_{self.rng.getrandbits(80):020x}"
        run = None
        if call.tool is not None:
            run = _tool(self.project.cwd, call.tool, self.rng.randrange(300, 60_000))
            parts.append({"functionCall": {"id": call_id, "name": run.name, "args": run.args}})
            events.append((f"{run.name} {dump(run.args).decode()}", "tool_use", False))
        message = {"role": "model", "parts": parts}
        uid = self._record(at, "assistant", model=self.model, message=message, usageMetadata=usage)
        for n, (text, kind, cjk) in enumerate(events):
            eid = f"qwen:{uid}#{n}" if len(events) > 1 else f"qwen:{uid}"
            self.row(eid, text, kind, "assistant", cjk, at=at)
        if run is not None:
            self._run(run, call_id, prompt_id, response_id)

    def _usage(self) -> dict[str, int]:
        r = self.rng.random
        usage = {
            "promptTokenCount": 9000 + int(r() * 90_000),
            "candidatesTokenCount": 20 + int(r() * 3000),
            "thoughtsTokenCount": int(r() * 900),
            "cachedContentTokenCount": int(r() * 60_000),
        }
        usage["totalTokenCount"] = (
            usage["promptTokenCount"] + usage["candidatesTokenCount"] + usage["thoughtsTokenCount"]
        )
        return usage

    def _api_response(
        self, call: Call, usage: dict[str, int], prompt_id: str, response_id: str
    ) -> dict[str, Any]:
        """The telemetry event of the model's answer ``call``."""
        telemetry: dict[str, Any] = {
            "name": "qwen-code.api_response",
            "response_id": response_id,
            "model": self.model,
            "status_code": 200,
            "duration_ms": 300 + int(self.rng.random() * 9000),
            "input_token_count": usage["promptTokenCount"],
            "output_token_count": usage["candidatesTokenCount"],
            "cached_content_token_count": usage["cachedContentTokenCount"],
            "thoughts_token_count": usage["thoughtsTokenCount"],
            "total_token_count": usage["totalTokenCount"],
        }
        if call.text is not None:
            telemetry["response_text"] = call.text.text
        telemetry.update(prompt_id=prompt_id, auth_type="openai")
        return telemetry

    def _run(self, run: _Run, call_id: str, prompt_id: str, response_id: str) -> None:
        """The run of the tool the model called: its telemetry, then its result."""
        tool = run.step
        event = {
            "name": "qwen-code.tool_call",
            "function_name": run.name,
            "function_args": run.args,
            "duration_ms": max(1, tool.done - tool.at),
            "status": "success",
            "success": True,
            "decision": "auto_accept",
            "prompt_id": prompt_id,
            "response_id": response_id,
            "tool_type": "native",
            "content_length": len(run.output),
        }
        self._telemetry(tool.done - 12, event)
        output = {"output": run.output}
        response = {"functionResponse": {"id": call_id, "name": run.name, "response": output}}
        result = {"callId": call_id, "status": "success", "resultDisplay": run.display}
        message = {"role": "user", "parts": [response]}
        uid = self._record(tool.done, "tool_result", message=message, toolCallResult=result)
        texts = result_texts(run.shown, bool(tool.code))
        for number, text in enumerate(texts):
            eid = f"qwen:{uid}#{number}" if len(texts) > 1 else f"qwen:{uid}"
            self.row(eid, text, "tool_result", "system", False, at=tool.done)


class _Run(NamedTuple):
    """A tool's call: the step, the tool's name, its arguments, the model's copy of its output,
    the UI's copy, and the output as Origin shows it."""

    step: Step
    name: str
    args: dict[str, Any]
    output: str
    display: Any
    shown: str


def _tool(cwd: str, step: Step, pgid: int) -> _Run:
    out = step.text[:ONE_PART]
    path = f"{cwd}/{step.path}"
    if step.kind == SHELL:
        args = {"command": step.command, "description": f"Run {step.command[:60]}"}
        output = shell_output(step.command, out, step.code, pgid)
        return _Run(step, "run_shell_command", args, output, out, output)
    if step.kind == READ:
        return _Run(step, "read_file", {"absolute_path": path}, out, "", out)
    assert step.kind == EDIT
    args = {"file_path": path, "old_string": step.old, "new_string": step.new}
    output = f"The file: {path} has been updated."
    name = step.path.rsplit("/", 1)[-1]
    display = {
        "fileDiff": file_diff(name, step.old, step.new),
        "fileName": name,
        "originalContent": step.old,
        "newContent": step.new,
    }
    return _Run(step, "edit", args, output, display, output)
