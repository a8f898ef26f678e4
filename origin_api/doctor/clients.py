"""The doctor's view outward: whether a hub is serving, and which clients are registered
with Origin and whether those registrations can work.

The hub is probed on loopback at the configured port (`GET /health`, which needs no token), so
a hub, a port taken by another program and a free port read differently. Clients are read from
their own files, never written: Claude Code's `.claude.json` (`mcpServers`, at the top for the
user scope and under `projects` for a project's local scope), Codex's `config.toml`
(`[mcp_servers.*]`), and the JSON files of Gemini CLI, Qwen Code, OpenCode and Copilot CLI (the
ones `origin register` writes, register.JSON_AGENTS), each entry whose name starts with `origin`.
A registered token is checked against this archive's tokens when the entry points at this
machine's hub; no secret is shown.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from origin_store.replication import tokens as store_tokens

from ..register import JSON_AGENTS, TOKEN_FILE, JsonAgent, loads_jsonc
from ..runtime import Origin
from ..settings import Settings
from .findings import Finding, Level, Watched

LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: What a probe of a port found: Origin's hub, nothing listening, another program, no answer.
Answer = Literal["serving", "closed", "other", "silent"]


@dataclass(frozen=True, slots=True)
class Probe:
    answer: Answer
    detail: str

    @property
    def serving(self) -> bool:
        return self.answer == "serving"


def probe(host: str, port: int, timeout_s: float = 1.0) -> Probe:
    """`GET /health` at host:port: Origin's hub answers 200 `{"status": "ok"}` with a request id."""
    connection = http.client.HTTPConnection(host, port, timeout=timeout_s)
    try:
        connection.request("GET", "/health", headers={"Host": _authority(host, port)})
        response = connection.getresponse()
        body = response.read(4096)
    except ConnectionRefusedError:
        return Probe("closed", "nothing is listening")
    except TimeoutError:
        return Probe("silent", f"it accepts connections but gave no answer in {timeout_s:g} s")
    except (OSError, http.client.HTTPException) as error:
        return Probe("other", f"it did not answer as a hub ({error or type(error).__name__})")
    finally:
        connection.close()
    try:
        ours = json.loads(body) == {"status": "ok"}
    except ValueError:
        ours = False
    if (
        response.status == 200
        and ours
        and response.getheader("x-request-id", "").startswith("req_")
    ):
        return Probe("serving", "Origin's hub answers")
    return Probe("other", f"another program answers (HTTP {response.status})")


