"""Origin's truth: the LMDB store, the raw mirrors and the ingest of agents' logs.

The public API is small: open a `Store` under `Settings.home`, run an `Ingester` over the
registered sources, read events and sessions back with `reader`.
"""

from typing import TYPE_CHECKING, Any

from .db import Store
from .errors import NotFound, SchemaMismatch, StoreError
from .settings import Settings

if TYPE_CHECKING:
    from .ingest import Ingester, IngestReport, LogFile, discover

_INGEST = frozenset({"Ingester", "IngestReport", "LogFile", "discover"})


def __getattr__(name: str) -> Any:
    """The ingest names load with the ingest package on first use: a process that only reads
    (a fresh `origin search` after another process's pass) never imports it or the parsers."""
    if name in _INGEST:
        from . import ingest

        return getattr(ingest, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "IngestReport",
    "Ingester",
    "LogFile",
    "NotFound",
    "SchemaMismatch",
    "Settings",
    "Store",
    "StoreError",
    "discover",
]
