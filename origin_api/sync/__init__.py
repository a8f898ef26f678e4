"""The device side of a personal hub (docs/sync.md): the one client of its tools and sync
endpoints (`client`), and sync itself: batches from the change feed, push and pull, cursors in
the store's meta, and when to sync (`run`).

A tool call on a connected device needs the client alone: `run` and the store's sync code are
imported when one of their names is first asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .client import HubClient, SyncError

if TYPE_CHECKING:
    from .run import EVERY_S, SyncReport, cursors, sync_if_due, sync_now

_RUN = frozenset({"EVERY_S", "SyncReport", "cursors", "sync_if_due", "sync_now"})


def __getattr__(name: str) -> Any:
    if name in _RUN:
        from . import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["EVERY_S", "HubClient", "SyncError", "SyncReport", "cursors", "sync_if_due", "sync_now"]
