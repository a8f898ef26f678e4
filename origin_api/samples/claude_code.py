"""Claude Code sessions: ``claude/projects/<cwd slug>/<sessionId>.jsonl``.

One content block per line, so an event id is ``claude-code:<uuid>``. The id-less
``permission-mode`` / ``ai-title`` lines are ``claude-code:<sessionId>:<type>:<sha256 of the line,
16 hex>`` and take the time of the last timestamped line (0 at the file's start); a resumed session
re-emits them byte for byte, which collapses into the same event.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .common import b62, dump, iso, lognorm_len, uuid4
from .context import Context
from .outputs import code_block, command, file_read, grep_output, patch
from .session import Plan, Session

MODELS = ("claude-opus-4-5", "claude-sonnet-4-5", "claude-opus-4-5", "claude-haiku-4-5")
VERSIONS = ("2.1.198", "2.1.212", "2.1.230", "2.1.241", "2.1.241")
PERMISSION_MODES = ("default", "acceptEdits", "default", "plan")
TODO_DONE = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list to track"
    " your progress. Please proceed with the current tasks if applicable"
)


@dataclass(slots=True)
class _Call:
    """One tool call: its name and input, what it returned, and how the result line is dressed."""

    name: str
    inp: dict[str, Any]
    out: str
    error: bool = False
    structured: dict[str, Any] | None = None  # the line's toolUseResult
    result_blocks: bool = False  # the result's content is a list of text blocks, not a string


class ClaudeSession(Session):
    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        p = self.project
        pick = self.pick
        self.session_id = uuid4(self.rng)
        self.parent: str | None = None
        self.last_stamp = 0  # id-less lines take the time of the last timestamped line
        self.model = pick(MODELS)
        self.env_head = {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": p.cwd,
            "sessionId": self.session_id,
            "version": pick(VERSIONS),
            "gitBranch": pick(p.branches),
        }
        self.seen: set[str] = set()
        mode = pick(PERMISSION_MODES)
        self.mode_line = dump(
            {"type": "permission-mode", "permissionMode": mode, "sessionId": self.session_id}
        )
        self.mode_text = f"permission-mode: {mode}"
        self.title_line: bytes | None = None
        self.title_text = ""

    def relpath(self) -> str:
        return f"claude/projects/{self.project.slug}/{self.session_id}.jsonl"

    # -- lines ----------------------------------------------------------------------------

    def bookkeeping(self, line: bytes, rtype: str, text: str) -> None:
        """An id-less line; re-emitted byte-identical copies share one id, hence one event.

        A new one past the session's budget is not written at all: its line would be an event
        the table does not hold.
        """
        eid = f"claude-code:{self.session_id}:{rtype}:{hashlib.sha256(line).hexdigest()[:16]}"
        if eid in self.seen:
            self.lines.append(line)
        elif self.budget > 0:
            self.lines.append(line)
            self.seen.add(eid)
            cjk = self.plan.lang != "en" and rtype == "ai-title"
            self.row(eid, text, "meta", "system", cjk, self.last_stamp)

    def _line(self, body: dict[str, Any]) -> str:
        uid = uuid4(self.rng)
        rec = dict(self.env_head)
        rec["parentUuid"] = self.parent
        rec.update(body)
        rec["uuid"] = uid
        rec["timestamp"] = iso(self.now)
        self.lines.append(dump(rec))
        self.parent = uid
        self.last_stamp = self.now
        return uid

    def user(
        self,
        content: object,
        text: str,
        kind: str,
        role: str,
        cjk: bool,
        extra: dict[str, Any] | None = None,
    ) -> None:
        body: dict[str, Any] = {"type": "user", "message": {"role": "user", "content": content}}
        if extra:
            body.update(extra)
        uid = self._line(body)
        self.row("claude-code:" + uid, text, kind, role, cjk)
        if self.budget > 0 and self.rng.random() < 0.001:
            self.image()

    def image(self) -> None:
        rng = self.rng
        raw = b"\x89PNG\r\n\x1a\n" + rng.randbytes(int(rng.uniform(1500, 4500)))
        data = base64.b64encode(raw).decode()
        self.tick(1, 20)
        block = {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": data},
        }
        uid = self._line({"type": "user", "message": {"role": "user", "content": [block]}})
        text = f"[image image/png {len(data) * 3 // 4} bytes]"
        self.row("claude-code:" + uid, text, "message", "user", False)

    def assistant(
        self,
        block: dict[str, Any],
        text: str,
        kind: str,
        cjk: bool,
        msg: tuple[str, str],
        stop: str | None,
    ) -> None:
        r = self.rng.random
        body = {
            "message": {
                "id": msg[0],
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [block],
                "stop_reason": stop,
                "usage": {
                    "input_tokens": 1 + int(r() * 12),
                    "cache_read_input_tokens": 2000 + int(r() * 150_000),
                    "output_tokens": 20 + int(r() * 2000),
                },
            },
            "requestId": msg[1],
            "type": "assistant",
        }
        uid = self._line(body)
        self.row("claude-code:" + uid, text, kind, "assistant", cjk)

    def new_msg(self) -> tuple[str, str]:
        return "msg_01" + b62(self.rng, 22), "req_011C" + b62(self.rng, 20)

    # -- a session: turns of prompt, steps (thinking, text, a tool call) and an answer ----

    def generate(self) -> None:
        self.bookkeeping(self.mode_line, "permission-mode", self.mode_text)
        first = True
        while self.budget > 0:
            if not first and self.rng.random() < 0.04:
                self._resume()
                if self.budget <= 0:
                    break
            self._turn(first)
            first = False

    def _resume(self) -> None:
        """A resumed session: a gap of a day or two, then the bookkeeping lines again."""
        self.now += int(self.rng.uniform(20, 50)) * 3_600_000
        self.bookkeeping(self.mode_line, "permission-mode", self.mode_text)
        if self.title_line:
            self.bookkeeping(self.title_line, "ai-title", self.title_text)

    def _turn(self, first: bool) -> None:
        rng = self.rng
        t = self.text
        self.tick(20, 600)
        prompt, cjk = t.prose(140, 1.0)
        if rng.random() < 0.08:
            prompt += "\n\n" + (
                code_block(t) if rng.random() < 0.5 else self.pick(self.project.tracebacks)
            )
            cjk = cjk and len(prompt) < 400
        self.user(prompt, prompt, "message", "user", cjk)
        if first:
            title = t.description()[:60]
            self.title_line = dump(
                {"type": "ai-title", "aiTitle": title, "sessionId": self.session_id}
            )
            self.title_text = f"ai-title: {title}"
        for _ in range(min(40, int(rng.expovariate(1 / 6)) + 1)):
            if self.budget <= 0:
                break
            self._step()
        if self.budget <= 0:
            return
        self.tick(1, 15)
        text, cjk = t.prose(330, 0.9)
        if rng.random() < 0.25:
            text += "\n\n" + code_block(t)
            cjk = cjk and len(text) < 500
        block = {"type": "text", "text": text}
        self.assistant(block, text, "message", cjk, self.new_msg(), "end_turn")
        if first and self.title_line:
            self.bookkeeping(self.title_line, "ai-title", self.title_text)

    def _step(self) -> None:
        rng = self.rng
        t = self.text
        msg = self.new_msg()
        if rng.random() < 0.4:
            self.tick(1, 12)
            text, cjk = t.prose(220, 0.8)
            block = {"type": "thinking", "thinking": text, "signature": b62(rng, 96) + "=="}
            self.assistant(block, text, "meta", cjk, msg, None)
            if self.budget <= 0:
                return
        if rng.random() < 0.35:
            self.tick(0.5, 5)
            text, cjk = t.prose(160, 0.8)
            self.assistant({"type": "text", "text": text}, text, "message", cjk, msg, None)
            if self.budget <= 0:
                return
        self.tool(msg)

    def tool(self, msg: tuple[str, str]) -> None:
        """A tool_use line, then (budget permitting) its tool_result."""
        k = self.rng.random()
        call = next(make for limit, make in _TOOLS if k < limit)(self)
        name, out, lang = call.name, call.out, self.plan.lang
        tool_id = "toolu_01" + b62(self.rng, 22)
        block = {"type": "tool_use", "id": tool_id, "name": name, "input": call.inp}
        self.tick(0.3, 4)
        cjk = lang != "en" and name in ("Task", "TodoWrite")
        self.assistant(block, f"{name} {dump(call.inp).decode()}", "tool_use", cjk, msg, "tool_use")
        if self.budget <= 0:
            return
        self.tick(0.1, 25)
        content: object = [{"type": "text", "text": out}] if call.result_blocks else out
        result: dict[str, Any] = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
        if call.error:
            result["is_error"] = True
        extra = {"toolUseResult": call.structured} if call.structured is not None else None
        text = "[error] " + out if call.error else out
        self.user([result], text, "tool_result", "system", name == "Task" and lang != "en", extra)


# -- the tools, each a function of the session returning its call ------------------------------


def _bash(s: ClaudeSession) -> _Call:
    cmd, out = command(s.text)
    call = _Call("Bash", {"command": cmd, "description": s.text.description()}, out)
    call.error = out.startswith("Traceback") and s.rng.random() < 0.5
    if len(out) < 300:
        call.structured = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}
    return call


def _read(s: ClaudeSession) -> _Call:
    path, out = file_read(s.text, numbered=True)
    inp: dict[str, Any] = {"file_path": f"{s.project.cwd}/{path}"}
    if s.rng.random() < 0.3:
        inp["offset"] = 1 + int(s.rng.random() * 200)
        inp["limit"] = s.pick((50, 100, 200))
    return _Call("Read", inp, out)


def _edit(s: ClaudeSession) -> _Call:
    rng = s.rng
    path, old, new = patch(s.text)
    file_path = f"{s.project.cwd}/{path}"
    inp = {
        "file_path": file_path,
        "old_string": "\n".join(old),
        "new_string": "\n".join(new),
        "replace_all": False,
    }
    if rng.random() < 0.05:
        out = f"<tool_use_error>String to replace not found in file.\nString: {inp['old_string']}</tool_use_error>"
        return _Call("Edit", inp, out, error=True)
    first = 1 + int(rng.random() * 300)
    out = (
        f"The file {file_path} has been updated. Here's the result of running `cat -n` "
        f"on a snippet of the edited file:\n"
        + "\n".join(f"{first + i:>6}→{line}" for i, line in enumerate(new))
    )
    structured = {
        "filePath": file_path,
        "oldString": inp["old_string"],
        "newString": inp["new_string"],
    }
    return _Call("Edit", inp, out, structured=structured)


def _grep(s: ClaudeSession) -> _Call:
    ident = s.text.ident()
    inp = {"pattern": ident, "path": "src", "output_mode": "content", "-n": True}
    return _Call("Grep", inp, grep_output(s.text, lognorm_len(s.rng, 250, 1.1, 8000)))


def _write(s: ClaudeSession) -> _Call:
    path, body = s.pick(s.project.files)
    file_path = f"{s.project.cwd}/{path}"
    inp = {"file_path": file_path, "content": "\n".join(body[: 5 + int(s.rng.random() * 55)])}
    return _Call("Write", inp, f"File created successfully at: {file_path}")


def _task(s: ClaudeSession) -> _Call:
    t = s.text
    inp = {
        "description": t.description(),
        "prompt": t.prose(300, 0.5)[0],
        "subagent_type": s.pick(("general-purpose", "Explore")),
    }
    return _Call("Task", inp, t.prose(600, 0.7)[0], result_blocks=True)


def _glob(s: ClaudeSession) -> _Call:
    p = s.project
    inp = {"pattern": s.pick(("**/*.py", "**/*.ts", "src/**/*", "tests/**/test_*.py"))}
    found = s.rng.sample(p.paths, min(len(p.paths), 1 + int(s.rng.random() * 24)))
    return _Call("Glob", inp, "\n".join(f"{p.cwd}/{q}" for q in found))


def _todo_write(s: ClaudeSession) -> _Call:
    t = s.text
    todos = [
        {
            "content": t.description(),
            "status": s.pick(("pending", "in_progress", "completed")),
            "activeForm": t.description(),
        }
        for _ in range(1 + int(s.rng.random() * 5))
    ]
    return _Call("TodoWrite", {"todos": todos}, TODO_DONE)


#: The first tool whose limit is above one ``random()`` draw is called: Bash 34 %, Read 24 %, ...
_TOOLS: tuple[tuple[float, Callable[[ClaudeSession], _Call]], ...] = (
    (0.34, _bash),
    (0.58, _read),
    (0.72, _edit),
    (0.84, _grep),
    (0.90, _write),
    (0.94, _task),
    (0.97, _glob),
    (1.00, _todo_write),
)
