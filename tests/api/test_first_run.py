"""A new user's first `origin run`: samples in a demo archive of their own, a hub token that
survives runs, and a port in use said in one line before anything else happens."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import fixture_env
from mcp_client import ORIGIN, run_origin

from origin_api import admin
from origin_api.errors import OriginError
from origin_api.hub.server import bind
from origin_api.runtime import Origin
from origin_api.samples import INFO_FILE
from origin_api.samples.demo.memory import memory_files
from origin_api.settings import Settings
from origin_store.replication import tokens as store_tokens

# -- the demo archive ------------------------------------------------------------------------


def test_the_demo_reads_its_samples_only_and_keeps_origins_own_settings(
    tmp_path: Path, fixtures_dir: Path
):
    env = {**fixture_env(tmp_path), "ORIGIN_HUB_PORT": "9911", "XDG_CONFIG_HOME": str(tmp_path)}
    real = Settings.from_env(env)
    assert admin.find_logs(real), "the fixture environment has every agent's logs"
    demo = admin.demo_of(real)
    shown = demo.settings(real)
    assert shown.home == real.home / "demo" and shown.user_home == demo.samples
    assert (shown.hub_port, shown.device) == (9911, "testbox")
    assert admin.find_logs(shown) == []  # no real agent directory or variable reaches it
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        assert Path(shown.environ[name]).is_relative_to(demo.samples)
    for name in ("GROK_HOME", "ZCODE_STORAGE_DIR", "XDG_CONFIG_HOME"):
        assert name not in shown.environ


def test_demo_remove_deletes_only_a_marked_demo(tmp_path: Path):
    settings = Settings.from_env({"HOME": str(tmp_path), "ORIGIN_HOME": str(tmp_path / "o")})
    demo = admin.demo_of(settings)
    assert admin.remove_demo(demo) is None
    demo.home.mkdir(parents=True)
    (demo.home / "mine.txt").write_text("not Origin's")
    with pytest.raises(OriginError, match="is not Origin's demo archive"):
        admin.remove_demo(demo)
    assert (demo.home / "mine.txt").exists()
    (demo.home / admin.DEMO_MARK).write_text("{}")
    assert not demo.written
    assert admin.remove_demo(demo) > 0  # the bytes it took
    assert not demo.home.exists()


def test_an_archive_that_took_in_samples_earlier_says_so(tmp_path: Path, fixtures_dir: Path):
    from typer.testing import CliRunner

    from origin_api.cli.commands import app

    env = fixture_env(tmp_path)
    old = Path(env["ORIGIN_HOME"]) / "samples"
    old.mkdir(parents=True)
    (old / INFO_FILE).write_text("{}")
    result = CliRunner().invoke(app, ["run", "--no-hub"], env=env)
    assert result.exit_code == 0, result.output
    assert f"also holds the samples an earlier `origin run` generated in {old}" in result.output
    assert re.search(r"^Found [\d,]+ agent log files", result.output, re.M)
    assert re.search(r"^Archive: [\d,]+ events", result.output, re.M)


# -- the hub's token -------------------------------------------------------------------------


@pytest.fixture
def home(tmp_path: Path) -> Settings:
    return Settings.from_env({"HOME": str(tmp_path), "ORIGIN_HOME": str(tmp_path / "origin")})


@pytest.mark.slow
def test_the_hub_token_is_kept_across_runs_and_stores_and_only_as_a_hash(home: Settings):
    path = home.home / admin.TOKEN_FILE
    with Origin.open(home) as origin:
        first = admin.hub_token(origin, path)
        assert first.new == "none was kept yet"
        assert admin.hub_token(origin, path) == admin.HubToken(first.secret)
        assert store_tokens.verify(origin.store, first.secret).name == admin.LOCAL_TOKEN
    assert path.read_text() == first.secret + "\n"
    assert path.stat().st_mode & 0o777 == 0o600
    stored = b"".join(p.read_bytes() for p in home.home.rglob("*") if p.is_file() and p != path)
    assert first.secret.encode() not in stored  # the store keeps its hash alone
    demo = admin.demo_of(home).settings(home)
    with Origin.open(demo) as other:  # another store (the demo's) takes the same token
        assert admin.hub_token(other, path) == admin.HubToken(first.secret)
        assert store_tokens.verify(other.store, first.secret) is not None


def test_a_revoked_or_lost_token_is_replaced_and_a_loose_file_tightened(home: Settings):
    path = home.home / admin.TOKEN_FILE
    with Origin.open(home) as origin:
        first = admin.hub_token(origin, path)
        path.chmod(0o644)
        assert admin.kept_token(origin, path) == first.secret
        assert path.stat().st_mode & 0o777 == 0o600
        admin.revoke_token(origin, admin.LOCAL_TOKEN)
        assert admin.kept_token(origin, path) is None  # a revoked secret is not brought back
        second = admin.hub_token(origin, path)
        assert second.new == "the kept one was revoked" and second.secret != first.secret
        assert store_tokens.verify(origin.store, first.secret) is None
        path.unlink()
        third = admin.hub_token(origin, path)
        assert third.new == "none was kept yet"
        assert store_tokens.verify(origin.store, second.secret) is None
        assert [t.name for t in admin.list_tokens(origin) if t.active] == [admin.LOCAL_TOKEN]


# -- the port --------------------------------------------------------------------------------


@contextmanager
def taken_port() -> Iterator[int]:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield held.getsockname()[1]


def test_a_port_in_use_is_one_line_naming_the_options():
    with taken_port() as port, pytest.raises(OriginError) as caught:
        bind("127.0.0.1", port)
    message = caught.value.message
    assert "\n" not in message and f"Port {port} on 127.0.0.1 is already in use" in message
    assert "--port" in message and "ORIGIN_HUB_PORT" in message
    assert re.search(r"\((\d+) is free\)", message)
    with pytest.raises(OriginError, match="--host"):
        bind("no-such-host.invalid", 8765)
    sock = bind("127.0.0.1", 0)
    assert sock.getsockname()[1] > 0
    sock.close()


# -- `origin run` end to end ------------------------------------------------------------------


def _scratch_env(tmp_path: Path, **more: str) -> dict[str, str]:
    """A machine with no agent logs: HOME and ORIGIN_HOME in tmp_path, no agent variables."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
            "GROK_HOME",
            "GEMINI_CLI_HOME",
            "COPILOT_HOME",
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
        )
        and not k.startswith(("ZCODE_", "ORIGIN_", "OPENCODE_", "QWEN_"))
    }
    return {
        **env,
        "HOME": str(tmp_path / "home"),
        "ORIGIN_HOME": str(tmp_path / "origin"),
        "ORIGIN_CLI_LINGER_S": "0",
        **more,
    }


