"""What the remember and correct forms send, as the tools' arguments.

A form sends text: blank fields are left out so the tool's own defaults apply, a number is
passed as a number when it reads as one and as the text otherwise, so that the tool's own
validation answers in the tool's own words. Sources are rows of an event id and a quote, either
of which may be blank (a quote alone cites the newest message holding it, as the tool says).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Source rows on the remember form (the correct form has one: sources carry over).
REMEMBER_ROWS = 3
CORRECT_ROWS = 1
#: The confidence a new entry's form starts with.
DEFAULT_CONFIDENCE = "0.9"


def field(form: Mapping[str, Any], name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def _number(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text


def sources_of(form: Mapping[str, Any], rows: int) -> list[dict[str, str]]:
    """The non-blank rows `event_N`/`quote_N` (N from 1) as the tools' `sources`."""
    cited = []
    for n in range(1, rows + 1):
        event_id, quote = field(form, f"event_{n}"), field(form, f"quote_{n}")
        source: dict[str, str] = {}
        if event_id:
            source["event_id"] = event_id
        if quote:
            source["quote"] = quote
        if source:
            cited.append(source)
    return cited


def remember_args(form: Mapping[str, Any]) -> dict[str, Any]:
    args: dict[str, Any] = {
        "kind": field(form, "kind"),
        "text": field(form, "text"),
        "sources": sources_of(form, REMEMBER_ROWS),
        "confidence": _number(field(form, "confidence")),
    }
    for name in ("project", "valid_from", "valid_to"):
        if value := field(form, name):
            args[name] = value
    return args


def correct_args(entry_id: str, form: Mapping[str, Any]) -> dict[str, Any]:
    args: dict[str, Any] = {"id": entry_id, "text": field(form, "text")}
    if kind := field(form, "kind"):
        args["kind"] = kind
    if confidence := field(form, "confidence"):
        args["confidence"] = _number(confidence)
    for name in ("valid_from", "valid_to"):
        if value := field(form, name):
            args[name] = value
    if added := sources_of(form, CORRECT_ROWS):
        args["sources"] = added
    return args


def draft_of(form: Mapping[str, Any]) -> dict[str, str]:
    """What a person typed, to fill the form again when the tool refused it (never the
    CSRF token: the page brings its own)."""
    return {k: v for k, v in form.items() if isinstance(v, str) and k != "_csrf"}


#: What a correction that changes nothing is told, on the entry's page.
NOTHING_CHANGED = (
    "Nothing to correct: the text, kind and confidence are this version's already, and no "
    "validity or source was added. Change something, or leave the entry as it is."
)


def changes_nothing(args: Mapping[str, Any], current: Mapping[str, Any]) -> bool:
    """Whether `correct_args` would write a version equal to `current` (the version it
    corrects): same text, kind and confidence, no validity, no source added. A confidence
    that is no number is a change: the tool answers it in its own words."""
    if args.get("text") != current.get("text") or any(
        name in args for name in ("valid_from", "valid_to", "sources")
    ):
        return False
    if args.get("kind", current.get("kind")) != current.get("kind"):
        return False
    confidence = args.get("confidence", current.get("confidence"))
    return isinstance(confidence, float | int) and float(confidence) == current.get("confidence")
