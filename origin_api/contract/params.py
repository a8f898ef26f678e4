"""Tool parameters, declared once: they give the MCP input schemas and validate every call.

Validation here (not in a transport) means the CLI, stdio and HTTP all reject bad input with the
same readable message, as a tool error rather than a protocol error.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypedDict

from ..errors import invalid


class SourceArg(TypedDict):
    """A source as `remember` and `correct` take it: an event id, a quote, or both."""

    event_id: str | None
    quote: str | None


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: str  # "string" | "time" | "integer" | "number" | "boolean" | "sources"
    description: str
    required: bool = False
    default: Any = None
    enum: tuple[str, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    #: A blank string ("" or only spaces) means the argument was left out, instead of being an
    #: error. Only where the contract documents the absent case as what a blank asks for.
    blank_is_absent: bool = False

    def schema(self) -> dict[str, Any]:
        if self.type == "sources":
            return {
                "type": "array",
                "minItems": 1 if self.required else 0,
                "maxItems": 50,
                "description": self.description,
                "items": {
                    "type": "object",
                    "properties": {
                        "event_id": {
                            "type": "string",
                            "description": "An event id (<source>:…) to cite.",
                        },
                        "quote": {
                            "type": "string",
                            "maxLength": 2000,
                            "description": "An exact quote from the event (whitespace and case are ignored).",
                        },
                    },
                    "additionalProperties": False,
                },
            }
        out: dict[str, Any] = {
            "type": _JSON_TYPES.get(self.type, self.type),
            "description": self.description,
        }
        if self.enum:
            out["enum"] = list(self.enum)
        if self.default is not None:
            out["default"] = self.default
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.min_length is not None:
            out["minLength"] = self.min_length
        if self.max_length is not None:
            out["maxLength"] = self.max_length
        return out


_JSON_TYPES = {"time": "string"}
_TIME_HINT = "30m, 24h, 7d or 2w (back from now), a date such as 2026-10-20, or ISO 8601"


def input_schema(params: tuple[Param, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {p.name: p.schema() for p in params},
        "required": [p.name for p in params if p.required],
        "additionalProperties": False,
    }


def validate(tool: str, params: tuple[Param, ...], args: Any) -> dict[str, Any]:
    """Arguments checked against `params`, defaults filled in; a readable error otherwise."""
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise invalid(f"The arguments of {tool} must be an object.")
    known = {p.name for p in params}
    unknown = sorted(set(args) - known)
    if unknown:
        raise invalid(
            f"Unknown argument {unknown[0]!r} for {tool}; it takes {', '.join(p.name for p in params)}."
        )
    out: dict[str, Any] = {}
    for p in params:
        value = args.get(p.name)
        if value is None:
            if p.required:
                raise invalid(f"{p.name} is required.")
            out[p.name] = p.default
            continue
        if isinstance(value, str) and not value.strip() and p.blank_is_absent:
            out[p.name] = p.default
            continue
        out[p.name] = _check(p, value)
    return out


def _check(p: Param, value: Any) -> Any:
    return _CHECKS[p.type](p, value)


def _check_time(p: Param, value: Any) -> str:
    if not isinstance(value, str):
        raise invalid(f"{p.name} must be a string: {_TIME_HINT}.")
    if not value.strip():
        raise invalid(
            f"{p.name} must not be empty: give a time such as {_TIME_HINT}, or leave it out."
        )
    _check_max_length(p, value)
    return value


def _check_string(p: Param, value: Any) -> str:
    if not isinstance(value, str):
        raise invalid(f"{p.name} must be a string.")
    if not value.strip() and not p.enum:
        raise invalid(f"{p.name} must not be empty.")
    if p.enum and value not in p.enum:
        raise invalid(f"{p.name} must be one of {', '.join(p.enum)}; got {value[:40]!r}.")
    if p.min_length is not None and len(value.strip()) < p.min_length:
        raise invalid(f"{p.name} must have at least {p.min_length} characters.")
    _check_max_length(p, value)
    if "\x00" in value:
        raise invalid(f"{p.name} must not contain NUL characters.")
    return value


def _check_max_length(p: Param, value: str) -> None:
    if p.max_length is not None and len(value) > p.max_length:
        raise invalid(
            f"{p.name} must have at most {p.max_length:,} characters; it has {len(value):,}."
        )


def _check_boolean(p: Param, value: Any) -> bool:
    if not isinstance(value, bool):
        raise invalid(f"{p.name} must be true or false.")
    return value


def _check_number(p: Param, value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise invalid(
            f"{p.name} must be a number." if p.type == "number" else f"{p.name} must be an integer."
        )
    number: int | float = value
    if p.type == "integer" and isinstance(number, float):
        if not number.is_integer():
            raise invalid(f"{p.name} must be an integer.")
        number = int(number)
    if isinstance(number, float) and not math.isfinite(number):
        raise invalid(f"{p.name} must be a finite number.")
    if (p.minimum is not None and number < p.minimum) or (
        p.maximum is not None and number > p.maximum
    ):
        lo, hi = _fmt(p.minimum), _fmt(p.maximum)
        raise invalid(f"{p.name} must be between {lo} and {hi}; got {number}.")
    return number


def _check_sources(p: Param, value: Any) -> list[SourceArg]:
    if not isinstance(value, list):
        raise invalid(f"{p.name} must be a list of {{event_id, quote}} objects.")
    if p.required and not value:
        raise invalid(f"{p.name} needs at least one source: an event_id, a quote, or both.")
    if len(value) > 50:
        raise invalid(f"{p.name} takes at most 50 sources.")
    return [_check_source(f"{p.name}[{i}]", item) for i, item in enumerate(value)]


def _check_source(name: str, item: Any) -> SourceArg:
    if not isinstance(item, dict):
        raise invalid(f"{name} must be an object with event_id, quote or both.")
    extra = set(item) - {"event_id", "quote"}
    if extra:
        raise invalid(f"{name} has an unknown field {sorted(extra)[0]!r}; use event_id and quote.")
    event_id, quote = item.get("event_id"), item.get("quote")
    if event_id is not None and (not isinstance(event_id, str) or not event_id.strip()):
        raise invalid(f"{name}.event_id must be a non-empty string.")
    if quote is not None and (not isinstance(quote, str) or not quote.strip()):
        raise invalid(f"{name}.quote must be a non-empty string.")
    if isinstance(quote, str) and len(quote) > 2000:
        raise invalid(f"{name}.quote must have at most 2,000 characters.")
    if event_id is None and quote is None:
        raise invalid(f"{name} needs an event_id, a quote, or both.")
    return {"event_id": event_id, "quote": quote}


_CHECKS: dict[str, Callable[[Param, Any], Any]] = {
    "time": _check_time,
    "string": _check_string,
    "boolean": _check_boolean,
    "integer": _check_number,
    "number": _check_number,
    "sources": _check_sources,
}


def _fmt(value: float | None) -> str:
    if value is None:
        return "any"
    return str(int(value)) if float(value).is_integer() else str(value)
