"""A scripted model on loopback that the real agent CLIs talk to instead of a vendor's API:
Anthropic's Messages API for Claude Code, OpenAI's Responses API for Codex, the Gemini API for
Gemini CLI and OpenAI's Chat Completions for Qwen Code, OpenCode and Copilot CLI, all streamed as
server-sent events, as the vendors' servers stream them. It plays one session's script: each
turn asks for a shell command (the CLI really runs it and sends back the output), then gives
the answer. Nothing leaves the machine and no account is needed.

Where the script is depends only on the request (how many tool results it carries), so a CLI
that retries or sends side requests gets the same answer for the same history."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Shell:
    """A shell command, through the CLI's own shell tool."""

    command: str


@dataclass(frozen=True)
class McpCall:
    """A call to one of Origin's tools, through the MCP server the CLI registered as `origin`."""

    tool: str
    arguments: dict[str, Any]


Step = Shell | McpCall


@dataclass(frozen=True)
class Script:
    """One session: the tool calls the model asks for, in order, then its answer."""

    steps: tuple[Step, ...]
    answer: str
    #: Reasoning sent before the first call, where the API has a place for it (the Gemini API's
    #: `thought` parts, Chat Completions' reasoning deltas).
    reasoning: str = ""


#: The MCP server's name, as `origin register` names it.
SERVER = "origin"


@dataclass
class Model:
    """The server's state: the script, and every request body it was sent (for a failing
    test's report, and to learn a CLI's request shapes when it changes them)."""

    script: Script
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""


def _sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return b"".join(
        f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events
    )


def _anthropic_results(body: dict[str, Any]) -> int:
    """The tool results the request carries, but ToolSearch's (which only loads a tool)."""
    names = {
        block.get("id"): block.get("name")
        for message in body.get("messages", [])
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_use"
    }
    return sum(
        1
        for message in body.get("messages", [])
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
        and names.get(block.get("tool_use_id")) != "ToolSearch"
    )


def _anthropic_call(step: Step, tools: set[str]) -> tuple[str, dict[str, Any]] | None:
    """The tool_use for a step among the request's tools: Claude Code names an MCP tool
    `mcp__<server>__<tool>`, and may defer it behind ToolSearch, which loads it first."""
    if isinstance(step, Shell):
        return ("Bash", {"command": step.command}) if "Bash" in tools else None
    name = f"mcp__{SERVER}__{step.tool}"
    if name in tools:
        return name, step.arguments
    if "ToolSearch" in tools:
        return "ToolSearch", {"query": f"select:{name}", "max_results": 1}
    return None


def anthropic_reply(script: Script, body: dict[str, Any]) -> bytes:
    """The Messages API's stream: a tool call for the next step, or the answer (also to a
    request without the tools, such as a title request)."""
    step = _anthropic_results(body)
    tools = {tool.get("name") for tool in body.get("tools", [])}
    n = len(body.get("messages", []))
    message = {
        "id": f"msg_script{step:02d}{n:04d}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "scripted"),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 1},
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": message})
    ]
    call = _anthropic_call(script.steps[step], tools) if step < len(script.steps) else None
    if call is not None:
        block = {"type": "tool_use", "id": f"toolu_script{n:04d}", "name": call[0], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call[1])}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": script.answer}
        stop = "end_turn"
    events += [
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        ),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 8},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return _sse(events)


def _responses_results(body: dict[str, Any]) -> int:
    return sum(
        1
        for item in body.get("input", [])
        if isinstance(item, dict) and item.get("type", "").endswith("call_output")
    )


def _shell_tool(body: dict[str, Any]) -> dict[str, Any] | None:
    """Codex's shell tool as this request offers it: its name, and whether its arguments are a
    command string or an argv list."""
    for tool in body.get("tools", []):
        if tool.get("type") == "function" and tool.get("name") in ("shell", "exec_command"):
            return dict(tool)
    return None


