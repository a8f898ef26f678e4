"""`origin ui`: the admin pages on loopback, on a device."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Nothing yet: the admin UI's command registers here."""
    del app
