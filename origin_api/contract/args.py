"""The tools' arguments once validated: one TypedDict per tool, every parameter present.

`ToolSpec.validate` fills each left-out parameter with its default, so every key is there; the
service passes these to its handlers as keyword arguments, and mypy checks each one against the
handler's signature. `ARGS` names each tool's shape (tests hold it to the parameters declared in
`tools`).
"""

from __future__ import annotations

from typing import TypedDict

from .params import SourceArg


class SearchArgs(TypedDict):
    query: str | None
    scope: str
    kind: str | None
    since: str | None
    until: str | None
    source: str | None
    project: str | None
    include_tools: bool
    limit: int


class TimelineArgs(TypedDict):
    since: str
    until: str | None
    source: str | None
    project: str | None
    session: str | None
    include_tools: bool
    limit: int


class IdArgs(TypedDict):
    """`get` and `sources`: an entry or an event id."""

    id: str


class RememberArgs(TypedDict):
    kind: str
    text: str
    sources: list[SourceArg]
    confidence: float
    project: str | None
    valid_from: str | None
    valid_to: str | None


class CorrectArgs(TypedDict):
    id: str
    text: str
    kind: str | None
    confidence: float | None
    sources: list[SourceArg] | None
    valid_from: str | None
    valid_to: str | None


class ForgetArgs(TypedDict):
    id: str
    reason: str


class IngestArgs(TypedDict):
    content: str
    workspace: str
    source: str
    kind: str
    title: str | None
    tags: list[str] | None
    session: str | None


ToolArgs = SearchArgs | TimelineArgs | IdArgs | RememberArgs | CorrectArgs | ForgetArgs | IngestArgs

ARGS: dict[str, type[ToolArgs]] = {
    "search": SearchArgs,
    "timeline": TimelineArgs,
    "get": IdArgs,
    "sources": IdArgs,
    "remember": RememberArgs,
    "correct": CorrectArgs,
    "forget": ForgetArgs,
    "ingest": IngestArgs,
}
