"""Codex rollouts: ``codex/sessions/YYYY/MM/DD/rollout-<start>-<threadId>.jsonl``.

Events are ``codex:<threadId>:L<n>``, n the 1-based line in the rollout: session_meta,
turn_context, every response_item and thread_name_updated; the event_msg mirrors and telemetry
lines are written but are not events. A failed ``shell`` output's text is ``[error: exit code N]
<output>``, unwrapped from its ``{"output": ...}`` JSON.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .common import b62, dump, iso, uuid7
from .context import Context
from .outputs import code_block, command, file_read, patch
from .session import Plan, Session

VERSIONS = ("0.124.0", "0.128.0", "0.131.0", "0.131.0")
MODELS = ("gpt-5.5", "gpt-5.5", "gpt-5.4-codex")
CONTEXT_WINDOW = 258400
PERMISSIONS = (
    "<permissions instructions>\nFilesystem sandboxing: workspace-write. Network access is"
    " restricted. Approval policy: on-request.\n</permissions instructions>"
)

# A tool's output: (tool name, arguments, output as written, output as the event's text).
_Run = tuple[str, dict[str, Any], str, str]


class CodexSession(Session):
    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.session_id = uuid7(self.rng, plan.start_ms)
        self.version = self.pick(VERSIONS)
        self.model = self.pick(MODELS)

    def relpath(self) -> str:
        start = time.gmtime(self.plan.start_ms // 1000)
        stamp = time.strftime("%Y-%m-%dT%H-%M-%S", start)
        day = f"{start.tm_year:04d}/{start.tm_mon:02d}/{start.tm_mday:02d}"
        return f"codex/sessions/{day}/rollout-{stamp}-{self.session_id}.jsonl"

    # -- lines ----------------------------------------------------------------------------

    def _emit(self, kind: str, payload: dict[str, Any]) -> int:
        self.lines.append(dump({"timestamp": iso(self.now), "type": kind, "payload": payload}))
        return len(self.lines)

    def event(
        self, kind: str, payload: dict[str, Any], text: str, ekind: str, role: str, cjk: bool
    ) -> None:
        """A line that becomes an event: its id is its 1-based line number in the file."""
        line = self._emit(kind, payload)
        self.row(f"codex:{self.session_id}:L{line}", text, ekind, role, cjk)

    def token_count(self) -> None:
        r = self.rng.random
        used = 9000 + int(r() * 240_000)
        usage = {
            "input_tokens": used,
            "cached_input_tokens": used - int(r() * 9000),
            "output_tokens": 10 + int(r() * 4000),
            "reasoning_output_tokens": int(r() * 2000),
            "total_tokens": used + 500,
        }
        info = {
            "total_token_usage": usage,
            "last_token_usage": usage,
            "model_context_window": CONTEXT_WINDOW,
        }
        limits = {"limit_id": "codex", "primary": None, "secondary": None}
        self._emit("event_msg", {"type": "token_count", "info": info, "rate_limits": limits})

    def message(self, role: str, text: str, kind: str, cjk: bool, phase: str | None = None) -> None:
        item_type = "output_text" if role == "assistant" else "input_text"
        payload: dict[str, Any] = {
            "type": "message",
            "role": role,
            "content": [{"type": item_type, "text": text}],
        }
        if phase:
            payload["phase"] = phase
        role = "system" if kind == "system" else role
        self.event("response_item", payload, text, kind, role, cjk)

    def agent_message(self, text: str, phase: str) -> None:
        """The event_msg mirror of an assistant message (not an event)."""
        payload = {
            "type": "agent_message",
            "message": text,
            "phase": phase,
            "memory_citation": None,
        }
        self._emit("event_msg", payload)

    # -- a session: its opening lines, then turns -----------------------------------------

    def generate(self) -> None:
        self._start()
        first = True
        while self.budget > 0:
            if not first and self.rng.random() < 0.04:
                self.now += int(self.rng.uniform(20, 50)) * 3_600_000  # resumed a day or two later
            self._turn(first)
            first = False

    def _start(self) -> None:
        p = self.project
        meta = {
            "id": self.session_id,
            "timestamp": iso(self.now),
            "cwd": p.cwd,
            "originator": "codex_cli_rs",
            "cli_version": self.version,
            "source": "cli",
            "model_provider": "openai",
            "base_instructions": {"text": self.ctx.base_instructions},
            "git": {
                "commit_hash": self.pick(p.hashes),
                "branch": self.pick(p.branches),
                "repository_url": p.repo_url,
            },
        }
        text = f"session start: codex_cli_rs, {self.version}, source cli, cwd {p.cwd}"
        self.event("session_meta", meta, text, "meta", "system", False)
        agents_md = self.agents_md()
        injected = (
            PERMISSIONS,
            f"# AGENTS.md instructions for {p.cwd}\n\n<INSTRUCTIONS>\n{agents_md}\n</INSTRUCTIONS>",
            f"<environment_context>\n  <cwd>{p.cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>",
        )
        for i, text in enumerate(injected):
            if self.budget > 0:
                self.message("developer" if i == 0 else "user", text, "system", False)

    def agents_md(self) -> str:
        """The project's AGENTS.md, as Codex injects it at the start of a session."""
        t = self.text
        return " ".join(t.en_sentence() for _ in range(2 + int(self.rng.random() * 6)))

    def _turn(self, first: bool) -> None:
        rng = self.rng
        self.tick(20, 600)
        turn = uuid7(rng, self.now)
        self._turn_context(turn)
        if self.budget <= 0:
            return
        started = self.now
        task = {
            "type": "task_started",
            "turn_id": turn,
            "started_at": self.now // 1000,
            "model_context_window": CONTEXT_WINDOW,
        }
        self._emit("event_msg", task)
        prompt, cjk = self.text.prose(140, 1.0)
        self.message("user", prompt, "message", cjk)
        mirror: dict[str, Any] = {"images": [], "local_images": [], "text_elements": []}
        self._emit("event_msg", {"type": "user_message", "message": prompt, **mirror})
        self.token_count()
        for _ in range(min(40, int(rng.expovariate(1 / 6)) + 1)):
            if self.budget <= 0:
                break
            self._step()
        if self.budget <= 0:
            return
        self._answer(turn, started, first)

    def _turn_context(self, turn: str) -> None:
        p = self.project
        effort = self.pick(("medium", "high"))
        payload = {
            "turn_id": turn,
            "cwd": p.cwd,
            "current_date": iso(self.now)[:10],
            "timezone": "UTC",
            "approval_policy": "on-request",
            "sandbox_policy": {"type": "workspace-write", "network_access": False},
            "model": self.model,
            "effort": effort,
            "summary": "auto",
        }
        text = (
            f"turn: model {self.model} ({effort}), approval on-request,"
            f" sandbox workspace-write, cwd {p.cwd}"
        )
        self.event("turn_context", payload, text, "meta", "system", False)

    def _step(self) -> None:
        rng = self.rng
        t = self.text
        if rng.random() < 0.5:
            self.tick(1, 12)
            summary, cjk = t.prose(150, 0.7)
            payload = {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": summary}],
                "content": None,
                "encrypted_content": "gAAAAAB" + b62(rng, 200 + int(rng.random() * 700)),
            }
            self.event("response_item", payload, summary, "meta", "assistant", cjk)
            if self.budget <= 0:
                return
        if rng.random() < 0.2:
            self.tick(0.5, 5)
            text, cjk = t.prose(150, 0.7)
            self.message("assistant", text, "message", cjk, "commentary")
            self.agent_message(text, "commentary")
            if self.budget <= 0:
                return
        self.tool()
        if rng.random() < 0.5:
            self.token_count()

    def _answer(self, turn: str, started: int, first: bool) -> None:
        t = self.text
        self.tick(1, 15)
        text, cjk = t.prose(330, 0.9)
        if self.rng.random() < 0.2:
            text += "\n\n" + code_block(t)
            cjk = cjk and len(text) < 500
        self.message("assistant", text, "message", cjk, "final_answer")
        self.agent_message(text, "final_answer")
        self.token_count()
        done = {
            "type": "task_complete",
            "turn_id": turn,
            "last_agent_message": text[:80],
            "completed_at": self.now // 1000,
            "duration_ms": self.now - started,
        }
        self._emit("event_msg", done)
        if first and self.budget > 0:
            name = t.description()[:60]
            payload = {
                "type": "thread_name_updated",
                "thread_id": self.session_id,
                "thread_name": name,
            }
            cjk = self.plan.lang != "en"
            self.event("event_msg", payload, f"thread name: {name}", "meta", "system", cjk)

    # -- tools ----------------------------------------------------------------------------

    def tool(self) -> None:
        call_id = "call_" + b62(self.rng, 24)
        k = self.rng.random()
        self.tick(0.3, 4)
        next(make for limit, make in _TOOLS if k < limit)(self, call_id)

    def shell(self, call_id: str, cmd: str, out: str) -> None:
        """A command run through ``exec_command`` or ``shell``, then (budget permitting) its output."""
        tail = out[-300:]
        code = 1 if out.startswith("Traceback") or "FAILED" in tail or " FAIL " in tail else 0
        runner = _exec_command if self.rng.random() < 0.6 else _shell
        name, args, output, text_out = runner(self, cmd, out, code)
        arguments = dump(args).decode()
        payload = {
            "type": "function_call",
            "name": name,
            "arguments": arguments,
            "call_id": call_id,
        }
        self.event("response_item", payload, f"{name} {arguments}", "tool_use", "assistant", False)
        if self.budget <= 0:
            return
        self.tick(0.1, 25)
        payload = {"type": "function_call_output", "call_id": call_id, "output": output}
        self.event("response_item", payload, text_out, "tool_result", "system", False)


