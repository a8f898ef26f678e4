"""`origin continue`'s commands against the real CLIs `make test-clients` installs: each flag
the table (origin_api/continuing/commands.py) gives Claude Code and Codex is in their own
`--help` (`claude --help`, `codex resume --help`), where the session id goes."""

from __future__ import annotations

import pytest
from clients_support import User, client

from origin_api.continuing.commands import CLAUDE, CODEX, AgentCli

pytestmark = [pytest.mark.clients, pytest.mark.e2e]


@pytest.mark.parametrize("cli", [CLAUDE, CODEX], ids=lambda cli: cli.source)
def test_the_flag_is_in_the_clis_own_help(user: User, cli: AgentCli) -> None:
    program = client(cli.program)
    shown = user.run(program, *cli.help_args)
    assert cli.flag in shown.stdout, shown.stdout
    argv = cli.arguments("0199f8a0-1111-7222-8333-444455556666")
    if cli is CLAUDE:  # `-r, --resume [value]  Resume a conversation by session ID`
        assert "-r, --resume" in shown.stdout and argv == ["--resume", argv[1]]
    else:  # `codex resume [OPTIONS] [SESSION_ID] [PROMPT]`
        assert "codex resume [OPTIONS] [SESSION_ID]" in shown.stdout and argv[0] == "resume"