def _events(env: dict[str, str]) -> dict[str, int]:
    done = run_origin(env, "status", "--json")
    assert done.returncode == 0, done.stderr
    return {k: v["events"] for k, v in json.loads(done.stdout)["by_source"].items()}


@pytest.mark.slow
@pytest.mark.e2e
def test_origin_run_without_logs_shows_a_demo_that_never_mixes_with_the_archive(
    tmp_path: Path, fixtures_dir: Path
):
    env = _scratch_env(tmp_path)
    shown = run_origin(env, "run", "--no-hub")
    assert shown.returncode == 0, shown.stderr
    assert "No agent logs found on this machine: showing the demo" in shown.stdout
    demo = Settings.from_env(env).home / "demo"
    made = json.loads((demo / "samples" / INFO_FILE).read_bytes())["events"]
    assert re.search(rf"^Demo archive: {made:,} events in [\d,]+ sessions", shown.stdout, re.M)
    entries = len(memory_files(0))  # each memory file is also an imported entry
    assert f"Indexed {made + entries:,} documents" in shown.stdout
    assert "already in the store" not in shown.stdout  # records an agent wrote twice: not news
    # The user's own archive: none yet, and a read says so (naming the demo), making none.
    mine = run_origin(env, "status")
    assert mine.returncode == 2 and f"No archive at {env['ORIGIN_HOME']}:" in mine.stderr
    assert f"the demo `origin run` shows is {demo}" in mine.stderr
    assert sorted(p.name for p in Path(env["ORIGIN_HOME"]).iterdir()) == ["demo"]
    demo_env = {
        **env,
        **admin.demo_of(Settings.from_env(env)).settings(Settings.from_env(env)).environ,
    }
    assert sum(_events(demo_env).values()) == made

    # The first real ingest goes to the real archive and sees none of the samples.
    real = {**env, **fixture_env(tmp_path / "real"), "ORIGIN_HOME": env["ORIGIN_HOME"]}
    alone = {**real, "ORIGIN_HOME": str(tmp_path / "alone")}
    assert (
        run_origin(real, "ingest").returncode == 0 and run_origin(alone, "ingest").returncode == 0
    )
    assert _events(real) == _events(alone) and sum(_events(real).values()) < made
    assert "the demo archive is apart" in run_origin(env, "status").stdout
    again = run_origin(real, "run", "--no-hub")
    assert again.returncode == 0, again.stderr
    assert re.search(r"^Found [\d,]+ agent log files", again.stdout, re.M)
    assert "demo" in again.stdout and "Demo archive" not in again.stdout
    assert sum(_events(demo_env).values()) == made  # and the demo holds no real log
    forced = run_origin(real, "run", "--no-hub", "--samples")
    assert "As asked (--samples): showing the demo" in forced.stdout
    assert re.search(rf"^Demo archive: {made:,} events", forced.stdout, re.M)

    removed = run_origin(env, "demo", "remove")
    assert removed.returncode == 0 and "Removed the demo archive" in removed.stdout
    assert not demo.exists() and _events(real) == _events(alone)
    assert "no demo archive" in run_origin(env, "demo", "remove").stdout


