"""How each agent is told about Origin: one place for the exact commands, so the README, `make
run`, `origin mcp --help` and `origin register` can never drift apart again.

Names are distinct per transport (`origin` for stdio, `origin-hub` for HTTP) because an agent keeps
one entry per name: the same name for both makes the second registration refuse or overwrite.
Commands carry the absolute path of the installed `origin`, since agents start it with their own
PATH, which rarely holds a virtualenv's bin.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .errors import OriginError

STDIO_NAME = "origin"
HUB_NAME = "origin-hub"
#: Shown where the hub's token is not known to the caller.
TOKEN_PLACEHOLDER = "ogn_…"
#: Where `origin run` keeps the hub's token for this user, under ORIGIN_HOME (mode 0600).
TOKEN_FILE = "hub-token"
#: The agents `origin register` can configure, in the order they are shown.
AGENTS = ("claude-code", "codex", "gemini", "qwen", "opencode", "copilot")
#: Everything instructions are printed for (the MCP Inspector is a client, not an agent).
CLIENTS = (*AGENTS, "inspector")
AGENT_LABEL = {
    "claude-code": "Claude Code",
    "codex": "Codex",
    "gemini": "Gemini CLI",
    "qwen": "Qwen Code",
    "opencode": "OpenCode",
    "copilot": "GitHub Copilot CLI",
    "inspector": "MCP Inspector",
}

Transport = Literal["stdio", "http"]


@dataclass(frozen=True, slots=True)
class Registration:
    """One client's entry for one transport: the command to run, and for Codex the TOML that
    command writes (so Origin can write it itself where the `codex` CLI is absent), or for an
    agent configured in JSON that file's fragment (`{key: {name: entry}}`)."""

    client: str
    transport: Transport
    name: str
    argv: tuple[str, ...]
    toml: str | None = None
    fragment: str | None = None

    @property
    def command(self) -> str:
        """The argv as one line a shell runs unchanged."""
        return shlex.join(self.argv)

    @property
    def shown(self) -> str:
        """What a person is given: Codex's TOML (its IDE extension reads the same file, with or
        without the `codex` CLI, and the CLI cannot set the hub's headers), else the command."""
        return (self.toml or "").rstrip() or self.command

    @property
    def written(self) -> str:
        """What Origin writes in the agent's file: the TOML table or the JSON fragment."""
        return (self.toml or self.fragment or "").rstrip()


def origin_executable() -> Path:
    """The `origin` an agent should start: the one running now when it is an `origin` script,
    else the one installed beside this interpreter (a virtualenv's, pipx's), else PATH's."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "origin" and argv0.is_file():
        return argv0.absolute()
    beside = Path(sys.executable).parent / "origin"
    if beside.is_file():
        return beside.absolute()
    found = shutil.which("origin")
    if found:
        return Path(found).absolute()
    return beside.absolute()


def default_hub_url(host: str = "127.0.0.1", port: int = 8765) -> str:
    """The URL clients use for a hub bound to host:port (a wildcard bind is reached on loopback)."""
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}/mcp"


def _toml_string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's for these characters)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if c >= " " else f"\\u{ord(c):04x}" for c in escaped) + '"'


def codex_toml(
    name: str, *, command: Path | None = None, url: str | None = None, token: str | None = None
) -> str:
    """Codex's `[mcp_servers.<name>]` table: a command for stdio, a URL and headers for HTTP."""
    lines = [f"[mcp_servers.{name}]"]
    if command is not None:
        lines += [f"command = {_toml_string(str(command))}", 'args = ["mcp"]']
    if url is not None:
        lines.append(f"url = {_toml_string(url)}")
        lines.append(f"[mcp_servers.{name}.http_headers]")
        lines.append(f"Authorization = {_toml_string('Bearer ' + (token or TOKEN_PLACEHOLDER))}")
        lines.append(f'"X-Origin-Client" = {_toml_string("codex")}')
    return "\n".join(lines) + "\n"


# -- agents configured in JSON -------------------------------------------------------------

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


