"""`origin register` against a scratch HOME: Codex's config.toml written in place and only once,
the exact command printed for an agent that is not installed, and the exact argv run for one that
is (a stand-in `claude` that records it; tests/clients runs the real CLIs)."""

from __future__ import annotations

import json
import os
import stat
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from origin_api import register as reg
from origin_api.cli.commands import app
from origin_api.cli.server_cmds import MCP_HELP
from origin_api.errors import OriginError

ORIGIN = Path("/opt/origin/bin/origin")
HUB = "http://127.0.0.1:8765/mcp"
TOKEN = "ogn_Secret-token_1"
STDIO = reg.codex_toml("origin", command=ORIGIN)
HTTP = reg.codex_toml("origin-hub", url=HUB, token=TOKEN)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    (tmp_path / "bin").mkdir()
    return tmp_path / "home"


def env(home: Path, **extra: str) -> dict[str, str]:
    """A user whose HOME is scratch and whose PATH holds only the stand-ins put in ../bin."""
    return {
        "HOME": str(home),
        "PATH": str(home.parent / "bin"),
        "ORIGIN_HOME": str(home / ".origin"),
        "CODEX_HOME": "",
        "GEMINI_CLI_HOME": "",
        "QWEN_HOME": "",
        "COPILOT_HOME": "",
        "OPENCODE_CONFIG": "",
        "XDG_CONFIG_HOME": "",
        **extra,
    }


def origin(home: Path, *args: str, **extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env=env(home, **extra))
    return result.exit_code, result.output


def recording_cli(home: Path, name: str) -> Path:
    """An executable `name` on the scratch PATH that appends its argv, as JSON, to a log."""
    log = home.parent / f"{name}.argv"
    script = home.parent / "bin" / name
    script.write_text(
        f"#!{sys.executable}\nimport json, sys\n"
        f"with open({str(log)!r}, 'a') as out:\n"
        "    out.write(json.dumps(sys.argv[1:]) + '\\n')\n"
    )
    script.chmod(0o755)
    return log


