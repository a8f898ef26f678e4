"""Copilot CLI sessions: ``.copilot/session-state/<session id>/events.jsonl`` and
``workspace.yaml``.

Every line is ``{type, data, id, timestamp, parentId}``, ``parentId`` the line before. A run
opens with ``session.start`` (a resumed one with ``session.resume``) and ends with
``session.shutdown``; a prompt is ``user.message`` (the first of a session followed by the
``system.message`` the model was sent); each call of the model is ``assistant.turn_start``, a
``session.usage_record``, the ``assistant.message`` (its text, its reasoning and its tool
requests), the tool's ``tool.execution_start`` and ``tool.execution_complete``, then
``assistant.turn_end``. ``workspace.yaml`` names the session by its first prompt.

Events, as Origin's parser makes them: ``copilot:<event id>`` of a prompt, of the system
message, of the start of the session (``meta``), of a message's text and of a tool's result;
``…:reasoning`` of a message's reasoning and ``…:call:<tool call id>`` of its tool requests.
Shell commands that fail are ``success: true`` with the exit code beside them; their results
are errors.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson

from .common import ONE_PART, dump, iso, line_diff, result_texts, uuid4
from .context import Context
from .session import Plan, Session
from .turns import EDIT, PROMPT, READ, SHELL, Call, Step, Turn, conversation, model_calls

VERSIONS = ("1.0.96", "1.0.99", "1.0.102", "1.0.102")
MODELS = ("claude-sonnet-4.8", "gpt-5.4", "claude-sonnet-4.8", "gemini-3.8-pro")
#: A later turn this long after the previous one is a ``copilot --resume`` of the session.
RESUME_MS = 3_600_000
SYSTEM = (
    "You are the GitHub Copilot CLI, a terminal assistant built by GitHub. You help the user "
    "with software engineering tasks in the current working directory.\n\n# Tone and style\n"
    "* Be concise in routine responses.\n\n<environment>\nCurrent working directory: {cwd}\n"
    "Git branch: {branch}\n</environment>"
)


class CopilotSession(Session):
    """One session's ``lines`` and ``workspace`` (the YAML); ``generate()`` fills them."""

    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.session_id = uuid4(self.rng)
        self.version = self.pick(VERSIONS)
        self.model = self.pick(MODELS)
        self.title = self.text.description()[:80]
        self.branch = self.pick(self.project.branches)
        self.head = self.pick(self.project.hashes)
        self.workspace = b""
        #: The name the user gave the session (``/rename``); else it is named by its first prompt.
        self.named: str | None = None
        self.parent: str | None = None
        self.count = 0

    def conversation_turns(self, budget: int) -> list[Turn]:
        """The chat's turns: the generator's, or a demo's script in a subclass."""
        return conversation(self, budget)

    def relpath(self) -> str:
        return f".copilot/session-state/{self.session_id}"

    def _event(self, at: int, kind: str, data: dict[str, Any], meta: str = "") -> str:
        """A line; with ``meta``, the words of the event Origin makes of it."""
        eid = uuid4(self.rng)
        line = {
            "type": kind,
            "data": data,
            "id": eid,
            "timestamp": iso(at),
            "parentId": self.parent,
        }
        self.lines.append(dump(line))
        self.parent = eid
        self.count += 1
        if meta:
            self.row(f"copilot:{eid}", meta, "meta", "system", False, at=at)
        return eid

    def _context(self) -> dict[str, Any]:
        cwd = self.project.cwd
        return {"cwd": cwd, "gitRoot": cwd, "branch": self.branch, "headCommit": self.head}

    def generate(self) -> None:
        start = self.plan.start_ms
        data = {
            "sessionId": self.session_id,
            "version": 1,
            "producer": "copilot-agent",
            "copilotVersion": self.version,
            "startTime": iso(start),
            "selectedModel": self.model,
            "context": self._context(),
            "alreadyInUse": False,
        }
        self._event(start + 60, "session.start", data, self._run("session started", self.version))
        # A resume and the end of the run before it are events too: decided before the turns,
        # which spend the rest (the system message and the last run's end are two more).
        resumed = self.budget >= 12 and self.rng.random() < 0.3
        turns = self.conversation_turns(self.budget - 2 - 2 * resumed)
        at = len(turns) // 2 if resumed and len(turns) >= 2 else len(turns) if resumed else -1
        last = start
        for number, turn in enumerate(turns):
            if number == at:
                self._resume(last + 500, turn.started - 900)
            self._turn(turn)
            last = turn.ended
        if at == len(turns):
            self._resume(last + 500, last + 60_000)
            last += 60_000
        self._shutdown(last + 500)
        first_prompt = turns[0].steps[0].text if turns else ""
        p = self.project
        texts = (("cwd", p.cwd), ("git_root", p.cwd), ("branch", self.branch))
        fields = (
            f"id: {self.session_id}",
            *(f"{key}: {yaml_scalar(value)}" for key, value in texts),
            "client_name: github/cli",
            f"name: {yaml_scalar(self.named or first_prompt)}",
            f"user_named: {'true' if self.named else 'false'}",
            "summary_count: 0",
            "fork_count: 0",
            f"created_at: {iso(start)}",
            f"updated_at: {iso(last + 500)}",
        )
        self.workspace = "".join(f"{line}\n" for line in fields).encode()

    def _run(self, what: str, version: str | None) -> str:
        """A run's start as Origin's parser words it."""
        items: tuple[tuple[str, str | None], ...] = (
            ("Copilot CLI ", version),
            ("model ", self.model),
            ("cwd ", self.project.cwd),
            ("branch ", self.branch),
        )
        return what + "".join(f", {name}{value}" for name, value in items if value)

    def _resume(self, ended: int, at: int) -> None:
        self._shutdown(ended)
        resume = {
            "resumeTime": iso(at),
            "eventCount": self.count,
            "selectedModel": self.model,
            "context": self._context(),
            "sessionWasActive": False,
        }
        self._event(at, "session.resume", resume, self._run("session resumed", None))

    def _shutdown(self, at: int) -> None:
        data = {
            "shutdownType": "routine",
            "totalPremiumRequests": self.rng.randrange(1, 30),
            "totalApiDurationMs": self.rng.randrange(2_000, 600_000),
            "sessionStartTime": iso(self.plan.start_ms),
            "currentModel": self.model,
        }
        self._event(at, "session.shutdown", data, "session ended (routine)")

    def _turn(self, turn: Turn) -> None:
        prompt = turn.steps[0]
        assert prompt.kind == PROMPT
        interaction = uuid4(self.rng)
        message_id = uuid4(self.rng)
        stamp = f"<current_datetime>{iso(prompt.at)[:-1]}+00:00</current_datetime>"
        data = {
            "content": prompt.text,
            "transformedContent": f"{stamp}\n\n{prompt.text}",
            "messageId": message_id,
            "interactionId": interaction,
            "turnId": "0",
        }
        eid = self._event(prompt.at, "user.message", data)
        self.row(f"copilot:{eid}", prompt.text, "message", "user", prompt.cjk, at=prompt.at)
        if turn.index == 0:
            system = SYSTEM.format(cwd=self.project.cwd, branch=self.branch)
            data = {"role": "system", "content": system, "interactionId": interaction}
            eid = self._event(prompt.at + 8, "system.message", data)
            self.row(f"copilot:{eid}", system, "system", "system", False, at=prompt.at + 8)
        for number, call in enumerate(model_calls(turn.steps[1:])):
            self._call(call, interaction, message_id, number)

    def _call(self, call: Call, interaction: str, origin: str, number: int) -> None:
        """One call of the model: its usage, its message, then the run of the tool it called."""
        turn_id = str(number)
        at = call.at
        start = {"turnId": turn_id, "interactionId": interaction}
        self._event(at - 40, "assistant.turn_start", start)
        usage = self._usage(number)
        self._event(at - 20, "session.usage_record", {"usage": usage})
        reasoning = "\n\n".join(t.text for t in call.thoughts)
        data: dict[str, Any] = {
            "messageId": uuid4(self.rng),
            "originatingMessageId": origin,
            "model": self.model,
            "content": call.text.text if call.text is not None else "",
            "toolRequests": [],
            "interactionId": interaction,
            "turnId": turn_id,
        }
        call_id = f"call_{self.rng.getrandbits(80):020x}"
        run = None if call.tool is None else _tool(self.project.cwd, call.tool)
        if run is not None:
            data["toolRequests"] = [_request(call_id, run)]
        if reasoning:
            data["reasoningText"] = reasoning
        data["apiCallId"] = usage["apiCallId"]
        eid = self._event(at, "assistant.message", data)
        said = [(reasoning, "meta", all(t.cjk for t in call.thoughts))] if reasoning else []
        if call.text is not None:
            said.append((call.text.text, "message", call.text.cjk))
        for text, kind, cjk in said:
            suffix = f"#{0 if kind == 'meta' else 1}" if len(said) > 1 else ""
            self.row(f"copilot:{eid}{suffix}", text, kind, "assistant", cjk, at=at)
        if run is not None:
            self._execution(run, f"copilot:{eid}", call_id, interaction, turn_id, at)
        done = at if run is None else run.step.done
        self._event(done + 6, "assistant.turn_end", {"turnId": turn_id})

    def _usage(self, number: int) -> dict[str, Any]:
        """The usage record of the model's ``number``-th call in a turn."""
        r = self.rng.random
        return {
            "model": self.model,
            "inputTokens": 9000 + int(r() * 90_000),
            "outputTokens": 20 + int(r() * 3000),
            "cacheReadTokens": int(r() * 60_000),
            "cacheWriteTokens": 0,
            "reasoningTokens": int(r() * 900),
            "duration": 300 + int(r() * 9000),
            "initiator": "user" if number == 0 else "agent",
            "apiCallId": f"chatcmpl-{self.rng.getrandbits(80):020x}",
        }

    def _execution(
        self, run: _Run, base: str, call_id: str, interaction: str, turn_id: str, at: int
    ) -> None:
        """A tool's run, called by message ``base`` at ``at``: its start and its completion."""
        tool = run.step
        begun = {
            "toolCallId": call_id,
            "toolName": run.name,
            "arguments": run.args,
            "turnId": turn_id,
        }
        self._event(tool.at + 2, "tool.execution_start", begun)
        words = f"{run.name} {dump(run.args).decode()}"
        self.row(f"{base}:call:{call_id}", words, "tool_use", "assistant", False, at=at)
        done: dict[str, Any] = {
            "toolCallId": call_id,
            "model": self.model,
            "interactionId": interaction,
            "turnId": turn_id,
            "success": True,
            "result": run.result,
        }
        if tool.kind == SHELL:
            done["shellExecution"] = {"exitCode": tool.code}
            properties = {"executionMode": "sync"}
            if tool.code:
                properties["shell_error_category"] = "command_nonzero_exit"
            metrics = {"exit_code": float(tool.code)}
            done["toolTelemetry"] = {"properties": properties, "metrics": metrics}
        elif tool.kind == EDIT:
            done["fileEdits"] = [{"path": run.args["path"], "kind": "edit"}]
        eid = self._event(tool.done, "tool.execution_complete", done)
        texts = result_texts(run.shown, bool(tool.code), numbered=False)
        for n, text in enumerate(texts):
            suffix = f"#{n}" if len(texts) > 1 else ""
            eid_n = f"copilot:{eid}:result:{call_id}{suffix}"
            self.row(eid_n, text, "tool_result", "system", False, at=tool.done)


