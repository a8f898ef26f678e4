"""Origin's truth: the LMDB store, the raw mirrors and the ingest of agents' logs.

The public API is small: open a `Store` under `Settings.home`, run an `Ingester` over the
registered sources, read events and sessions back with `reader`. The other layers take what else
they need from the folder of the feature that owns it, each folder's modules being its face:
`entries/` (entries, forgets, imported memories), `replication/` (sync batches and cursors,
tokens), `care/` (verify, compact, rescans, damaged records), `pause/` (the switch),
`redaction/` (what is masked), `activity/` (figures per day kept at ingest), `mirrors/`,
`system/`, `parsers/` (the registry), and the root's
`reader`, `marks`, `bounds`, `journal`. They never take the LMDB core (`core/`: `db`, `codec`,
`keys`, `lmdbio`, `migrate`, `storelock`) nor a module inside `ingest/`: which database holds
what, and under which key, is known here alone (tests/test_layers.py holds it).
"""

from typing import TYPE_CHECKING, Any

from .errors import NotFound, SchemaMismatch, StoreError

if TYPE_CHECKING:
    from .core.db import SCHEMA_VERSION, Store
    from .ingest import Ingester, IngestReport, LogFile, discover
    from .settings import Settings

#: Names loaded with their module on first use: a process that only reads (a fresh `origin
#: search` after another process's pass) never imports ingest or the parsers, and one that only
#: asks a running process (`origin_store.home`) imports neither LMDB nor the settings.
_LAZY = {
    "SCHEMA_VERSION": "core.db",
    "Store": "core.db",
    "Settings": "settings",
    "Ingester": "ingest",
    "IngestReport": "ingest",
    "LogFile": "ingest",
    "discover": "ingest",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{module}", __name__), name)


__all__ = [
    "SCHEMA_VERSION",
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