def _authority(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def loopback(host: str) -> str:
    """Where a hub bound to `host` is reached from this machine."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    return "::1" if host == "::" else host


def hub(
    settings: Settings, origin: Origin | None, watched: Watched, timeout_s: float = 1.0
) -> list[Finding]:
    """Whether a hub serves at the configured port, and the token `origin run` keeps for it."""
    watched.get("ORIGIN_HUB_HOST")
    watched.get("ORIGIN_HUB_PORT")
    host, port = loopback(settings.hub_host), settings.hub_port
    found = probe(host, port, timeout_s)
    url = f"http://{_authority(host, port)}/mcp"
    details = {"url": url, "answer": found.answer, "detail": found.detail}
    if found.serving:
        serving = Finding("hub", "hub", "ok", f"A hub is serving at {url}.", details)
    elif found.answer == "closed":
        serving = Finding(
            "hub",
            "hub",
            "note",
            f"No hub is serving at {url}: `origin hub` (or `make run`) starts one.",
            details,
        )
    else:
        serving = Finding(
            "hub",
            "hub",
            "attention",
            f"Port {port} on {host} is not a hub: {found.detail}. `origin hub` cannot serve "
            "there; choose another port with --port or ORIGIN_HUB_PORT.",
            details,
        )
    kept = kept_token(settings.home / TOKEN_FILE, origin)
    return [serving] if kept is None else [serving, kept]


def kept_token(path: Path, origin: Origin | None) -> Finding | None:
    """The token file `origin run` keeps for this machine's clients: only its user may read it,
    and the archive must still accept it (a revoked one means 401s until clients register anew)."""
    try:
        mode = path.stat().st_mode & 0o777
        secret = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    details: dict[str, Any] = {"path": str(path), "mode": f"{mode:04o}"}
    if mode & 0o077:
        return Finding(
            "hub",
            "hub token",
            "attention",
            f"{path} holds the hub's token but others may read it (mode {mode:04o}): "
            f"`chmod 600 {path}`.",
            details,
        )
    token = store_tokens.verify(origin.store, secret) if origin is not None else None
    if token is None:
        return Finding(
            "hub",
            "hub token",
            "note",
            f"The token kept in {path} is not active in this archive (revoked?): the next "
            "`origin run` makes a new one, and clients registered with it must register again.",
            details,
        )
    details["token"] = token.name
    return Finding(
        "hub",
        "hub token",
        "ok",
        f"The hub's token {token.name} is kept in {path}, readable by this user alone.",
        details,
    )


# -- clients --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    """One registration of Origin in a client's configuration (its secret kept, never shown)."""

    client: str  # claude-code, codex, gemini, qwen, opencode, copilot
    name: str
    scope: str  # user, or the project directory of a local entry
    command: list[str] | None  # stdio
    url: str | None  # HTTP
    secret: str | None  # the bearer token it sends, where it can be read
    header_names: list[str]

    def shown(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "name": self.name,
            "scope": self.scope,
            "transport": "stdio" if self.command is not None else "http",
            "command": self.command,
            "url": self.url,
            "headers": self.header_names,
        }


def clients(
    settings: Settings, origin: Origin | None, watched: Watched, timeout_s: float = 1.0
) -> list[Finding]:
    """A finding per registration of Origin, or one per client saying it has none."""
    found: list[Finding] = []
    readers: list[tuple[str, Where, Read]] = [
        ("claude-code", claude_config, claude_entries),
        ("codex", codex_config, codex_entries),
    ]
    readers += [(a, s.config, partial(json_entries, s)) for a, s in JSON_AGENTS.items()]
    for client, where, read in readers:
        path = where(watched, settings.user_home)
        if not path.is_file():
            found.append(
                Finding(
                    "clients",
                    client,
                    "note",
                    f"No {client} configuration at {path} (not installed, or never run).",
                    {"config": str(path)},
                )
            )
            continue
        try:
            entries = read(path, settings.environ)
        except (OSError, ValueError) as error:
            found.append(
                Finding(
                    "clients",
                    client,
                    "attention",
                    f"Cannot read {path}: {error}.",
                    {"config": str(path)},
                )
            )
            continue
        if not entries:
            found.append(
                Finding(
                    "clients",
                    client,
                    "note",
                    f"Origin is not registered with {client}: `origin register {client}`.",
                    {"config": str(path)},
                )
            )
        for entry in entries:
            found.append(_check(entry, path, settings, origin, timeout_s))
    return found


#: Where a client keeps its configuration, from the environment and the home directory.
Where = Callable[[Mapping[str, str], Path], Path]
#: Origin's entries in that configuration (OSError or ValueError when it cannot be read).
Read = Callable[[Path, Mapping[str, str]], "list[Entry]"]


def claude_config(environ: Mapping[str, str], home: Path) -> Path:
    """Claude Code keeps its user configuration in `.claude.json` in CLAUDE_CONFIG_DIR, when
    set, else in the home directory."""
    moved = environ.get("CLAUDE_CONFIG_DIR")
    return Path(moved) / ".claude.json" if moved else home / ".claude.json"


def codex_config(environ: Mapping[str, str], home: Path) -> Path:
    moved = environ.get("CODEX_HOME")
    return (Path(moved) if moved else home / ".codex") / "config.toml"


def claude_entries(path: Path, environ: Mapping[str, str]) -> list[Entry]:
    config = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(config, dict):
        raise ValueError("not a JSON object")
    places = [("user", config.get("mcpServers"))]
    projects = config.get("projects")
    if isinstance(projects, dict):
        places += [
            (str(d), p.get("mcpServers")) for d, p in projects.items() if isinstance(p, dict)
        ]
    entries = []
    for scope, servers in places:
        for name, server in _origin_servers(servers):
            headers = server.get("headers")
            headers = headers if isinstance(headers, dict) else {}
            entries.append(_entry("claude-code", name, scope, server, headers, None))
    return entries


def codex_entries(path: Path, environ: Mapping[str, str]) -> list[Entry]:
    with open(path, "rb") as f:
        config = tomllib.load(f)
    entries = []
    for name, server in _origin_servers(config.get("mcp_servers")):
        headers = server.get("http_headers")
        headers = headers if isinstance(headers, dict) else {}
        variable = server.get("bearer_token_env_var")
        secret = environ.get(variable) if isinstance(variable, str) else None
        entries.append(_entry("codex", name, "user", server, headers, secret))
    return entries


def json_entries(spec: JsonAgent, path: Path, environ: Mapping[str, str]) -> list[Entry]:
    """Origin's entries in a JSON config, read as the agent reads it (comments allowed)."""
    config = loads_jsonc(path.read_text(encoding="utf-8"))
    if not isinstance(config, dict):
        raise ValueError("not a JSON object")
    entries = []
    for name, server in _origin_servers(config.get(spec.key)):
        headers = server.get("headers")
        headers = headers if isinstance(headers, dict) else {}
        entries.append(_entry(spec.agent, name, "user", server, headers, None))
    return entries


def _origin_servers(servers: object) -> list[tuple[str, dict[str, Any]]]:
    if not isinstance(servers, dict):
        return []
    return [
        (name, server)
        for name, server in servers.items()
        if isinstance(name, str) and name.startswith("origin") and isinstance(server, dict)
    ]


def _entry(
    client: str,
    name: str,
    scope: str,
    server: dict[str, Any],
    headers: dict[str, Any],
    secret: str | None,
) -> Entry:
    command = server.get("command")
    args = server.get("args")
    if isinstance(command, list) and command:  # OpenCode's: the program and its arguments
        command, args = command[0], command[1:]
    argv = [str(command), *(str(a) for a in args)] if isinstance(args, list) else [str(command)]
    url = server.get("url") or server.get("httpUrl")  # Qwen Code's streamable HTTP
    bearer = next((str(v) for k, v in headers.items() if str(k).lower() == "authorization"), None)
    if bearer is not None and bearer.lower().startswith("bearer "):
        secret = bearer[7:].strip()
    return Entry(
        client=client,
        name=name,
        scope=scope,
        command=argv if isinstance(command, str) else None,
        url=url if isinstance(url, str) and not isinstance(command, str) else None,
        secret=secret,
        header_names=sorted(str(k) for k in headers),
    )


def _check(
    entry: Entry, path: Path, settings: Settings, origin: Origin | None, timeout_s: float
) -> Finding:
    details = {**entry.shown(), "config": str(path)}
    subject = f"{entry.client} {entry.name}"
    where = "" if entry.scope == "user" else f" (local to {entry.scope})"
    if entry.command is not None:
        level, text = _stdio(entry, settings)
    elif entry.url is not None:
        level, text = _http(entry, settings, origin, timeout_s, details)
    else:
        level, text = "attention", "neither a command nor a URL: the client cannot use it"
    return Finding("clients", subject, level, f"{text[:1].upper()}{text[1:]}{where}.", details)


def _stdio(entry: Entry, settings: Settings) -> tuple[Level, str]:
    assert entry.command is not None
    program = entry.command[0]
    if "/" in program or os.sep in program:
        found = program if os.access(program, os.X_OK) and Path(program).is_file() else None
    else:
        found = shutil.which(program, path=settings.environ.get("PATH"))
    shown = " ".join(entry.command)
    if found is None:
        return (
            "attention",
            f"runs `{shown}`, but {program} is not found: {entry.client} cannot start it; "
            f"`origin register {entry.client}` registers the installed origin",
        )
    if entry.command[1:] != ["mcp"]:
        return "note", f"runs `{shown}` (Origin's stdio server is `origin mcp`)"
    return "ok", f"runs `{shown}`"


def _http(
    entry: Entry,
    settings: Settings,
    origin: Origin | None,
    timeout_s: float,
    details: dict[str, Any],
) -> tuple[Level, str]:
    assert entry.url is not None
    parts = urlsplit(entry.url)
    local = parts.hostname in LOOPBACK
    port = parts.port or (443 if parts.scheme == "https" else 80)
    fix = f"`origin register {entry.client} --hub {entry.url}` registers the current token"
    if entry.secret is None:
        return "attention", f"calls {entry.url} without a bearer token: every call gets 401; {fix}"
    if local and port == settings.hub_port and origin is not None:
        token = store_tokens.verify(origin.store, entry.secret)
        if token is None:
            return (
                "attention",
                f"calls {entry.url} with a token this archive does not accept (unknown or "
                f"revoked): every call gets 401; {fix}",
            )
        details["token"] = token.name
    if not local:
        return "ok", f"calls {entry.url} (not checked: another machine)"
    found = probe(parts.hostname or "127.0.0.1", port, timeout_s)
    details["answer"] = found.answer
    named = f" with the token {details['token']}" if "token" in details else ""
    if found.serving:
        return "ok", f"calls {entry.url}{named}; the hub there is serving"
    return "note", f"calls {entry.url}{named}; no hub is serving there now ({found.detail})"
