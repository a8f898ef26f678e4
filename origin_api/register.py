"""How each agent is told about Origin: one place for the exact commands, so the README, `make
run`, `origin mcp --help` and `origin register` can never drift apart again.

Names are distinct per transport (`origin` for stdio, `origin-hub` for HTTP) because an agent keeps
one entry per name: the same name for both makes the second registration refuse or overwrite.
Commands carry the absolute path of the installed `origin`, since agents start it with their own
PATH, which rarely holds a virtualenv's bin.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .errors import OriginError

STDIO_NAME = "origin"
HUB_NAME = "origin-hub"
#: Shown where the hub's token is not known to the caller.
TOKEN_PLACEHOLDER = "ogn_…"
#: Where `origin run` keeps the hub's token for this user, under ORIGIN_HOME (mode 0600).
TOKEN_FILE = "hub-token"
#: The agents `origin register` can configure, in the order they are shown.
AGENTS = ("claude-code", "codex")
#: Everything instructions are printed for (the MCP Inspector is a client, not an agent).
CLIENTS = (*AGENTS, "inspector")
AGENT_LABEL = {"claude-code": "Claude Code", "codex": "Codex", "inspector": "MCP Inspector"}

Transport = Literal["stdio", "http"]


@dataclass(frozen=True, slots=True)
class Registration:
    """One client's entry for one transport: the command to run, and for Codex the TOML that
    command writes (so Origin can write it itself where the `codex` CLI is absent)."""

    client: str
    transport: Transport
    name: str
    argv: tuple[str, ...]
    toml: str | None = None

    @property
    def command(self) -> str:
        """The argv as one line a shell runs unchanged."""
        return shlex.join(self.argv)

    @property
    def shown(self) -> str:
        """What a person is given: Codex's TOML (its IDE extension reads the same file, with or
        without the `codex` CLI, and the CLI cannot set the hub's headers), else the command."""
        return (self.toml or "").rstrip() or self.command


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
    return found


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
AGENT_CLI = {"claude-code": "claude", "codex": "codex"}
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
    name), and Codex's `add` and Origin's own TOML edit both replace the entry in place."""
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


def _write_codex(entry: Registration, path: Path, dry_run: bool) -> Outcome:
    assert entry.toml is not None
    try:
        before = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as error:
        raise OriginError(f"Cannot read {path}: {error}") from None
    after = upsert_table(before, entry.name, entry.toml, where=path)
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
