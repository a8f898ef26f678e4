"""A device's connection to its personal hub: where the hub is, whether this device is a relay,
and the token it authenticates with (docs/sync.md).

Kept in ORIGIN_HOME beside the store, not in it: a relay has no store at all. `hub.json` holds the
URL, the mode and the device's name (the token's name, which the hub checks against
`X-Origin-Device`); the token's secret is in `hub-client-token`, readable by this user alone, as
the hub's own token is (`register.TOKEN_FILE`). Both files are written whole under a temporary
name and renamed, so a reader sees the old connection or the new one, never half of one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from origin_store.system.durable import write_whole

from ..errors import OriginError

#: Under ORIGIN_HOME: the connection, and the secret it authenticates with.
CONNECTION_FILE = "hub.json"
CLIENT_TOKEN_FILE = "hub-client-token"
#: How long a connected device waits for its hub on a read (ORIGIN_HUB_TIMEOUT_MS's default).
DEFAULT_TIMEOUT_MS = 2000


@dataclass(frozen=True, slots=True)
class Connection:
    """This device's hub: its MCP URL (`…/mcp`), this device's name there, and whether every
    tool call is the hub's (a relay) or merged with this device's own answer."""

    url: str
    device: str
    relay: bool
    token: str

    @property
    def base(self) -> str:
        """The hub's address without its `/mcp` path, for the sync endpoints beside it."""
        return self.url[: -len("/mcp")] if self.url.endswith("/mcp") else self.url.rstrip("/")

    def headers(self) -> dict[str, str]:
        """What every request to the hub carries: the bearer token and this device's name."""
        return {"Authorization": f"Bearer {self.token}", "X-Origin-Device": self.device}


def load(home: Path) -> Connection | None:
    """The connection kept in `home`, or None when this device is not connected. A connection
    file that cannot be read is an error the user must hear of, not a silent disconnect."""
    path = home / CONNECTION_FILE
    try:
        data = orjson.loads(path.read_bytes())
        token = (home / CLIENT_TOKEN_FILE).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except (OSError, orjson.JSONDecodeError) as error:
        raise OriginError(f"Cannot read the hub connection in {path}: {error}") from error
    try:
        return Connection(str(data["url"]), str(data["device"]), bool(data["relay"]), token)
    except (KeyError, TypeError) as error:
        raise OriginError(
            f"The hub connection in {path} is damaged ({error}); run origin connect again."
        ) from error


def save(home: Path, connection: Connection) -> None:
    """Keep `connection` in `home`: the token readable by this user alone (mode 0600)."""
    home.mkdir(parents=True, exist_ok=True)
    write_whole(home / CLIENT_TOKEN_FILE, connection.token.encode() + b"\n", 0o600)
    doc = {"url": connection.url, "device": connection.device, "relay": connection.relay}
    write_whole(home / CONNECTION_FILE, orjson.dumps(doc, option=orjson.OPT_INDENT_2), 0o644)


def forget(home: Path) -> bool:
    """Disconnect: both files removed; whether there was a connection."""
    found = False
    for name in (CONNECTION_FILE, CLIENT_TOKEN_FILE):
        try:
            (home / name).unlink()
            found = True
        except FileNotFoundError:
            pass
    return found
