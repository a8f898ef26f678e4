"""`origin register <agent>` doing it: the agent's own CLI run where it is installed, else the
agent's config file edited in place (written whole, then moved over the old one)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..errors import OriginError
from .base import (
    AGENTS,
    TOKEN_FILE,
    TOKEN_PLACEHOLDER,
    Registration,
    default_hub_url,
    origin_executable,
)
from .codex import codex_config, upsert_table
from .entries import registrations
from .json_agents import JSON_AGENTS, parse_config, upsert_json

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
    from ..settings import Settings

    base = home or Settings.from_env().home
    try:
        return (base / TOKEN_FILE).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


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