def _json_registrations(exe: str, hub_url: str | None, token: str | None) -> list[Registration]:
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


def registrations(
    origin: Path, *, hub_url: str | None = None, token: str | None = None
) -> list[Registration]:
    """Every client's registration: stdio always, HTTP too when a hub URL is given."""
    exe = str(origin)
    bearer = f"Authorization: Bearer {token or TOKEN_PLACEHOLDER}"
    found = [
        Registration(
            "claude-code",
            "stdio",
            STDIO_NAME,
            ("claude", "mcp", "add", "--scope", "user", STDIO_NAME, "--", exe, "mcp"),
        ),
        Registration(
            "codex",
            "stdio",
            STDIO_NAME,
            ("codex", "mcp", "add", STDIO_NAME, "--", exe, "mcp"),
            codex_toml(STDIO_NAME, command=origin),
        ),
        Registration(
            "inspector",
            "stdio",
            STDIO_NAME,
            ("npx", "@modelcontextprotocol/inspector", exe, "mcp"),
        ),
    ]
    if hub_url is not None:
        found += [
            Registration(
                "claude-code",
                "http",
                HUB_NAME,
                (
                    "claude",
                    "mcp",
                    "add",
                    "--scope",
                    "user",
                    "--transport",
                    "http",
                    HUB_NAME,
                    hub_url,
                    "--header",
                    bearer,
                    "--header",
                    "X-Origin-Client: claude-code",
                ),
            ),
            Registration(
                "codex",
                "http",
                HUB_NAME,
                (),
                codex_toml(HUB_NAME, url=hub_url, token=token),
            ),
            Registration(
                "inspector",
                "http",
                HUB_NAME,
                (
                    "npx",
                    "@modelcontextprotocol/inspector",
                    "--transport",
                    "http",
                    "--server-url",
                    hub_url,
                    "--header",
                    bearer,
                ),
            ),
        ]
    found += _json_registrations(exe, hub_url, token)
    return sorted(found, key=lambda r: (r.transport == "http", CLIENTS.index(r.client)))


def commands(
    origin: Path | None = None, *, hub_url: str | None = None, token: str | None = None
) -> dict[str, list[str]]:
    """What to show a person per client, one text per transport (a command, or for Codex its
    config.toml table). `origin register <agent>` does the same for them."""
    shown: dict[str, list[str]] = {}
    for entry in registrations(origin or origin_executable(), hub_url=hub_url, token=token):
        shown.setdefault(entry.client, []).append(entry.shown)
    return shown


def instructions(
    origin: Path | None = None, *, hub_url: str | None = None, token: str | None = None
) -> str:
    """The registration block printed by `make run`, `origin mcp --help` and the docs."""
    blocks = []
    for client, lines in commands(origin, hub_url=hub_url, token=token).items():
        body = "\n\n".join("\n".join("    " + line for line in text.splitlines()) for text in lines)
        where = " (in ~/.codex/config.toml)" if client == "codex" else ""
        blocks.append(f"{AGENT_LABEL[client]}{where}:\n\n{body}")
    agents = "|".join(AGENTS)
    hub = " [--hub URL]" if hub_url else ""
    return "\n\n".join(blocks) + f"\n\nOr let Origin do it: origin register {agents}{hub}\n"


# -- doing it ----------------------------------------------------------------------------------

#: Each agent's own CLI, looked for on PATH.
AGENT_CLI = {
    "claude-code": "claude",
    "codex": "codex",
    "gemini": "gemini",
    "qwen": "qwen",
    "opencode": "opencode",
    "copilot": "copilot",
}
#: How long an agent's CLI may take to change its configuration.
CLI_TIMEOUT_S = 60


@dataclass(frozen=True, slots=True)
class Outcome:
    """What `register` did for one entry: `ran` the agent's CLI, `wrote` (or in a dry run
    `would_write`) or left `unchanged` a config file, or only `printed` the command because the
    agent's CLI is absent or this is a dry run."""

    registration: Registration
    action: Literal["ran", "wrote", "would_write", "unchanged", "printed"]
    detail: str = ""


