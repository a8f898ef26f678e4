"""An ORIGIN_HOME Origin cannot use is one line and exit code 2, from every command.

Each command runs through `origin_api.cli.main`, the console script's own entry, so the lean
paths (`origin mcp`, `origin search --json`, `origin get`) and typer's commands meet the same
edges a person's shell does. Permission problems run as a real process of a user who lacks the
permission (root passes every permission check, so it runs them through `setpriv` as nobody).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import typer
from helpers import fixture_env

from origin_api.cli import main
from origin_api.cli.commands import app
from origin_api.runtime import check_home
from origin_store.errors import HomeUnusable

ORIGIN = str(Path(sys.executable).with_name("origin"))
#: Commands that never open the archive: they have nothing to say about the home (`demo remove`
#: deletes a folder where there is one, and says there is none otherwise).
NOT_THE_ARCHIVE = {("register",), ("demo", "remove")}
#: Commands that report on the home rather than refuse it (`origin doctor` lists what is wrong).
DIAGNOSE = {("doctor",)}
#: Options that keep a command from reaching anything but the home (no hub left serving, no
#: port already taken deciding the answer); `origin redact` alone lists the patterns, its
#: --rescan is what reaches the archive.
OPTIONS = {("run",): ["--no-hub"], ("hub",): ["--port", "0"], ("redact",): ["--rescan"]}


def _commands() -> Iterator[tuple[tuple[str, ...], list[str]]]:
    """Every command of the CLI (sub-commands included), with a value for what it requires."""

    def walk(group: typer.core.TyperGroup, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        for name, command in group.commands.items():
            if isinstance(command, typer.core.TyperGroup):
                yield from walk(command, (*path, name))
            else:
                yield (*path, name)

    root = typer.main.get_command(app)
    assert isinstance(root, typer.core.TyperGroup)
    for path in walk(root, ()):
        command = root
        for name in path:
            command = command.commands[name]  # type: ignore[attr-defined]
        required = [param for param in command.params if param.required]
        options = [
            word for p in required if p.param_type_name == "option" for word in (p.opts[0], "x")
        ]
        arguments = ["x" for p in required if p.param_type_name == "argument"]
        yield path, [*path, *OPTIONS.get(path, []), *options, *arguments]


COMMANDS = [
    pytest.param(argv, id=" ".join(path))
    for path, argv in _commands()
    if path not in NOT_THE_ARCHIVE | DIAGNOSE
]
#: The lean paths, which answer without typer when they can.
LEAN = [
    pytest.param(["mcp"], id="mcp (lean)"),
    pytest.param(["search", "anything", "--json"], id="search --json (lean)"),
    pytest.param(["get", "claude-code:x"], id="get (lean)"),
]


def _file_in_the_way(tmp: Path) -> tuple[Path, Path]:
    (tmp / "origin").write_text("not a directory\n")
    return tmp / "origin", tmp / "origin"


def _below_a_file(tmp: Path) -> tuple[Path, Path]:
    (tmp / "data").write_text("not a directory\n")
    return tmp / "data" / "origin", tmp / "data"


def _part_of_it_a_file(tmp: Path) -> tuple[Path, Path]:
    """A home whose store opens but one of its folders is a file: found at the first write."""
    (tmp / "origin").mkdir()
    (tmp / "origin" / "locks").write_text("not a directory\n")
    return tmp / "origin", tmp / "origin" / "locks"


HOMES: dict[str, Callable[[Path], tuple[Path, Path]]] = {
    "a file in the way": _file_in_the_way,
    "a home below a file": _below_a_file,
}


def _run(argv: list[str], env: dict[str, str], monkeypatch, capsys) -> tuple[int, str, str]:
    for name in (
        "ORIGIN_HOME",
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "GROK_HOME",
        "ZCODE_STORAGE_DIR",
    ):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdin", open(os.devnull))  # noqa: SIM115 - closed by the test's end
    with pytest.raises(SystemExit) as exited:
        main(argv)
    sys.stdin.close()
    out, err = capsys.readouterr()
    return int(exited.value.code or 0), out, err


def _one_line(err: str, home: Path, reason: str) -> None:
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0] == (
        f"error: Cannot use ORIGIN_HOME {home}: {reason}. Set ORIGIN_HOME to a writable directory."
    ), lines[0]


@pytest.mark.parametrize("argv", COMMANDS + LEAN)
@pytest.mark.parametrize("case", list(HOMES))
def test_every_command_refuses_an_unusable_home_in_one_line(
    argv: list[str], case: str, tmp_path: Path, monkeypatch, capsys
):
    home, blocker = HOMES[case](tmp_path)
    env = {**fixture_env(tmp_path), "ORIGIN_HOME": str(home), "ORIGIN_HUB_PORT": "0"}
    code, out, err = _run(argv, env, monkeypatch, capsys)
    assert code == 2, (out, err)
    _one_line(err, home, f"{blocker} is a file, not a directory")
    if argv[0] == "mcp":
        assert out == "", out  # the agent's protocol channel: nothing but JSON-RPC, ever


def test_a_home_found_unusable_after_it_opened_is_one_line_too(tmp_path: Path, monkeypatch, capsys):
    home, blocker = _part_of_it_a_file(tmp_path)
    env = {**fixture_env(tmp_path), "ORIGIN_HOME": str(home)}
    code, _, err = _run(["ingest"], env, monkeypatch, capsys)
    assert code == 2
    _one_line(err, home, f"{blocker} is a file, not a directory")


def test_a_full_disk_is_named_before_anything_is_written(tmp_path: Path):
    usage = shutil.disk_usage(tmp_path)
    with pytest.raises(HomeUnusable) as refused:
        check_home(tmp_path / "origin", min_free=usage.total + 1)
    assert refused.value.home == str(tmp_path / "origin")
    assert refused.value.reason.startswith("the disk holding it is full (")
    check_home(tmp_path / "origin")  # the same disk with the room Origin asks for: fine


def _as_someone_else() -> list[str] | None:
    """The prefix that runs a command without root's privileges, or None when none is at hand."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] if setpriv else None


@pytest.fixture
def read_only_dir() -> Iterator[Path]:
    """A directory nobody but root may write, in a place any user can reach."""
    top = Path(tempfile.mkdtemp(prefix="origin-ro-"))
    top.chmod(0o755)
    locked = top / "read-only"
    locked.mkdir()
    locked.chmod(
        stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH
    )
    try:
        yield locked
    finally:
        locked.chmod(0o755)
        shutil.rmtree(top)


@pytest.mark.e2e
@pytest.mark.skipif(_as_someone_else() is None, reason="runs as root without setpriv")
@pytest.mark.parametrize("argv", [["status"], ["mcp"], ["mcp", "--sdk"], ["search", "x"]])
@pytest.mark.parametrize("inside", [False, True], ids=["the home itself", "a new home in it"])
def test_permission_denied_is_one_line_and_exit_2(argv: list[str], inside: bool, read_only_dir):
    home = read_only_dir / "origin" if inside else read_only_dir
    prefix = _as_someone_else()
    assert prefix is not None
    done = subprocess.run(
        [*prefix, ORIGIN, *argv],
        env={"ORIGIN_HOME": str(home), "HOME": str(read_only_dir), "PATH": os.defpath},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done
    assert done.stdout == ""
    _one_line(done.stderr, home, "permission denied")
