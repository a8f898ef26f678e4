"""The demo's Claude Code writer: a script rendered as Claude Code lines, with sub-agents.

Lines are written by ``ClaudeSession``'s own helpers (one content block a line, the usage of
every assistant message). An explain task sends its search to a sub-agent (``Task``), whose
lines go to ``<session>/subagents/agent-<id>.jsonl`` with its ``.meta.json``, as Claude Code
keeps them; ``files`` holds those extra files, by path under the agent's home.
"""

from __future__ import annotations

import shlex
from typing import Any

from ..claude_code import TODO_DONE, ClaudeSession, _Call
from ..common import b62, dump, iso, uuid4
from ..context import Context
from ..session import Plan
from ..turns import ANSWER, EDIT, READ, SHELL, TEXT, THINKING, Step, Turn
from .code import numbered
from .writers import scripted

#: What the sub-agent is asked, by language.
_SUB_PROMPT = {
    "en": "Find every caller of `{func}` and say in one line each what it passes in.",
    "zh": "找出所有调用 `{func}` 的地方，每处用一句话说明传入了什么。",
}
_SUB_ANSWER = {
    "en": "`{func}` has 2 callers:\n- `{other}`: passes the request's key\n- `{test}`: the tests",
    "zh": "`{func}` 有 2 处调用：\n- `{other}`：传入请求里的 key\n- `{test}`：测试用例",
}