def _apply_patch(s: CodexSession, call_id: str) -> None:
    path, old, new = patch(s.text)
    removed = "\n".join("-" + x for x in old)
    added = "\n".join("+" + x for x in new)
    body = f"*** Begin Patch\n*** Update File: {path}\n@@\n{removed}\n{added}\n*** End Patch\n"
    payload = {
        "type": "custom_tool_call",
        "status": "completed",
        "call_id": call_id,
        "name": "apply_patch",
        "input": body,
    }
    s.event("response_item", payload, "apply_patch " + body, "tool_use", "assistant", False)
    if s.budget <= 0:
        return
    s.tick(0.05, 1)
    out = f"Success. Updated the following files:\nM {path}\n"
    wrapped = dump({"output": out, "metadata": {"exit_code": 0, "duration_seconds": 0.0}}).decode()
    payload = {"type": "custom_tool_call_output", "call_id": call_id, "output": wrapped}
    s.event("response_item", payload, out, "tool_result", "system", False)


def _read_file(s: CodexSession, call_id: str) -> None:
    path, out = file_read(s.text, numbered=False)
    cmd = s.pick((f"cat {path}", f"sed -n '1,{s.pick((80, 200, 400))}p' {path}"))
    s.shell(call_id, cmd, out)


def _run_command(s: CodexSession, call_id: str) -> None:
    s.shell(call_id, *command(s.text))


