"""Looking after one archive: ingest, index, verify, status, tokens and restore.

The seven tools are `service.call()`'s; everything else a front door does to the archive is
here, so the CLI only parses its arguments, calls these functions and renders what they return.
Like the tools, these take an open `Origin` and raise the layers' errors for the edges to show.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from origin_store import IngestReport, LogFile, discover
from origin_store import Settings as StoreSettings
from origin_store import entries as store_entries
from origin_store import tokens as store_tokens
from origin_store.errors import NotFound
from origin_store.ingest import total_pending_bytes
from origin_store.parsers.registry import SOURCES
from origin_store.reader import status as store_status
from origin_store.tokens import Token
from origin_store.verify import Report as VerifyReport
from origin_store.verify import verify as verify_store

from .errors import not_found
from .runtime import Origin

if TYPE_CHECKING:
    from origin_search.catchup import CatchUp

#: Told how many bytes were just ingested (a progress bar's step).
Progress = Callable[[int], None]
S = TypeVar("S", bound=StoreSettings)

__all__ = [
    "IngestPlan",
    "IngestReport",
    "Progress",
    "Token",
    "VerifyReport",
    "create_token",
    "find_logs",
    "index",
    "ingest",
    "list_tokens",
    "plan_ingest",
    "reindex",
    "replace_token",
    "restore",
    "revoke_token",
    "sample_settings",
    "samples_written",
    "status",
    "verify",
    "write_samples",
]


# -- ingest ----------------------------------------------------------------------------------


def find_logs(settings: StoreSettings) -> list[LogFile]:
    """Every agent log file on this machine, as these settings locate them."""
    return discover(SOURCES, settings)


@dataclass(frozen=True)
class IngestPlan:
    """What an ingest pass will read: the files and how many of their bytes are new."""

    files: list[LogFile]
    pending_bytes: int


def plan_ingest(origin: Origin) -> IngestPlan:
    files = origin.ingester.discover()
    return IngestPlan(files, total_pending_bytes(origin.store, files))


def ingest(
    origin: Origin, progress: Progress | None = None, *, plan: IngestPlan | None = None
) -> IngestReport:
    """One ingest pass of every log's new lines; a large backfill is shared by worker processes.
    Sessions it found in new directories lead to project memory files, read at once after."""
    files = (plan or plan_ingest(origin)).files
    report = origin.ingester.run(progress, files, workers=None)
    known = {log.path for log in files}
    later = [log for log in origin.ingester.discover() if log.path not in known]
    if later:
        report.merge(origin.ingester.run(progress, later))
    return report


def sample_settings(settings: S) -> tuple[S, Path]:
    """Settings under which the agents' logs are Origin's generated samples, and where they live."""
    target = settings.home / "samples"
    environ = {
        **settings.environ,
        "CLAUDE_CONFIG_DIR": str(target / "claude"),
        "CODEX_HOME": str(target / "codex"),
    }
    return type(settings).from_env(environ), target


def samples_written(target: Path) -> bool:
    return (target / "corpus.json").exists()


def write_samples(target: Path) -> None:
    from .samples import write_samples as write

    write(target)


# -- the index -------------------------------------------------------------------------------


def index(origin: Origin) -> CatchUp:
    """Bring the search index up to the store's change feed."""
    return origin.searcher.catch_up()


def reindex(origin: Origin) -> CatchUp:
    """Empty the search index and build it again from the store (the index is derived)."""
    return origin.searcher.rebuild()


# -- checks ----------------------------------------------------------------------------------


def status(origin: Origin) -> dict[str, Any]:
    """Counts per source and project, store and mirror sizes, skipped lines, the last ingest."""
    return store_status(origin.store, origin.home)


def verify(origin: Origin) -> VerifyReport:
    """Whether the store and the mirrors on disk agree (reads everything; repairs nothing)."""
    return verify_store(origin.store, origin.home)


# -- tokens ----------------------------------------------------------------------------------


def create_token(origin: Origin, name: str, scope: str = "write") -> str:
    """A new token's secret, shown once; only its digest is kept."""
    return store_tokens.create(origin.store, name, scope)


def list_tokens(origin: Origin) -> list[Token]:
    return store_tokens.list_tokens(origin.store)


def revoke_token(origin: Origin, name: str) -> Token:
    return store_tokens.revoke(origin.store, name)


def replace_token(origin: Origin, name: str, scope: str = "write") -> str:
    """A fresh secret under `name`, revoking the active token of that name first."""
    existing = store_tokens.get(origin.store, name)
    if existing is not None and existing.active:
        store_tokens.revoke(origin.store, name)
    return store_tokens.create(origin.store, name, scope)


# -- restore ---------------------------------------------------------------------------------


def restore(origin: Origin, tombstone: str) -> dict[str, Any]:
    """Undo a forget: what the tombstone hid becomes visible and citable again."""
    store = origin.store
    try:
        result: dict[str, Any] = store.write(
            lambda txn: store_entries.restore(store, txn, tombstone), durable=True
        )
    except NotFound:
        raise not_found(f"Unknown tombstone {tombstone}.") from None
    origin.searcher.catch_up()
    return result
