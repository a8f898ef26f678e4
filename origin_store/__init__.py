"""Origin's truth: the LMDB store, the raw mirrors and the ingest of agents' logs.

The public API is small: open a `Store` under `Settings.home`, run an `Ingester` over the
registered sources, read events and sessions back with `reader`.
"""

from .db import Store
from .errors import NotFound, SchemaMismatch, StoreError
from .ingest import Ingester, IngestReport, LogFile, discover
from .settings import Settings

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
