"""The agents that keep their MCP servers in a JSON file (Gemini CLI, Qwen Code, OpenCode,
Copilot CLI): where each file is, the entry and the `mcp add` command for each transport, and
the edit that sets Origin's entry in such a file."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import OriginError
from .base import HUB_NAME, STDIO_NAME, TOKEN_PLACEHOLDER, Registration

Headers = dict[str, str]


def _user_home(environ: Mapping[str, str], home: Path | None) -> Path:
    return home or Path(environ.get("HOME") or Path.home()).expanduser()


def _home(environ: Mapping[str, str], home: Path | None, variable: str, below: str) -> Path:
    """An agent's directory: the variable that moves it when set, else `below` in `home` (by
    default HOME)."""
    moved = environ.get(variable)
    return Path(moved).expanduser() if moved else _user_home(environ, home) / below


def gemini_config(environ: Mapping[str, str], home: Path | None = None) -> Path:
    """GEMINI_CLI_HOME stands in for the home directory, which holds `.gemini`."""
    moved = environ.get("GEMINI_CLI_HOME")
    base = Path(moved).expanduser() if moved else _user_home(environ, home)
    return base / ".gemini" / "settings.json"


def qwen_config(environ: Mapping[str, str], home: Path | None = None) -> Path:
    """QWEN_HOME is the `.qwen` directory itself."""
    return _home(environ, home, "QWEN_HOME", ".qwen") / "settings.json"


def copilot_config(environ: Mapping[str, str], home: Path | None = None) -> Path:
    """COPILOT_HOME is the `.copilot` directory itself."""
    return _home(environ, home, "COPILOT_HOME", ".copilot") / "mcp-config.json"


#: OpenCode's global files, in the order it merges them (the last one found wins).
OPENCODE_FILES = ("config.json", "opencode.json", "opencode.jsonc")


def opencode_config(environ: Mapping[str, str], home: Path | None = None) -> Path:
    """OPENCODE_CONFIG names a file OpenCode reads after its global ones; else the global one
    that wins among those there (OpenCode writes `opencode.jsonc` on its first start), or
    `opencode.json` in XDG_CONFIG_HOME/opencode (~/.config/opencode) where there is none."""
    named = environ.get("OPENCODE_CONFIG")
    if named:
        return Path(named).expanduser()
    where = _home(environ, home, "XDG_CONFIG_HOME", ".config") / "opencode"
    found = [where / name for name in OPENCODE_FILES if (where / name).is_file()]
    return found[-1] if found else where / "opencode.json"


def _command_args(exe: str) -> dict[str, Any]:
    return {"command": exe, "args": ["mcp"]}


def _mcp_add_stdio(program: str) -> Callable[[str, str], tuple[str, ...]]:
    """`<program> mcp add --scope user <name> <exe> mcp` (Gemini CLI's and Qwen Code's)."""
    return lambda name, exe: (program, "mcp", "add", "--scope", "user", name, exe, "mcp")


def _mcp_add_http(program: str) -> Callable[[str, str, Headers], tuple[str, ...]]:
    def argv(name: str, url: str, headers: Headers) -> tuple[str, ...]:
        sent = [a for k, v in headers.items() for a in ("-H", f"{k}: {v}")]
        return (program, "mcp", "add", "--scope", "user", "--transport", "http", name, url, *sent)

    return argv


def _opencode_http(name: str, url: str, headers: Headers) -> tuple[str, ...]:
    sent = [a for k, v in headers.items() for a in ("--header", f"{k}={v}")]
    return ("opencode", "mcp", "add", name, "--url", url, *sent)


def _copilot_http(name: str, url: str, headers: Headers) -> tuple[str, ...]:
    sent = [a for k, v in headers.items() for a in ("--header", f"{k}: {v}")]
    return ("copilot", "mcp", "add", "--transport", "http", name, url, *sent)


@dataclass(frozen=True, slots=True)
class JsonAgent:
    """An agent that keeps its MCP servers in a JSON file, one object per name under `key`:
    where the file is, the object for each transport, and the agent's own `mcp add` command.
    That command is run where it is installed when `runs` (Gemini CLI's and Qwen Code's replace
    an entry and keep the file's comments); Origin writes the others' files itself (Copilot's
    `add` refuses a name it has, OpenCode's may pick a project's file), and every agent's where
    its CLI is absent."""

    agent: str
    key: str
    config: Callable[[Mapping[str, str], Path | None], Path]
    stdio: Callable[[str], dict[str, Any]]
    http: Callable[[str, Headers], dict[str, Any]]
    add_stdio: Callable[[str, str], tuple[str, ...]]
    add_http: Callable[[str, str, Headers], tuple[str, ...]]
    runs: bool


JSON_AGENTS: dict[str, JsonAgent] = {
    spec.agent: spec
    for spec in (
        JsonAgent(
            "gemini",
            "mcpServers",
            gemini_config,
            _command_args,
            lambda url, headers: {"url": url, "type": "http", "headers": headers},
            _mcp_add_stdio("gemini"),
            _mcp_add_http("gemini"),
            runs=True,
        ),
        JsonAgent(
            "qwen",
            "mcpServers",
            qwen_config,
            _command_args,
            lambda url, headers: {"httpUrl": url, "headers": headers},
            _mcp_add_stdio("qwen"),
            _mcp_add_http("qwen"),
            runs=True,
        ),
        JsonAgent(
            "opencode",
            "mcp",
            opencode_config,
            lambda exe: {"type": "local", "command": [exe, "mcp"], "enabled": True},
            lambda url, headers: {
                "type": "remote",
                "url": url,
                "headers": headers,
                "enabled": True,
            },
            lambda name, exe: ("opencode", "mcp", "add", name, "--", exe, "mcp"),
            _opencode_http,
            runs=False,
        ),
        JsonAgent(
            "copilot",
            "mcpServers",
            copilot_config,
            lambda exe: {"type": "local", **_command_args(exe), "tools": ["*"]},
            lambda url, headers: {"type": "http", "url": url, "headers": headers, "tools": ["*"]},
            lambda name, exe: ("copilot", "mcp", "add", name, "--", exe, "mcp"),
            _copilot_http,
            runs=False,
        ),
    )
}


def json_registrations(exe: str, hub_url: str | None, token: str | None) -> list[Registration]:
    """Each of these agents' entries, stdio always and HTTP too when a hub URL is given: the
    fragment Origin writes in its file, and the agent's own command that does the same."""
    found = []
    for spec in JSON_AGENTS.values():
        entry = spec.stdio(exe)
        fragment = json.dumps({spec.key: {STDIO_NAME: entry}}, indent=2)
        argv = spec.add_stdio(STDIO_NAME, exe)
        found.append(Registration(spec.agent, "stdio", STDIO_NAME, argv, fragment=fragment))
        if hub_url is not None:
            headers = {
                "Authorization": f"Bearer {token or TOKEN_PLACEHOLDER}",
                "X-Origin-Client": spec.agent,
            }
            fragment = json.dumps({spec.key: {HUB_NAME: spec.http(hub_url, headers)}}, indent=2)
            argv = spec.add_http(HUB_NAME, hub_url, headers)
            found.append(Registration(spec.agent, "http", HUB_NAME, argv, fragment=fragment))
    return found


# -- the files ---------------------------------------------------------------------------------

#: What JSON with comments (JSONC) adds: `//` and `/* */` comments, and commas before a closing
#: bracket; strings are matched first so that nothing inside one is taken for either.
_JSONC = re.compile(r'("(?:[^"\\]|\\.)*")|//[^\n]*|/\*.*?\*/|,(?=\s*[}\]])', re.S)


def loads_jsonc(text: str) -> Any:
    """JSON that may hold comments and trailing commas, as Gemini CLI, Qwen Code and OpenCode
    read their settings (ValueError when it is not even that)."""
    return json.loads(_JSONC.sub(lambda m: m.group(1) or "", text))


def parse_config(text: str, where: object, *, strict: bool) -> dict[str, Any]:
    """The JSON object in an agent's config ({} for an empty file), or OriginError saying why it
    is left alone: not JSON, not an object, or when `strict` (Origin rewrites it) comments that
    the rewrite would lose."""
    if not text.strip():
        return {}
    try:
        config = json.loads(text)
    except ValueError as error:
        try:
            config = loads_jsonc(text)
        except ValueError:
            raise OriginError(f"{where} is not valid JSON ({error}); fix it first.") from None
        if strict:
            raise OriginError(
                f"{where} holds comments (or trailing commas) that rewriting it would lose; "
                "add Origin's entry there yourself (`--dry-run` shows it)."
            ) from None
    if not isinstance(config, dict):
        raise OriginError(f"{where} is not a JSON object; fix it first.")
    return config


def upsert_json(
    text: str, key: str, name: str, entry: dict[str, Any], *, where: Path | None = None
) -> str:
    """`text` (an agent's JSON config) with `key.name` set to `entry`, in place when it exists:
    every other key keeps its value and its order. Unchanged text when the entry is already
    there; a file that is not a JSON object, or whose `key` is not one, is refused."""
    shown = where or "the config"
    config = parse_config(text, shown, strict=True)
    servers = config.get(key, {})
    if not isinstance(servers, dict):
        raise OriginError(f"{shown}: {key} is not a JSON object; fix it first.")
    if servers.get(name) == entry:
        return text
    config[key] = {**servers, name: entry}
    return json.dumps(config, indent=2, ensure_ascii=False) + "\n"
