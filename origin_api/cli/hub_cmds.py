"""`origin hub` (serve the tools over HTTP) and `origin token create|list|revoke` (who may call it)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import typer

from .. import admin
from .. import register as reg
from ..contract.timeargs import render
from ..runtime import Origin
from ..settings import Settings
from ..ui.password import has_password
from .output import console, edge, err_console, print_json, text


def _help() -> str:
    """The same registration commands as everywhere else (`register/`), for the hub."""
    url = reg.default_hub_url()
    shown = "\n\n".join(
        f"{reg.AGENT_LABEL[r.client]}:\n\n"
        + "\n".join("    " + line for line in r.shown.splitlines())
        for r in reg.registrations(reg.origin_executable(), hub_url=url)
        if r.transport == "http"
    )
    return f"""Serve Origin's tools over MCP Streamable HTTP (POST /mcp), for cloud agents and other
clients without local session logs. Binds 127.0.0.1 unless --host says otherwise.

Every request needs a token: the one `origin run` keeps (ORIGIN_HOME/hub-token), or one of
`origin token create <name>`. Register the hub with a client:

{shown}

/mcp/readonly (or the header x-mcp-readonly: true) serves only search, timeline, get and sources.
The hub also ingests this machine's own agent logs, at start and when they change.
Settings: ORIGIN_HUB_HOST, ORIGIN_HUB_PORT, ORIGIN_HUB_ALLOWED_HOSTS, ORIGIN_HUB_MAX_BODY,
ORIGIN_HUB_REQUEST_TIMEOUT_MS, ORIGIN_HUB_RATE_LIMIT (see docs/hub.md).
"""


HUB_HELP = _help()

token_app = typer.Typer(
    help="Tokens for the hub: create (shown once), list, revoke.", no_args_is_help=True
)


def register(app: typer.Typer) -> None:
    app.command(help=HUB_HELP)(hub)
    app.add_typer(token_app, name="token")


def _settings(home: Path | None) -> Settings:
    settings = Settings.from_env()
    if home is not None:
        environ = {**settings.environ, "ORIGIN_HOME": str(home)}
        settings = Settings.from_env(environ)
    return settings


def hub(
    host: str | None = typer.Option(
        None, "--host", help="Address to bind (default 127.0.0.1; 0.0.0.0 for every interface)."
    ),
    port: int | None = typer.Option(None, "--port", help="Port to listen on (default 8765)."),
    allowed_host: list[str] = typer.Option(
        [],
        "--allowed-host",
        help="A Host name clients use to reach the hub (repeatable; * for any).",
    ),
    home: Path | None = typer.Option(
        None, "--home", help="The Origin home to serve (default ORIGIN_HOME, ~/.origin)."
    ),
) -> None:
    settings = _settings(home)
    settings = dataclasses.replace(
        settings,
        hub_host=host or settings.hub_host,
        hub_port=port if port is not None else settings.hub_port,
        hub_allowed_hosts=(*settings.hub_allowed_hosts, *allowed_host),
    )
    from ..hub.auth import parse_rate
    from ..hub.server import bind, serve

    with edge():
        try:
            parse_rate(settings.hub_rate_limit)
        except ValueError as error:
            err_console.print(f"[red]error:[/red] {error}")
            raise typer.Exit(2) from None
        # The port before anything else: in use, it is one line, with no banner before it.
        sock = bind(settings.hub_host, settings.hub_port)
        try:
            origin = Origin.open(settings)
            _announce(origin, settings)
            if not serve(origin, settings, sock):
                origin.keep_open()
        finally:
            sock.close()
        origin.close()


def _announce(origin: Origin, settings: Settings) -> None:
    """Where the hub listens and how to register it: with the token `origin run` keeps when it
    is valid here, else a placeholder and how to make a token; then where the admin UI is and
    how to set its password."""
    url = reg.default_hub_url(settings.hub_host, settings.hub_port)
    console.print(f"Origin hub at [bold]{url}[/bold] (store {origin.home})")
    kept = admin.kept_token(origin, settings.home / admin.TOKEN_FILE)
    if kept is None and not any(t.active for t in admin.list_tokens(origin)):
        console.print("  No tokens yet: create one with [bold]origin token create <name>[/bold].")
    for line in reg.commands(hub_url=url, token=kept)["claude-code"][1:]:
        console.print(f"  Register it: {text(line)}", soft_wrap=True)
    password = (
        "[bold]origin ui password[/bold] changes its password"
        if has_password(origin.home)
        else "no admin password yet: set one with [bold]origin ui password[/bold]"
    )
    console.print(f"  Admin UI at [bold]{url.removesuffix('/mcp')}/ui/[/bold] ({password})")
    if settings.hub_host not in ("127.0.0.1", "localhost", "::1"):
        console.print(
            f"  [yellow]Listening beyond loopback on {settings.hub_host}[/yellow]: clients must use a host "
            "name given with --allowed-host, and should reach it through TLS."
        )


@token_app.command("create")
def token_create(
    name: str = typer.Argument(
        ..., help="The token's name: the device or agent it is for (1–64 of A-Z a-z 0-9 . _ -)."
    ),
    scope: str = typer.Option(
        "write", "--scope", help="read (search, timeline, get, sources) or write (every tool)."
    ),
    home: Path | None = typer.Option(None, "--home", help="The Origin home (default ORIGIN_HOME)."),
) -> None:
    """Create a token and print it once; only its hash is kept."""
    with edge(), Origin.open(_settings(home)) as origin:
        secret = admin.create_token(origin, name, scope)
    err_console.print(
        f"Created the {scope} token [bold]{name}[/bold]. It is shown only now; keep it somewhere safe."
    )
    typer.echo(secret)
    if sys.stderr.isatty():
        err_console.print(
            f"Use it as the header  Authorization: Bearer {secret[:8]}…  (entries it writes are signed "
            f"<agent>@{name})."
        )


@token_app.command("list")
def token_list(
    json: bool = typer.Option(False, "--json", help="Print the tokens as JSON."),
    home: Path | None = typer.Option(None, "--home", help="The Origin home (default ORIGIN_HOME)."),
) -> None:
    """Every token: name, scope, created, last used, revoked. Never the secrets."""
    with edge(), Origin.open(_settings(home)) as origin:
        found = admin.list_tokens(origin)
    if json:
        print_json([t.as_dict() for t in found])
        return
    if not found:
        console.print("No tokens. Create one with [bold]origin token create <name>[/bold].")
        return
    for token in found:
        state = (
            f"[red]revoked {_when(token.revoked)}[/red]"
            if token.revoked
            else "[green]active[/green]"
        )
        used = _when(token.last_used) if token.last_used else "never"
        console.print(
            f"[bold]{token.name:24}[/bold] {token.scope:5}  created {_when(token.created)}  "
            f"last used {used}  {state}"
        )


@token_app.command("revoke")
def token_revoke(
    name: str = typer.Argument(..., help="The token's name."),
    home: Path | None = typer.Option(None, "--home", help="The Origin home (default ORIGIN_HOME)."),
) -> None:
    """Refuse a token from now on (a running hub sees it at the next request)."""
    with edge(), Origin.open(_settings(home)) as origin:
        token = admin.revoke_token(origin, name)
    console.print(f"Revoked the token [bold]{token.name}[/bold].")


def _when(ms: int | None) -> str:
    if not ms:
        return "-"
    return render(ms) or "-"
