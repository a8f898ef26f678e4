"""`origin register` with the real Gemini CLI, Qwen Code, OpenCode and Copilot CLI: after it, each
CLI lists Origin's servers and connects to them (stdio, and the hub over HTTP with a real token),
and registering again replaces the entry. Gemini CLI, Qwen Code and OpenCode connect in their own
`mcp list`; Copilot CLI's `mcp list` only reads its file, so a `copilot -p` session against a
stand-in model on loopback (its documented offline mode, no account) shows what it connected to:
the MCP tools it offers the model, `<server>-<tool>`. The same stand-in, which also speaks Gemini's
API, has Copilot CLI, Qwen Code and Gemini CLI call Origin's `remember`: the entry is authored by
the agent's source id, from the client name each gives itself (agents.MCP_CLIENTS). OpenCode's
name, `opencode`, is what its `mcp list` and its sessions send alike."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from clients_support import BARE_PATH, ORIGIN, RunningHub, User, client

pytestmark = [pytest.mark.clients, pytest.mark.e2e]

ALL_TOOLS = {"search", "timeline", "get", "sources", "remember", "correct", "forget", "ingest"}
ANSI = re.compile(r"\x1b\[[0-9;]*m")

#: What `<cli> mcp list` says of a server: its name, what it runs or calls, and whether it
#: connected (Gemini CLI and Qwen Code: `✓ origin: /…/origin mcp (stdio) - Connected`).
Listed = dict[str, tuple[str, bool]]


def _gemini_like(out: str) -> Listed:
    found = re.findall(r"^\S+ ([\w-]+): (.*?) \((?:stdio|http|sse)\) - (\w+)$", out, flags=re.M)
    return {name: (target, state == "Connected") for name, target, state in found}


def _opencode(out: str) -> Listed:
    """`●  ✓ origin connected` then `│      /…/origin mcp` (a failure adds its reason between; a
    401 reads `⚠ origin-hub needs authentication`)."""
    found: Listed = {}
    lines = out.splitlines()
    for at, line in enumerate(lines):
        head = re.match(r"^●\s+\S+\s+([\w-]+)\s+(.+?)\s*$", line)
        if head:
            body = [ln.strip("│ ").strip() for ln in lines[at + 1 : at + 4]]
            target = next((b for b in body if b.startswith(("/", "http"))), "")
            found[head[1]] = (target, head[2] == "connected")
    return found


#: A message of the Claude Code samples (tests/data/claude-code) that `remember` cites.
QUOTE = "Plan a migration of the config loader to TOML"
REMEMBER = {
    "kind": "memory",
    "text": "The config loader moves to TOML.",
    "confidence": 0.9,
    "sources": [{"quote": QUOTE}],
}
#: Origin's remember as each CLI names it to the model.
REMEMBER_TOOLS = ("origin-remember", "mcp__origin__remember", "mcp_origin_remember")


def _next_call(offered: set[str], called: set[str]) -> tuple[str, dict[str, Any]] | None:
    """The tool call the stand-in asks for next: Origin's `remember`, once, where the request
    offers it; Qwen Code defers MCP tools behind `tool_search`, which loads it first. Where the
    request offers neither (or remember was called), the answer."""
    if called & set(REMEMBER_TOOLS):
        return None
    remember = next((name for name in REMEMBER_TOOLS if name in offered), None)
    if remember is not None:
        return remember, REMEMBER
    if "tool_search" in offered and "tool_search" not in called:
        return "tool_search", {"query": "select:mcp__origin__remember"}
    return None


def _chat_reply(body: dict[str, Any]) -> bytes:
    """Chat completions (Copilot CLI, Qwen Code), streamed: a tool call or `hi`."""
    offered = {t.get("function", {}).get("name") for t in body.get("tools", [])}
    called = {
        call["function"]["name"]
        for message in body.get("messages", [])
        for call in message.get("tool_calls") or []
    }
    chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    call = _next_call(offered - {None}, called)
    if call is None:
        delta: dict[str, Any] = {"role": "assistant", "content": "hi"}
        stop = "stop"
    else:
        function = {"name": call[0], "arguments": json.dumps(call[1])}
        tool = {"index": 0, "id": f"call_{len(body.get('messages', []))}", "type": "function"}
        delta = {"role": "assistant", "tool_calls": [{**tool, "function": function}]}
        stop = "tool_calls"
    events = [
        {**chunk, "choices": [{"index": 0, "delta": delta}]},
        {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": stop}]},
    ]
    return b"".join(b"data: %s\n\n" % json.dumps(e).encode() for e in events) + b"data: [DONE]\n\n"


def _gemini_reply(body: dict[str, Any]) -> bytes:
    """Gemini's streamGenerateContent (server-sent events of GenerateContentResponse)."""
    offered = {
        d.get("name") for t in body.get("tools", []) for d in t.get("functionDeclarations", [])
    }
    parts = [p for c in body.get("contents", []) for p in c.get("parts", [])]
    called = {p["functionCall"]["name"] for p in parts if "functionCall" in p}
    call = _next_call(offered - {None}, called)
    answer = (
        [{"text": "hi"}] if call is None else [{"functionCall": {"name": call[0], "args": call[1]}}]
    )
    response = {
        "candidates": [
            {"content": {"role": "model", "parts": answer}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
    }
    return b"data: %s\r\n\r\n" % json.dumps(response).encode()


def _entries(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries Origin's `remember` returned, in the tool results the last request carries
    back to the model (Copilot CLI's a string, Qwen Code's text parts, Gemini CLI's a
    functionResponse's output, wrapped in `<untrusted_context>`)."""
    last = bodies[-1] if bodies else {}
    texts = []
    for message in last.get("messages", []):
        content = message.get("content")
        if message.get("role") == "tool":
            parts = content if isinstance(content, list) else [{"text": content}]
            texts += [str(part.get("text")) for part in parts]
    for part in (p for c in last.get("contents", []) for p in c.get("parts", [])):
        if "functionResponse" in part:
            texts.append(str(part["functionResponse"].get("response", {}).get("output")))
    found = []
    for text in texts:
        start, end = text.find('{"entry"'), text.rfind("}")
        if start >= 0:
            found.append(dict(json.loads(text[start : end + 1])["entry"]))
    return found


@dataclass
class Model:
    """A stand-in model on loopback, for OpenAI-compatible chat completions (`url`/v1) and
    Gemini's API (`url`): it keeps each request, asks once for Origin's `remember` where it is
    offered, and answers `hi`."""

    url: str = ""
    bodies: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture
def model() -> Iterator[Model]:
    kept = Model()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            kept.bodies.append(body)
            gemini = ":streamGenerateContent" in self.path
            data = _gemini_reply(body) if gemini else _chat_reply(body)
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    kept.url = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield kept
    finally:
        server.shutdown()
        server.server_close()


def _copilot(user: User, model: Model) -> Listed:
    """The servers in `copilot mcp list --json`, each connected when a session offered the model
    all of its tools."""
    config = json.loads(user.run(client("copilot"), "mcp", "list", "--json").stdout)
    user.run(
        client("copilot"),
        "-p",
        "hi",
        "--allow-all-tools",
        COPILOT_OFFLINE="true",
        COPILOT_PROVIDER_BASE_URL=f"{model.url}/v1",
        COPILOT_MODEL="gpt-4o",
    )
    assert model.bodies, "copilot sent the model nothing"
    offered = {t.get("function", {}).get("name") for t in model.bodies[-1].get("tools", [])}
    print(sorted(str(t) for t in offered))
    found: Listed = {}
    for name, server in config["mcpServers"].items():
        target = server.get("url") or " ".join([server["command"], *server.get("args", [])])
        tools = {t.removeprefix(f"{name}-") for t in offered if t and t.startswith(f"{name}-")}
        found[name] = (target, tools >= ALL_TOOLS)
    return found


@dataclass(frozen=True)
class Agent:
    """One agent as a test drives it: its `origin register` name, its CLI, where its config is
    under HOME, and how its servers are listed."""

    name: str
    program: str
    config: str
    listed: Callable[[str], Listed] | None
    #: What the user has set for the CLI to use a user's servers at all.
    env: dict[str, str] = field(default_factory=dict)

    def servers(self, user: User, model: Model) -> Listed:
        if self.listed is None:
            return _copilot(user, model)
        done = user.run(client(self.program), "mcp", "list", **self.env)
        out = ANSI.sub("", done.stdout + done.stderr)
        print(out)
        return self.listed(out)


AGENTS = [
    # Gemini CLI keeps every MCP server off in a folder the user has not trusted; the user's
    # answer to its trust prompt, for the test's HOME.
    Agent(
        "gemini",
        "gemini",
        ".gemini/settings.json",
        _gemini_like,
        {"GEMINI_CLI_TRUST_WORKSPACE": "true"},
    ),
    Agent("qwen", "qwen", ".qwen/settings.json", _gemini_like),
    Agent("opencode", "opencode", ".config/opencode/opencode.json", _opencode),
    Agent("copilot", "copilot", ".copilot/mcp-config.json", None),
]


@pytest.mark.parametrize("agent", AGENTS, ids=lambda a: a.name)
def test_stdio_and_hub_registered_by_origin_are_connected(
    user: User, hub: RunningHub, model: Model, agent: Agent
) -> None:
    client(agent.program)
    said = user.origin("register", agent.name).stdout
    assert said.startswith("Registered origin (stdio) with "), said
    said = user.origin("register", agent.name, "--hub", hub.url, "--token", hub.token).stdout
    assert said.startswith("Registered origin-hub (http) with "), said
    assert hub.token not in said
    assert agent.servers(user, model) == {
        "origin": (f"{ORIGIN} mcp", True),
        "origin-hub": (hub.url, True),
    }


@pytest.mark.parametrize("agent", AGENTS, ids=lambda a: a.name)
def test_registering_again_replaces_a_stale_entry(user: User, model: Model, agent: Agent) -> None:
    """An entry left by an origin that moved is replaced, by the agent's own CLI and by the file
    Origin writes where that CLI is not on PATH; the user's other settings stay."""
    client(agent.program)
    config = user.home / agent.config
    config.parent.mkdir(parents=True, exist_ok=True)
    key = "mcp" if agent.name == "opencode" else "mcpServers"
    stale: dict[str, Any] = (
        {"type": "local", "command": ["/gone/origin", "mcp"]}
        if agent.name == "opencode"
        else {"command": "/gone/origin", "args": ["mcp"]}
    )
    config.write_text(json.dumps({key: {"origin": stale}, "$schema-or-setting": "kept"}))
    user.run(ORIGIN, "register", agent.name, PATH=BARE_PATH)
    user.origin("register", agent.name)
    assert agent.servers(user, model) == {"origin": (f"{ORIGIN} mcp", True)}
    kept = json.loads(Path(config).read_text())
    assert kept["$schema-or-setting"] == "kept" and list(kept[key]) == ["origin"]


#: How each CLI runs one prompt against the stand-in model, without an account: Copilot CLI in
#: its offline mode, Qwen Code with an OpenAI-compatible provider, Gemini CLI with an API key (a
#: model named, so that it does not first ask a router model which one to use).
PROMPTED: dict[str, Callable[[str], tuple[list[str], dict[str, str]]]] = {
    "copilot": lambda url: (
        ["-p", "remember it", "--allow-all-tools"],
        {
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": f"{url}/v1",
            "COPILOT_MODEL": "gpt-4o",
        },
    ),
    "qwen": lambda url: (
        ["--auth-type", "openai", "-p", "remember it", "--yolo"],
        {"OPENAI_API_KEY": "unused", "OPENAI_BASE_URL": f"{url}/v1", "OPENAI_MODEL": "gpt-4o"},
    ),
    "gemini": lambda url: (
        ["-m", "gemini-2.5-flash", "-p", "remember it", "--yolo"],
        {
            "GEMINI_API_KEY": "unused",
            "GOOGLE_GEMINI_BASE_URL": url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        },
    ),
}


@pytest.mark.parametrize("name", list(PROMPTED))
def test_an_entry_the_agent_remembers_is_authored_by_its_source_id(
    user: User, model: Model, name: str
) -> None:
    """Copilot CLI says `copilot-cli`, Qwen Code `qwen-cli-mcp-client-origin`, Gemini CLI
    `gemini-cli-mcp-client`: the entry's author is `copilot@<device>`, `qwen@…`, `gemini@…`."""
    program = client(name)
    if name == "gemini":  # the user chose an API key as Gemini CLI's sign-in; register keeps it
        settings = user.home / ".gemini" / "settings.json"
        settings.parent.mkdir()
        settings.write_text('{"security": {"auth": {"selectedType": "gemini-api-key"}}}')
    user.env["CLAUDE_CONFIG_DIR"] = str(Path(__file__).parents[1] / "data" / "claude-code")
    user.origin("ingest")
    user.origin("register", name)
    args, env = PROMPTED[name](model.url)
    user.run(program, *args, **env)
    entries = _entries(model.bodies)
    assert len(entries) == 1, model.bodies[-1:]
    assert entries[0]["author"].split("@")[0] == name
    assert entries[0]["text"] == REMEMBER["text"]


@pytest.mark.parametrize("agent", AGENTS, ids=lambda a: a.name)
def test_the_hub_entry_connects_only_with_a_token_the_hub_accepts(
    user: User, hub: RunningHub, model: Model, agent: Agent
) -> None:
    client(agent.program)
    user.origin("register", agent.name, "--hub", hub.url, "--token", "ogn_" + "x" * 43)
    assert agent.servers(user, model) == {"origin-hub": (hub.url, False)}
