"""One session of a real agent CLI against the scripted model, and what a real `origin mcp`
then finds of it. The session holds one of each thing an agent writes: the user's prompt, the
shell calls the model asks for (which the CLI really runs), a large output, a failure and the
answer. Each carries a word found nowhere else in the session, so that searching for the word
shows how Origin filed that one thing."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio
from api.mcp_client import stdio_client, tool_json
from clients_support import CLIENTS, User, client, new_user
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
#: The same commands without `$(…)`, which Gemini CLI refuses to run ("command injection"): the
#: words are spelled in quoted halves instead. Its output is 5,000 lines (87 KB): Qwen Code reads
#: a command's output through a terminal, which keeps its last 10,000 rows, and drops what the
#: terminal had not drawn yet when the command ended, hence the second's wait at the end. The
#: fifth line holds a word too, for Copilot CLI, which keeps a large output's first 500
#: characters.
SPELLED_BIG = (
    "seq 1 5000 | sed -e 's/$/ of the count/' -e 's/^5 /bram''ble /'"
    " -e 's/^1000 /tama''risk /' -e 's/^4990 /mari''gold /'; sleep 1 # lanternfish"
)
SPELLED_FAIL = "echo gla''cier >&2; exit 3 # pelican"
#: Reasoning, in the `**Subject** text` shape Gemini CLI splits into a thought's parts.
REASONING = "**Planning the count** The count first, then the other thing; wisteria."
#: The session of the CLIs that `origin register` does not know yet: no call to Origin's tools.
SPELLED = Script(
    steps=(Shell(SPELLED_BIG), Shell(SPELLED_FAIL)), answer=ANSWER, reasoning=REASONING
)
#: The raw line `sources` returns is cut here (the contract's 4,000 characters).
RAW_TEXT = 4_000


@dataclass(frozen=True)
class Word:
    """One thing of the session, by the word only it holds, and how Origin must file it."""

    what: str
    word: str
    role: str
    kind: str
    #: A failed tool call's result is marked `[error] ` (or `[error: exit code 3] `) at the start
    #: of its text.
    failed: bool = False
    #: A call to an MCP server's tool names the server (`mcp__origin`) in its text.
    mcp: bool = False
    #: Other events that rightly hold the word too, as (role, kind).
    also: tuple[tuple[str, str], ...] = ()


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
HEAD = Word("large output's head", "bramble", "system", "tool_result")
THOUGHT = Word("reasoning", "wisteria", "assistant", "meta")
#: Gemini CLI, Qwen Code and OpenCode: the words of SPELLED, reasoning included.
SPELLED_WORDS = (*(w for w in WORDS if not w.mcp), HEAD, THOUGHT)
#: Qwen Code's result of a command restates it (`Command: …`), the failing call's word with it.
QWEN_WORDS = tuple(
    replace(w, also=(("system", "tool_result"),)) if w.word == "pelican" else w
    for w in SPELLED_WORDS
)
#: Copilot CLI keeps 500 characters of a large output under its home and the rest in a file of
#: the OS's temp dir only: the output's middle and end are not in its logs to be found.
COPILOT_WORDS = tuple(w for w in SPELLED_WORDS if w.word not in ("marigold", "tamarisk"))
#: Each CLI's script and words, by source.
SCRIPTS = {
    "claude-code": SCRIPT,
    "codex": SCRIPT,
    "gemini": SPELLED,
    "qwen": SPELLED,
    "opencode": SPELLED,
    "copilot": SPELLED,
}
WORDS_OF = {
    "claude-code": WORDS,
    "codex": WORDS,
    "gemini": SPELLED_WORDS,
    "qwen": QWEN_WORDS,
    "opencode": SPELLED_WORDS,
    "copilot": COPILOT_WORDS,
}


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
        for word in WORDS_OF[source]:
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
    #: Where the CLI keeps its logs: CLAUDE_CONFIG_DIR, CODEX_HOME, ~/.gemini, ~/.qwen,
    #: XDG_DATA_HOME/opencode or COPILOT_HOME.
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


# The four CLIs below hold SPELLED, without the call to Origin's MCP server: `origin register`
# does not add Origin to their settings yet.


def run_gemini(tmp: Path) -> Run:
    """`gemini -p` in YOLO mode, with an API key and the base URL @google/genai reads."""
    gemini = client("gemini")
    user = new_user(tmp)
    logs = user.home / ".gemini"
    logs.mkdir()
    user.env["GEMINI_CLI_HOME"] = str(user.home)
    (logs / "settings.json").write_text(
        json.dumps(
            {
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
                "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
                "ide": {"enabled": False},
            }
        )
    )
    with serving(SPELLED) as model:
        done = user.run(
            gemini,
            "-p",
            PROMPT,
            "--yolo",
            GEMINI_API_KEY="scripted",
            GOOGLE_GEMINI_BASE_URL=model.url,
            GEMINI_CLI_TRUST_WORKSPACE="true",
        )
    return Run("gemini", user, logs, done.stdout, model.requests, read_back(user, "gemini"))


def run_qwen(tmp: Path) -> Run:
    """`qwen -p` in YOLO mode, signed in as an OpenAI-compatible provider on loopback."""
    qwen = client("qwen")
    user = new_user(tmp)
    logs = user.home / ".qwen"
    logs.mkdir()
    (logs / "settings.json").write_text(
        json.dumps(
            {
                "security": {"auth": {"selectedType": "openai"}},
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
                "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
                "ide": {"enabled": False},
            }
        )
    )
    with serving(SPELLED) as model:
        done = user.run(
            qwen,
            "-p",
            PROMPT,
            "--yolo",
            "--auth-type",
            "openai",
            OPENAI_API_KEY="scripted",
            OPENAI_BASE_URL=f"{model.url}/v1",
            OPENAI_MODEL="scripted-model",
        )
    return Run("qwen", user, logs, done.stdout, model.requests, read_back(user, "qwen"))


def run_opencode(tmp: Path) -> Run:
    """`opencode run` with a provider of its own on loopback, every tool allowed."""
    opencode = client("opencode")
    user = new_user(tmp)
    data = user.home / ".local" / "share"
    config = user.home / ".config"
    user.env.update(
        XDG_DATA_HOME=str(data),
        XDG_CONFIG_HOME=str(config),
        XDG_CACHE_HOME=str(user.home / ".cache"),
        XDG_STATE_HOME=str(user.home / ".local" / "state"),
        OPENCODE_DISABLE_MODELS_FETCH="1",
        OPENCODE_DISABLE_AUTOUPDATE="1",
        OPENCODE_DISABLE_LSP_DOWNLOAD="1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS="1",
        # It installs its plugin package into the settings' folder in the background: from
        # npm's cache only, so that a test does not reach the registry.
        npm_config_offline="true",
    )
    (config / "opencode").mkdir(parents=True)
    with serving(SPELLED) as model:
        model_entry = {"name": "Scripted", "tool_call": True, "reasoning": True}
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Scripted",
            "options": {"baseURL": f"{model.url}/v1", "apiKey": "unused"},
            "models": {"scripted-model": model_entry},
        }
        (config / "opencode" / "opencode.json").write_text(
            json.dumps(
                {
                    "provider": {"scripted": provider},
                    "model": "scripted/scripted-model",
                    "small_model": "scripted/scripted-model",
                    "autoupdate": False,
                    "share": "disabled",
                    "permission": {"bash": "allow", "edit": "allow"},
                }
            )
        )
        done = user.run(opencode, "run", PROMPT)
    logs = data / "opencode"
    return Run("opencode", user, logs, done.stdout, model.requests, read_back(user, "opencode"))


def run_copilot(tmp: Path) -> Run:
    """`copilot -p` offline with a provider of its own (BYOK) on loopback, every tool allowed.
    The JavaScript it unpacks on first run (235 MB) is kept beside the installed CLIs, once."""
    copilot = client("copilot")
    user = new_user(tmp)
    logs = user.home / ".copilot"
    (user.home / "tmp").mkdir()
    user.env.update(
        COPILOT_HOME=str(logs),
        COPILOT_CACHE_HOME=str(CLIENTS.parent.parent / "copilot-cache"),
        TMPDIR=str(user.home / "tmp"),
    )
    with serving(SPELLED) as model:
        done = user.run(
            copilot,
            "-p",
            PROMPT,
            "--allow-all-tools",
            COPILOT_OFFLINE="true",
            COPILOT_PROVIDER_BASE_URL=f"{model.url}/v1",
            COPILOT_PROVIDER_API_KEY="unused",
            COPILOT_MODEL="scripted-model",
            COPILOT_ALLOW_ALL="true",
        )
    return Run("copilot", user, logs, done.stdout, model.requests, read_back(user, "copilot"))


RUNNERS = {
    "claude-code": run_claude,
    "codex": run_codex,
    "gemini": run_gemini,
    "qwen": run_qwen,
    "opencode": run_opencode,
    "copilot": run_copilot,
}
