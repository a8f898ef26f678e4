"""Each agent's own command that continues one of its sessions: the one table `origin continue`
and the session page read.

An agent continues a session from its own store, in the directory the session ran in (Claude
Code keeps a project's sessions by directory; the others file them by directory too, or read the
project's files from there), so the command is `cd <cwd> && <agent's resume command>`. Where an
agent has no such command for a session, the answer says so and why (`Continuation.reason`).

The flags were read in each CLI's own help or documentation (docs/agents.md lists them; the
`clients` tests check those of Claude Code, Codex, Gemini CLI, Qwen Code, OpenCode and Copilot CLI
against the installed CLIs):

- Claude Code: `claude --resume <session id>` (`-r, --resume [value]`). A sub-agent's sidechain
  (`<session>/agent-<id>`) is not a conversation of its own: its parent is continued.
- Codex: `codex resume <SESSION_ID>` (a subcommand; the id is the rollout's thread id).
- Cursor: `cursor-agent --resume <chat id>` (the CLI is also installed as `agent`); only the
  CLI's chats, never an IDE chat (`state.vscdb`), which only the editor opens.
- Grok Build: `grok --resume <session id>` (UUIDv7 ids); superagent-ai's grok-cli, which shares
  `~/.grok` and the `grok` name, continues its own (12 hex characters) with `grok --session <id>`.
- ZCode: `zcode --resume <session id>`; a sub-agent's session (`sess_subagent_…`) is its
  parent's work, and the parent is continued.
- Gemini CLI: `gemini --resume <session id>` (`-r, --resume`: "latest", an index, or the full
  UUID); Qwen Code: `qwen --resume <session id>` (`-r, --resume`); OpenCode: `opencode --session
  <session id>` (`-s, --session`, the TUI's; `opencode run` has the same); Copilot CLI:
  `copilot --resume=<session id>` (`--resume [<value>]` takes an optional value, so it is
  given in one word, as Copilot prints it at the end of a session). For these four a session
  with a known parent (a sub-agent's, or a task's) is its parent's work: the parent is continued.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass

#: A memory file read as a session (`memory:/…/CLAUDE.md`): there is no conversation to continue.
MEMORY_PREFIX = "memory:"


@dataclass(frozen=True)
class AgentCli:
    """How one agent's CLI continues a session: its program, the arguments for a session id, and
    what its `--help` must mention for that to hold (`help_args` is how the help is asked for)."""

    source: str
    program: str
    arguments: Callable[[str], list[str]]
    help_args: tuple[str, ...]
    flag: str
    #: Other names the same CLI is installed under, tried in order by `--run`.
    aliases: tuple[str, ...] = ()


_GROK_CLI_ID = re.compile(r"^[0-9a-f]{12}$")

CLAUDE = AgentCli("claude-code", "claude", lambda s: ["--resume", s], ("--help",), "--resume")
CODEX = AgentCli("codex", "codex", lambda s: ["resume", s], ("resume", "--help"), "SESSION_ID")
CURSOR = AgentCli(
    "cursor", "cursor-agent", lambda s: ["--resume", s], ("--help",), "--resume", ("agent",)
)
GROK_BUILD = AgentCli("grok", "grok", lambda s: ["--resume", s], ("--help",), "--resume")
GROK_CLI = AgentCli("grok", "grok", lambda s: ["--session", s], ("--help",), "--session")
ZCODE = AgentCli("zcode", "zcode", lambda s: ["--resume", s], ("--help",), "--resume")
GEMINI = AgentCli("gemini", "gemini", lambda s: ["--resume", s], ("--help",), "-r, --resume")
QWEN = AgentCli("qwen", "qwen", lambda s: ["--resume", s], ("--help",), "-r, --resume")
OPENCODE = AgentCli(
    "opencode", "opencode", lambda s: ["--session", s], ("--help",), "-s, --session"
)
COPILOT = AgentCli("copilot", "copilot", lambda s: [f"--resume={s}"], ("--help",), "--resume=")

#: Every agent's CLI, by source (Grok's two CLIs told apart by the session id's shape).
TABLE: dict[str, tuple[AgentCli, ...]] = {
    "claude-code": (CLAUDE,),
    "codex": (CODEX,),
    "cursor": (CURSOR,),
    "grok": (GROK_BUILD, GROK_CLI),
    "zcode": (ZCODE,),
    "gemini": (GEMINI,),
    "qwen": (QWEN,),
    "opencode": (OPENCODE,),
    "copilot": (COPILOT,),
}
#: Sources whose sub-agent (or task) sessions name their parent, which is what continues.
PARENT_CONTINUES = frozenset({"gemini", "qwen", "opencode", "copilot"})


@dataclass(frozen=True)
class Continuation:
    """What continues a session: the argv to run in `cwd`, or None with the `reason` there is
    none. `session` is the one continued (a sub-agent's parent, where that is what continues)."""

    source: str
    session: str
    cwd: str | None
    argv: list[str] | None
    reason: str = ""
    note: str = ""
    cli: AgentCli | None = None

    @property
    def shell(self) -> str:
        """The command as a person pastes it: paths and ids quoted for a POSIX shell."""
        if self.argv is None:
            return ""
        command = shlex.join(self.argv)
        return f"cd {shlex.quote(self.cwd)} && {command}" if self.cwd else command


@dataclass(frozen=True)
class SessionFacts:
    """What decides a session's command, as the store knows it."""

    source: str
    session: str
    cwd: str | None
    parent: str | None = None
    #: Cursor only: the session was read from the IDE's database and from no CLI chat.
    ide_only: bool = False


def continuation(facts: SessionFacts) -> Continuation:
    """The command that continues the session `facts` describe, or why there is none."""
    source, session = facts.source, facts.session

    def none(reason: str) -> Continuation:
        return Continuation(source, session, facts.cwd, None, reason)

    if session.startswith(MEMORY_PREFIX):
        return none("a memory file is not a conversation: there is nothing to continue")
    clis = TABLE.get(source)
    if not clis:
        return none(f"Origin knows no command of {source} that continues a session")
    note = ""
    if source == "claude-code" and "/agent-" in session:
        session, note = session.split("/agent-", 1)[0], "a sub-agent's session: its parent"
    elif source == "zcode" and session.startswith("sess_subagent_"):
        if not facts.parent:
            return none("a ZCode sub-agent's session whose parent is not known")
        session, note = facts.parent, "a sub-agent's session: its parent"
    elif source in PARENT_CONTINUES and facts.parent:
        session, note = facts.parent, "a sub-agent's session: its parent"
    if source == "cursor" and facts.ide_only:
        return none(
            "a Cursor IDE chat: open it in Cursor (cursor-agent resumes only its own chats)"
        )
    cli = clis[-1] if source == "grok" and _GROK_CLI_ID.match(session) else clis[0]
    argv = [cli.program, *cli.arguments(session)]
    if note:
        note = f"{note}, {session}, is continued"
    return Continuation(source, session, facts.cwd, argv, note=note, cli=cli)
