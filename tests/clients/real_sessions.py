"""One session of a real agent CLI against the scripted model, and what a real `origin mcp`
then finds of it. The session holds one of each thing an agent writes: the user's prompt, the
shell calls the model asks for (which the CLI really runs), a large output, a failure and the
answer. Each carries a word found nowhere else in the session, so that searching for the word
shows how Origin filed that one thing."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from api.mcp_client import stdio_client, tool_json
from clients_support import User, client, new_user
from model_server import McpCall, Script, Shell, serving

from origin_store.textclip import cut_counted

#: The large output: 30,000 lines (169 KB), a word on the eleventh line from the end and one on
#: line 3,000 (which Codex keeps in its item's 64 KiB, not in the 10 KB the model reads); the
#: command spells each word in two halves so that only the output holds it whole.
BIG = (
    "seq 1 30000 | sed \"s/^29990\\$/$(printf 'mari%s' gold)/;"
    " s/^3000\\$/$(printf 'tama%s' risk)/\" # lanternfish"
)
#: The failure: a word on stderr, then exit status 3.
FAIL = "echo \"$(printf 'gla%s' cier)\" >&2; exit 3 # pelican"
#: A call to Origin's own MCP server, whose answer does not repeat the word (no entries yet).
LOOKUP = McpCall("search", {"query": "saxifrage", "scope": "entries"})
PROMPT = "Count to thirty thousand the periwinkle way, then try the other thing."
ANSWER = "Counted; the other thing failed with status 3, kestrel."
SCRIPT = Script(steps=(LOOKUP, Shell(BIG), Shell(FAIL)), answer=ANSWER)
#: The raw line `sources` returns is cut here (the contract's 4,000 characters).
RAW_TEXT = 4_000


@dataclass(frozen=True)
class Word:
    """One thing of the session, by the word only it holds, and how Origin must file it."""

    what: str
    word: str
    role: str
    kind: str
    #: A failed tool call's result is marked `[error] ` at the start of its text.
    failed: bool = False
    #: A call to an MCP server's tool names the server (`mcp__origin`) in its text.
    mcp: bool = False


WORDS = (
    Word("prompt", "periwinkle", "user", "message"),
    Word("MCP call", "saxifrage", "assistant", "tool_use", mcp=True),
    Word("call", "lanternfish", "assistant", "tool_use"),
    Word("large output", "marigold", "system", "tool_result"),
    Word("large output's middle", "tamarisk", "system", "tool_result"),
    Word("failing call", "pelican", "assistant", "tool_use"),
    Word("failure", "glacier", "system", "tool_result", failed=True),
    Word("answer", "kestrel", "assistant", "message"),
)


@dataclass
class Found:
    """What Origin had of the session, read through a real `origin mcp`."""

    #: The word's events in the search results, as search returned them.
    events: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: `sources` of every event found, by event id.
    sources: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: The session's events (`timeline` with tools), before and after the second ingest.
    timeline: list[dict[str, Any]] = field(default_factory=list)
    timeline_again: list[dict[str, Any]] = field(default_factory=list)
    #: `origin ingest --json` the first and the second time.
    first: dict[str, Any] = field(default_factory=dict)
    second: dict[str, Any] = field(default_factory=dict)


def ingest(user: User) -> dict[str, Any]:
    return dict(json.loads(user.origin("ingest", "--json").stdout))


async def _read(env: dict[str, str], source: str, found: Found) -> str:
    session = ""
    async with stdio_client(env) as client:
        for word in WORDS:
            result = await tool_json(
                client,
                "search",
                {"query": word.word, "scope": "events", "include_tools": True, "limit": 100},
            )
            found.events[word.word] = [e for e in result["events"] if e["source"] == source]
            for event in found.events[word.word]:
                found.sources[event["id"]] = await tool_json(client, "sources", {"id": event["id"]})
                session = session or event["session"]
        if session:
            found.timeline = await _timeline(client, source, session)
    return session


async def _timeline(client: Any, source: str, session: str) -> list[dict[str, Any]]:
    args = {"session": session, "source": source, "include_tools": True, "limit": 500}
    return list((await tool_json(client, "timeline", args))["events"])


def read_back(user: User, source: str) -> Found:
    """Ingest what the CLI wrote, read it through `origin mcp`, then ingest again and list the
    session once more."""
    found = Found()
    env = {**os.environ, **user.env}
    found.first = ingest(user)
    session = anyio.run(_read, env, source, found)
    found.second = ingest(user)

    async def again() -> None:
        async with stdio_client(env) as client:
            found.timeline_again = await _timeline(client, source, session)

    if session:
        anyio.run(again)
    return found


def file_line(path: str, number: int) -> str:
    """Line `number` (from 1) of a log file, as written, without its line break."""
    with Path(path).open("rb") as f:
        for at, line in enumerate(f, start=1):
            if at == number:
                return line.rstrip(b"\n").decode("utf-8")
    raise AssertionError(f"{path} has no line {number}")


def expected_raw(line: str) -> str:
    return cut_counted(line, len(line), RAW_TEXT)


@dataclass
class Run:
    """A CLI's session and what Origin found of it."""

    cli: str
    user: User
    #: Where the CLI keeps its logs: CLAUDE_CONFIG_DIR or CODEX_HOME.
    logs: Path
    stdout: str
    requests: list[dict[str, Any]]
    found: Found


def run_claude(tmp: Path) -> Run:
    """`claude -p` with Bash allowed (it refuses --dangerously-skip-permissions as root)."""
    claude = client("claude")
    user = new_user(tmp)
    logs = user.home / ".claude"
    user.env["CLAUDE_CONFIG_DIR"] = str(logs)
    user.origin("register", "claude-code")
    with serving(SCRIPT) as model:
        done = user.run(
            claude,
            "-p",
            PROMPT,
            "--allowedTools",
            "Bash",
            f"mcp__origin__{LOOKUP.tool}",
            ANTHROPIC_BASE_URL=model.url,
            ANTHROPIC_API_KEY="sk-ant-scripted",
        )
    return Run(
        "claude-code", user, logs, done.stdout, model.requests, read_back(user, "claude-code")
    )


def run_codex(tmp: Path) -> Run:
    """`codex exec` with a provider of its own on loopback, running commands without asking."""
    codex = client("codex")
    user = new_user(tmp)
    logs = user.home / ".codex"
    logs.mkdir()
    user.env["CODEX_HOME"] = str(logs)
    with serving(SCRIPT) as model:
        (logs / "config.toml").write_text(
            'model = "gpt-5"\n'
            'model_provider = "scripted"\n'
            'approval_policy = "never"\n'
            'sandbox_mode = "danger-full-access"\n'
            "[model_providers.scripted]\n"
            'name = "scripted"\n'
            f'base_url = "{model.url}/v1"\n'
            'env_key = "SCRIPTED_MODEL_KEY"\n'
            'wire_api = "responses"\n'
            "request_max_retries = 0\n"
            "stream_max_retries = 0\n"
        )
        user.origin("register", "codex")  # its table after the settings above
        done = user.run(codex, "exec", "--skip-git-repo-check", PROMPT, SCRIPTED_MODEL_KEY="unused")
    return Run("codex", user, logs, done.stdout, model.requests, read_back(user, "codex"))


RUNNERS = {"claude-code": run_claude, "codex": run_codex}