def argvs(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


# -- the one source of the commands ------------------------------------------------------------


def test_each_client_and_transport_has_one_command_with_the_absolute_path_and_its_own_name() -> (
    None
):
    shown = reg.commands(ORIGIN, hub_url=HUB, token=TOKEN)
    assert shown == {
        "claude-code": [
            "claude mcp add --scope user origin -- /opt/origin/bin/origin mcp",
            "claude mcp add --scope user --transport http origin-hub http://127.0.0.1:8765/mcp "
            "--header 'Authorization: Bearer ogn_Secret-token_1' "
            "--header 'X-Origin-Client: claude-code'",
        ],
        "codex": [STDIO.rstrip(), HTTP.rstrip()],
        "gemini": [
            "gemini mcp add --scope user origin /opt/origin/bin/origin mcp",
            "gemini mcp add --scope user --transport http origin-hub http://127.0.0.1:8765/mcp "
            "-H 'Authorization: Bearer ogn_Secret-token_1' -H 'X-Origin-Client: gemini'",
        ],
        "qwen": [
            "qwen mcp add --scope user origin /opt/origin/bin/origin mcp",
            "qwen mcp add --scope user --transport http origin-hub http://127.0.0.1:8765/mcp "
            "-H 'Authorization: Bearer ogn_Secret-token_1' -H 'X-Origin-Client: qwen'",
        ],
        "opencode": [
            "opencode mcp add origin -- /opt/origin/bin/origin mcp",
            "opencode mcp add origin-hub --url http://127.0.0.1:8765/mcp "
            "--header 'Authorization=Bearer ogn_Secret-token_1' --header X-Origin-Client=opencode",
        ],
        "copilot": [
            "copilot mcp add origin -- /opt/origin/bin/origin mcp",
            "copilot mcp add --transport http origin-hub http://127.0.0.1:8765/mcp "
            "--header 'Authorization: Bearer ogn_Secret-token_1' "
            "--header 'X-Origin-Client: copilot'",
        ],
        "inspector": [
            "npx @modelcontextprotocol/inspector /opt/origin/bin/origin mcp",
            "npx @modelcontextprotocol/inspector --transport http --server-url "
            "http://127.0.0.1:8765/mcp --header 'Authorization: Bearer ogn_Secret-token_1'",
        ],
    }
    assert tomllib.loads(STDIO + HTTP)["mcp_servers"] == {
        "origin": {"command": str(ORIGIN), "args": ["mcp"]},
        "origin-hub": {
            "url": HUB,
            "http_headers": {"Authorization": f"Bearer {TOKEN}", "X-Origin-Client": "codex"},
        },
    }


def test_without_a_hub_only_stdio_is_shown_and_an_unknown_token_is_a_placeholder() -> None:
    assert [len(v) for v in reg.commands(ORIGIN).values()] == [1] * 7
    assert "Bearer ogn_…" in reg.commands(ORIGIN, hub_url=HUB)["claude-code"][1]


def test_a_path_with_spaces_is_quoted_for_the_shell_and_for_toml() -> None:
    spaced = Path('/Users/a b/"x"/origin')
    shown = reg.commands(spaced)
    assert shown["claude-code"] == [
        "claude mcp add --scope user origin -- '/Users/a b/\"x\"/origin' mcp"
    ]
    assert tomllib.loads(shown["codex"][0])["mcp_servers"]["origin"]["command"] == str(spaced)


@pytest.mark.parametrize(
    ("host", "port", "url"),
    [
        ("127.0.0.1", 8765, "http://127.0.0.1:8765/mcp"),
        ("0.0.0.0", 9000, "http://127.0.0.1:9000/mcp"),
        ("::1", 8765, "http://[::1]:8765/mcp"),
        ("hub.lan", 80, "http://hub.lan:80/mcp"),
    ],
)
def test_the_hub_url_clients_use(host: str, port: int, url: str) -> None:
    assert reg.default_hub_url(host, port) == url


def test_origin_mcp_help_prints_the_same_commands_for_this_installation() -> None:
    exe = reg.origin_executable()
    assert exe.is_absolute()
    for text in reg.commands(exe)["claude-code"] + reg.commands(exe)["inspector"]:
        assert text in MCP_HELP
    assert f'command = "{exe}"' in MCP_HELP
    assert "origin register claude-code|codex|gemini|qwen|opencode|copilot" in MCP_HELP


# -- Codex's config.toml -----------------------------------------------------------------------

UPSERTS = [
    ("empty file", "", STDIO),
    ("no newline at the end", "a = 1", "a = 1\n\n" + STDIO),
    (
        "other settings and comments kept, entry appended",
        'model = "o3"\n# mine\n[profiles.x]\nmodel = "y"\n',
        'model = "o3"\n# mine\n[profiles.x]\nmodel = "y"\n\n' + STDIO,
    ),
    (
        "an old entry and its sub-table replaced where it was; the next table's comment kept",
        'a = 1\n\n[mcp_servers.origin]\ncommand = "old"\nargs = ["x"]\n'
        '[mcp_servers.origin.env]\nK = "v"\n\n# about other\n[mcp_servers.other]\ncommand = "o"\n',
        "a = 1\n\n" + STDIO + '\n# about other\n[mcp_servers.other]\ncommand = "o"\n',
    ),
    (
        "origin-hub is another server, not a sub-table of origin",
        HTTP,
        HTTP + "\n" + STDIO,
    ),
    (
        "a quoted header names the same table",
        '[mcp_servers."origin"]\ncommand = "old"\n',
        STDIO,
    ),
    ("the same entry however written: nothing to change", STDIO.replace(" = ", "="), None),
]


@pytest.mark.parametrize(
    ("text", "expected"), [c[1:] for c in UPSERTS], ids=[c[0] for c in UPSERTS]
)
def test_upsert_table(text: str, expected: str | None) -> None:
    result = reg.upsert_table(text, "origin", STDIO)
    assert result == (text if expected is None else expected)
    assert reg.upsert_table(result, "origin", STDIO) == result


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('mcp_servers.origin = { command = "z" }\n', "does not edit"),
        ('[mcp_servers]\norigin = { command = "z" }\n', "does not edit"),
        ("x = \n", "is not valid TOML"),
    ],
)
def test_a_config_origin_cannot_edit_safely_is_refused(text: str, says: str) -> None:
    with pytest.raises(OriginError, match=says):
        reg.upsert_table(text, "origin", STDIO)


