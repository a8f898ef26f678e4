"""The store's settings from the environment: where Origin keeps its data, and how big a map.

Each setting is declared once, in `TABLE`, with its default and meaning; the layers above add
theirs to it (`origin_api.settings.TABLE` is the whole list, which the docs list). Everything
else takes a `Settings` value; nothing reads `os.environ` on its own, so tests and front doors
can build settings explicitly.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from .errors import BadSetting
from .home import HOME_DEFAULT, home_of


@dataclass(frozen=True, slots=True)
class Setting:
    env: str
    default: str
    doc: str


TABLE: tuple[Setting, ...] = (
    Setting("ORIGIN_HOME", HOME_DEFAULT, "Where the store, the mirrors and the index live."),
    Setting(
        "ORIGIN_MAP_SIZE", "1073741824", "Initial LMDB map size in bytes; it doubles when full."
    ),
    Setting("ORIGIN_DEVICE", "", "This device's name in entry authors; the host name when empty."),
)


def whole(values: Mapping[str, str], name: str) -> int:
    """The setting `name` of `values` (from :func:`read`) as a whole number, or `BadSetting`
    naming it: a typo in the environment is one line a person can act on, not a traceback."""
    value = values[name]
    try:
        return int(value)
    except ValueError:
        raise BadSetting(f"{name} must be a whole number, not {value!r}.") from None


def read(table: tuple[Setting, ...], environ: Mapping[str, str]) -> dict[str, str]:
    """Every setting of `table` by name: its value in `environ`, or its default when unset or empty."""
    return {setting.env: environ.get(setting.env) or setting.default for setting in table}


@dataclass(frozen=True, slots=True)
class Settings:
    home: Path
    map_size: int
    user_home: Path  # where agents' own logs are looked for (their defaults live under it)
    environ: Mapping[str, str]
    device: str  # in the authors of entries, imported ones included: `<agent>@<device>`

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Self:
        return cls(**cls.fields(dict(os.environ if environ is None else environ)))

    @staticmethod
    def fields(environ: dict[str, str]) -> dict[str, Any]:
        """This class's fields read from `environ`; a subclass adds its own to them."""
        values = read(TABLE, environ)
        user_home = Path(environ.get("HOME") or Path.home())
        return {
            "home": Path(home_of(environ)),
            "map_size": whole(values, "ORIGIN_MAP_SIZE"),
            "user_home": user_home,
            "environ": environ,
            "device": values["ORIGIN_DEVICE"] or _host_name().split(".")[0] or "device",
        }


def _host_name() -> str:
    """The host name, as socket.gethostname() gives it, without importing socket (a few ms
    of every process start, and a fresh `origin mcp` answers within a budget)."""
    try:
        return os.uname().nodename
    except AttributeError:  # Windows has no uname
        import socket

        return socket.gethostname()