#: The first tool whose limit is above one ``random()`` draw is called.
_TOOLS: tuple[tuple[float, Callable[[CodexSession, str], None]], ...] = (
    (0.18, _apply_patch),
    (0.45, _read_file),
    (1.00, _run_command),
)


def _exec_command(s: CodexSession, cmd: str, out: str, code: int) -> _Run:
    rng = s.rng
    args = {"cmd": cmd, "workdir": s.project.cwd, "yield_time_ms": 1000, "max_output_tokens": 8000}
    output = (
        f"Chunk ID: {rng.getrandbits(24):06x}\nWall time: {rng.random() * 8:.4f} seconds\n"
        f"Process exited with code {code}\nOriginal token count: {len(out) // 4}\nOutput:\n{out}"
    )
    # A failure is said only by the header: Origin marks it as Claude Code's are.
    return "exec_command", args, output, f"[error] {output}" if code else output


def _shell(s: CodexSession, cmd: str, out: str, code: int) -> _Run:
    args = {"command": ["bash", "-lc", cmd], "workdir": s.project.cwd, "timeout_ms": 120000}
    metadata = {"exit_code": code, "duration_seconds": round(s.rng.random() * 9, 1)}
    output = dump({"output": out, "metadata": metadata}).decode()
    return "shell", args, output, f"[error: exit code {code}] {out}" if code else out
