"""Project names: the last component of a cwd's git root, or of the cwd itself outside git."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import PurePath, PurePosixPath, PureWindowsPath


@lru_cache(maxsize=4096)
def project_of(cwd: str | None) -> str | None:
    if not cwd:
        return None
    path: PurePath
    if PureWindowsPath(cwd).drive and not os.path.isabs(cwd):
        # Written by a Windows machine (`C:\\x`, `C:/x`, `\\\\server\\share\\x`) and read on
        # a POSIX one: no git root is looked for, which would resolve it against this
        # process's working directory.
        path = PureWindowsPath(cwd)
    else:
        root = git_root(cwd) or cwd
        path = PureWindowsPath(root) if PureWindowsPath(root).drive else PurePosixPath(root)
    name = path.name
    return name or str(path) or None


def git_root(cwd: str) -> str | None:
    """The nearest directory at or above `cwd` holding `.git`, as the agents look for it; logs
    from other machines simply have none here."""
    try:
        current = os.path.abspath(cwd)
        for _ in range(64):
            if os.path.exists(os.path.join(current, ".git")):
                return current
            parent = os.path.dirname(current)
            if parent == current:
                return None
            current = parent
    except (OSError, ValueError):
        return None
    return None