def test_register_codex_without_its_cli_writes_the_table_once_and_keeps_the_rest(
    home: Path,
) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "o3"\n[profiles.x]\nmodel = "y"\n')
    config.chmod(0o640)
    code, out = origin(home, "register", "codex")
    exe = reg.origin_executable()
    assert (code, out) == (
        0,
        f"Registered origin (stdio) with Codex in {config}.\nCheck it: codex mcp list\n",
    )
    first = config.read_text()
    assert first.startswith('model = "o3"\n[profiles.x]\nmodel = "y"\n\n[mcp_servers.origin]\n')
    assert tomllib.loads(first)["mcp_servers"] == {"origin": {"command": str(exe), "args": ["mcp"]}}
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    code, out = origin(home, "register", "codex")
    assert (code, out) == (0, f"Codex already has origin (stdio) in {config}; nothing to change.\n")
    assert config.read_text() == first

    code, out = origin(home, "register", "codex", "--hub", HUB, "--token", TOKEN)
    assert code == 0 and TOKEN not in out
    both = config.read_text()
    assert both.startswith(first) and both.count("[mcp_servers.origin-hub]") == 1
    origin(home, "register", "codex", "--hub", HUB, "--token", TOKEN)
    assert config.read_text() == both
    assert list(config.parent.iterdir()) == [config]  # no scratch file left behind


def test_a_new_codex_config_is_readable_by_this_user_only_and_codex_home_moves_it(
    home: Path,
) -> None:
    moved = home / "elsewhere"
    code, _ = origin(
        home, "register", "codex", "--hub", HUB, "--token", TOKEN, CODEX_HOME=str(moved)
    )
    config = moved / "config.toml"
    assert code == 0 and stat.S_IMODE(config.stat().st_mode) == 0o600
    assert not (home / ".codex").exists()


def test_a_dry_run_shows_the_table_and_writes_nothing(home: Path) -> None:
    code, out = origin(home, "register", "codex", "--dry-run")
    config = home / ".codex" / "config.toml"
    assert (code, out) == (0, f"Would write to {config}:\n\n{reg.commands()['codex'][0]}\n")
    assert not config.exists()


