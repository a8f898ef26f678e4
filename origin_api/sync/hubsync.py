"""When a device syncs with its hub, kept apart from the sync client so that a device that is not
connected (most) never imports it, and so that the freshness loop and the merged reads can both
ask for a sync without importing each other."""

from __future__ import annotations

import sys

from ..runtime import Origin


def sync_due(origin: Origin, *, force: bool = False, wait_s: float | None = None) -> None:
    """On a device connected to a hub, sync (docs/sync.md): when due, or at once with `force`,
    for at most the hub timeout or `wait_s`. A device that is not connected, or a relay, has
    nothing to sync and does not even import the sync client. A failure is one line on stderr
    (`origin status` keeps it too): the agent's work goes on."""
    connection = origin.connection
    if connection is None or connection.relay:
        return
    from . import sync_if_due

    report = sync_if_due(origin, force=force, wait_s=wait_s)
    if report is not None and report.error:
        print(f"origin: sync with {connection.url} failed: {report.error}", file=sys.stderr)
