"""The search server a fresh `origin search` leaves behind when nothing answers on the home's
socket: it answers the next fresh commands, never holds the first command's output open, and
leaves when idle, when its home or socket goes, on SIGTERM, or when another process serves."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
import types
from collections.abc import Callable, Iterator
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from helpers import STARTED, fixture_env, lingering_servers

from origin_api import lingering
from origin_api.lingering.process import code_changed
from origin_api.settings import Settings

ORIGIN = str(Path(sys.executable).with_name("origin"))

pytestmark = pytest.mark.e2e


def _origin(
    env: dict[str, str], *args: str, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ORIGIN, *args], env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def _wait(condition: Callable[[], bool], seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A child of nobody here: it is reaped by init, but may be a zombie for a moment.
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().split()[2] == "Z")


def _lingering(env: dict[str, str]) -> int:
    """The pid of the home's lingering server, once it serves."""
    pid_file = Path(env["ORIGIN_HOME"], lingering.PID_FILE)
    assert _wait(pid_file.exists), "no search server was left to linger"
    return int(pid_file.read_text())


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    environ = {**fixture_env(tmp_path), "ORIGIN_CLI_LINGER_S": "30"}
    assert _origin(environ, "ingest").returncode == 0
    yield environ
    pid_file = Path(environ["ORIGIN_HOME"], lingering.PID_FILE)
    if pid_file.exists():  # a test that failed midway, or ended on a search: leave no server
        pid = int(pid_file.read_text())
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        assert _wait(lambda: not _alive(pid)), f"the search server {pid} outlived SIGTERM"


def _ask(env: dict[str, str], *args: str) -> tuple[str, str]:
    """What `lingering.ask` finds for a fresh command in `env`, and what it printed."""
    buffer = io.BytesIO()
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        stdout = io.TextIOWrapper(buffer)
        with redirect_stdout(stdout):
            found = lingering.ask(list(args))
        return found, buffer.getvalue().decode()
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_the_first_command_answers_alone_and_leaves_a_server_for_the_next(
    env: dict[str, str],
) -> None:
    started = time.monotonic()
    first = _origin(env, "search", "--json", "migration", timeout=20)
    # Its output ended with it: the server does not hold the pipe for its 30 s.
    assert time.monotonic() - started < 15
    assert first.returncode == 0 and json.loads(first.stdout)["events"], first.stderr
    pid = _lingering(env)
    assert _alive(pid)
    found, printed = _ask(env, "search", "--json", "migration")
    assert found == lingering.ANSWERED
    assert printed == first.stdout
    again = _origin(env, "search", "--json", "migration")
    assert again.stdout == first.stdout and again.returncode == 0
    assert int(Path(env["ORIGIN_HOME"], lingering.PID_FILE).read_text()) == pid  # no second server


def test_a_peoples_search_is_answered_by_the_server_too(env: dict[str, str]) -> None:
    """`origin search` without --json, bare words and all, goes the same quick way."""
    first = _origin(env, "search", "rate", "limiter")
    assert first.returncode == 0 and "  session " in first.stdout, first.stderr
    _lingering(env)
    found, printed = _ask(env, "search", "rate", "limiter")
    assert found == lingering.ANSWERED and printed == first.stdout


def test_the_suite_finds_a_server_a_test_left(env: dict[str, str]) -> None:
    """The suite's own check (conftest: ended with the suite and named) sees such a server:
    started during the suite, by this installation, with the home it serves."""
    assert _origin(env, "search", "--json", "migration").returncode == 0
    pid = _lingering(env)
    found = {p: (home, started) for p, home, started in lingering_servers()}
    assert pid in found and found[pid][0] == env["ORIGIN_HOME"] and found[pid][1] >= STARTED


def test_an_idle_server_leaves_by_itself(env: dict[str, str]) -> None:
    env = {**env, "ORIGIN_CLI_LINGER_S": "1"}
    assert _origin(env, "search", "--json", "migration").returncode == 0
    pid = _lingering(env)
    home = Path(env["ORIGIN_HOME"])
    assert _wait(lambda: not _alive(pid))
    assert not (home / lingering.SOCKET).exists()
    assert not (home / lingering.PID_FILE).exists()
    assert _ask(env, "search", "--json", "migration")[0] == lingering.NOBODY


def test_sigterm_ends_it_cleanly(env: dict[str, str]) -> None:
    assert _origin(env, "search", "--json", "migration").returncode == 0
    pid = _lingering(env)
    os.kill(pid, signal.SIGTERM)
    assert _wait(lambda: not _alive(pid))
    assert not Path(env["ORIGIN_HOME"], lingering.SOCKET).exists()
    assert not Path(env["ORIGIN_HOME"], lingering.PID_FILE).exists()
    assert Path(env["ORIGIN_HOME"], lingering.LINGER_LOG).read_text() == ""  # nothing went wrong