_TITLES = {READ: "Viewing file", EDIT: "Editing file", SHELL: "Running command"}


class _Run(NamedTuple):
    """A tool's call: the step, the tool's name, its arguments, its result, and the result as
    Origin shows it."""

    step: Step
    name: str
    args: dict[str, Any]
    result: dict[str, Any]
    shown: str


def _request(call_id: str, run: _Run) -> dict[str, Any]:
    """The tool request of the model's message."""
    return {
        "toolCallId": call_id,
        "name": run.name,
        "arguments": run.args,
        "type": "function",
        "intentionSummary": run.args.get("description") or f"view {run.args.get('path', '')}",
        "toolTitle": _TITLES[run.step.kind],
    }


def _tool(cwd: str, step: Step) -> _Run:
    out = step.text[:ONE_PART]
    path = f"{cwd}/{step.path}"
    if step.kind == SHELL:
        args = {"command": step.command, "description": f"Run {step.command[:60]}"}
        content = f"{out}\n<shellId: 0 completed with exit code {step.code}>"
        return _Run(step, "bash", args, {"content": content}, content)
    if step.kind == READ:
        return _Run(step, "view", {"path": path}, {"content": out}, out)
    args = {"path": path, "old_str": step.old, "new_str": step.new}
    content = f"File {path} updated with changes."
    diff = line_diff(step.old, step.new)
    detailed = f"\ndiff --git a{path} b{path}\nindex 0000000..0000000 100644\n--- a{path}\n+++ b{path}\n@@ @@\n{diff}"
    shown = f"{content}\n{detailed}"  # the diff is not in the model's copy: both are read
    return _Run(step, "edit", args, {"content": content, "detailedContent": detailed}, shown)


_PLAIN_START = set("-?:,[]{}#&*!|>'\"%@` ")


def yaml_scalar(value: str) -> str:
    """A string as the YAML writer of the CLI puts it: plain when it can be, in single quotes
    when it looks like syntax, double-quoted (JSON escapes) when it spans lines."""
    if any(c in value for c in "\n\r\t") or not value.isprintable():
        return orjson.dumps(value).decode()
    if (
        not value
        or value[0] in _PLAIN_START
        or value[-1] in " :"
        or ": " in value
        or " #" in value
        or value.lower() in ("null", "yes", "no", "on", "off", "~")
        or value.replace(".", "", 1).isdigit()
    ):
        return "'" + value.replace("'", "''") + "'"
    return value