def _shell_arguments(tool: dict[str, Any], command: str) -> str:
    props = tool.get("parameters", {}).get("properties", {})
    if "cmd" in props:
        return json.dumps({"cmd": command})
    if props.get("command", {}).get("type") == "array":
        return json.dumps({"command": ["bash", "-lc", command]})
    return json.dumps({"command": command})


def _responses_call(step: Step, body: dict[str, Any]) -> dict[str, Any] | None:
    """The function call for a step among the request's tools: Codex offers its shell as
    `exec_command` (or `shell`), and an MCP server's tools in a namespace `mcp__<server>`."""
    tools = body.get("tools", [])
    if isinstance(step, Shell):
        tool = _shell_tool(body)
        if tool is None:
            return None
        return {"name": tool["name"], "arguments": _shell_arguments(tool, step.command)}
    arguments = json.dumps(step.arguments)
    for tool in tools:
        offered = {t.get("name") for t in tool.get("tools", [])}
        if (
            tool.get("type") == "namespace"
            and tool["name"] == f"mcp__{SERVER}"
            and step.tool in offered
        ):
            return {"name": step.tool, "namespace": tool["name"], "arguments": arguments}
        if tool.get("type") == "function" and tool.get("name") == f"mcp__{SERVER}__{step.tool}":
            return {"name": tool["name"], "arguments": arguments}
    return None


def responses_reply(script: Script, body: dict[str, Any]) -> bytes:
    """The Responses API's stream: a function call for the next step, or the answer."""
    step = _responses_results(body)
    rid = f"resp_script{step:02d}"
    call = _responses_call(script.steps[step], body) if step < len(script.steps) else None
    if call is not None:
        item: dict[str, Any] = {
            "type": "function_call",
            "id": f"fc_script{step:02d}",
            "call_id": f"call_script{step:02d}",
            **call,
        }
    else:
        item = {
            "type": "message",
            "role": "assistant",
            "id": f"msg_script{step:02d}",
            "content": [{"type": "output_text", "text": script.answer}],
        }
    usage = {
        "input_tokens": 12,
        "input_tokens_details": None,
        "output_tokens": 8,
        "output_tokens_details": None,
        "total_tokens": 20,
    }
    return _sse(
        [
            ("response.created", {"type": "response.created", "response": {"id": rid}}),
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            (
                "response.completed",
                {"type": "response.completed", "response": {"id": rid, "usage": usage}},
            ),
        ]
    )


#: What a side request gets (a title, a routing or next-speaker verdict, a memory sub-agent's
#: turn): no step of the script, and none of its words.
ASIDE = "Scripted session title"
#: The shell tool's name in Gemini CLI and Qwen Code (`run_shell_command`), OpenCode and Copilot
#: CLI (`bash`).
SHELL_TOOLS = ("run_shell_command", "bash")


def _shell_call_arguments(parameters: dict[str, Any], command: str) -> dict[str, Any]:
    """A shell call's arguments for the tool's own schema: the command, a description where the
    tool has one, and a plain value for anything else it requires."""
    props = parameters.get("properties", {})
    args: dict[str, Any] = {"command": command}
    if "description" in props:
        args["description"] = "A scripted step"
    for name in parameters.get("required", []):
        if name not in args:
            args[name] = _example(props.get(name, {}))
    return args


def _example(schema: dict[str, Any]) -> Any:
    """A value of a JSON schema (or the Gemini API's OpenAPI subset): its first enum value, an
    object of its properties, or a plain value of its type."""
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "string")).lower()
    if kind == "object":
        return {name: _example(sub) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    return ASIDE


def _shell_step(script: Script, step: int) -> str:
    """The command of the script's next step, if it is a shell call (the CLIs of these APIs
    are not given a call to Origin's tools)."""
    if step < len(script.steps):
        next_step = script.steps[step]
        if isinstance(next_step, Shell):
            return next_step.command
    return ""


def _data(chunks: list[dict[str, Any]], done: bool = False) -> bytes:
    """Server-sent events without event names, as Chat Completions and the Gemini API send."""
    events = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks]
    return "".join(events + (["data: [DONE]\n\n"] if done else [])).encode()


