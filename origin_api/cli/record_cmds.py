"""`origin pause` and `origin resume`: recording stops for a while (ephemeral mode)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Nothing yet: pause and resume register here."""
    del app
