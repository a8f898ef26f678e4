"""Looking after one archive: ingest, index, verify, status, tokens, restore, and the demo.

The seven tools are `service.call()`'s; everything else a front door does to the archive is
here, so the CLI only parses its arguments, calls these functions and renders what they return.
Like the tools, these take an open `Origin` and raise the layers' errors for the edges to show.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import orjson

from origin_store import IngestReport, LogFile, discover
from origin_store import Settings as StoreSettings
from origin_store.activity import Activity, Figures, day_label
from origin_store.activity import activity as store_activity
from origin_store.care import damage
from origin_store.care.compact import Compacted
from origin_store.care.compact import compact as compact_store
from origin_store.care.verify import Report as VerifyReport
from origin_store.care.verify import verify as verify_store
from origin_store.entries import versions as store_entries
from origin_store.errors import NotFound
from origin_store.ingest import total_pending_bytes
from origin_store.parsers.registry import with_recorded
from origin_store.replication import tokens as store_tokens
from origin_store.replication.tokens import Token
from origin_store.system.durable import write_whole

from . import register
from .errors import OriginError, not_found
from .runtime import Origin, check_home, store_errors
from .service.shapes import RestoreResult
from .settings import DEMO_MARK, DEMO_SAMPLES, demo_environ

if TYPE_CHECKING:
    from origin_search.catchup import CatchUp

    from .doctor.archive import Status

#: Told how many bytes were just ingested (a progress bar's step).
Progress = Callable[[int], None]
S = TypeVar("S", bound=StoreSettings)

__all__ = [
    "ACTIVITY_MAX_DAYS",
    "DEMO_DIR",
    "DEMO_MARK",
    "LOCAL_TOKEN",
    "TOKEN_FILE",
    "Activity",
    "Demo",
    "Figures",
    "HubToken",
    "IngestPlan",
    "IngestReport",
    "Progress",
    "Token",
    "VerifyReport",
    "activity",
    "create_token",
    "day_label",
    "demo_of",
    "find_logs",
    "hub_token",
    "kept_token",
    "index",
    "ingest",
    "list_tokens",
    "plan_ingest",
    "reindex",
    "remove_demo",
    "restore",
    "revoke_token",
    "status",
    "verify",
    "write_demo",
]


# -- ingest ----------------------------------------------------------------------------------


def find_logs(settings: StoreSettings) -> list[LogFile]:
    """Every agent log file on this machine, as these settings locate them, and the journals
    of the sources recorded under its home."""
    return discover(with_recorded(settings.home), settings)


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


# -- the demo --------------------------------------------------------------------------------

#: Under ORIGIN_HOME: the demo archive, an Origin home of its own (store, index, mirrors) whose
#: only agent logs are generated samples, so they never mix with a person's own archive.
DEMO_DIR = "demo"


@dataclass(frozen=True)
class Demo:
    """The demo archive that belongs to an archive: where it is, and its sample logs, laid out
    as a user's home directory (Claude Code's under `claude`, Codex's under `codex`)."""

    home: Path
    samples: Path

    @property
    def exists(self) -> bool:
        return (self.home / DEMO_MARK).is_file()

    @property
    def written(self) -> bool:
        """Whether the samples are complete (the generator writes its info file last)."""
        from .samples import INFO_FILE

        return (self.samples / INFO_FILE).is_file()

    def settings(self, settings: S) -> S:
        """`settings` with the demo as the archive and its samples as every agent's logs: the
        real agent directories and their variables are left out, so nothing real gets in.
        Origin's own settings (the hub's port, the device name) stay as they were."""
        return type(settings).from_env(demo_environ(settings.environ, self.home))


def demo_of(settings: StoreSettings) -> Demo:
    home = settings.home / DEMO_DIR
    return Demo(home, home / DEMO_SAMPLES)


def write_demo(demo: Demo) -> None:
    """Mark the demo's home, then generate its samples (a few seconds; an interrupted run is
    finished by the next one, and `remove_demo` can delete it meanwhile)."""
    from .samples.demo import write_demo_samples

    demo.home.mkdir(parents=True, exist_ok=True)
    mark = {
        "what": "Origin's demo archive: generated sample logs, kept apart from your own archive",
        "samples": demo.samples.name,
        "remove": "origin demo remove",
    }
    (demo.home / DEMO_MARK).write_bytes(orjson.dumps(mark, option=orjson.OPT_INDENT_2))
    write_demo_samples(demo.samples)


def remove_demo(demo: Demo) -> int | None:
    """Delete the demo archive; the bytes it took, or None when there is none. A folder without
    the demo's mark is left alone (it is not Origin's to delete)."""
    from origin_store.reader import disk_usage

    if not demo.home.exists():
        return None
    if not demo.exists:
        raise OriginError(
            f"{demo.home} is not Origin's demo archive (no {DEMO_MARK} in it); left as it is."
        )
    size = disk_usage(demo.home)
    shutil.rmtree(demo.home)
    return size


def legacy_samples(settings: StoreSettings) -> Path | None:
    """Samples an earlier `origin run` generated inside the archive itself (and ingested into
    it), from before the demo had a home of its own."""
    from .samples import INFO_FILE

    old = settings.home / "samples"
    return old if (old / INFO_FILE).is_file() else None


# -- the index -------------------------------------------------------------------------------


def index(origin: Origin) -> CatchUp:
    """Bring the search index up to the store's change feed."""
    return origin.searcher.catch_up()


