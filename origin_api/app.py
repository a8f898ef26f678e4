"""Opening Origin once per process: settings, the store, the search index and the ingester.

Front doors (CLI, MCP, hub) build one `Origin` and close it explicitly; everything they call
takes it. Storage is opened once here and nowhere else.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from origin_store import Ingester, Store
from origin_store import Settings as StoreSettings
from origin_store.parsers.registry import SOURCES

from .settings import Settings

if TYPE_CHECKING:
    from origin_search import SearchIndex


class Origin:
    def __init__(self, settings: StoreSettings) -> None:
        """Given only the store's settings, the front doors' are read from the same environment."""
        self.settings: Settings = Settings.of(settings)
        self.home: Path = self.settings.home
        self.home.mkdir(parents=True, exist_ok=True)
        self.store = Store.open(self.home, map_size=self.settings.map_size)
        self.ingester = Ingester(self.store, self.settings, SOURCES)
        self._index: SearchIndex | None = None
        self._index_lock = threading.Lock()
        self._ingest_lock = threading.Lock()
        self.last_ingest = 0.0

    @classmethod
    def open(cls, settings: StoreSettings | None = None) -> Origin:
        return cls(settings or Settings.from_env())

    def close(self) -> None:
        self._index = None  # tantivy releases its files when the index object goes
        self.store.close()

    def __enter__(self) -> Origin:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def index(self) -> SearchIndex:
        """The search index, opened on first use (a pure store command never pays for it)."""
        if self._index is None:
            with self._index_lock:
                if self._index is None:
                    from origin_search import SearchIndex, catchup

                    index = SearchIndex.open(self.home / "index")
                    index.ids_by_seq = catchup.ids_by_seq(self.store)
                    self._index = index
        return self._index

    def ingest(self, progress=None, *, timeout: float | None = None):  # noqa: ANN001, ANN201
        """One ingest pass; threads of one process share a single pass at a time.

        With a `timeout`, gives up (returns None) when another thread's pass is still running
        after that many seconds: a search then answers from what is stored so far instead of
        waiting for a whole first backfill.
        """
        if not self._ingest_lock.acquire(timeout=-1 if timeout is None else timeout):
            return None
        try:
            report = self.ingester.run(progress)
            self.last_ingest = time.monotonic()
            return report
        finally:
            self._ingest_lock.release()
