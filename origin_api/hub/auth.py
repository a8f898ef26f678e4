"""Who is calling the hub and what they may do: bearer tokens, scopes, devices, rate limits.

The transport resolves a `Grant` once per HTTP request, before the MCP SDK sees the body, and
leaves it in the ASGI scope; the SDK's handlers read it back through the request context. So
authentication happens exactly once, at the edge, and the tools never see a header.
"""

from __future__ import annotations

import math
import re
import threading
import time
from dataclasses import dataclass
from typing import Any

from origin_store import Store
from origin_store.replication import tokens as store_tokens

from ..contract.tools import BY_NAME, READ_ONLY
from ..errors import OriginError
from ..service import Caller

#: The key under which a request's grant lives in its ASGI scope.
SCOPE_KEY = "origin.hub.grant"
EVERY_TOOL = frozenset(BY_NAME)
#: The longest X-Origin-Client, in characters (code points).
CLIENT_MAX = 100
#: `x-mcp-readonly` values, compared without regard to case; anything else is refused.
_SWITCH = {"true": True, "false": False}
_RATE = re.compile(
    r"\s*(\d+)\s*(?:/\s*(\d*)\s*(s|sec|second|m|min|minute|h|hour)\s*)?", re.IGNORECASE
)
_UNITS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600, "hour": 3600}


class Refusal(Exception):
    """A request the hub refuses before MCP starts: an HTTP status and a readable message."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def shown(value: bytes | str) -> str:
    """A header value quoted for a message: printable UTF-8 text as itself, and every other
    character (\\u0085) or byte that is not UTF-8 (\\xfc) escaped."""
    text = value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value
    return "'" + "".join(char if char.isprintable() else _escaped(ord(char)) for char in text) + "'"


def _escaped(code: int) -> str:
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )


@dataclass(frozen=True, slots=True)
class Grant:
    """One request's caller: its token, what it may see, and why (for readable refusals)."""

    token: str
    scope: str
    client: str | None
    read_only_endpoint: bool
    request_id: str

    @property
    def allowed(self) -> frozenset[str]:
        return READ_ONLY if self.scope == "read" or self.read_only_endpoint else EVERY_TOOL

    @property
    def caller(self) -> Caller:
        """`<agent>@<token name>` with X-Origin-Client, the token's name alone without it."""
        return Caller(self.client, self.token) if self.client else Caller(self.token, "")

    def hidden_because(self) -> str:
        if self.scope == "read":
            return f"the token {self.token} is read-only"
        return "this endpoint is read-only"


def authenticate(
    store: Store, headers: dict[str, list[str]], *, read_only_endpoint: bool, request_id: str
) -> Grant:
    """Check the bearer token and the optional headers; raise `Refusal` (401/403/400) if wrong."""
    given = headers.get("authorization", [])
    if not given:
        raise _unauthorized(
            "Authorization: Bearer <token> is required; create a token with `origin token create <name>`."
        )
    if len(given) > 1:
        raise _unauthorized("Send one Authorization header.")
    scheme, _, secret = given[0].strip().partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise _unauthorized("Authorization must be Bearer <token>.")
    token = store_tokens.verify(store, secret.strip())
    if token is None:
        raise _unauthorized(
            "The token is not valid: unknown, mistyped or revoked.", error="invalid_token"
        )
    device = header_text(headers, "X-Origin-Device")
    if device is not None and device != token.name:
        raise Refusal(
            403, f"X-Origin-Device names {device!r}, but this token belongs to {token.name}."
        )
    client = header_text(headers, "X-Origin-Client")
    if client is not None:
        if len(client) > CLIENT_MAX:
            raise Refusal(
                400,
                f"X-Origin-Client is the agent's name, at most {CLIENT_MAX} characters; "
                f"this one has {len(client)}.",
            )
        if "@" in client:
            raise Refusal(
                400,
                f"X-Origin-Client is the agent's name, without @ (the hub adds @<token name>): "
                f"{client!r}.",
            )
    read_only = read_only_switch(headers)
    return Grant(
        token=token.name,
        scope=token.scope,
        client=client,
        read_only_endpoint=read_only_endpoint or read_only,
        request_id=request_id,
    )