def _post(port: int, token: str) -> int:
    """The status of a tools/list to the hub with this token, once the hub listens."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp",
        data=body,
        method="POST",
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            return error.code
        except urllib.error.URLError:  # uvicorn says it started a moment before it listens
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@contextmanager
def _serving(env: dict[str, str], port: int, command: str = "run") -> Iterator[tuple[str, str]]:
    """`origin run` (or `origin hub`) until it serves: (its output so far, the token it
    printed)."""
    proc = subprocess.Popen(
        [ORIGIN, command, "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    try:
        said, token = "", None
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            assert line, f"origin run ended before serving the hub:\n{said}"
            said += line
            found = re.search(r"(?:token: |Bearer )(ogn_[\w-]+)", line)
            token = found.group(1) if found else token
            if token and "Application startup complete" in line:
                break
        assert token, said
        yield said, token
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stdout.close()


@pytest.mark.slow
@pytest.mark.e2e
def test_origin_run_keeps_its_token_so_a_registration_survives(tmp_path: Path):
    with taken_port() as port:
        pass  # a port free a moment ago
    env = _scratch_env(tmp_path)
    with _serving(env, port) as (said, first):
        assert "serving the demo archive" in said and "new: none was kept yet" in said
        assert f"origin-hub http://127.0.0.1:{port}/mcp" in said
        assert f"Authorization: Bearer {first}" in said
        assert f"Admin UI: http://127.0.0.1:{port}/ui/ — sign in with the token above" in said
        assert _post(port, first) == 200
    with _serving(env, port) as (said, second):
        assert second == first and "the same as last time" in said
        assert _post(port, first) == 200  # the agent registered by the first run connects
        assert _post(port, first[:-1] + "x") == 401
    token_file = Path(env["ORIGIN_HOME"]) / admin.TOKEN_FILE
    assert token_file.stat().st_mode & 0o777 == 0o600
    with _serving(env, port, "hub") as (said, shown):  # the hub alone shows the same one
        assert shown == first and f"origin-hub http://127.0.0.1:{port}/mcp" in said
        assert _post(port, first) == 200


@pytest.mark.e2e
@pytest.mark.parametrize("command", [["run"], ["hub"]])
def test_a_port_in_use_stops_run_and_hub_before_anything_happens(
    tmp_path: Path, command: list[str]
):
    env = _scratch_env(tmp_path)
    with taken_port() as port:
        done = run_origin({**env, "ORIGIN_HUB_PORT": str(port)}, *command)
    assert done.returncode == 2
    assert done.stdout == ""  # no banner, no ingest, no token
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: Port {port} on 127.0.0.1 is already in use")
    assert "--port" in lines[0] and "ORIGIN_HUB_PORT" in lines[0]
    assert not (Path(env["ORIGIN_HOME"]) / "demo").exists()
    assert not (Path(env["ORIGIN_HOME"]) / admin.TOKEN_FILE).exists()
