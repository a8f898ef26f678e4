"""`origin ui password` and `origin ui` on a device: the pages alone, on loopback."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner
from ui_support import PASSWORD, csrf_in

from origin_api.cli.commands import app
from origin_api.hub.app import create_ui_app
from origin_api.runtime import Origin
from origin_api.ui.password import PASSWORD_FILE, check_password


def _run(tmp_path: Path, *args: str, stdin: str | None = None):
    env = {"ORIGIN_HOME": str(tmp_path / "origin"), "HOME": str(tmp_path)}
    return CliRunner().invoke(app, list(args), env=env, input=stdin)


def test_ui_password_keeps_only_a_private_hash(tmp_path: Path):
    result = _run(tmp_path, "ui", "password", "--stdin", stdin="a sturdy password\n")
    assert result.exit_code == 0, result.output
    kept = tmp_path / "origin" / PASSWORD_FILE
    assert kept.stat().st_mode & 0o777 == 0o600
    assert "a sturdy password" not in kept.read_text()
    assert check_password(tmp_path / "origin", "a sturdy password")


def test_ui_password_refuses_a_short_one(tmp_path: Path):
    result = _run(tmp_path, "ui", "password", "--stdin", stdin="short\n")
    assert result.exit_code == 2 and "8 to 1024 characters" in result.output
    assert not (tmp_path / "origin" / PASSWORD_FILE).exists()


def test_ui_password_asks_twice(tmp_path: Path):
    result = _run(tmp_path, "ui", "password", stdin="first try here\nsecond try here\n" * 2)
    assert "do not match" in result.output.lower()


def test_a_port_in_use_is_one_line_naming_the_option(tmp_path: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _run(tmp_path, "ui", "--port", str(port))
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert f"Port {port} on 127.0.0.1 is already in use (another origin ui?)" in lines[0]
    assert "choose another with --port" in lines[0] and "ORIGIN_HUB" not in lines[0]
    assert not (tmp_path / "origin").exists()  # nothing opened before the port was taken


def test_the_device_app_serves_the_pages_and_nothing_else(ui_origin: Origin):
    from ui_support import Client

    with Client(create_ui_app(ui_origin, merged=False), base_url="http://127.0.0.1") as client:
        assert client.get("/", follow_redirects=False).headers["location"] == "/ui/"
        assert client.get("/mcp").status_code == 404
        assert client.get("/health").status_code == 404
        form = client.get("/ui/login")
        signed = client.post("/ui/login", data={"_csrf": csrf_in(form.text), "secret": PASSWORD})
        assert signed.status_code == 200 and "Signed in." in signed.text
        assert "<mark>" in client.get("/ui/search?q=release").text
        assert client.get("/ui/search", headers={"Host": "hub.lan"}).status_code == 421


def test_the_hubs_banner_names_the_admin_ui_and_its_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    from origin_api.cli.hub_cmds import _announce
    from origin_api.settings import Settings
    from origin_api.ui.password import set_password

    env = {
        "ORIGIN_HOME": str(tmp_path / "origin"),
        "HOME": str(tmp_path),
        "ORIGIN_HUB_PORT": "9123",
    }
    settings = Settings.from_env(env)
    with Origin.open(settings) as origin:
        _announce(origin, settings)
        before = capsys.readouterr().out
        set_password(origin.home, PASSWORD)
        _announce(origin, settings)
        after = capsys.readouterr().out
    assert "Origin hub at http://127.0.0.1:9123/mcp" in before  # the existing lines stay
    assert "Register it:" in before
    ui_line = "Admin UI at http://127.0.0.1:9123/ui/"
    assert ui_line in before and "no admin password yet: set one with origin ui password" in before
    assert ui_line in after and "origin ui password changes its password" in after


@pytest.mark.parametrize("demo", [False, True], ids=["archive", "demo"])
def test_origin_run_names_the_admin_ui_and_how_to_sign_in(tmp_path: Path, demo: bool):
    """`origin run` (and so `make run`) ends by serving the hub, whose admin UI is at /ui/: it
    says so, and that the token it printed signs in there (the login page takes it)."""
    from origin_api.cli.archive_cmds import admin_ui_line
    from origin_api.settings import Settings
    from origin_api.ui.password import set_password

    env = {"ORIGIN_HOME": str(tmp_path / "origin"), "HOME": str(tmp_path)}
    url = "http://127.0.0.1:9124/mcp"
    where = "Admin UI: http://127.0.0.1:9124/ui/ — sign in with the token above"
    with Origin.open(Settings.from_env(env)) as origin:
        before = admin_ui_line(origin, url, demo=demo)
        set_password(origin.home, PASSWORD)
        after = admin_ui_line(origin, url, demo=demo)
    # the demo's home is not ORIGIN_HOME, where `origin ui password` keeps a password
    assert before == (
        where if demo else f"{where} (or set an admin password: `origin ui password`)"
    )
    assert after == f"{where} or the admin password (`origin ui password` changes it)"