def masked(command: str) -> str:
    """A command as echoed after it ran: the token it carried is already stored, so the terminal
    (and its scrollback) need not show it again."""
    return re.sub(r"ogn_[A-Za-z0-9_-]+", TOKEN_PLACEHOLDER, command)


def stored_token(home: Path | None = None) -> str | None:
    """The hub token `origin run` keeps for this user (a 0600 file in ORIGIN_HOME), if any."""
    from .settings import Settings

    base = home or Settings.from_env().home
    try:
        return (base / TOKEN_FILE).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def codex_config(environ: dict[str, str] | None = None) -> Path:
    """Codex's config.toml: under CODEX_HOME when set, as Codex itself reads it."""
    env = os.environ if environ is None else environ
    home = env.get("CODEX_HOME") or str(Path(env.get("HOME") or Path.home()) / ".codex")
    return Path(home).expanduser() / "config.toml"


def register(
    agent: str,
    *,
    origin: Path | None = None,
    hub_url: str | None = None,
    token: str | None = None,
    dry_run: bool = False,
    environ: dict[str, str] | None = None,
) -> Outcome:
    """Registers Origin with `agent`: its stdio server, or the hub at `hub_url`. Safe to repeat:
    Claude Code's entry is removed before it is added again (its `add` refuses an existing
    name); Codex's, Gemini CLI's and Qwen Code's `add` and Origin's own edits of a config file
    replace the entry in place."""
    if agent not in AGENTS:
        raise OriginError(f"Unknown agent {agent!r}; one of {', '.join(AGENTS)}.")
    if hub_url is not None and not re.match(r"https?://[^/\s]+", hub_url):
        raise OriginError(
            f"--hub takes the hub's URL, such as {default_hub_url()} (got {hub_url!r})."
        )
    if hub_url is not None and token is None and not dry_run:
        raise OriginError(
            "Registering the hub needs its token: pass --token ogn_… "
            "(`origin token create <name>` makes one)."
        )
    env = dict(os.environ if environ is None else environ)
    transport = "stdio" if hub_url is None else "http"
    entry = next(
        r
        for r in registrations(origin or origin_executable(), hub_url=hub_url, token=token)
        if r.client == agent and r.transport == transport
    )
    cli = shutil.which(AGENT_CLI[agent], path=env.get("PATH"))
    if agent == "codex" and (cli is None or not entry.argv):
        return _write_codex(entry, codex_config(env), dry_run)
    spec = JSON_AGENTS.get(agent)
    if spec is not None:
        path = spec.config(env, None)
        if cli is None or not spec.runs:
            return _write_json(entry, spec.key, path, dry_run)
        parse_config(_read_text(path), path, strict=False)  # not handed to it to clobber
    if cli is None or dry_run:
        return Outcome(entry, "printed")
    if agent == "claude-code":
        _run([cli, "mcp", "remove", "--scope", "user", entry.name], env, check=False)
    return Outcome(entry, "ran", _run([cli, *entry.argv[1:]], env, check=True))


