"""The demo's Codex, Cursor, Grok, ZCode, Gemini CLI, OpenCode, Copilot CLI and Qwen Code
writers: the generator's writers, fed a script.

Each writer keeps its agent's format (its parent class writes every line and row); what changes
is what the session says: a task of ``script.py`` instead of the benchmark's generated prose.
Claude Code's writer, which also writes sub-agents, is in ``claude.py``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..codex import CodexSession
from ..common import b62, dump, uuid7
from ..context import Context
from ..copilot import CopilotSession
from ..cursor import CursorCliSession, CursorIdeSession
from ..gemini import GeminiSession
from ..grok import GrokBuildSession, GrokCliSession
from ..opencode import OpencodeSession
from ..qwen import QwenSession
from ..session import Plan, Session
from ..turns import ANSWER, EDIT, SHELL, TEXT, THINKING, Step, Turn
from ..zcode import ZcodeSession
from .projects import PROJECTS
from .script import Task, new_task, title, turns

#: How many follow-up turns a session has: one draw from this deck.
FOLLOW_UP_DECK = (0, 0, 0, 1, 1, 1, 2, 2, 3, 4)
#: The share of sessions where the person goes on to more tasks after the first.
LONGER = 0.2


def scripted(s: Session) -> tuple[Task, str, list[Turn]]:
    """The task of session ``s`` (from its own rng), its title and its turns; the session's
    project is narrowed to the task's branch, which its writer then records."""
    p = PROJECTS[s.plan.project]
    kinds = sorted({kind for part in p.parts for kind in part.kinds})
    task = new_task(s, p, s.pick(kinds), s.plan.lang)
    s.project = dataclasses.replace(s.project, branches=[task.branch])
    named = title(s, task)
    script = turns(s, task, s.pick(FOLLOW_UP_DECK))
    if task.kind != "explain" and s.rng.random() < LONGER:
        for _ in range(s.rng.randrange(1, 5)):  # more work in the same session and branch
            more = new_task(s, p, s.pick(kinds), s.plan.lang)
            more.branch = more.slots["branch"] = task.branch
            more.touched = task.touched
            script += turns(s, more, s.pick(FOLLOW_UP_DECK), len(script))
    return task, named, script


class DemoCursorIde(CursorIdeSession):
    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.task, self.title, self.script = scripted(self)

    def conversation_turns(self, budget: int) -> list[Turn]:
        return self.script


class DemoCursorCli(CursorCliSession):
    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.task, self.title, self.script = scripted(self)

    def conversation_turns(self, budget: int) -> list[Turn]:
        return self.script


class DemoGrokBuild(GrokBuildSession):
    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.task, self.title, self.script = scripted(self)

    def conversation_turns(self, budget: int) -> list[Turn]:
        return self.script


class DemoGrokCli(GrokCliSession):
    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.task, self.title, self.script = scripted(self)

    def conversation_turns(self, budget: int) -> list[Turn]:
        return self.script

    def recap(self) -> str:
        if self.task.zh:
            return f"处理了{self.title}：修改了 {self.task.part.path}，测试全部通过。"
        return f"Worked on: {self.title}. Changed {self.task.part.path}; the tests pass."


class DemoZcode(ZcodeSession):
    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.task, self.title, self.script = scripted(self)

    def generate(self) -> None:
        ended, self.now = self.now, self.plan.start_ms  # the script ran the clock ahead
        super().generate()
        self.now = ended

    def conversation_turns(self, budget: int) -> list[Turn]:
        return self.script


class DemoGemini(GeminiSession):
    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.task, self.title, self.script = scripted(self)

    def conversation_turns(self, budget: int) -> list[Turn]:
        return self.script


class DemoOpencode(OpencodeSession):
    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.task, self.title, self.script = scripted(self)

    def conversation_turns(self, budget: int) -> list[Turn]:
        return self.script


class DemoCopilot(CopilotSession):
    """Named by the person (``/rename``), so its name is the task's title."""

    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.task, self.title, self.script = scripted(self)
        self.branch = self.project.branches[0]
        self.named = self.title

    def conversation_turns(self, budget: int) -> list[Turn]:
        return self.script


class DemoQwen(QwenSession):
    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.task, self.title, self.script = scripted(self)
        self.branch = self.project.branches[0]

    def conversation_turns(self, budget: int) -> list[Turn]:
        return self.script


