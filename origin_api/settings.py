"""The settings of Origin's front doors, added to the store's: how often logs are read again,
and the hub's address and limits.

`TABLE` is the one table of every environment setting Origin reads, the store's first; the docs
list each of them (a test holds the two together).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from origin_store import settings as store_settings
from origin_store.settings import Setting, read, whole

OWN: tuple[Setting, ...] = (
    Setting(
        "ORIGIN_WATCH_INTERVAL_MS",
        "60000",
        "How often `origin mcp` and the hub look for changed logs; 0 turns it off.",
    ),
    Setting(
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS",
        "10000",
        "Least time between the ingests that search and timeline start.",
    ),
    Setting(
        "ORIGIN_CLI_LINGER_S",
        "600",
        "How long a search server started by a fresh `origin search` or `origin get` stays "
        "to answer the next ones, in idle seconds; 0 starts none.",
    ),
    Setting(
        "ORIGIN_MAPPED_BUDGET_MB",
        "400",
        "The file-backed RSS, in MiB, past which a long-running process releases its mapped "
        "store and index pages (they stay cached); 0 for no limit.",
    ),
    Setting(
        "ORIGIN_HUB_HOST",
        "127.0.0.1",
        "The address `origin hub` binds; loopback unless told otherwise.",
    ),
    Setting("ORIGIN_HUB_PORT", "8765", "The port `origin hub` listens on."),
    Setting(
        "ORIGIN_HUB_ALLOWED_HOSTS",
        "",
        "More Host names the hub answers to, comma-separated (loopback always; * for any).",
    ),
    Setting(
        "ORIGIN_HUB_MAX_BODY",
        "1048576",
        "The largest request body the hub reads, in bytes; larger gets 413.",
    ),
    Setting(
        "ORIGIN_HUB_REQUEST_TIMEOUT_MS",
        "30000",
        "How long one hub request may take before it is cut off.",
    ),
    Setting(
        "ORIGIN_HUB_TIMEOUT_MS",
        "2000",
        "How long a connected device waits for its hub on a read before answering alone.",
    ),
    Setting(
        "ORIGIN_HUB_RATE_LIMIT",
        "",
        "Tool calls per token, as N/s, N/min or N/h (N alone: per minute); empty is off.",
    ),
    Setting(
        "ORIGIN_HUB_TRUSTED_PROXIES",
        "",
        "Addresses of reverse proxies whose X-Forwarded-For and -Proto are believed, "
        "comma-separated (* for any); empty believes none.",
    ),
)
TABLE: tuple[Setting, ...] = (*store_settings.TABLE, *OWN)

#: In a demo archive's home: what says it is the demo, and where its sample logs are.
DEMO_MARK = "demo.json"
DEMO_SAMPLES = "samples"


def demo_environ(environ: Mapping[str, str], home: Path) -> dict[str, str]:
    """The environment of the demo archive at `home`: its samples as every agent's logs, laid
    out as a user's home directory, and none of the real agents' directories or variables, so
    nothing real gets in. Origin's own settings (the hub's port, the device name) stay."""
    samples = home / DEMO_SAMPLES
    own = {k: v for k, v in environ.items() if k.startswith("ORIGIN_")}
    return {
        **own,
        "ORIGIN_HOME": str(home),
        "HOME": str(samples),
        "CLAUDE_CONFIG_DIR": str(samples / "claude"),
        "CODEX_HOME": str(samples / "codex"),
    }


@dataclass(frozen=True, slots=True)
class Settings(store_settings.Settings):
    watch_interval_ms: int
    search_ingest_interval_ms: int
    cli_linger_s: int
    mapped_budget_mb: int
    hub_host: str
    hub_port: int
    hub_allowed_hosts: tuple[str, ...]
    hub_max_body: int
    hub_request_timeout_ms: int
    hub_rate_limit: str
    hub_timeout_ms: int
    hub_trusted_proxies: tuple[str, ...]

    @staticmethod
    def fields(environ: dict[str, str]) -> dict[str, Any]:
        values = read(OWN, environ)
        base = store_settings.Settings.fields(environ)
        home: Path = base["home"]
        if (home / DEMO_MARK).is_file() and environ.get("HOME") != str(home / DEMO_SAMPLES):
            # ORIGIN_HOME names a demo archive: its samples are every agent's logs, so that
            # browsing it from the shell never pulls a real log into it.
            environ = demo_environ(environ, home)
            base = store_settings.Settings.fields(environ)
        return {
            **base,
            "watch_interval_ms": whole(values, "ORIGIN_WATCH_INTERVAL_MS"),
            "search_ingest_interval_ms": whole(values, "ORIGIN_SEARCH_INGEST_INTERVAL_MS"),
            "cli_linger_s": whole(values, "ORIGIN_CLI_LINGER_S"),
            "mapped_budget_mb": whole(values, "ORIGIN_MAPPED_BUDGET_MB"),
            "hub_host": values["ORIGIN_HUB_HOST"],
            "hub_port": whole(values, "ORIGIN_HUB_PORT"),
            "hub_allowed_hosts": tuple(
                h.strip() for h in values["ORIGIN_HUB_ALLOWED_HOSTS"].split(",") if h.strip()
            ),
            "hub_max_body": whole(values, "ORIGIN_HUB_MAX_BODY"),
            "hub_request_timeout_ms": whole(values, "ORIGIN_HUB_REQUEST_TIMEOUT_MS"),
            "hub_rate_limit": values["ORIGIN_HUB_RATE_LIMIT"].strip(),
            "hub_timeout_ms": whole(values, "ORIGIN_HUB_TIMEOUT_MS"),
            "hub_trusted_proxies": tuple(
                h.strip() for h in values["ORIGIN_HUB_TRUSTED_PROXIES"].split(",") if h.strip()
            ),
        }

    @classmethod
    def of(cls, settings: store_settings.Settings) -> Settings:
        """These settings for a store's: read from the same environment, unless they already are."""
        return settings if isinstance(settings, cls) else cls.from_env(settings.environ)
