"""`origin redact`: secrets masked in what is already stored."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Nothing yet: the redaction command registers here."""
    del app
