"""What the status page adds to `admin.status`: unparsed lines by file, and the syncs.

`admin.status` counts the lines that could not be parsed by reason; a person fixing them wants
the file too, which the problems' keys give (a mirror id, then the line). Sync state is the
device's cursors (`sync.cursors`, as `origin status` shows them) when it is connected to a hub,
and on a hub the record each device's last push left (`sync.device.<name>`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from origin_store import reader
from origin_store.replication import sync as store_sync

from ...contract.timeargs import render
from ...runtime import Origin

#: The most (file, reason) rows the page lists; the rest are counted together.
MAX_PROBLEM_ROWS = 200


@dataclass(frozen=True)
class ProblemRow:
    file: str  # the agent's log file (its path where it was read)
    source: str
    reason: str
    count: int
    first_line: int  # the first such line, in the mirror (= the original's line)
    detail: str  # that line's detail


def problems_by_file(origin: Origin) -> tuple[list[ProblemRow], int]:
    """Unparsed lines by file and reason, most first; and how many rows were left out."""
    store = origin.store
    rows: dict[tuple[int, str], list[Any]] = {}
    with store.read() as txn:
        for mirror, line, problem in reader.problems(store, txn):
            group = (mirror, str(problem.get("reason", "")))
            found = rows.get(group)
            if found is None:
                rows[group] = [1, line, str(problem.get("detail", ""))]
            else:
                found[0] += 1
        mirrors: dict[int, Any] = {
            mirror: reader.mirror_info(store, txn, mirror) or {} for mirror, _ in rows
        }
    out = [
        ProblemRow(
            file=str(mirrors[mirror].get("original_file") or f"(mirror {mirror:08x})"),
            source=str(mirrors[mirror].get("source") or ""),
            reason=reason,
            count=count,
            first_line=line,
            detail=detail,
        )
        for (mirror, reason), (count, line, detail) in rows.items()
    ]
    out.sort(key=lambda row: (-row.count, row.file, row.reason))
    return out[:MAX_PROBLEM_ROWS], max(0, len(out) - MAX_PROBLEM_ROWS)


def device_sync(origin: Origin) -> dict[str, Any] | None:
    """This device's hub, its last sync and the changes waiting to be pushed; None when it is
    not connected (a hub, or a device on its own)."""
    connection = origin.connection
    if connection is None or connection.relay:
        return None
    from ...sync import cursors

    state = cursors(origin)
    last = state.get("last") or {}
    return {
        "url": connection.base,
        "device": connection.device,
        "pending": state["pending"],
        "last_time": render(last.get("time")) if isinstance(last, dict) else None,
        "last_error": last.get("error") if isinstance(last, dict) else None,
    }


def hub_devices(origin: Origin) -> list[dict[str, Any]]:
    """On a hub, each device that pushed: its name, when it last did, and how far (its feed
    sequence); newest first."""
    store = origin.store
    found: list[tuple[int, str, Any]] = []
    with store.read() as txn:
        for name, record in store_sync.device_pushes(store, txn):
            if isinstance(record, dict):
                found.append((int(record.get("time") or 0), name, record.get("pushed")))
    found.sort(reverse=True)
    return [
        {"device": name, "time": render(at or None), "pushed": pushed} for at, name, pushed in found
    ]