def _gemini_results(body: dict[str, Any]) -> int:
    return sum(
        1
        for content in body.get("contents", [])
        for part in content.get("parts", [])
        if "functionResponse" in part
    )


def _gemini_shell(body: dict[str, Any]) -> dict[str, Any] | None:
    for tool in body.get("tools", []):
        for declaration in tool.get("functionDeclarations", []):
            if declaration.get("name") in SHELL_TOOLS:
                return dict(declaration)
    return None


def gemini_reply(script: Script, body: dict[str, Any]) -> dict[str, Any]:
    """The Gemini API's answer, as its stream's chunks put together: a `functionCall` for the
    next step (after the reasoning, a `thought` part, on the first), or the answer. A request
    for JSON (the model router, the next-speaker check) gets an object of its schema, and one
    without the shell tool, or handed the session with a task of its own, an aside."""
    config = body.get("generationConfig", {})
    shell = _gemini_shell(body)
    step = _gemini_results(body)
    contents = body.get("contents") or [{}]
    asked = [p for p in contents[-1].get("parts", []) if "text" in p]
    parts: list[dict[str, Any]]
    if config.get("responseMimeType") == "application/json":
        schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
        parts = [{"text": json.dumps(_example(schema))}]
    elif shell is None or (step and contents[-1].get("role") == "user" and asked):
        parts = [{"text": ASIDE}]
    elif command := _shell_step(script, step):
        parameters = shell.get("parametersJsonSchema") or shell.get("parameters") or {}
        call = {
            "id": f"call_script{step:02d}",
            "name": shell["name"],
            "args": _shell_call_arguments(parameters, command),
        }
        parts = [{"functionCall": call}]
        if step == 0 and script.reasoning:
            parts.insert(0, {"text": script.reasoning, "thought": True})
    else:
        parts = [{"text": script.answer}]
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 8, "totalTokenCount": 20},
        "modelVersion": "scripted",
        "responseId": f"script{step:02d}",
    }


def gemini_stream(reply: dict[str, Any]) -> bytes:
    """The reply streamed a part a chunk, as `streamGenerateContent?alt=sse` sends it (the
    reasoning arrives before the call)."""
    [candidate] = reply["candidates"]
    chunks = []
    for at, part in enumerate(candidate["content"]["parts"]):
        last = at == len(candidate["content"]["parts"]) - 1
        one = {"content": {"role": "model", "parts": [part]}, "index": 0}
        chunks.append({**reply, "candidates": [{**one, "finishReason": "STOP"} if last else one]})
    return _data(chunks)


def _chat_results(body: dict[str, Any]) -> int:
    return sum(1 for message in body.get("messages", []) if message.get("role") == "tool")


def _chat_shell(body: dict[str, Any]) -> dict[str, Any] | None:
    for tool in body.get("tools") or []:
        function = tool.get("function") or {}
        if function.get("name") in SHELL_TOOLS:
            return dict(function)
    return None


def chat_message(script: Script, body: dict[str, Any]) -> dict[str, Any]:
    """Chat Completions' assistant message: a tool call for the next step (after the reasoning,
    on the first), the answer, or an aside to a request without the shell tool (OpenCode's title
    generator) or handed the session with a task of its own after it (Qwen Code's memory
    sub-agent). Reasoning is sent as `reasoning_content`, which Qwen Code and OpenCode read, and
    as `reasoning_text`, which Copilot CLI reads."""
    shell = _chat_shell(body)
    step = _chat_results(body)
    last = (body.get("messages") or [{}])[-1]
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if shell is None or (step and last.get("role") == "user"):
        message["content"] = ASIDE
    elif command := _shell_step(script, step):
        arguments = _shell_call_arguments(shell.get("parameters") or {}, command)
        message["tool_calls"] = [
            {
                "id": f"call_script{step:02d}",
                "type": "function",
                "function": {"name": shell["name"], "arguments": json.dumps(arguments)},
            }
        ]
        if step == 0 and script.reasoning:
            message["reasoning_content"] = message["reasoning_text"] = script.reasoning
    else:
        message["content"] = script.answer
    return message