def test_a_broken_codex_config_is_left_alone_with_one_line_saying_why(home: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text("model = \n")
    code, out = origin(home, "register", "codex")
    assert code == 2 and "is not valid TOML" in out and out.count("\n") == 1
    assert config.read_text() == "model = \n"


# -- agents' own CLIs --------------------------------------------------------------------------


def test_claude_not_installed_prints_the_exact_command_and_exits_1(home: Path) -> None:
    """Nothing registered is not success: exit 1 (documented in the help), the reason said."""
    code, out = origin(home, "register", "claude-code")
    assert (code, out) == (
        1,
        "claude is not on PATH. Once Claude Code is installed, run:\n"
        f"  {reg.commands()['claude-code'][0]}\n",
    )
    assert not (home / ".claude.json").exists()


def test_claude_installed_is_run_remove_then_add_each_time(home: Path) -> None:
    log = recording_cli(home, "claude")
    exe = str(reg.origin_executable())
    for _ in range(2):
        code, out = origin(home, "register", "claude-code")
        assert code == 0 and out.startswith("Registered origin (stdio) with Claude Code:\n")
    stdio = [
        ["mcp", "remove", "--scope", "user", "origin"],
        ["mcp", "add", "--scope", "user", "origin", "--", exe, "mcp"],
    ]
    assert argvs(log) == stdio * 2


def test_claude_hub_registration_carries_the_token_and_does_not_echo_it(home: Path) -> None:
    log = recording_cli(home, "claude")
    code, out = origin(home, "register", "claude-code", "--hub", HUB, "--token", TOKEN)
    assert code == 0 and TOKEN not in out and "Bearer ogn_…" in out
    assert argvs(log) == [
        ["mcp", "remove", "--scope", "user", "origin-hub"],
        [
            "mcp",
            "add",
            "--scope",
            "user",
            "--transport",
            "http",
            "origin-hub",
            HUB,
            "--header",
            f"Authorization: Bearer {TOKEN}",
            "--header",
            "X-Origin-Client: claude-code",
        ],
    ]


def test_codex_installed_is_asked_to_add_stdio_and_its_table_written_for_the_hub(
    home: Path,
) -> None:
    log = recording_cli(home, "codex")
    assert origin(home, "register", "codex")[0] == 0
    assert argvs(log) == [["mcp", "add", "origin", "--", str(reg.origin_executable()), "mcp"]]
    assert origin(home, "register", "codex", "--hub", HUB, "--token", TOKEN)[0] == 0
    assert len(argvs(log)) == 1  # `codex mcp add` cannot set the hub's headers
    assert (
        "origin-hub" in tomllib.loads((home / ".codex" / "config.toml").read_text())["mcp_servers"]
    )


def test_an_agent_cli_that_fails_is_reported_with_what_it_said(home: Path) -> None:
    script = home.parent / "bin" / "claude"
    script.write_text(
        "#!/bin/sh\n[ \"$2\" = add ] && echo 'MCP config is locked' >&2 && exit 1\nexit 0\n"
    )
    script.chmod(0o755)
    code, out = origin(home, "register", "claude-code")
    assert code == 2 and "claude mcp add failed: MCP config is locked" in out


def test_the_hub_needs_a_token_and_takes_the_one_origin_run_keeps(home: Path) -> None:
    code, out = origin(home, "register", "claude-code", "--hub", HUB)
    assert code == 2 and "--token" in out
    log = recording_cli(home, "claude")
    keep = home / ".origin" / reg.TOKEN_FILE
    keep.parent.mkdir()
    keep.write_text(TOKEN + "\n")
    os.chmod(keep, 0o600)
    assert origin(home, "register", "claude-code", "--hub", HUB)[0] == 0
    assert f"Authorization: Bearer {TOKEN}" in argvs(log)[-1]


def test_a_hub_that_is_not_a_url_is_refused_before_anything_runs(home: Path) -> None:
    log = recording_cli(home, "claude")
    code, out = origin(home, "register", "claude-code", "--hub", "127.0.0.1:8765", "--token", TOKEN)
    assert code == 2 and "http://127.0.0.1:8765/mcp" in out and not log.exists()


def test_an_unknown_agent_is_refused_by_the_cli(home: Path) -> None:
    code, out = origin(home, "register", "cursor")
    assert code == 2 and "claude-code" in out and "codex" in out


# -- agents configured in JSON: Gemini CLI, Qwen Code, OpenCode, Copilot CLI --------------------

#: Each agent's file under a scratch HOME, and where its own variable moves it.
JSON_FILES = {
    "gemini": (".gemini/settings.json", "GEMINI_CLI_HOME", "moved/.gemini/settings.json"),
    "qwen": (".qwen/settings.json", "QWEN_HOME", "moved/settings.json"),
    "opencode": (
        ".config/opencode/opencode.json",
        "XDG_CONFIG_HOME",
        "moved/opencode/opencode.json",
    ),
    "copilot": (".copilot/mcp-config.json", "COPILOT_HOME", "moved/mcp-config.json"),
}
#: Each agent's key and its entries, as its own `mcp add` writes them (Gemini CLI 0.61, Qwen Code
#: 0.15, OpenCode 1.18, Copilot CLI 1.0.102; OpenCode's with `enabled`, its documented default).
HEADERS = {"Authorization": f"Bearer {TOKEN}", "X-Origin-Client": "{agent}"}
WRITTEN: dict[str, tuple[str, dict[str, object], dict[str, object]]] = {
    "gemini": (
        "mcpServers",
        {"command": "{exe}", "args": ["mcp"]},
        {"url": HUB, "type": "http", "headers": HEADERS},
    ),
    "qwen": (
        "mcpServers",
        {"command": "{exe}", "args": ["mcp"]},
        {"httpUrl": HUB, "headers": HEADERS},
    ),
    "opencode": (
        "mcp",
        {"type": "local", "command": ["{exe}", "mcp"], "enabled": True},
        {"type": "remote", "url": HUB, "headers": HEADERS, "enabled": True},
    ),
    "copilot": (
        "mcpServers",
        {"type": "local", "command": "{exe}", "args": ["mcp"], "tools": ["*"]},
        {"type": "http", "url": HUB, "headers": HEADERS, "tools": ["*"]},
    ),
}


def _filled(value: Any, agent: str, exe: str) -> Any:
    if isinstance(value, str):
        return value.replace("{exe}", exe).replace("{agent}", agent)
    if isinstance(value, list):
        return [_filled(v, agent, exe) for v in value]
    if isinstance(value, dict):
        return {k: _filled(v, agent, exe) for k, v in value.items()}
    return value


def expected(agent: str, transport: str, exe: str | None = None) -> dict[str, Any]:
    """The entry `agent`'s config holds for `transport`, for the installed origin or `exe`."""
    key, stdio, http = WRITTEN[agent]
    entry = stdio if transport == "stdio" else http
    filled: dict[str, Any] = _filled(entry, agent, exe or str(reg.origin_executable()))
    return filled


@pytest.mark.parametrize("agent", list(JSON_FILES))
def test_each_json_fragment_is_the_agents_own_shape(agent: str) -> None:
    key = WRITTEN[agent][0]
    for r in reg.registrations(ORIGIN, hub_url=HUB, token=TOKEN):
        if r.client == agent:
            assert r.fragment is not None
            assert json.loads(r.fragment) == {
                key: {r.name: expected(agent, r.transport, str(ORIGIN))}
            }


@pytest.mark.parametrize("agent", list(JSON_FILES))
def test_without_its_cli_the_config_is_written_once_and_keeps_the_rest(
    home: Path, agent: str
) -> None:
    key = WRITTEN[agent][0]
    config = home / JSON_FILES[agent][0]
    config.parent.mkdir(parents=True)
    mine = {
        "$version": 3,
        "theme": "dark",
        key: {"other": {"command": "other-server"}, "origin": {"command": "/old/origin"}},
        "zzz": [1, 2],
    }
    config.write_text(json.dumps(mine))
    config.chmod(0o640)
    label = reg.AGENT_LABEL[agent]
    code, out = origin(home, "register", agent)
    assert (code, out) == (
        0,
        f"Registered origin (stdio) with {label} in {config}.\nCheck it: {agent} mcp list\n",
    )
    first = json.loads(config.read_text())
    # Replaced in place: every other key, and the keys' order, as they were.
    assert list(first) == ["$version", "theme", key, "zzz"]
    assert first == {
        **mine,
        key: {"other": {"command": "other-server"}, "origin": expected(agent, "stdio")},
    }
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    text = config.read_text()
    code, out = origin(home, "register", agent)
    assert (code, out) == (
        0,
        f"{label} already has origin (stdio) in {config}; nothing to change.\n",
    )
    assert config.read_text() == text

    code, out = origin(home, "register", agent, "--hub", HUB, "--token", TOKEN)
    assert code == 0 and TOKEN not in out
    both = json.loads(config.read_text())
    assert list(both[key]) == ["other", "origin", "origin-hub"]
    assert both[key]["origin-hub"] == expected(agent, "http")
    assert list(config.parent.iterdir()) == [config]  # no scratch file left behind


@pytest.mark.parametrize("agent", list(JSON_FILES))
def test_a_new_json_config_is_this_users_alone_and_its_variable_moves_it(
    home: Path, agent: str
) -> None:
    _, variable, moved = JSON_FILES[agent]
    code, _ = origin(
        home, "register", agent, "--hub", HUB, "--token", TOKEN, **{variable: str(home / "moved")}
    )
    config = home / moved
    assert code == 0 and stat.S_IMODE(config.stat().st_mode) == 0o600
    key = WRITTEN[agent][0]
    assert json.loads(config.read_text()) == {key: {"origin-hub": expected(agent, "http")}}
    assert sorted(p.name for p in home.iterdir()) == ["moved"]


def test_opencode_writes_the_global_file_it_reads_last_or_the_one_opencode_config_names(
    home: Path,
) -> None:
    where = home / ".config" / "opencode"
    where.mkdir(parents=True)
    (where / "opencode.json").write_text("{}")
    (where / "opencode.jsonc").write_text('{"$schema": "https://opencode.ai/config.json"}')
    assert origin(home, "register", "opencode")[0] == 0
    assert json.loads((where / "opencode.jsonc").read_text())["mcp"]["origin"]["type"] == "local"
    assert (where / "opencode.json").read_text() == "{}"
    named = home / "project.json"
    assert origin(home, "register", "opencode", OPENCODE_CONFIG=str(named))[0] == 0
    assert list(json.loads(named.read_text())["mcp"]) == ["origin"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"mcpServers": {', "is not valid JSON"),
        ("[1, 2]", "is not a JSON object"),
        ('{"mcpServers": ["origin"], "mcp": 3}', "is not a JSON object"),
        ('{\n  // mine\n  "theme": "dark",\n}\n', "holds comments"),
    ],
    ids=["truncated", "array", "servers not an object", "comments"],
)
@pytest.mark.parametrize("agent", list(JSON_FILES))
def test_a_json_config_origin_cannot_rewrite_is_left_alone_saying_why(
    home: Path, agent: str, text: str, says: str
) -> None:
    config = home / JSON_FILES[agent][0]
    config.parent.mkdir(parents=True)
    config.write_text(text)
    code, out = origin(home, "register", agent)
    assert code == 2 and says in out and str(config) in out, out
    assert config.read_text() == text
    assert list(config.parent.iterdir()) == [config]


def test_a_dry_run_shows_the_json_and_writes_nothing(home: Path) -> None:
    code, out = origin(home, "register", "copilot", "--dry-run")
    config = home / ".copilot" / "mcp-config.json"
    fragment = {"mcpServers": {"origin": expected("copilot", "stdio")}}
    assert (code, out) == (0, f"Would write to {config}:\n\n{json.dumps(fragment, indent=2)}\n")
    assert not config.exists()


@pytest.mark.parametrize("agent", ["gemini", "qwen"])
def test_gemini_and_qwen_installed_are_run_and_their_comments_left_to_them(
    home: Path, agent: str
) -> None:
    """Their `mcp add --scope user` replaces an entry and keeps the file's comments; a file they
    could not read is not handed to them."""
    log = recording_cli(home, agent)
    config = home / JSON_FILES[agent][0]
    config.parent.mkdir(parents=True)
    config.write_text('{\n  // mine\n  "theme": "dark",\n}\n')
    exe = str(reg.origin_executable())
    assert origin(home, "register", agent)[0] == 0
    code, out = origin(home, "register", agent, "--hub", HUB, "--token", TOKEN)
    assert code == 0 and TOKEN not in out and "Bearer ogn_…" in out
    assert argvs(log) == [
        ["mcp", "add", "--scope", "user", "origin", exe, "mcp"],
        [
            "mcp",
            "add",
            "--scope",
            "user",
            "--transport",
            "http",
            "origin-hub",
            HUB,
            "-H",
            f"Authorization: Bearer {TOKEN}",
            "-H",
            f"X-Origin-Client: {agent}",
        ],
    ]
    config.write_text('{"mcpServers": ')
    code, out = origin(home, "register", agent)
    assert code == 2 and "is not valid JSON" in out and len(argvs(log)) == 2


@pytest.mark.parametrize("agent", ["opencode", "copilot"])
def test_opencode_and_copilot_installed_have_their_file_written_by_origin(
    home: Path, agent: str
) -> None:
    log = recording_cli(home, agent)
    assert origin(home, "register", agent)[0] == 0
    assert not log.exists()
    key = WRITTEN[agent][0]
    config = json.loads((home / JSON_FILES[agent][0]).read_text())
    assert config == {key: {"origin": expected(agent, "stdio")}}
