"""The admin UI's router: every page module's routes under `/ui`, behind one guard.

A page is a module of `origin_api/ui/pages/` exposing `ROUTES`, a list of Litestar route
handlers with paths relative to `/ui`. `PAGES` is every such module, found in that package, so
a new page is a new module and nothing else changes. The hub mounts this router
(`hub.app.create_app`), and `origin ui` serves it alone on loopback (`hub.app.create_ui_app`).
"""

from __future__ import annotations

import importlib
import pkgutil
from importlib import resources
from types import ModuleType
from typing import Any

from litestar import Request, Response, Router, get, route
from litestar.exceptions import NotFoundException
from litestar.params import FromPath
from litestar.response import Redirect

from . import pages
from .core import Ui, log_to_stderr
from .errors import HANDLERS
from .guard import make_guard

#: The UI's own files (CSS, script), by name: nothing else is served from the package.
STATIC_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}


def _pages() -> list[ModuleType]:
    found = [
        importlib.import_module(f"{pages.__name__}.{info.name}")
        for info in pkgutil.iter_modules(pages.__path__)
        if not info.name.startswith("_")
    ]
    return sorted(found, key=lambda module: module.__name__)


#: Every page module, each with its `ROUTES`.
PAGES: list[ModuleType] = _pages()


@get("/static/{name:str}", opt={"public": True}, sync_to_thread=False)
def static(name: FromPath[str]) -> Response[bytes]:
    """`ui.css` and `ui.js`, from the package (a wheel ships them): no CDN, nothing fetched."""
    suffix = name[name.rfind(".") :] if "." in name else ""
    if suffix not in STATIC_TYPES or "/" in name or name.startswith("."):
        raise NotFoundException(f"No file {name} in the admin UI.")
    found = resources.files(__package__).joinpath("static", name)
    if not found.is_file():
        raise NotFoundException(f"No file {name} in the admin UI.")
    return Response(
        found.read_bytes(),
        media_type=STATIC_TYPES[suffix],
        headers={"cache-control": "no-cache", "x-content-type-options": "nosniff"},
    )


def create_router(ui: Ui, hosts: frozenset[str]) -> Router:
    """Every page under `/ui`, behind the guard, with errors as pages. `hosts` are the Host
    names the UI answers to (the hub's; `*` for any)."""
    log_to_stderr()
    handlers: list[Any] = [static]
    for module in PAGES:
        handlers.extend(getattr(module, "ROUTES", []))
    return Router(
        path="/ui",
        route_handlers=handlers,
        guards=[make_guard(ui, hosts)],
        exception_handlers=HANDLERS,
    )


@route("/", http_method=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"], sync_to_thread=False)
def root(request: Request[Any, Any, Any]) -> Redirect:
    """`/` of a hub or of `origin ui` leads a browser to the admin UI; anything but a GET or
    HEAD there is the hub's 404, as for any path it does not serve."""
    if request.method not in ("GET", "HEAD"):
        raise NotFoundException()
    return Redirect("/ui/", status_code=303)
