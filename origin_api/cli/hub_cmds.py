"""`origin hub` (serve the tools over HTTP) and `origin token create|list|revoke` (who may call it)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import typer

from .. import admin
from ..runtime import Origin
from ..settings import Settings
from ..timeargs import render
from .output import console, edge, err_console, print_json

HUB_HELP = """Serve Origin's tools over MCP Streamable HTTP (POST /mcp), for cloud agents and other
clients without local session logs. Binds 127.0.0.1 unless --host says otherwise.

Every request needs a token (`origin token create <name>`). Register the hub with an agent:

    claude mcp add --scope user --transport http origin http://127.0.0.1:8765/mcp \\
      --header "Authorization: Bearer ogn_…" --header "X-Origin-Client: claude-code"

/mcp/readonly (or the header x-mcp-readonly: true) serves only search, timeline, get and sources.
The hub also ingests this machine's own agent logs, at start and when they change.
Settings: ORIGIN_HUB_HOST, ORIGIN_HUB_PORT, ORIGIN_HUB_ALLOWED_HOSTS, ORIGIN_HUB_MAX_BODY,
ORIGIN_HUB_REQUEST_TIMEOUT_MS, ORIGIN_HUB_RATE_LIMIT (see docs/hub.md).
"""

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
    from ..hub import serve
    from ..hub.auth import parse_rate

    with edge():
        try:
            parse_rate(settings.hub_rate_limit)
        except ValueError as error:
            err_console.print(f"[red]error:[/red] {error}")
            raise typer.Exit(2) from None
        origin = Origin.open(settings)
        active = [t for t in admin.list_tokens(origin) if t.active]
        shown = f"[{settings.hub_host}]" if ":" in settings.hub_host else settings.hub_host
        console.print(
            f"Origin hub at [bold]http://{shown}:{settings.hub_port}/mcp[/bold] (store {origin.home})"
        )
        if not active:
            console.print(
                "  No tokens yet: create one with [bold]origin token create <name>[/bold]."
            )
        console.print(
            f"  Register it: claude mcp add --scope user --transport http "
            f"origin http://{shown}:{settings.hub_port}/mcp "
            '--header "Authorization: Bearer ogn_…" --header "X-Origin-Client: claude-code"',
            soft_wrap=True,
        )
        if settings.hub_host not in ("127.0.0.1", "localhost", "::1"):
            console.print(
                f"  [yellow]Listening beyond loopback on {settings.hub_host}[/yellow]: clients must use a host "
                "name given with --allowed-host, and should reach it through TLS."
            )
        closed = serve(origin, settings, host=settings.hub_host, port=settings.hub_port)
        if closed:
            origin.close()


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
