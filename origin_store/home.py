"""Where ORIGIN_HOME is, without the settings machinery: a fresh command finds a running
process's socket there before importing anything else (origin_api/lingering/__init__.py)."""

from __future__ import annotations

import os
from collections.abc import Mapping

#: ORIGIN_HOME when it is not set (settings.TABLE names it with its doc).
HOME_DEFAULT = "~/.origin"


def home_of(environ: Mapping[str, str]) -> str:
    """ORIGIN_HOME (its default when unset or empty), `~` being HOME (the user's home when
    HOME is unset or empty), as settings read it."""
    home = environ.get("ORIGIN_HOME") or HOME_DEFAULT
    if home.startswith("~"):
        user = environ.get("HOME") or os.path.expanduser("~")
        home = home.replace("~", user, 1)
    return home
