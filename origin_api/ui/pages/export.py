"""A session's download: what `origin export` writes, as a file the browser saves.

`/ui/session/export?source=…&id=…&format=md|html|json`, with `tools=1` for tool calls and
results too (the session page links each format, with tools when it shows them). The file is
sent as an attachment with the UI's own headers, Content-Security-Policy included: an HTML
export opened from the disk uses its inline styles, but served here it is never rendered.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get

from ...errors import OriginError
from ...transcript import FORMATS, file_name, read_transcript, write
from ..guard import ui_of
from ..render import HEADERS

AnyRequest = Request[Any, Any, Any]


@get("/session/export", sync_to_thread=True)
def session_export(request: AnyRequest) -> Response[str]:
    params = request.query_params
    session = str(params.get("id") or "").strip()
    fmt = str(params.get("format") or "md").strip()
    if not session:
        raise OriginError("Which session? /ui/session/export?id=<session id>&format=md.")
    if fmt not in FORMATS:
        raise OriginError(f"No export format {fmt}: md, html or json.")
    source = str(params.get("source") or "").strip() or None
    tools = bool(params.get("tools"))
    transcript = read_transcript(ui_of(request).origin, session, source, include_tools=tools)
    name = file_name(transcript["header"], fmt)
    return Response(
        write(transcript, fmt),
        media_type=FORMATS[fmt][1],
        headers={**HEADERS, "content-disposition": f'attachment; filename="{name}"'},
    )


ROUTES = [session_export]
