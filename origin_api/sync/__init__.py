"""The device side of sync with a personal hub (docs/sync.md): batches from the change feed,
push and pull over HTTP, cursors in the store's meta, and when to sync."""

from __future__ import annotations

from .client import HubClient, SyncError
from .run import EVERY_S, SyncReport, cursors, sync_if_due, sync_now

__all__ = ["EVERY_S", "HubClient", "SyncError", "SyncReport", "cursors", "sync_if_due", "sync_now"]
