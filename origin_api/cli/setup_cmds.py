"""`origin register <agent>`: tell an agent about Origin with the agent's own CLI, or write the
agent's config file where Origin can (Codex's, Gemini CLI's, Qwen Code's where their CLI is absent,
OpenCode's and Copilot's always), else print the exact command."""

from __future__ import annotations

import enum

import typer

from .. import register as reg
from .output import edge

REGISTER_HELP = """Register Origin with an agent: its stdio server (`origin`), or with --hub the HTTP
hub (`origin-hub`). Runs the agent's own CLI when it is on PATH (`claude mcp add --scope user …`,
`codex mcp add …`, `gemini mcp add --scope user …`, `qwen mcp add --scope user …`); writes the
agent's config file itself where that CLI is absent (~/.codex/config.toml, also for the hub, whose
headers `codex mcp add` cannot set; ~/.gemini/settings.json; ~/.qwen/settings.json) and always for
OpenCode (~/.config/opencode/opencode.json) and Copilot (~/.copilot/mcp-config.json), keeping the
file's other content and refusing one that is not valid JSON or TOML; otherwise (Claude Code)
prints the exact command. Running it again is harmless: the entry is replaced, never duplicated.

Exits 1 when it registered nothing (the agent's CLI is not installed: the command to run once it
is gets printed), 2 on an error.
"""

#: The exit code when nothing was registered: a script must not read that as done.
NOTHING_REGISTERED = 1


class Agent(enum.StrEnum):
    """The choices of `origin register`, in register.AGENTS's order."""

    claude_code = "claude-code"
    codex = "codex"
    gemini = "gemini"
    qwen = "qwen"
    opencode = "opencode"
    copilot = "copilot"


def register(app: typer.Typer) -> None:
    app.command("register", help=REGISTER_HELP)(register_agent)


def register_agent(
    agent: Agent = typer.Argument(..., help="The agent to register Origin with."),
    hub: str | None = typer.Option(
        None,
        "--hub",
        metavar="URL",
        help="Register the hub at URL (e.g. http://127.0.0.1:8765/mcp) instead of stdio.",
    ),
    token: str | None = typer.Option(
        None, "--token", metavar="OGN", help="The hub token (default: the one `origin run` keeps)."
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print what would be run or written; change nothing."
    ),
) -> None:
    with edge():
        if hub is not None and token is None:
            token = reg.stored_token()
        done = reg.register(agent.value, hub_url=hub, token=token, dry_run=dry_run)
    typer.echo(describe(done, dry_run=dry_run))
    if done.action == "printed" and not dry_run:
        raise typer.Exit(NOTHING_REGISTERED)


def describe(done: reg.Outcome, *, dry_run: bool = False) -> str:
    """What happened, in words, with the command or file a person can check."""
    entry = done.registration
    label = reg.AGENT_LABEL[entry.client]
    what = f"{entry.name} ({entry.transport})"
    cli = reg.AGENT_CLI[entry.client]
    check = f"Check it: {cli} mcp list"
    if done.action == "ran":
        return f"Registered {what} with {label}:\n  {reg.masked(entry.command)}\n{check}"
    if done.action == "wrote":
        return f"Registered {what} with {label} in {done.detail}.\n{check}"
    if done.action == "unchanged":
        return f"{label} already has {what} in {done.detail}; nothing to change."
    if done.action == "would_write":
        return f"Would write to {done.detail}:\n\n{entry.written}"
    if dry_run:
        return f"Would run:\n  {entry.command}"
    return f"{cli} is not on PATH. Once {label} is installed, run:\n  {entry.command}"