def header_text(headers: dict[str, list[str]], name: str) -> str | None:
    """A header that carries a name, as text, or None if absent or empty.

    HTTP leaves a header's bytes opaque (RFC 9110, section 5.5); the hub reads these as UTF-8,
    strictly, so `claude-代码` arrives as itself and bytes that are not UTF-8 are refused rather
    than guessed at. The text must be printable: no control characters (C0, DEL, C1 such as
    U+0085), no format, separator or private-use characters; spaces inside are fine, and the
    spaces and tabs around a value are not part of it (RFC 9110, section 5.5)."""
    value = _single(headers, name.lower())
    if value is None:
        return None
    try:
        text = value.encode("latin-1").decode("utf-8").strip(" \t")
    except UnicodeDecodeError:
        raise Refusal(400, f"{name} must be UTF-8 text; its bytes are not.") from None
    if not text.isprintable():
        bad = next(char for char in text if not char.isprintable())
        raise Refusal(
            400,
            f"{name} must be printable text; it contains U+{ord(bad):04X} at character "
            f"{text.index(bad) + 1}.",
        )
    return text or None


def read_only_switch(headers: dict[str, list[str]]) -> bool:
    """`x-mcp-readonly`: `true` or `false` in any case. A switch that can only take rights away
    fails closed: any other value, an empty one included, refuses the request (400) instead of
    being read as either."""
    value = _single(headers, "x-mcp-readonly")
    if value is None:
        return False
    switch = _SWITCH.get(value.strip(" \t").lower())
    if switch is None:
        raise Refusal(
            400,
            f"x-mcp-readonly is true or false, not {shown(value.encode('latin-1'))}; the request was "
            "refused rather than guessed at.",
        )
    return switch


def _single(headers: dict[str, list[str]], name: str) -> str | None:
    values = headers.get(name)
    if not values:
        return None
    if len(values) > 1:
        raise Refusal(400, f"Send one {name} header.")
    return values[0]


def _unauthorized(message: str, *, error: str | None = None) -> Refusal:
    """A 401 with its challenge (RFC 6750, section 3). A token that was sent and refused says
    `error="invalid_token"`, so a client that would start an OAuth flow on a bare challenge shows
    a token error instead; a request without credentials gets the bare challenge, as the RFC asks."""
    challenge = 'Bearer realm="origin"' + (f', error="{error}"' if error else "")
    return Refusal(401, message, {"www-authenticate": challenge})


# -- rate limit ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rate:
    limit: int
    window_s: int

    def describe(self) -> str:
        unit = {1: "second", 60: "minute", 3600: "hour"}.get(self.window_s)
        return (
            f"{self.limit} tool calls per {unit}"
            if unit
            else f"{self.limit} tool calls per {self.window_s} s"
        )


def parse_rate(text: str) -> Rate | None:
    """`ORIGIN_HUB_RATE_LIMIT`: empty or 0 is off; `N`, `N/s`, `N/min`, `N/h`, `N/10s`."""
    if not text.strip():
        return None
    found = _RATE.fullmatch(text)
    if found is None:
        raise ValueError(
            f"ORIGIN_HUB_RATE_LIMIT is N, N/s, N/min or N/h (e.g. 120/min); got {text!r}."
        )
    limit = int(found.group(1))
    if limit == 0:
        return None
    window = (int(found.group(2)) if found.group(2) else 1) * _UNITS[
        (found.group(3) or "min").lower()
    ]
    if window <= 0:
        raise ValueError(f"ORIGIN_HUB_RATE_LIMIT needs a window longer than zero; got {text!r}.")
    return Rate(limit, window)


class RateLimiter:
    """A token bucket per token: `limit` calls at once, refilled evenly over the window.

    A bucket (rather than a fixed window) never lets a client spend two windows' worth across a
    window boundary, and the time to the next free call is exact, which is what
    `retryAfterSeconds` promises.
    """

    def __init__(self, rate: Rate) -> None:
        self.rate = rate
        self._per_second = rate.limit / rate.window_s
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(
        self, token: str, now: float | None = None
    ) -> tuple[OriginError, dict[str, Any]] | None:
        """Spend one call, or return the quota error and its retry data if none is left."""
        now = time.monotonic() if now is None else now
        with self._lock:
            level, then = self._buckets.get(token, (float(self.rate.limit), now))
            level = min(float(self.rate.limit), level + (now - then) * self._per_second)
            if level >= 1.0:
                self._buckets[token] = (level - 1.0, now)
                return None
            self._buckets[token] = (level, now)
            wait = (1.0 - level) / self._per_second
        retry = max(1, math.ceil(wait))
        error = OriginError(
            f"Rate limit reached for the token {token}: {self.rate.describe()}. Retry in {retry} s.",
            "quota_exceeded",
        )
        return error, {
            "retryAfterSeconds": retry,
            "rateLimit": {
                "limit": self.rate.limit,
                "windowSeconds": self.rate.window_s,
                "remaining": 0,
            },
        }
