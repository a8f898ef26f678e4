"""Reading the agents' logs as they grow, for long-running front doors (`origin mcp`, the hub):
once at start in the background, then whenever a log file changed (checked every watch
interval; 0 turns the watching off), and on demand.

At start, a search's pass comes first (the new and recently written logs, and a turn of the
others), then a pass over every log, then the hub sync: searches wait for the first only. Both
trust the stat each log had when it was last seen equal to its cursor; a full pass reads every
log's cursor, 1.4 s and a gigabyte of mapped store pages at 10M events, which every agent
session's `origin mcp` would pay at its start and at every watcher tick that saw a change. A
store without a recorded pass, or none since the machine started, still gets a full one."""

from __future__ import annotations

import sys
import threading
import time
import traceback

from .lingering.server import CliServer
from .runtime import Origin
from .service import refresh
from .service.common import ingest_journals
from .sync.hubsync import sync_due


def ingest_now(origin: Origin) -> None:
    """Ingest and index new lines; background work reports its failures and carries on."""
    try:
        refresh(origin, force=True)
    except Exception:
        traceback.print_exc(file=sys.stderr)


def ingest_and_sync(origin: Origin, wait_s: float | None = None) -> None:
    """What a device does at start, when a log changed and when the agent exits: new lines into
    the archive, then what changed to the hub and back."""
    ingest_now(origin)
    sync_due(origin, force=True, wait_s=wait_s)


def start_up(origin: Origin) -> None:
    """A new front door's first pass, as a search's (see the module's doc); reports failures."""
    try:
        if origin.ingest(full=False) is not None:
            ingest_journals(origin)
        origin.searcher.catch_up()
    except Exception:
        traceback.print_exc(file=sys.stderr)


class Freshness:
    def __init__(self, origin: Origin, interval_s: float, name: str = "origin-ingest") -> None:
        self.origin = origin
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        # A running process also answers fresh `origin search` and `origin get` commands.
        self._cli = CliServer(origin)

    def start(self) -> None:
        # Searches made while the start-up pass runs wait for it (at most a few seconds).
        self.origin.started = threading.Event()
        self._thread.start()
        self._cli.start()

    def stop(self, wait_s: float = 5.0) -> None:
        """Stops watching and serving commands, then waits up to `wait_s` for both to end."""
        deadline = time.monotonic() + wait_s
        self._stop.set()
        self._cli.stop(wait_s)
        if self._thread.is_alive():
            self._thread.join(max(0.0, deadline - time.monotonic()))

    @property
    def busy(self) -> bool:
        """Still ingesting or answering after `stop`: the store must not be closed under it."""
        return self._thread.is_alive() or self._cli.busy

    def _run(self) -> None:
        try:
            start_up(self.origin)
        finally:
            if self.origin.started is not None:
                self.origin.started.set()
        ingest_and_sync(self.origin)  # every log, then the hub: no search waits for them
        # A backfill maps what it wrote: an idle server should not hold it until a tool call.
        self.origin.footprint.check()
        if self.interval_s <= 0:
            return
        while not self._stop.wait(self.interval_s):
            if not self._cli.serving and not self._stop.is_set():
                self._cli.start()  # a search server that lingered has gone: serve from here
            try:
                changed = self.origin.changed()
            except Exception:
                traceback.print_exc(file=sys.stderr)
                continue
            if changed and not self._stop.is_set():  # stopping: the exit's ingest reads it
                ingest_and_sync(self.origin)
                self.origin.footprint.check()
