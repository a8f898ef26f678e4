"""One sync of a connected device with its hub: push what the hub lacks, then pull what the hub
has that this device lacks. Cursors live in the store's meta and move only once the other side
confirmed (push) or the pulled items are applied (pull, in the same transaction), so a sync cut
off anywhere is taken up again without losing or repeating anything."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from origin_store.replication import sync as store_sync
from origin_store.replication.sync import PULL_KINDS, BatchRefused, apply_items, usable_items
from origin_store.replication.wire import Item

from .batches import BATCH_BYTES, next_batch
from .client import HubClient, SyncError

if TYPE_CHECKING:
    from ..runtime import Origin

#: How often reads sync at most (the contract's Freshness section).
EVERY_S = 10.0
PULL_LIMIT = 500
#: Bytes a push batch is never made smaller than after the hub answered 413.
MIN_BATCH_BYTES = 8 * 1024

#: (items done, items to do): the progress of one sync.
Progress = Callable[[int, int], None]


@dataclass(slots=True)
class SyncReport:
    pushed: int = 0  # items sent
    pulled: int = 0  # items received
    applied: int = 0  # received items that changed this store
    refused: int = 0  # items one side cannot keep, passed over (either way)
    refusal: str | None = None  # why the first of them was
    complete: bool = True  # False when the deadline came first
    error: str | None = None
    seconds: float = 0.0

    def refuse(self, problems: list[str], where: str) -> None:
        """Count items passed over, keeping why the first was."""
        self.refused += len(problems)
        if problems and self.refusal is None:
            self.refusal = f"{where}: {problems[0]}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "pushed": self.pushed,
            "pulled": self.pulled,
            "applied": self.applied,
            "refused": self.refused,
            "refusal": self.refusal,
            "complete": self.complete,
            "error": self.error,
            "seconds": round(self.seconds, 3),
        }


def cursors(origin: Origin) -> dict[str, Any]:
    """This device's cursors and last sync, for `origin status`."""
    store = origin.store
    with store.read() as txn:
        pushed = store_sync.pushed_seq(store, txn)
        return {
            "pushed": pushed,
            "pulled": store_sync.pulled_seq(store, txn),
            "pending": max(0, store.feed_last(txn) - pushed),
            "last": store_sync.last_sync(store, txn),
        }


def sync_now(
    origin: Origin, *, deadline: float | None = None, progress: Progress | None = None
) -> SyncReport:
    """Push, then pull, until nothing is left or `deadline` (time.monotonic) passes; raises
    `SyncError` when the hub cannot be reached or refuses."""
    connection = origin.connection
    if connection is None or connection.relay:
        raise SyncError("this device is not connected to a hub with a store of its own to sync")
    started = time.monotonic()
    report = SyncReport()
    timeout = max(0.5, origin.settings.hub_timeout_ms / 1000)
    if deadline is None:
        timeout = max(timeout, 30.0)  # a sync a person asked for waits for a slow hub
    try:
        with _LOCK, HubClient(connection, timeout) as client:
            _push(origin, client, report, deadline, progress)
            if report.complete:
                _pull(origin, client, report, deadline)
    except SyncError as error:
        report.error = error.message
        _record(origin, report, started)
        raise
    _record(origin, report, started)
    return report


def sync_if_due(
    origin: Origin, *, wait_s: float | None = None, force: bool = False
) -> SyncReport | None:
    """Sync when connected and the last sync of any process is `EVERY_S` old (or with `force`:
    at start, after the watcher saw a log change, at exit), for at most the hub timeout (or
    `wait_s`); never raises: a failure is the report's `error`."""
    connection = origin.connection
    if connection is None or connection.relay:
        return None
    last = cursors(origin)["last"]
    if not force and isinstance(last, dict) and time.time() - last.get("time", 0) / 1000 < EVERY_S:
        return None
    budget = origin.settings.hub_timeout_ms / 1000 if wait_s is None else wait_s
    try:
        return sync_now(origin, deadline=time.monotonic() + budget)
    except SyncError as error:
        return SyncReport(complete=False, error=error.message)


_LOCK = threading.Lock()  # threads of one process sync one at a time


def _push(
    origin: Origin,
    client: HubClient,
    report: SyncReport,
    deadline: float | None,
    progress: Progress | None,
) -> None:
    """Batches go out in feed order, each acknowledged before the cursor moves; the next batch
    is read from the store while the hub applies the one before (the two take about as long)."""
    store = origin.store
    budget = BATCH_BYTES
    with store.read() as txn:
        start = store_sync.pushed_seq(store, txn)
        total = max(0, store.feed_last(txn) - start)
    build = partial(next_batch, store, origin.home)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="origin-sync-batch") as reader:
        ahead = reader.submit(build, start, max_bytes=budget)
        while True:
            batch = ahead.result()
            if batch.last == batch.after:
                return
            if deadline is not None and time.monotonic() > deadline:
                report.complete = False
                return
            ahead = reader.submit(build, batch.last, max_bytes=budget)
            try:
                for body in batch.bodies(budget):
                    answer = client.push(body)
                    acknowledged = answer.get("acknowledged")
                    if acknowledged != batch.last:
                        raise SyncError(f"the hub acknowledged {acknowledged!r}, not {batch.last}")
            except SyncError as error:
                ahead.cancel()
                if error.status == 413 and budget > MIN_BATCH_BYTES:
                    budget //= 2
                    ahead = reader.submit(build, batch.after, max_bytes=budget)
                    continue
                raise
            store.write(partial(store_sync.advance_pushed, store, seq=batch.last), durable=True)
            report.pushed += len(batch.items)
            report.refuse(batch.refused, "this device has items the hub cannot keep")
            if progress is not None:
                progress(batch.last - start, total)


def _pull(origin: Origin, client: HubClient, report: SyncReport, deadline: float | None) -> None:
    store = origin.store
    while True:
        if deadline is not None and time.monotonic() > deadline:
            report.complete = False
            return
        with store.read() as txn:
            after = store_sync.pulled_seq(store, txn)
        answer = client.pull(after, PULL_LIMIT)
        try:
            items, refused = usable_items(answer.get("items"), PULL_KINDS)
            after_next = answer.get("next")
            if type(after_next) is not int or after_next < after:
                raise BatchRefused("next must be a feed position at or after the one asked for.")
        except BatchRefused as error:
            raise SyncError(f"the hub sent a pull this device refuses: {error}") from None

        def work(txn: Any, items: list[Item] = items, upto: int = after_next) -> int:
            caught_up = store_sync.pushed_seq(store, txn) >= store.feed_last(txn)
            applied = apply_items(store, txn, items)
            store_sync.advance_pulled(store, txn, upto)
            if caught_up:  # what the pull added to the feed came from the hub: nothing to send
                store_sync.advance_pushed(store, txn, store.feed_last(txn))
            return applied

        report.applied += store.write(work, durable=True)
        report.pulled += len(items)
        report.refuse(refused, "the hub sent items this device cannot keep")
        if not answer.get("more"):
            return


def _record(origin: Origin, report: SyncReport, started: float) -> None:
    report.seconds = time.monotonic() - started
    record = {"time": int(time.time() * 1000), **report.as_dict()}
    origin.store.write(lambda txn: store_sync.note_sync(origin.store, txn, record))
