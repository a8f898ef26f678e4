"""Status: what the archive holds and how it stands, on one page.

The figures are `admin.status`'s (what `origin status` prints: counts per source and project,
sizes, unparsed lines by reason, the last ingest) and the doctor's index check; this page adds
only what they do not compute (unparsed lines by file, the syncs: `status_read`).
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get

from ... import admin
from ...contract.timeargs import render as iso
from ...doctor.archive import index as index_finding
from ...service import pause as recording
from ..guard import ui_of
from ..render import render
from .status_read import device_sync, hub_devices, problems_by_file

AnyRequest = Request[Any, Any, Any]


def size(count: int | None) -> str:
    """Bytes as a person reads them (1.2 MB)."""
    value = float(count or 0)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:,.0f} {unit}" if unit == "bytes" else f"{value:,.1f} {unit}"
        value /= 1024
    return f"{value:,.1f} TB"  # pragma: no cover - the loop returns at GB


@get("/status", sync_to_thread=True)
def status(request: AnyRequest) -> Response[str]:
    origin = ui_of(request).origin
    info = admin.status(origin)
    last = info.get("last_ingest")
    problems, left_out = problems_by_file(origin)
    return render(
        request,
        "status.html",
        info=info,
        last_ingest=last if isinstance(last, dict) else None,
        last_ingest_time=iso(last["time"]) if isinstance(last, dict) else None,
        index=index_finding(origin),
        paused=recording.shown(recording.in_force(origin)),
        problems=problems,
        problems_left_out=left_out,
        sync=device_sync(origin),
        devices=hub_devices(origin),
        home=str(origin.home),
        size=size,
    )


ROUTES = [status]
