"""`origin ui`: the admin pages on loopback, on a device; `origin ui password`: who may sign in."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import typer

from ..errors import OriginError
from ..runtime import Origin, check_home
from ..settings import Settings
from .output import console, edge, err_console

UI_HELP = """Serve the admin UI (search, timeline, sessions, entries, forgets, tokens, status) on this
device, at http://127.0.0.1:8766/ui/ unless --host or --port say otherwise. A hub serves the
same pages at /ui/ itself.

Sign in with the admin password (set it with `origin ui password`) or with the token `origin run`
keeps in ORIGIN_HOME/hub-token. See docs/ui.md.
"""

ui_app = typer.Typer(help=UI_HELP, invoke_without_command=True, no_args_is_help=False)


def register(app: typer.Typer) -> None:
    app.add_typer(ui_app, name="ui")


def _settings(home: Path | None) -> Settings:
    settings = Settings.from_env()
    if home is not None:
        settings = Settings.from_env({**settings.environ, "ORIGIN_HOME": str(home)})
    return settings


@ui_app.callback()
def ui(
    ctx: typer.Context,
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to bind (loopback unless you say otherwise)."
    ),
    port: int = typer.Option(8766, "--port", help="Port to listen on."),
    home: Path | None = typer.Option(None, "--home", help="The Origin home (default ORIGIN_HOME)."),
) -> None:
    if ctx.invoked_subcommand is not None:
        return
    from ..hub.server import serve_ui
    from ..ui.password import has_password

    settings = _settings(home)
    with edge():
        sock = _bind(host, port)
        try:
            with Origin.open(settings) as origin:
                if origin.relay:
                    raise OriginError(
                        "This device is a relay and keeps no archive: open the hub's /ui/ instead."
                    )
                shown = f"[{host}]" if ":" in host else host
                console.print(f"Origin admin UI at [bold]http://{shown}:{port}/ui/[/bold]")
                if not has_password(origin.home):
                    console.print(
                        "  No admin password yet: set one with [bold]origin ui password[/bold]."
                    )
                if host not in ("127.0.0.1", "localhost", "::1"):
                    console.print(
                        f"  [yellow]Listening beyond loopback on {host}[/yellow]: put it behind "
                        "TLS, or the password travels in the clear."
                    )
                serve_ui(origin, sock)
        finally:
            sock.close()


def _bind(host: str, port: int) -> socket.socket:
    """The hub's bind, its refusal worded for this command (no hub settings apply here)."""
    from ..hub.server import bind

    try:
        return bind(host, port)
    except OriginError as error:
        message = (
            error.message.replace(" (another hub?)", " (another origin ui?)")
            .replace(" or ORIGIN_HUB_PORT", "")
            .replace(" (or ORIGIN_HUB_HOST)", "")
            .replace(" (or ORIGIN_HUB_PORT)", "")
            .replace("The hub cannot", "The admin UI cannot")
        )
        raise OriginError(message, error.category) from None


@ui_app.command("password")
def password(
    stdin: bool = typer.Option(
        False, "--stdin", help="Read the password from standard input (one line) instead."
    ),
    home: Path | None = typer.Option(None, "--home", help="The Origin home (default ORIGIN_HOME)."),
) -> None:
    """Set the admin password of the UI (kept as an scrypt hash, mode 0600, in the home)."""
    from ..ui.password import PASSWORD_FILE, set_password

    target = _settings(home).home
    with edge():
        check_home(target)  # an unusable home is said before the password is asked for
    if stdin:
        secret = sys.stdin.readline().rstrip("\r\n")
    else:
        secret = typer.prompt("New admin password", hide_input=True, confirmation_prompt=True)
    with edge():
        path = set_password(target, secret)
    err_console.print(f"The admin password is set (its hash is in {path.parent / PASSWORD_FILE}).")
