"""`origin doctor` and the counts `origin status` shows, over the project's sample logs: real
archives, a real hub on a real port, and clients' configuration files written the way Claude
Code and Codex write them, in a scratch home."""

from __future__ import annotations

import http.server
import json
import os
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import fixture_env
from typer.testing import CliRunner

from origin_api import admin, doctor
from origin_api.cli.commands import app
from origin_api.doctor import Diagnosis, Finding
from origin_api.doctor import archive as doctor_archive
from origin_api.hub import start_in_thread
from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_api.settings import Settings
from origin_store.reader import session_event_ids
from origin_store.reader import status as store_status
from origin_store.replication import tokens as store_tokens

ORIGIN = str(Path(sys.executable).with_name("origin"))
PROMPT_ID = "claude-code:a0000001-0000-4000-8000-000000000001"
SESSION = ("claude-code", "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10")
#: The variables that move each agent's files, as the agents' own `roots` read them.
MOVERS = {
    "claude-code": {"CLAUDE_CONFIG_DIR"},
    "codex": {"CODEX_HOME"},
    "cursor": {"XDG_CONFIG_HOME", "APPDATA"},
    "zcode": {"ZCODE_STORAGE_DIR", "ZCODE_SESSION_DB_PATH", "ZCODE_SESSION_DB"},
    "grok": {"GROK_HOME"},
    "qwen": {"QWEN_HOME", "QWEN_RUNTIME_DIR"},
    "gemini": {"GEMINI_CLI_HOME"},
    "opencode": {"XDG_DATA_HOME", "OPENCODE_DB", "OPENCODE_CONFIG_DIR"},
    "copilot": {"COPILOT_HOME"},
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def env(tmp_path: Path, fixtures_dir: Path) -> dict[str, str]:
    """The samples as this machine's agents' logs; the hub's port one nothing listens on."""
    return {
        **fixture_env(tmp_path),
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0",
        "ORIGIN_HUB_PORT": str(_free_port()),
    }


@pytest.fixture
def settings(env: dict[str, str]) -> Settings:
    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()
    return Settings.from_env(env)


def _by(found: Diagnosis) -> dict[tuple[str, str], Finding]:
    return {(f.area, f.subject): f for f in found.findings}


def _forget(settings: Settings, *ids: str) -> None:
    with Origin.open(settings) as origin:
        for event in ids:
            call(origin, "forget", {"id": event, "reason": "test"}, Caller("user", "testbox"))


# -- status's counts -------------------------------------------------------------------------


def test_status_totals_are_the_sums_of_its_lines_after_a_forget(settings: Settings):
    with Origin.open(settings) as origin:
        before = doctor.status(origin)
        stored = store_status(origin.store, origin.home)
        with origin.store.read() as txn:
            whole = list(session_event_ids(origin.store, txn, *SESSION))
    _forget(settings, PROMPT_ID)
    with Origin.open(settings) as origin:
        after = doctor.status(origin)
    for info in (before, after):
        lines = info["by_source"].values()
        assert info["events"] == sum(line["events"] for line in lines)
        assert info["sessions"] == sum(line["sessions"] for line in lines)
        assert info["events"] == sum(info["by_project"].values())
    # Nothing forgotten yet: the store's own figures, sessions without events included.
    assert (before["events"], before["sessions"]) == (stored["events"], stored["sessions"])
    assert before["by_source"] == stored["by_source"] and before["forgotten_events"] == 0
    assert after["events"] == before["events"] - 1 and after["forgotten_events"] == 1
    assert after["by_source"]["claude-code"]["events"] == (
        before["by_source"]["claude-code"]["events"] - 1
    )
    _forget(settings, *whole)  # every event of a session: the session is no longer counted
    with Origin.open(settings) as origin:
        gone = doctor.status(origin)
    assert gone["sessions"] == before["sessions"] - 1
    assert gone["forgotten_events"] == len(whole)
    assert gone["events"] == before["events"] - len(whole)
    assert gone["events"] == sum(line["events"] for line in gone["by_source"].values())


# -- agents, archive, index ------------------------------------------------------------------


def test_every_agent_is_found_where_its_variables_say(settings: Settings):
    found = doctor.diagnose(settings)
    with Origin.open(settings) as origin:
        held = doctor.counts(origin)
    for agent, movers in MOVERS.items():
        finding = _by(found)[("agents", agent)]
        assert finding.level == "ok", finding
        details = finding.details
        assert details["files"] > 0 and details["bytes"] > 0 and details["pending_bytes"] == 0
        assert details["events"] == held.by_source[agent]["events"] > 0
        assert details["newest_activity"] and details["newest_activity"] in finding.summary
        assert set(details["environment"]) == movers
        assert any(root["exists"] for root in details["roots"])
        assert movers <= set(found.environment)
    assert found.environment["CLAUDE_CONFIG_DIR"] == settings.environ["CLAUDE_CONFIG_DIR"]
    assert found.environment["XDG_CONFIG_HOME"] is None
    assert {"HOME", "ORIGIN_HOME", "ORIGIN_HUB_PORT"} <= set(found.environment)


def test_an_agent_without_logs_says_where_it_looked(env: dict[str, str], tmp_path: Path):
    env = {**env, "CODEX_HOME": str(tmp_path / "no-codex")}
    found = _by(doctor.diagnose(Settings.from_env(env)))
    codex = found[("agents", "codex")]
    assert codex.level == "note" and str(tmp_path / "no-codex") in codex.summary
    assert codex.details["roots"] == [{"path": str(tmp_path / "no-codex"), "exists": False}]


def test_the_archive_and_its_index_as_they_stand(settings: Settings):
    found = _by(doctor.diagnose(settings))
    store = found[("archive", "store")]
    assert store.level == "ok" and store.details["schema"] >= 1
    assert store.details["events"] == store.details["stored_events"] > 0
    index = found[("index", "index")]
    assert index.level == "note" and "first search builds it" in index.summary
    assert not (settings.home / "index").exists()  # looking did not build it
    with Origin.open(settings) as origin:
        origin.searcher.catch_up()
    assert _by(doctor.diagnose(settings))[("index", "index")].level == "ok"
    _forget(settings, PROMPT_ID)  # a forget catches the index up itself
    after = _by(doctor.diagnose(settings))
    assert after[("index", "index")].level == "ok"
    assert after[("archive", "store")].details["forgotten_events"] == 1
    assert "1 forgotten" in after[("archive", "store")].summary


def test_room_to_give_back_is_a_note_naming_origin_compact(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
):
    """Pages LMDB keeps free are found from its counts alone; past a share of the file the
    doctor says what `origin compact` gives back, and after it says nothing of it."""
    monkeypatch.setattr(doctor_archive, "WORTH_BYTES", 4 << 20)
    assert ("archive", "space") not in _by(doctor.diagnose(settings))
    with Origin.open(settings) as origin:
        store = origin.store
        junk = os.urandom(4096)

        def fill(txn) -> None:
            for n in range(3000):
                txn.put(b"junk:%d" % n, junk, db=store.dbs["meta"])

        def empty(txn) -> None:
            for n in range(3000):
                txn.delete(b"junk:%d" % n, db=store.dbs["meta"])

        store.write(fill)
        store.write(empty)
    space = _by(doctor.diagnose(settings))[("archive", "space")]
    assert space.level == "note" and "`origin compact`" in space.summary
    assert space.details["free_bytes"] >= 3000 * 4096
    assert space.details["older_layout_bytes"] == 0
    done = admin.compact(settings)
    assert done.before - done.after >= 3000 * 4096
    assert ("archive", "space") not in _by(doctor.diagnose(settings))


def test_no_archive_yet_is_a_note_and_nothing_is_created(env: dict[str, str]):
    home = Path(env["ORIGIN_HOME"])
    found = doctor.diagnose(Settings.from_env(env))
    assert _by(found)[("archive", "store")].level == "note" and found.healthy
    assert not home.exists()


@pytest.mark.parametrize("below", [False, True], ids=["a file as the home", "a home below a file"])
def test_an_unusable_home_needs_attention(env: dict[str, str], tmp_path: Path, below: bool):
    blocker = tmp_path / "in-the-way"
    blocker.write_text("a file\n")
    home = blocker / "origin" if below else blocker
    found = doctor.diagnose(Settings.from_env({**env, "ORIGIN_HOME": str(home)}))
    store = _by(found)[("archive", "store")]
    assert store.level == "attention" and not found.healthy
    assert store.summary == (
        f"Cannot use ORIGIN_HOME {home}: {blocker} is a file, not a directory. "
        "Set ORIGIN_HOME to a writable directory."
    )


def test_the_demo_archive_is_named_with_the_command_that_removes_it(
    settings: Settings, tmp_path: Path
):
    demo = tmp_path / "demo"
    demo.mkdir()
    (demo / "samples.txt").write_text("x" * 5000)
    found = _by(doctor.diagnose(settings, demo=demo))[("archive", "demo")]
    assert found.level == "note" and "`origin demo remove`" in found.summary
    assert found.details == {"home": str(demo), "bytes": found.details["bytes"]}
    assert found.details["bytes"] >= 5000


# -- the hub ---------------------------------------------------------------------------------


def test_a_serving_hub_a_free_port_and_a_port_taken_by_another_program(
    settings: Settings, env: dict[str, str]
):
    free = _by(doctor.diagnose(settings))[("hub", "hub")]
    assert free.level == "note" and free.details["answer"] == "closed"
    with Origin.open(settings) as origin, start_in_thread(origin, ingest=False) as hub:
        served = Settings.from_env({**env, "ORIGIN_HUB_PORT": str(hub.port)})
        serving = _by(doctor.diagnose(served))[("hub", "hub")]
    assert serving.level == "ok" and serving.details["url"] == hub.url
    with _another_program() as port:
        taken = Settings.from_env({**env, "ORIGIN_HUB_PORT": str(port)})
        other = doctor.diagnose(taken)
    found = _by(other)[("hub", "hub")]
    assert found.level == "attention" and not other.healthy
    assert "another program answers (HTTP 404)" in found.summary and "--port" in found.summary


@pytest.fixture
def kept(settings: Settings) -> Iterator[tuple[Path, str]]:
    """The token file `origin run` keeps, with an active token of this archive in it."""
    with Origin.open(settings) as origin:
        secret = store_tokens.create(origin.store, "local")
    path = settings.home / "hub-token"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(secret + "\n")
    yield path, secret


def test_the_kept_token_readable_by_its_user_alone_and_active(
    settings: Settings, kept: tuple[Path, str]
):
    path, secret = kept
    found = _by(doctor.diagnose(settings))[("hub", "hub token")]
    assert found.level == "ok" and found.details["token"] == "local"
    path.chmod(0o644)
    loose = _by(doctor.diagnose(settings))[("hub", "hub token")]
    assert loose.level == "attention" and f"chmod 600 {path}" in loose.summary
    path.chmod(0o600)
    with Origin.open(settings) as origin:
        store_tokens.revoke(origin.store, "local")
    revoked = doctor.diagnose(settings)
    assert _by(revoked)[("hub", "hub token")].level == "note"
    assert secret not in json.dumps(revoked.as_dict())


class _NotAHub(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_error(404)

    def log_message(self, *args: object) -> None:
        pass


class _Quiet(http.server.ThreadingHTTPServer):
    daemon_threads = True


@contextmanager
def _another_program() -> Iterator[int]:
    server = _Quiet(("127.0.0.1", 0), _NotAHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


# -- clients ---------------------------------------------------------------------------------


def _claude(home: Path, servers: dict, projects: dict | None = None) -> None:
    config = {"numStartups": 4, "mcpServers": servers, "projects": projects or {}}
    (home / ".claude.json").write_text(json.dumps(config, indent=2))


def test_claude_code_and_codex_registrations_checked_without_showing_a_token(
    settings: Settings, env: dict[str, str], tmp_path: Path
):
    home = Path(env["HOME"])
    with Origin.open(settings) as origin:
        secret = store_tokens.create(origin.store, "laptop")
    url = f"http://127.0.0.1:{settings.hub_port}/mcp"
    _claude(
        home,
        {
            "origin": {"type": "stdio", "command": ORIGIN, "args": ["mcp"], "env": {}},
            "origin-hub": {
                "type": "http",
                "url": url,
                "headers": {"Authorization": f"Bearer {secret}", "X-Origin-Client": "claude-code"},
            },
            "someone-else": {"type": "stdio", "command": "elsewhere"},
        },
        {"/work/app": {"mcpServers": {"origin": {"command": "/gone/origin", "args": ["mcp"]}}}},
    )
    codex = tmp_path / "codex-home"
    codex.mkdir()
    (codex / "config.toml").write_text(
        'model = "gpt-5"\n\n[mcp_servers.origin]\ncommand = "origin-not-installed"\nargs = ["mcp"]\n\n'
        f'[mcp_servers.origin-hub]\nurl = "{url}"\n\n[mcp_servers.origin-hub.http_headers]\n'
        f'Authorization = "Bearer ogn_{"x" * 43}"\n"X-Origin-Client" = "codex"\n'
    )
    moved = Settings.from_env({**env, "CLAUDE_CONFIG_DIR": "", "CODEX_HOME": str(codex)})
    found = doctor.diagnose(moved)
    clients = {
        f.subject + (f" {f.details['scope']}" if "scope" in f.details else ""): f
        for f in found.findings
        if f.area == "clients" and f.subject.split()[0] in ("claude-code", "codex")
    }
    assert set(clients) == {
        "claude-code origin user",
        "claude-code origin-hub user",
        "claude-code origin /work/app",
        "codex origin user",
        "codex origin-hub user",
    }
    assert clients["claude-code origin user"].level == "ok"
    hub = clients["claude-code origin-hub user"]
    assert hub.level == "note" and hub.details["token"] == "laptop"  # no hub serving right now
    local = clients["claude-code origin /work/app"]
    assert local.level == "attention" and "/gone/origin is not found" in local.summary
    assert "(local to /work/app)" in local.summary
    assert clients["codex origin user"].level == "attention"
    refused = clients["codex origin-hub user"]
    assert refused.level == "attention" and "does not accept" in refused.summary
    assert refused.details["headers"] == ["Authorization", "X-Origin-Client"]
    shown = json.dumps(found.as_dict())
    assert secret not in shown and "ogn_xxx" not in shown and not found.healthy


def test_gemini_qwen_opencode_and_copilot_registrations_read_from_their_own_files(
    settings: Settings, env: dict[str, str], tmp_path: Path
):
    """Each file where its agent's variable moves it, read as the agent reads it (Gemini's with
    comments), each of Origin's entries checked as Claude Code's are."""
    with Origin.open(settings) as origin:
        secret = store_tokens.create(origin.store, "laptop")
    url = f"http://127.0.0.1:{settings.hub_port}/mcp"
    gemini, qwen, xdg, copilot = (tmp_path / n for n in ("gemini", "qwen", "xdg", "copilot"))
    (gemini / ".gemini").mkdir(parents=True)
    servers = json.dumps({"origin": {"command": ORIGIN, "args": ["mcp"]}})
    (gemini / ".gemini" / "settings.json").write_text(
        f'{{\n  // the user\'s own\n  "mcpServers": {servers[:-1]},}},\n}}'
    )
    qwen.mkdir()
    bearer = {"Authorization": f"Bearer {secret}", "X-Origin-Client": "qwen"}
    (qwen / "settings.json").write_text(
        json.dumps(
            {"$version": 4, "mcpServers": {"origin-hub": {"httpUrl": url, "headers": bearer}}}
        )
    )
    (xdg / "opencode").mkdir(parents=True)
    (xdg / "opencode" / "opencode.json").write_text(
        json.dumps(
            {
                "mcp": {
                    "origin": {"type": "local", "command": ["/gone/origin", "mcp"]},
                    "origin-hub": {"type": "remote", "url": url, "headers": {}},
                    "context7": {"type": "local", "command": ["npx", "context7"]},
                }
            }
        )
    )
    copilot.mkdir()
    (copilot / "mcp-config.json").write_text('{"mcpServers": ')
    moved = Settings.from_env(
        {
            **env,
            "GEMINI_CLI_HOME": str(gemini),
            "QWEN_HOME": str(qwen),
            "XDG_CONFIG_HOME": str(xdg),
            "OPENCODE_CONFIG": "",
            "COPILOT_HOME": str(copilot),
        }
    )
    found = doctor.diagnose(moved)
    clients = {
        f.subject: f
        for f in found.findings
        if f.area == "clients" and f.subject.split()[0] in ("gemini", "qwen", "opencode", "copilot")
    }
    assert set(clients) == {
        "gemini origin",
        "qwen origin-hub",
        "opencode origin",
        "opencode origin-hub",
        "copilot",
    }
    assert clients["gemini origin"].level == "ok"
    hub = clients["qwen origin-hub"]
    assert hub.level == "note" and hub.details["token"] == "laptop"  # no hub serving right now
    assert hub.details["url"] == url and hub.details["transport"] == "http"
    gone = clients["opencode origin"]
    assert gone.level == "attention" and "/gone/origin is not found" in gone.summary
    assert "`origin register opencode`" in gone.summary
    tokenless = clients["opencode origin-hub"]
    assert tokenless.level == "attention" and "without a bearer token" in tokenless.summary
    broken = clients["copilot"]
    assert broken.level == "attention" and str(copilot / "mcp-config.json") in broken.summary
    assert secret not in json.dumps(found.as_dict())


def test_no_client_configuration_and_no_registration_are_notes(
    settings: Settings, env: dict[str, str]
):
    found = _by(doctor.diagnose(settings))
    assert found[("clients", "claude-code")].level == "note"  # the samples have no .claude.json
    _claude(Path(env["HOME"]), {})
    bare = Settings.from_env({**env, "CLAUDE_CONFIG_DIR": ""})
    none = _by(doctor.diagnose(bare))[("clients", "claude-code")]
    assert none.level == "note" and "`origin register claude-code`" in none.summary


def test_under_the_demos_home_it_says_so_and_checks_the_persons_own_agents(
    env: dict[str, str], tmp_path: Path
):
    """ORIGIN_HOME set to the demo archive: its agents' logs are its samples, but HOME and the
    registrations the doctor reports are the person's (it used to report the samples' folder as
    HOME and find no agent registered)."""
    from origin_api.settings import DEMO_MARK, DEMO_SAMPLES

    demo = tmp_path / "origin" / "demo"
    (demo / DEMO_SAMPLES).mkdir(parents=True)
    (demo / DEMO_MARK).write_text("{}")
    home = Path(env["HOME"])
    _claude(home, {"origin": {"type": "stdio", "command": ORIGIN, "args": ["mcp"], "env": {}}})
    person = {**env, "CLAUDE_CONFIG_DIR": ""}
    inside = Settings.from_env({**person, "ORIGIN_HOME": str(demo)})
    assert inside.user_home == demo / DEMO_SAMPLES  # the demo reads its samples only
    found = doctor.diagnose(inside, person=person)
    assert found.environment["HOME"] == str(home)
    said = _by(found)[("archive", "demo")]
    assert said.level == "note" and str(demo / DEMO_SAMPLES) in said.summary
    assert f"not your HOME ({home})" in said.summary
    registered = [
        f for f in found.findings if f.area == "clients" and f.subject.startswith("claude")
    ]
    assert [f.level for f in registered] == ["ok"], registered
    assert not (demo / "store").exists()  # a doctor creates nothing


# -- the command -----------------------------------------------------------------------------


def test_origin_doctor_human_and_json_and_its_exit_codes(
    settings: Settings, env: dict[str, str], tmp_path: Path
):
    runner = CliRunner()
    shown = runner.invoke(app, ["doctor"], env=env)
    assert shown.exit_code == 0, shown.output
    out = shown.output
    for heading in ("Agents' logs", "Archive", "Search index", "Hub", "Clients registered"):
        assert heading in out
    assert f"CLAUDE_CONFIG_DIR={env['CLAUDE_CONFIG_DIR']}" in out
    assert "XDG_CONFIG_HOME=(unset)" in out
    assert f"{env['CLAUDE_CONFIG_DIR']} (found)" in out
    assert "Nothing needs attention." in out
    data = json.loads(runner.invoke(app, ["doctor", "--json"], env=env).output)
    assert data["healthy"] is True and data["home"] == env["ORIGIN_HOME"]
    assert {f["area"] for f in data["findings"]} == {"agents", "archive", "index", "hub", "clients"}
    broken = {**env, "ORIGIN_HOME": str(tmp_path / "file")}
    (tmp_path / "file").write_text("in the way\n")
    failed = runner.invoke(app, ["doctor"], env=broken)
    assert failed.exit_code == 1 and "fix" in failed.output and "1 thing to fix" in failed.output
    assert (
        json.loads(runner.invoke(app, ["doctor", "--json"], env=broken).output)["healthy"] is False
    )