def test_a_removed_socket_ends_it(env: dict[str, str]) -> None:
    """As when its home is deleted (`origin demo remove`) or another process took the socket."""
    assert _origin(env, "get", "--json", "nothing-with-this-id").returncode != 0
    assert not Path(env["ORIGIN_HOME"], lingering.PID_FILE).exists()  # an error started no server
    assert _origin(env, "search", "--json", "migration").returncode == 0
    pid = _lingering(env)
    Path(env["ORIGIN_HOME"], lingering.SOCKET).unlink()
    assert _wait(lambda: not _alive(pid))


def test_zero_starts_none(env: dict[str, str]) -> None:
    env = {**env, "ORIGIN_CLI_LINGER_S": "0"}
    assert _origin(env, "search", "--json", "migration").returncode == 0
    time.sleep(1)
    assert not Path(env["ORIGIN_HOME"], lingering.PID_FILE).exists()
    assert not Path(env["ORIGIN_HOME"], lingering.SOCKET).exists()


def test_a_running_origin_mcp_serves_once_the_lingering_server_left(env: dict[str, str]) -> None:
    env = {**env, "ORIGIN_CLI_LINGER_S": "1", "ORIGIN_WATCH_INTERVAL_MS": "200"}
    assert _origin(env, "search", "--json", "migration").returncode == 0
    pid = _lingering(env)
    mcp = subprocess.Popen(
        [ORIGIN, "mcp"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert _wait(lambda: not _alive(pid))
        # The mcp process takes the socket at its next watch tick.
        assert _wait(lambda: _ask(env, "search", "--json", "migration")[0] == lingering.ANSWERED)
        assert not Path(
            env["ORIGIN_HOME"], lingering.PID_FILE
        ).exists()  # it is no lingering server
    finally:
        assert mcp.stdin is not None
        mcp.stdin.close()
        mcp.wait(timeout=30)


@pytest.mark.parametrize(
    ("value", "seconds"), [(None, 600), ("", 600), ("0", 0), ("5", 5), ("-3", 0), ("soon", 0)]
)
def test_the_fresh_command_reads_the_setting_as_the_settings_do(
    value: str | None, seconds: int
) -> None:
    environ = {} if value is None else {"ORIGIN_CLI_LINGER_S": value}
    assert lingering.linger_seconds(environ) == seconds
    if value in (None, "", "0", "5"):
        assert Settings.from_env(environ).cli_linger_s == seconds


def test_a_change_to_origins_code_is_seen(tmp_path: Path) -> None:
    """An upgrade or an edit rewrites a loaded module's file: the server must stop answering
    with the code it loaded, and the next command starts one with the new code."""
    module = types.ModuleType("origin_api._stamp_probe")
    module.__file__ = str(tmp_path / "_stamp_probe.py")
    Path(module.__file__).write_text("")
    os.utime(module.__file__, ns=(1_000_000_000, 1_000_000_000))
    sys.modules[module.__name__] = module
    try:
        since = time.time_ns()
        assert not code_changed(since)
        os.utime(module.__file__, ns=(since + 1, since + 1))
        assert code_changed(since)
        Path(module.__file__).unlink()
        assert code_changed(since)
    finally:
        del sys.modules[module.__name__]


def test_origin_compact_sends_the_lingering_server_away_and_refuses_while_mcp_runs(
    env: dict[str, str],
) -> None:
    """`origin compact` needs the store to itself: the search server a fresh command left is
    Origin's own idle cache, asked to leave; an agent's `origin mcp` is not, and makes it
    refuse with what to do. The archive answers the same after compacting."""
    first = _origin(env, "search", "--json", "migration")
    assert first.returncode == 0, first.stderr
    pid = _lingering(env)
    with subprocess.Popen(
        [ORIGIN, "mcp"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as mcp:
        socket = Path(env["ORIGIN_HOME"], lingering.SOCKET)
        assert _wait(lambda: not _alive(pid) or socket.exists())
        time.sleep(1)  # its start-up pass holds the store open from here on
        refused = _origin(env, "compact")
        assert mcp.stdin is not None
        mcp.stdin.close()
        mcp.wait(timeout=60)
    assert refused.returncode == 2
    said = " ".join(refused.stderr.split())  # the console folds long lines
    assert "open in another process" in said and "`origin mcp`" in said
    first = _origin(env, "search", "--json", "migration")
    pid = _lingering(env)
    done = _origin(env, "compact", "--json")
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["events"] > 0 and said["converted"] is False
    assert 0 < said["store_bytes_after"] <= said["store_bytes_before"]
    assert not _alive(pid)
    again = _origin(env, "compact")  # as a person reads it
    assert again.returncode == 0 and f"{said['events']:,} events" in again.stdout, again.stderr
    again = _origin(env, "search", "--json", "migration")
    assert json.loads(again.stdout) == json.loads(first.stdout)
    _lingering(env)  # the server this search left, started by now: the fixture ends it