def _run(argv: list[str], env: dict[str, str], *, check: bool) -> str:
    import subprocess

    try:
        done = subprocess.run(
            argv, env=env, capture_output=True, text=True, timeout=CLI_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise OriginError(f"{shlex.join(argv[:3])} failed: {error}") from None
    said = (done.stdout + done.stderr).strip()
    if check and done.returncode != 0:
        raise OriginError(f"{Path(argv[0]).name} {' '.join(argv[1:3])} failed: {said}")
    return said


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as error:
        raise OriginError(f"Cannot read {path}: {error}") from None


def _write_codex(entry: Registration, path: Path, dry_run: bool) -> Outcome:
    assert entry.toml is not None
    before = _read_text(path)
    after = upsert_table(before, entry.name, entry.toml, where=path)
    return _replace_text(entry, path, before, after, dry_run)


def _write_json(entry: Registration, key: str, path: Path, dry_run: bool) -> Outcome:
    assert entry.fragment is not None
    before = _read_text(path)
    wanted = json.loads(entry.fragment)[key][entry.name]
    after = upsert_json(before, key, entry.name, wanted, where=path)
    return _replace_text(entry, path, before, after, dry_run)


def _replace_text(
    entry: Registration, path: Path, before: str, after: str, dry_run: bool
) -> Outcome:
    """`path` now holds `after`, written whole beside it then moved over it: a reader never sees
    half a file. A new file is this user's alone (it may hold the hub's token)."""
    if after == before:
        return Outcome(entry, "unchanged", str(path))
    if dry_run:
        return Outcome(entry, "would_write", str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
        scratch = path.with_name(f".{path.name}.origin-{os.getpid()}")
        fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(after)
        os.replace(scratch, path)
    except OSError as error:
        raise OriginError(f"Cannot write {path}: {error}") from None
    return Outcome(entry, "wrote", str(path))


_HEADER = re.compile(r"^\s*\[\[?\s*(?P<key>[^\]]*?)\s*\]\]?\s*(?:#.*)?$")


def _table_key(line: str) -> list[str] | None:
    """A table header's dotted key, parts unquoted (None for any other line)."""
    found = _HEADER.match(line)
    if found is None:
        return None
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([^.\s]+)', found["key"])
    return [a or b or c for a, b, c in parts]


def upsert_table(text: str, name: str, entry: str, *, where: Path | None = None) -> str:
    """`text` (a Codex config) with `[mcp_servers.<name>]` and its sub-tables replaced by `entry`,
    or `entry` appended: every other line stays as it was. A file that is not TOML, or one that
    defines the server another way (inline, dotted keys), is refused rather than guessed at."""
    import tomllib

    shown = where or "config.toml"
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise OriginError(f"{shown} is not valid TOML ({error}); fix it first.") from None
    wanted = tomllib.loads(entry)["mcp_servers"][name]
    if before.get("mcp_servers", {}).get(name) == wanted:
        return text
    kept: list[str] = []
    tail: list[str] = []  # comments and blank lines ending our table: they lead the next one
    at: int | None = None
    inside = False
    for line in text.splitlines(keepends=True):
        key = _table_key(line)
        if key is not None:
            kept += tail
            tail = []
            inside = key[:2] == ["mcp_servers", name]
            if inside:
                at = len(kept) if at is None else at
                continue
        if not inside:
            kept.append(line)
        elif not line.strip() or line.lstrip().startswith("#"):
            tail.append(line)
        else:
            tail = []
    kept += tail
    if at is None:
        body = "".join(kept)
        gap = "" if not body or body.endswith("\n\n") else "\n" if body.endswith("\n") else "\n\n"
        result = body + gap + entry
    else:
        following = "".join(kept[at:]).lstrip("\n")
        result = "".join(kept[:at]) + entry + ("\n" + following if following else "")
    _check(before, result, name, wanted, shown)
    return result


def _check(
    before: dict[str, object], result: str, name: str, wanted: object, shown: object
) -> None:
    """The edit changed our server's entry and nothing else, or it is not made."""
    import tomllib

    try:
        after = tomllib.loads(result)
    except tomllib.TOMLDecodeError:
        after = {}
    servers = after.get("mcp_servers", {})
    if (
        not isinstance(servers, dict)
        or servers.get(name) != wanted
        or _without(after, name) != _without(before, name)
    ):
        raise OriginError(
            f"{shown} defines mcp_servers.{name} in a way Origin does not edit (inline or "
            f"dotted keys); remove it there and run this again."
        )


def _without(config: dict[str, object], name: str) -> dict[str, object]:
    servers = config.get("mcp_servers")
    if not isinstance(servers, dict):
        return config
    rest = {k: v for k, v in servers.items() if k != name}
    return (
        {**config, "mcp_servers": rest}
        if rest
        else {k: v for k, v in config.items() if k != "mcp_servers"}
    )


# -- JSON configs ------------------------------------------------------------------------------

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