def chat_reply(script: Script, body: dict[str, Any]) -> bytes:
    """The completion, streamed (reasoning, then the call or the text, then the finish reason
    with the usage) or whole, as the request asks."""
    message = chat_message(script, body)
    head = {
        "id": f"chatcmpl-script{_chat_results(body):02d}",
        "created": 1_700_000_000,
        "model": body.get("model", "scripted"),
    }
    finish = "tool_calls" if "tool_calls" in message else "stop"
    usage = {"prompt_tokens": 12, "completion_tokens": 8, "total_tokens": 20}
    if not body.get("stream"):
        choice = {"index": 0, "message": message, "finish_reason": finish}
        whole = {**head, "object": "chat.completion", "choices": [choice], "usage": usage}
        return json.dumps(whole).encode()
    deltas: list[dict[str, Any]] = []
    if "reasoning_content" in message:
        deltas.append(
            {
                "role": "assistant",
                "reasoning_content": message["reasoning_content"],
                "reasoning_text": message["reasoning_text"],
            }
        )
    if "tool_calls" in message:
        deltas.append({"tool_calls": [{"index": 0, **message["tool_calls"][0]}]})
    else:
        deltas.append({"role": "assistant", "content": message["content"]})
    chunk = {**head, "object": "chat.completion.chunk"}
    chunks = [
        {**chunk, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas
    ]
    chunks.append(
        {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage}
    )
    return _data(chunks, done=True)


def _handler(model: Model) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            body = json.loads(raw or b"{}")
            model.requests.append({"path": self.path, "body": body})
            path = self.path.split("?", 1)[0]
            if path.endswith("/messages"):
                self._stream(anthropic_reply(model.script, body))
            elif path.endswith("/responses"):
                self._stream(responses_reply(model.script, body))
            elif path.endswith("/chat/completions") and body.get("stream"):
                self._stream(chat_reply(model.script, body))
            elif path.endswith("/chat/completions"):
                self._send(200, chat_reply(model.script, body))
            elif path.endswith(":streamGenerateContent"):
                self._stream(gemini_stream(gemini_reply(model.script, body)))
            elif path.endswith(":generateContent"):
                self._send(200, json.dumps(gemini_reply(model.script, body)).encode())
            elif path.endswith(":countTokens"):
                self._send(200, b'{"totalTokens":12}')
            else:
                self._send(404, b'{"error":{"type":"not_found_error","message":"scripted"}}')

        def do_GET(self) -> None:
            model.requests.append({"path": self.path, "body": {}, "method": "GET"})
            self._send(404, b"{}")

        def do_HEAD(self) -> None:
            self._send(200, b"")

        def _stream(self, data: bytes) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _send(self, status: int, data: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def serving(script: Script) -> Iterator[Model]:
    """The scripted model on a free loopback port, for as long as the block runs."""
    model = Model(script)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(model))
    model.url = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield model
    finally:
        server.shutdown()
        server.server_close()


def tool_outputs(body: dict[str, Any]) -> list[str]:
    """The tool results a request carries back to the model, in order, as text: what the CLI
    got from running the commands."""
    found: list[str] = []
    for message in body.get("messages", []):
        for block in message.get("content") if isinstance(message.get("content"), list) else []:
            if block.get("type") == "tool_result":
                found.append(json.dumps(block.get("content")))
    for item in body.get("input", []):
        if isinstance(item, dict) and item.get("type", "").endswith("call_output"):
            found.append(json.dumps(item.get("output")))
    for content in body.get("contents", []):
        for part in content.get("parts", []):
            if "functionResponse" in part:
                found.append(json.dumps(part["functionResponse"].get("response")))
    for message in body.get("messages", []):
        if message.get("role") == "tool":
            found.append(json.dumps(message.get("content")))
    return found