class DemoCodex(CodexSession):
    """A Codex rollout of a script: turn contexts, messages, reasoning, commands and patches."""

    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.task, self.title, self.script = scripted(self)
        self.now = plan.start_ms

    def agents_md(self) -> str:
        p = PROJECTS[self.plan.project]
        rules = "\n".join(f"- {rule}" for rule in p.conventions)
        return f"# {p.name}\n\n{p.about}\n\n## Conventions\n\n{rules}"

    def generate(self) -> None:
        self._start()
        for turn in self.script:
            self.now = turn.steps[0].at
            turn_id = uuid7(self.rng, self.now)
            self._turn_context(turn_id)
            started = self.now
            task = {
                "type": "task_started",
                "turn_id": turn_id,
                "started_at": self.now // 1000,
                "model_context_window": 258400,
            }
            self._emit("event_msg", task)
            prompt = turn.steps[0]
            self.message("user", prompt.text, "message", prompt.cjk)
            mirror: dict[str, Any] = {"images": [], "local_images": [], "text_elements": []}
            self._emit("event_msg", {"type": "user_message", "message": prompt.text, **mirror})
            self.token_count()
            for step in turn.steps[1:]:
                self.now = step.at
                self._render(step, turn_id, started, turn.index == 0)

    def _render(self, step: Step, turn_id: str, started: int, first: bool) -> None:
        if step.kind == THINKING:
            payload = {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": step.text}],
                "content": None,
                "encrypted_content": "gAAAAAB" + b62(self.rng, 240),
            }
            self.event("response_item", payload, step.text, "meta", "assistant", step.cjk)
        elif step.kind == TEXT:
            self.message("assistant", step.text, "message", step.cjk, "commentary")
            self.agent_message(step.text, "commentary")
        elif step.kind == ANSWER:
            self._final(step.text, step.cjk, turn_id, started, first)
        elif step.kind == EDIT:
            self._patch(step)
        else:
            cmd = step.command if step.kind == SHELL else f"sed -n '1,200p' {step.path}"
            self._command(cmd, step.text, step.code, step.done)
            self.token_count()

    def _final(self, text: str, cjk: bool, turn_id: str, started: int, first: bool) -> None:
        self.message("assistant", text, "message", cjk, "final_answer")
        self.agent_message(text, "final_answer")
        self.token_count()
        done = {
            "type": "task_complete",
            "turn_id": turn_id,
            "last_agent_message": text[:80],
            "completed_at": self.now // 1000,
            "duration_ms": self.now - started,
        }
        self._emit("event_msg", done)
        if first:
            payload = {
                "type": "thread_name_updated",
                "thread_id": self.session_id,
                "thread_name": self.title,
            }
            text = f"thread name: {self.title}"
            self.event("event_msg", payload, text, "meta", "system", self.task.zh)

    def _command(self, cmd: str, out: str, code: int, done: int) -> None:
        call_id = "call_" + b62(self.rng, 24)
        args = {
            "cmd": cmd,
            "workdir": self.project.cwd,
            "yield_time_ms": 1000,
            "max_output_tokens": 8000,
        }
        arguments = dump(args).decode()
        payload = {
            "type": "function_call",
            "name": "exec_command",
            "arguments": arguments,
            "call_id": call_id,
        }
        self.event(
            "response_item", payload, f"exec_command {arguments}", "tool_use", "assistant", False
        )
        self.now = done
        output = (
            f"Chunk ID: {self.rng.getrandbits(24):06x}\nWall time: {self.rng.random() * 8:.4f} seconds\n"
            f"Process exited with code {code}\nOriginal token count: {len(out) // 4}\nOutput:\n{out}"
        )
        payload = {"type": "function_call_output", "call_id": call_id, "output": output}
        shown = f"[error] {output}" if code else output
        self.event("response_item", payload, shown, "tool_result", "system", False)

    def _patch(self, step: Step) -> None:
        call_id = "call_" + b62(self.rng, 24)
        removed = "\n".join("-" + x for x in step.old.split("\n"))
        added = "\n".join("+" + x for x in step.new.split("\n"))
        body = f"*** Begin Patch\n*** Update File: {step.path}\n@@\n{removed}\n{added}\n*** End Patch\n"
        payload = {
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": call_id,
            "name": "apply_patch",
            "input": body,
        }
        self.event("response_item", payload, "apply_patch " + body, "tool_use", "assistant", False)
        self.now = step.done
        out = f"Success. Updated the following files:\nM {step.path}\n"
        meta = {"exit_code": 0, "duration_seconds": 0.1}
        wrapped = dump({"output": out, "metadata": meta}).decode()
        payload = {"type": "custom_tool_call_output", "call_id": call_id, "output": wrapped}
        self.event("response_item", payload, out, "tool_result", "system", False)