class DemoClaude(ClaudeSession):
    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.task, self.title, self.script = scripted(self)
        self.env_head["gitBranch"] = self.task.branch
        self.last_tool = ""
        self.files: dict[str, bytes] = {}

    def generate(self) -> None:
        self.bookkeeping(self.mode_line, "permission-mode", self.mode_text)
        for turn in self.script:
            self._scripted_turn(turn)

    def _scripted_turn(self, turn: Turn) -> None:
        prompt = turn.steps[0]
        self.now = prompt.at
        self.user(prompt.text, prompt.text, "message", "user", prompt.cjk)
        msg = self.new_msg()
        if turn.index == 0 and self.rng.random() < 0.4:
            self._todos(msg)
            msg = self.new_msg()
        for step in turn.steps[1:]:
            self.now = step.at
            if step.kind == THINKING:
                block = {"type": "thinking", "thinking": step.text, "signature": b62(self.rng, 96)}
                self.assistant(block, step.text, "meta", step.cjk, msg, None)
            elif step.kind in (TEXT, ANSWER):
                stop = "end_turn" if step.kind == ANSWER else None
                block = {"type": "text", "text": step.text}
                self.assistant(block, step.text, "message", step.cjk, msg, stop)
            else:
                if self.task.kind == "explain" and step.command.startswith("rg "):
                    self._sub_agent(step, msg)
                else:
                    self._scripted_tool(step, msg)
                msg = self.new_msg()
        if turn.index == 0:
            self.title_line = dump(
                {"type": "ai-title", "aiTitle": self.title, "sessionId": self.session_id}
            )
            self.title_text = f"ai-title: {self.title}"
            self.bookkeeping(self.title_line, "ai-title", self.title_text)

    def _call(self, step: Step) -> _Call:
        cwd = self.project.cwd
        if step.kind == SHELL and step.command.startswith("rg -n "):
            words = shlex.split(step.command)
            inp = {"pattern": words[2], "output_mode": "content", "-n": True}
            if len(words) > 3:
                inp["path"] = words[3]
            return _Call("Grep", inp, step.text)
        if step.kind == SHELL:
            call = _Call(
                "Bash", {"command": step.command, "description": _describe(step)}, step.text
            )
            call.error = bool(step.code)
            call.structured = {
                "stdout": step.text,
                "stderr": "",
                "interrupted": False,
                "isImage": False,
            }
            return call
        path = f"{cwd}/{step.path}"
        if step.kind == READ:
            return _Call("Read", {"file_path": path}, numbered(step.text))
        assert step.kind == EDIT
        inp = {
            "file_path": path,
            "old_string": step.old,
            "new_string": step.new,
            "replace_all": False,
        }
        first = 10 + self.rng.randrange(120)
        out = (
            f"The file {path} has been updated. Here's the result of running `cat -n` on a "
            f"snippet of the edited file:\n" + numbered(step.new, first)
        )
        structured = {"filePath": path, "oldString": step.old, "newString": step.new}
        return _Call("Edit", inp, out, structured=structured)

    def _scripted_tool(self, step: Step, msg: tuple[str, str]) -> None:
        call = self._call(step)
        self._use(call, msg, step.done)

    def _use(self, call: _Call, msg: tuple[str, str], done: int, cjk: bool = False) -> None:
        """The tool_use line, then its tool_result line at ``done``."""
        tool_id = "toolu_01" + b62(self.rng, 22)
        block = {"type": "tool_use", "id": tool_id, "name": call.name, "input": call.inp}
        self.assistant(
            block, f"{call.name} {dump(call.inp).decode()}", "tool_use", cjk, msg, "tool_use"
        )
        self.now = max(self.now, done)
        content: object = [{"type": "text", "text": call.out}] if call.result_blocks else call.out
        result: dict[str, Any] = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
        if call.error:
            result["is_error"] = True
        extra = {"toolUseResult": call.structured} if call.structured is not None else None
        text = "[error] " + call.out if call.error else call.out
        self.user([result], text, "tool_result", "system", cjk, extra)
        self.last_tool = tool_id

    def _todos(self, msg: tuple[str, str]) -> None:
        zh = self.task.zh
        items = (
            (
                ("复现问题", "正在复现问题"),
                (f"修改 {self.task.part.path}", "正在修改代码"),
                ("运行测试", "正在运行测试"),
            )
            if zh
            else (
                ("Reproduce the problem", "Reproducing the problem"),
                (f"Change {self.task.part.path}", "Changing the code"),
                ("Run the tests", "Running the tests"),
            )
        )
        todos = [
            {"content": c, "status": "in_progress" if i == 0 else "pending", "activeForm": a}
            for i, (c, a) in enumerate(items)
        ]
        self._use(_Call("TodoWrite", {"todos": todos}, TODO_DONE), msg, self.now + 400, zh)

    def _sub_agent(self, step: Step, msg: tuple[str, str]) -> None:
        """A ``Task`` call whose sub-agent runs the search; its lines go to a file of its own."""
        task, lang = self.task, self.task.lang
        others = [q for q in task.project.parts if q is not task.part]
        slots = {**task.slots, "other": others[0].path if others else task.part.path}
        prompt = _SUB_PROMPT[lang].format(**slots)
        answer = _SUB_ANSWER[lang].format(**slots)
        description = f"Find callers of {task.part.func}"
        agent = f"{self.rng.getrandbits(64):016x}"
        inp = {"description": description, "prompt": prompt, "subagent_type": "Explore"}
        call = _Call("Task", inp, answer, result_blocks=True)
        call.structured = {
            "status": "completed",
            "agentId": agent,
            "content": [{"type": "text", "text": answer}],
            "totalDurationMs": step.done - step.at,
            "totalTokens": 4000 + self.rng.randrange(20_000),
            "totalToolUseCount": 1,
        }
        start = self.now
        self._use(call, msg, step.done, task.zh)
        self._write_sub_agent(agent, prompt, step, answer, start)
        meta = {
            "agentType": "Explore",
            "description": description,
            "toolUseId": self.last_tool,
            "spawnDepth": 1,
        }
        base = f"claude/projects/{self.project.slug}/{self.session_id}/subagents/agent-{agent}"
        self.files[base + ".meta.json"] = dump(meta)

    def _write_sub_agent(
        self, agent: str, prompt: str, step: Step, answer: str, start: int
    ) -> None:
        session = f"{self.session_id}/agent-{agent}"
        head = {**self.env_head, "isSidechain": True, "agentId": agent}
        lines: list[bytes] = []
        parent: str | None = None
        at = start
        for body, text, kind, role in self._sub_bodies(prompt, step.text, answer):
            at = min(at + 1000 + self.rng.randrange(4000), step.done)
            uid = uuid4(self.rng)
            line = {**head, "parentUuid": parent, **body, "uuid": uid, "timestamp": iso(at)}
            lines.append(dump(line))
            parent = uid
            name = self.project.name
            row = ("claude-code:" + uid, text, "claude-code", name, session, kind, role, at)
            self.rows.append(dump(row))
        path = (
            f"claude/projects/{self.project.slug}/{self.session_id}/subagents/agent-{agent}.jsonl"
        )
        self.files[path] = b"\n".join(lines) + b"\n"

    def _sub_bodies(
        self, prompt: str, found: str, answer: str
    ) -> list[tuple[dict[str, Any], str, str, str]]:
        """The sub-agent's lines (without their common fields), each with its event's text,
        kind and role: the task it was given, its search and what it found, its answer."""
        tool_id = "toolu_01" + b62(self.rng, 22)
        grep = {"pattern": self.task.part.func, "output_mode": "content", "-n": True}
        result = {"tool_use_id": tool_id, "type": "tool_result", "content": found}
        use = {"type": "tool_use", "id": tool_id, "name": "Grep", "input": grep}
        return [
            (
                {"type": "user", "message": {"role": "user", "content": prompt}},
                prompt,
                "message",
                "user",
            ),
            (self._sub_message(use), f"Grep {dump(grep).decode()}", "tool_use", "assistant"),
            (
                {"type": "user", "message": {"role": "user", "content": [result]}},
                found,
                "tool_result",
                "system",
            ),
            (self._sub_message({"type": "text", "text": answer}), answer, "message", "assistant"),
        ]

    def _sub_message(self, block: dict[str, Any]) -> dict[str, Any]:
        mid, req = self.new_msg()
        usage = {
            "input_tokens": 6,
            "cache_read_input_tokens": 12_000 + self.rng.randrange(9000),
            "output_tokens": 40 + self.rng.randrange(400),
        }
        message = {
            "id": mid,
            "type": "message",
            "role": "assistant",
            "model": "claude-haiku-4-5",
            "content": [block],
            "stop_reason": None,
            "usage": usage,
        }
        return {"type": "assistant", "message": message, "requestId": req}


def _describe(step: Step) -> str:
    cmd = step.command
    if cmd.startswith(("pytest", "npx vitest")):
        return "Run the tests"
    if cmd.startswith("git"):
        return "Show the working tree" if "status" in cmd or "diff" in cmd else "Commit the change"
    if cmd.startswith("rg"):
        return "Search the code"
    return "Run " + cmd.split()[0]
