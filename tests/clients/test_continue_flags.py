"""`origin continue`'s commands against the real CLIs `make test-clients` installs: each flag
the table (origin_api/continuing/commands.py) gives an agent is in its own `--help` (`claude
--help`, `codex resume --help`, `gemini --help`, …), where the session id goes."""

from __future__ import annotations

import pytest
from clients_support import User, client

from origin_api.continuing.commands import (
    CLAUDE,
    CODEX,
    COPILOT,
    GEMINI,
    OPENCODE,
    QWEN,
    AgentCli,
)

pytestmark = [pytest.mark.clients, pytest.mark.e2e]

SESSION = "0199f8a0-1111-7222-8333-444455556666"
#: What each CLI's help says of the flag, in its own words, and the argv Origin gives.
SAID = {
    # `-r, --resume [value]  Resume a conversation by session ID`
    "claude-code": ("-r, --resume", ["--resume", SESSION]),
    # `codex resume [OPTIONS] [SESSION_ID] [PROMPT]`
    "codex": ("codex resume [OPTIONS] [SESSION_ID]", ["resume", SESSION]),
    # `-r, --resume  Resume a previous session. Use "latest" for most recent or index number`
    # (the code takes a full UUID too: `resumeArg - Can be "latest", a full UUID, or an index`)
    "gemini": ("-r, --resume", ["--resume", SESSION]),
    # `-r, --resume  Resume a specific session by its ID.`
    "qwen": ("Resume a specific session by its ID", ["--resume", SESSION]),
    # `-s, --session  session id to continue`
    "opencode": ("session id to continue", ["--session", SESSION]),
    # `$ copilot --resume=<session-id>` under "Resume a specific session by ID"
    "copilot": ("copilot --resume=<session-id>", [f"--resume={SESSION}"]),
}


@pytest.mark.parametrize(
    "cli", [CLAUDE, CODEX, GEMINI, QWEN, OPENCODE, COPILOT], ids=lambda cli: cli.source
)
def test_the_flag_is_in_the_clis_own_help(user: User, cli: AgentCli) -> None:
    program = client(cli.program)
    done = user.run(program, *cli.help_args)
    shown = done.stdout + done.stderr  # OpenCode prints its help on stderr
    words, argv = SAID[cli.source]
    assert cli.flag in shown, shown
    assert words in shown, shown
    assert cli.arguments(SESSION) == argv
