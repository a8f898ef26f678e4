"""Errors as pages of the UI: inside the layout, with the hub's request id, never a traceback.

A page that is not signed in is sent to the sign-in page (and back afterwards); a script's
request (search as you type) gets the error as a small fragment instead. The service's errors
keep their readable message, with a status from their category.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any, cast
from urllib.parse import urlencode

from litestar import Request, Response
from litestar.exceptions import HTTPException, NotAuthorizedException
from litestar.response import Redirect

from ..errors import OriginError
from .guard import find_ui
from .render import bare, render

AnyRequest = Request[Any, Any, Any]
#: What a tool's error category means for a page.
STATUS = {
    "not_found": 404,
    "validation_error": 400,
    "forbidden": 403,
    "conflict": 409,
    "quota_exceeded": 429,
    "upstream_failure": 502,
}
_TITLES = {
    400: "Not understood",
    401: "Sign in",
    403: "Refused",
    404: "Not found",
    405: "Not allowed",
    409: "Conflict",
    421: "Wrong host",
    429: "Too many attempts",
    500: "Something failed",
    502: "The hub did not answer",
}


def error_page(request: AnyRequest, status: int, message: str) -> Response[Any]:
    """The error in the layout (or as a fragment for a script), with the request id."""
    request_id = cast("dict[str, Any]", request.scope).get("origin.hub.request_id", "")
    title = _TITLES.get(status, "Error")
    if find_ui(request) is not None:
        template = "error_fragment.html" if _is_script(request) else "error.html"
        return render(
            request, template, status=status, title=title, message=message, request_id=request_id
        )
    # Outside the UI's router (an unknown /ui/ path) there is no session to show: a bare page.
    return bare(
        "error_bare.html", status=status, title=title, message=message, request_id=request_id
    )


def http_error(request: AnyRequest, exc: HTTPException) -> Response[Any]:
    signed_out = isinstance(exc, NotAuthorizedException)
    if signed_out and request.method == "GET" and not _is_script(request):
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return Redirect("/ui/login?" + urlencode({"next": target}), status_code=303)
    return error_page(request, exc.status_code, str(exc.detail))


def origin_error(request: AnyRequest, exc: OriginError) -> Response[Any]:
    return error_page(request, STATUS.get(exc.category, 400), exc.message)


def bug(request: AnyRequest, exc: Exception) -> Response[Any]:
    traceback.print_exception(exc, file=sys.stderr)
    return error_page(
        request,
        500,
        "The admin UI failed while answering this request; this is a bug. "
        "Please report it with the request id.",
    )


def not_found(request: AnyRequest, exc: HTTPException) -> Response[Any]:
    """For the hub's edge: a /ui/ path no route serves, as a page rather than JSON."""
    return error_page(request, exc.status_code, str(exc.detail))


def _is_script(request: AnyRequest) -> bool:
    return request.headers.get("x-requested-with") == "origin-ui"


HANDLERS: dict[Any, Any] = {
    HTTPException: http_error,
    OriginError: origin_error,
    Exception: bug,
}
