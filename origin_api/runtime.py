"""Opening Origin once per process: settings, the store, the search index and the ingester.

Front doors (CLI, MCP, hub) build one `Origin` and close it explicitly; everything they call
takes it. Storage is opened once here and nowhere else.
"""

from __future__ import annotations

import errno
import math
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import lmdb

from origin_store import Store, marks
from origin_store.errors import HomeUnusable
from origin_store.settings import Settings as StoreSettings

from .errors import OriginError
from .footprint import Footprint
from .settings import DEMO_MARK, Settings
from .sync import connection as hub_connection

if TYPE_CHECKING:
    from origin_search import Searcher, SearchIndex
    from origin_store.ingest import Ingester, IngestReport, Progress

#: Under the home: what the last freshness pass saw, for the next one in any process.
SWEEP_FILE = "sweep"
#: Less free space than this under the home and Origin does not start: the store writes through
#: a memory map, and a disk that fills under it stops the process with a signal, not an error
#: anyone could show.
MIN_FREE_BYTES = 16 << 20


class Origin:
    def __init__(self, settings: StoreSettings, *, existing: bool = False) -> None:
        """Given only the store's settings, the front doors' are read from the same environment.
        `existing`: a read, which opens an archive that is there and creates none (`NoArchive`)."""
        self.settings: Settings = Settings.of(settings)
        self.home: Path = self.settings.home
        if existing:
            require_archive(self.home)
        check_home(self.home)
        #: This device's hub (hub.json), or None: a relay opens no store at all.
        self.connection = hub_connection.load(self.home)
        #: Keeps the mapped store and index pages under budget (checked after each tool call).
        self.footprint = Footprint(
            max(0, self.settings.mapped_budget_mb) << 20, self._release_pages
        )
        self._store: Store | None = None
        if not self.relay:
            with store_errors(self.home):
                self._store = Store.open(self.home, map_size=self.settings.map_size)
        self._ingester: Ingester | None = None
        self._searcher: Searcher | None = None
        self._index_lock = threading.Lock()
        self._ingest_lock = threading.Lock()
        #: When this process last ended a pass (`time.monotonic()`); minus infinity for never,
        #: since the monotonic clock counts from the machine's start and may be only seconds in.
        self.last_ingest = -math.inf
        #: Set once the start-up pass of a long-running process (`Freshness`) is done; None in
        #: a process that runs none (a CLI command).
        self.started: threading.Event | None = None
        self._kept_open = False

    @classmethod
    def open(cls, settings: StoreSettings | None = None, *, existing: bool = False) -> Origin:
        """Origin over `settings` (the environment's by default). A command that only reads
        passes `existing`: a mistyped ORIGIN_HOME is then named, not made into an empty archive."""
        return cls(settings or Settings.from_env(), existing=existing)

    @property
    def relay(self) -> bool:
        """Whether every tool call is the hub's: then this device keeps no archive."""
        return self.connection is not None and self.connection.relay

    @property
    def store(self) -> Store:
        if self._store is None:
            from .sync.client import relay_has_no_store

            assert self.connection is not None
            raise OriginError(relay_has_no_store(self.connection))
        return self._store

    def _release_pages(self) -> None:
        """The footprint's release. The store unmaps its own pages (`Store.release_pages`). The
        index's maps are tantivy's, so they are released by letting go of the index: a search
        in progress keeps the one it has, tantivy unmaps the old one's files when its last user
        is done, and the index is opened again here (a few ms) rather than by the next search."""
        if self._store is None:
            return
        self._store.release_pages()
        with self._index_lock:
            held = self._searcher
            if held is None:
                return
            self._searcher = None
        del held
        _ = self.searcher  # opened again now, off the answer's path

    def keep_open(self) -> None:
        """Makes `close` leave the store open: a front door's background ingest outran its stop,
        and closing the store under it would fail it mid-write. The process's exit ends both,
        and LMDB keeps only what committed."""
        self._kept_open = True

    def close(self) -> None:
        if self._kept_open:
            return
        self.footprint.wait()  # a release under way would open the index again
        self._searcher = None  # tantivy releases its files when the index object goes
        if self._store is not None:
            self._store.close()

    def __enter__(self) -> Origin:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def ingester(self) -> Ingester:
        """The ingester over the registered parsers, made on first use: a search whose pass
        another process ran a moment ago never imports the ingest machinery or the parsers
        (a fresh `origin search` is mostly start-up)."""
        if self._ingester is None:
            from origin_store.ingest import Ingester
            from origin_store.parsers.registry import with_recorded

            # The agents' logs and the journals of sources recorded here by the `ingest` tool
            # (a line its writer died before reading is read by the next pass).
            self._ingester = Ingester(self.store, self.settings, with_recorded(self.home))
        return self._ingester

    @property
    def searcher(self) -> Searcher:
        """Search over the store and its index, opened on first use (a pure store command never
        pays for it)."""
        if self._searcher is None:
            with self._index_lock:
                if self._searcher is None:
                    from origin_search import open_searcher

                    self._searcher = open_searcher(
                        self.store, self.home / "index", announce=_announce_indexing
                    )
        return self._searcher

    @property
    def index(self) -> SearchIndex:
        """The search index (of :attr:`searcher`), for rebuilds and catch-up reports."""
        return self.searcher.index

    def wait_for_start(self, timeout: float) -> None:
        """Wait (at most `timeout` seconds) for this process's start-up pass, if it runs one (a
        long-running front door's `Freshness`); return at once otherwise."""
        if self.started is not None:
            self.started.wait(timeout)

    def ingest(
        self,
        progress: Progress | None = None,
        *,
        timeout: float | None = None,
        full: bool = True,
        every: bool = False,
    ) -> IngestReport | None:
        """One ingest pass; threads of one process share a single pass at a time.

        With a `timeout`, gives up (returns None) when another thread's pass is still running
        after that many seconds: a search then answers from what is stored so far instead of
        waiting for a whole first backfill. A `full` pass reads every log's cursor; one that is
        not checks the logs whose stat moved since it was last seen equal to their cursor:
        `every` log, or the new and recently written ones and a turn of the others (see
        `Sweep`). The first pass after the machine started is full whatever is asked: the
        sweep file and the store's newest commits may not have outlived a crash of the system
        together."""
        if not self._ingest_lock.acquire(timeout=-1 if timeout is None else timeout):
            return None
        try:
            report = self._pass(progress, full, every)
            self.last_ingest = time.monotonic()
            return report
        finally:
            self._ingest_lock.release()

    def _pass(self, progress: Progress | None, full: bool, every: bool) -> IngestReport:
        from origin_store.ingest import IngestReport, Sweep

        sources = self.ingester.sources
        last = self._last_pass()
        boot = boot_id()
        # A store with no pass recorded (new, or recreated beside an old sweep file), or none
        # since the machine started, trusts nothing the sweep file remembers: every log is
        # checked against the store's cursors.
        full = full or last is None or last.get("boot") != boot
        sweep = Sweep.load(self.home / SWEEP_FILE)
        found = sweep.discover(sources, self.settings, self.ingester.cwds())
        turn = last.get("turn", 0) if last is not None else 0
        chosen, turn = sweep.pick(
            found, 1 if full or every else self.rounds, turn if isinstance(turn, int) else 0
        )
        changed = sweep.check(self.store, sources, chosen, trust=not full)
        if changed:
            report = self.ingester.run(progress, changed)
            report.files += len(found) - len(changed)
        else:  # nothing to read, nothing to make durable
            report = IngestReport(files=len(found))
        sweep.save()
        record = {
            "time": int(time.time() * 1000),
            "files": len(found),
            "checked": len(chosen),
            "changed": report.files_changed,
            "turn": turn,
            "boot": boot,
        }
        self.store.write(lambda txn: marks.note_pass(self.store, txn, record))
        return report

    def changed(self) -> bool:
        """Whether any log differs from its cursor (the watcher's check): a stat per directory
        and per log, the store read only for the logs whose stat moved since last seen equal
        to their cursor."""
        from origin_store.ingest import Sweep

        sources = self.ingester.sources
        sweep = Sweep.load(self.home / SWEEP_FILE)
        found = sweep.discover(sources, self.settings, self.ingester.cwds())
        changed = sweep.check(self.store, sources, found)
        sweep.save()
        return bool(changed)

    @property
    def rounds(self) -> int:
        """In how many passes that are not full every cold log takes its turn: as many as fit
        in the watcher's interval (1, every log every pass, when either interval is 0)."""
        watch, search = self.settings.watch_interval_ms, self.settings.search_ingest_interval_ms
        return max(1, -(-watch // search)) if watch > 0 and search > 0 else 1

    def _last_pass(self) -> dict[str, Any] | None:
        """The store's record of the last pass of any process: when it ended (ms), how many logs
        it found, checked and found changed, and the turn of cold logs the next one checks."""
        with self.store.read() as txn:
            return marks.last_pass(self.store, txn)

    def last_pass_age(self) -> float | None:
        """Seconds since the last pass of any process ended (None when none is recorded)."""
        record = self._last_pass()
        stamp = record.get("time") if record is not None else None
        return time.time() - stamp / 1000 if isinstance(stamp, int) else None


#: This boot of the machine (Linux); None where the system does not say.
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


def _announce_indexing(behind: int) -> None:
    """A line on stderr before a long catch-up (a new or rebuilt index, a large backfill):
    without it a fresh `origin search` would wait a minute or more without a word. For
    `origin mcp` and the hub it goes to their logs."""
    sys.stderr.write(f"Origin: indexing {behind:,} archived items for search first…\n")
    sys.stderr.flush()


def boot_id() -> str | None:
    try:
        return BOOT_ID.read_text().strip() or None
    except OSError:
        return None


#: Under the home: the store's data file, which only an archive has.
STORE_FILE = Path("store", "data.mdb")


def has_archive(home: Path) -> bool:
    return (home / STORE_FILE).is_file()


def require_archive(home: Path) -> None:
    """For a read: an archive at `home`, or an error saying there is none, having created
    nothing. A home Origin could not use is left to `check_home` to name, which cannot create
    anything there either; a home connected to a hub is Origin's even with nothing of its own
    yet (the hub answers)."""
    if has_archive(home) or unusable(home) is not None:
        return
    if home.is_dir() and hub_connection.load(home) is not None:
        return
    demo = home / "demo"  # admin.DEMO_DIR, where `origin run` keeps the demo apart
    shown = (
        f"; the demo `origin run` shows is {demo} (ORIGIN_HOME={demo} reads it)"
        if (demo / DEMO_MARK).is_file()
        else " (ORIGIN_HOME chooses where it is)"
    )
    raise OriginError(
        f"No archive at {home}: `origin ingest` or `origin run` makes one{shown}.", "not_found"
    )


def unusable(home: Path) -> HomeUnusable | None:
    """Why a home that does not hold an archive yet could not, judged without creating it: the
    first part of its path that exists must be a directory this user may write."""
    there = next((p for p in (home, *home.parents) if os.path.lexists(p)), None)
    if there is None:
        return None
    if not there.is_dir():
        return HomeUnusable(str(home), f"{there} is a file, not a directory")
    if not os.access(there, os.W_OK | os.X_OK):
        return HomeUnusable(
            str(home), "permission denied" + (f" ({there})" if there != home else "")
        )
    return None


def check_home(home: Path, *, min_free: int = MIN_FREE_BYTES) -> None:
    """Make the home if needed and prove it writable, with room to write, before the store maps
    its file there; raises `HomeUnusable` saying why not. One small file made and removed: what a
    process that only reads pays, instead of a traceback from wherever its first write falls."""
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise home_unusable(home, error) from error
    probe = home / f".origin-write-check-{os.getpid()}-{threading.get_ident()}"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        os.unlink(probe)
        stat = os.statvfs(home) if hasattr(os, "statvfs") else None
    except OSError as error:
        error.filename = None  # the home itself is what cannot be written, not the probe's name
        raise home_unusable(home, error) from error
    free = stat.f_bavail * stat.f_frsize if stat is not None else min_free
    if free < min_free:
        raise HomeUnusable(
            str(home),
            f"the disk holding it is full ({free // 1024:,} KB free, {min_free >> 20} MB needed)",
        )


#: What a person reads for an OS error under the home, by errno.
_REASONS = {
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "it is on a read-only file system",
    errno.ENOSPC: "the disk holding it is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EFBIG: "a file there reached the size this process may write",
}
#: OS errors that say the home is unusable (rather than a bug, or a file vanishing meanwhile).
HOME_ERRNOS = frozenset({*_REASONS, errno.EEXIST, errno.ENOTDIR})


@contextmanager
def store_errors(home: Path) -> Iterator[None]:
    """What opening the store under `home` raised, in a person's words: the home's problem
    (`home_unusable`), or a store that cannot be opened (its files unwritable, or not a store
    at all), as `HomeUnusable`."""
    try:
        yield
    except OSError as error:
        raise home_unusable(home, error) from error
    except lmdb.Error as error:
        raise HomeUnusable(str(home), f"its store cannot be opened ({error})") from error


def home_unusable(home: Path, error: OSError) -> HomeUnusable:
    """The home's problem in a person's words: which file is in the way, or what the system said."""
    where = Path(error.filename) if isinstance(error.filename, str) else None
    if error.errno in (errno.EEXIST, errno.ENOTDIR) and where is not None:
        blocker = next(
            (p for p in (where, *where.parents) if os.path.lexists(p) and not p.is_dir()), where
        )
        return HomeUnusable(str(home), f"{blocker} is a file, not a directory")
    reason = _REASONS.get(error.errno or 0) or error.strerror or str(error)
    if where is not None and where != home:
        reason += f" ({where})"
    return HomeUnusable(str(home), reason)