def reindex(origin: Origin) -> CatchUp:
    """Empty the search index and build it again from the store (the index is derived)."""
    return origin.searcher.rebuild()


# -- checks ----------------------------------------------------------------------------------


def status(origin: Origin) -> Status:
    """Counts per source and project, store and mirror sizes, skipped lines, the last ingest;
    its totals are the sums of its per-source lines, forgotten events counted apart."""
    from .doctor.archive import status as visible

    return visible(origin)


#: The longest window of days `activity` shows (ten years).
ACTIVITY_MAX_DAYS = 3650


def activity(
    origin: Origin, days: int, *, source: str | None = None, project: str | None = None
) -> Activity:
    """Events, sessions and tokens per day of the last `days` days, the busiest projects and
    sessions: the figures the store keeps at ingest (`origin_store.activity`), never a scan
    of events. A source or project that has no figures is named with those that have."""
    if not 1 <= days <= ACTIVITY_MAX_DAYS:
        raise OriginError(f"days must be between 1 and {ACTIVITY_MAX_DAYS:,}; got {days}.")
    found = store_activity(origin.store, days, source=source or None, project=project or None)
    if source and source not in found.sources:
        known = ", ".join(found.sources) or "none yet"
        raise OriginError(f"No source {source!r} has activity; those that have: {known}.")
    if project and not found.totals.events:
        names = [name for name, _ in store_activity(origin.store, days).projects if name]
        busiest = ", ".join(names) or "none"
        raise OriginError(
            f"No activity in a project {project!r} in the last {days:,} days; the busiest "
            f"projects then: {busiest}."
        )
    return found


def verify(origin: Origin) -> VerifyReport:
    """Whether the store and the mirrors on disk agree (reads everything; repairs nothing). A
    run that finds every record readable clears the note of damaged records readers left
    (`origin_store.care.damage`)."""
    report = verify_store(origin.store, origin.home)
    if not report.damaged:
        damage.clear(origin.store)
    return report


def compact(settings: StoreSettings) -> Compacted:
    """The store rewritten into a file of its own size, an older layout of events converted
    (`origin_store.care.compact`). Not over an open `Origin`: it needs the store to itself, so the
    search server a fresh command left behind is asked to leave first; any other process
    holding the store makes it refuse (StoreBusy)."""
    from .lingering import stop_lingering

    check_home(settings.home)
    stop_lingering(settings.home)
    with store_errors(settings.home):
        return compact_store(settings.home, map_size=settings.map_size)


# -- tokens ----------------------------------------------------------------------------------


def create_token(origin: Origin, name: str, scope: str = "write") -> str:
    """A new token's secret, shown once; only its digest is kept."""
    return store_tokens.create(origin.store, name, scope)


def list_tokens(origin: Origin) -> list[Token]:
    return store_tokens.list_tokens(origin.store)


def revoke_token(origin: Origin, name: str) -> Token:
    return store_tokens.revoke(origin.store, name)


#: The token `origin run` keeps for the clients of this machine's hub, under this name.
LOCAL_TOKEN = "local"
#: Under ORIGIN_HOME: that token's secret, readable by this user alone (mode 0600), so the hub
#: can print a registration command that keeps working from one run to the next.
TOKEN_FILE = register.TOKEN_FILE


@dataclass(frozen=True)
class HubToken:
    """The hub's token for this machine's clients: its secret, and why it is new, if it is."""

    secret: str
    new: str = ""  # "" when kept from an earlier run


def kept_token(origin: Origin, path: Path) -> str | None:
    """The secret kept in `path` (its user's alone), made the active `local` token of this
    store (a new store's, the demo's), or None when none is kept or it was revoked here."""
    kept = _read_secret(path)
    if kept is not None and store_tokens.keep(origin.store, LOCAL_TOKEN, kept):
        return kept
    return None


def hub_token(origin: Origin, path: Path) -> HubToken:
    """`kept_token`, or a new token kept in `path` when there is none or it was revoked
    (`origin token revoke local`): the only times `origin run` makes one."""
    kept = kept_token(origin, path)
    if kept is not None:
        return HubToken(kept)
    why = "the kept one was revoked" if _read_secret(path) else "none was kept yet"
    secret = store_tokens.new_secret()
    _write_secret(path, secret)
    store_tokens.keep(origin.store, LOCAL_TOKEN, secret)
    return HubToken(secret, why)


def _read_secret(path: Path) -> str | None:
    try:
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, 0o600)  # copied or restored with looser rights: this user's again
        found = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return found if found.startswith(store_tokens.PREFIX) else None


def _write_secret(path: Path, secret: str) -> None:
    """Written whole or not at all, created 0600 (never readable by others, not even briefly)."""
    try:
        write_whole(path, secret.encode() + b"\n")
    except OSError as error:
        raise OriginError(f"Cannot keep the hub's token in {path}: {error.strerror}.") from None


# -- restore ---------------------------------------------------------------------------------


def restore(origin: Origin, tombstone: str) -> RestoreResult:
    """Undo a forget: what the tombstone hid becomes visible and citable again."""
    store = origin.store
    try:
        result = store.write(lambda txn: store_entries.restore(store, txn, tombstone), durable=True)
    except NotFound:
        raise not_found(f"Unknown tombstone {tombstone}.") from None
    origin.searcher.catch_up()
    return result
