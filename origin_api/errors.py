"""The API layer's one error type: a readable message and a category for HTTP clients.

The service raises `OriginError` with the contract's words; the edges translate it (MCP
`isError`, CLI exit code 2, HTTP structured error data) and nothing else.
"""

from __future__ import annotations

#: What kind of failure an error is, for clients that act on it (the hub sends it with every tool
#: error); docs/hub.md lists them.
CATEGORIES = (
    "not_found",
    "forbidden",
    "quota_exceeded",
    "conflict",
    "validation_error",
    "upstream_failure",
)


class OriginError(Exception):
    def __init__(self, message: str, category: str = "validation_error") -> None:
        if category not in CATEGORIES:
            raise ValueError(
                f"Unknown error category {category!r}; one of {', '.join(CATEGORIES)}."
            )
        super().__init__(message)
        self.message = message
        self.category = category


def not_found(message: str) -> OriginError:
    return OriginError(message, "not_found")


def invalid(message: str) -> OriginError:
    return OriginError(message, "validation_error")


def conflict(message: str) -> OriginError:
    return OriginError(message, "conflict")
