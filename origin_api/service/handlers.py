"""Each tool's handler behind one signature, its arguments in the tool's shape.

`tools.ToolSpec.validate` gives a tool's arguments as `contract.args.ToolArgs`; each adapter
here takes them as its own tool's shape and passes them as keyword arguments, which mypy checks
against the handler's parameters. `elsewhere` is where `remember` and `correct` of a connected
device look for an event only its hub has (`merge`); the other tools have no use for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from ..contract.args import (
    CorrectArgs,
    ForgetArgs,
    IdArgs,
    IngestArgs,
    RememberArgs,
    SearchArgs,
    TimelineArgs,
    ToolArgs,
)
from ..runtime import Origin
from .common import Caller, Said
from .reading import get, search, sources, timeline
from .record import ingest
from .shapes import (
    EntryResult,
    ForgetResult,
    GetResult,
    Payload,
    SearchResult,
    SourcesResult,
    TimelineResult,
)
from .writing import Elsewhere, correct, forget, remember

#: A tool's handler: the open archive, who calls, the validated arguments, and the hub's events.
Handler = Callable[[Origin, Caller, ToolArgs, Elsewhere | None], Payload | Said]


def _search(origin: Origin, caller: Caller, args: ToolArgs, _: Elsewhere | None) -> SearchResult:
    return search(origin, caller=caller, **cast("SearchArgs", args))


def _timeline(
    origin: Origin, caller: Caller, args: ToolArgs, _: Elsewhere | None
) -> TimelineResult:
    return timeline(origin, caller=caller, **cast("TimelineArgs", args))


def _get(origin: Origin, caller: Caller, args: ToolArgs, _: Elsewhere | None) -> GetResult:
    return get(origin, caller=caller, **cast("IdArgs", args))


def _sources(origin: Origin, caller: Caller, args: ToolArgs, _: Elsewhere | None) -> SourcesResult:
    return sources(origin, caller=caller, **cast("IdArgs", args))


def _remember(
    origin: Origin, caller: Caller, args: ToolArgs, elsewhere: Elsewhere | None
) -> EntryResult:
    return remember(origin, caller=caller, elsewhere=elsewhere, **cast("RememberArgs", args))


def _correct(
    origin: Origin, caller: Caller, args: ToolArgs, elsewhere: Elsewhere | None
) -> EntryResult:
    return correct(origin, caller=caller, elsewhere=elsewhere, **cast("CorrectArgs", args))


def _forget(origin: Origin, caller: Caller, args: ToolArgs, _: Elsewhere | None) -> ForgetResult:
    return forget(origin, caller=caller, **cast("ForgetArgs", args))


def _ingest(origin: Origin, caller: Caller, args: ToolArgs, _: Elsewhere | None) -> Said:
    return ingest(origin, caller=caller, **cast("IngestArgs", args))


HANDLERS: dict[str, Handler] = {
    "search": _search,
    "timeline": _timeline,
    "get": _get,
    "sources": _sources,
    "remember": _remember,
    "correct": _correct,
    "forget": _forget,
    "ingest": _ingest,
}
