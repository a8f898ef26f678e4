"""One table of every setting Origin reads from the environment, with its default and meaning.

Everything else takes a `Settings` value; nothing reads `os.environ` on its own, so tests and
front doors can build settings explicitly.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Setting:
    env: str
    default: str
    doc: str


TABLE: tuple[Setting, ...] = (
    Setting("ORIGIN_HOME", "~/.origin", "Where the store, the mirrors and the index live."),
    Setting("ORIGIN_DEVICE", "", "This device's name in entry authors; the host name when empty."),
    Setting("ORIGIN_MAP_SIZE", "1073741824", "Initial LMDB map size in bytes; it doubles when full."),
    Setting("ORIGIN_WATCH_INTERVAL_MS", "60000", "How often `origin mcp` looks for changed logs; 0 turns it off."),
    Setting("ORIGIN_SEARCH_INGEST_INTERVAL_MS", "10000", "Least time between the ingests that search and timeline start."),
    Setting("ORIGIN_HUB_TIMEOUT_MS", "2000", "How long a device waits for its hub."),
    Setting("ORIGIN_HUB_HOST", "127.0.0.1", "The address `origin hub` binds; loopback unless told otherwise."),
    Setting("ORIGIN_HUB_PORT", "8765", "The port `origin hub` listens on."),
    Setting("ORIGIN_HUB_ALLOWED_HOSTS", "", "More Host names the hub answers to, comma-separated (loopback always; * for any)."),
    Setting("ORIGIN_HUB_MAX_BODY", "1048576", "The largest request body the hub reads, in bytes; larger gets 413."),
    Setting("ORIGIN_HUB_REQUEST_TIMEOUT_MS", "30000", "How long one hub request may take before it is cut off."),
    Setting("ORIGIN_HUB_RATE_LIMIT", "", "Tool calls per token, as N/s, N/min or N/h (N alone: per minute); empty is off."),
)


@dataclass(frozen=True, slots=True)
class Settings:
    home: Path
    device: str
    map_size: int
    watch_interval_ms: int
    search_ingest_interval_ms: int
    hub_timeout_ms: int
    user_home: Path  # where agents' own logs are looked for (their defaults live under it)
    environ: Mapping[str, str]
    hub_host: str = "127.0.0.1"
    hub_port: int = 8765
    hub_allowed_hosts: tuple[str, ...] = ()
    hub_max_body: int = 1 << 20
    hub_request_timeout_ms: int = 30_000
    hub_rate_limit: str = ""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = dict(os.environ if environ is None else environ)

        def get(name: str) -> str:
            for setting in TABLE:
                if setting.env == name:
                    return env.get(name) or setting.default
            raise KeyError(name)

        user_home = Path(env.get("HOME") or Path.home())
        home_text = get("ORIGIN_HOME")
        home = Path(home_text.replace("~", str(user_home), 1) if home_text.startswith("~") else home_text)
        return cls(
            home=home,
            device=get("ORIGIN_DEVICE") or _host_name().split(".")[0] or "device",
            map_size=int(get("ORIGIN_MAP_SIZE")),
            watch_interval_ms=int(get("ORIGIN_WATCH_INTERVAL_MS")),
            search_ingest_interval_ms=int(get("ORIGIN_SEARCH_INGEST_INTERVAL_MS")),
            hub_timeout_ms=int(get("ORIGIN_HUB_TIMEOUT_MS")),
            user_home=user_home,
            environ=env,
            hub_host=get("ORIGIN_HUB_HOST"),
            hub_port=int(get("ORIGIN_HUB_PORT")),
            hub_allowed_hosts=tuple(h.strip() for h in get("ORIGIN_HUB_ALLOWED_HOSTS").split(",") if h.strip()),
            hub_max_body=int(get("ORIGIN_HUB_MAX_BODY")),
            hub_request_timeout_ms=int(get("ORIGIN_HUB_REQUEST_TIMEOUT_MS")),
            hub_rate_limit=get("ORIGIN_HUB_RATE_LIMIT").strip(),
        )


def _host_name() -> str:
    """The host name, as socket.gethostname() gives it, without importing socket (a few ms
    of every process start, and a fresh `origin mcp` answers within a budget)."""
    try:
        return os.uname().nodename
    except AttributeError:  # Windows has no uname
        import socket

        return socket.gethostname()
