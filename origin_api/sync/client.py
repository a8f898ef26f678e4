"""The device's one client of its hub (docs/sync.md): tool calls (one JSON-RPC `tools/call` on the
hub's `/mcp`) and the sync endpoints (`POST /sync/push`, `GET /sync/pull`), over one HTTP code
path with the connection's headers.

Stdlib `http.client`, not an HTTP library: `origin mcp` starts on every agent session, and a
connected device must not pay an import (an HTTP library's costs tens of ms at a fresh process's
start) it only needs once the first tool call arrives.

A tool call's failure comes back as a `HubFailure` with a short reason a person can read in the
Note item ("timed out after 2000 ms", "connection refused", "401 …"), never as an exception: the
caller decides whether a missing hub is a note (merged reads) or an error (relay, writes on the
hub). Its deadline is a whole-call deadline: the request runs in a thread of its own and the
caller waits for it at most `timeout_s` (a slow hub that trickles bytes cannot stretch it); the
socket gets the same timeout so the abandoned thread ends soon after.

A sync's failure is one readable line (`SyncError`), so `origin connect` and `origin sync` can
say what went wrong; its requests share one kept-alive connection (`HubClient`).
"""

from __future__ import annotations

import errno
import http.client
import itertools
import socket
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, urlsplit

import orjson

from ..errors import OriginError
from .connection import Connection

#: The longest hub error message quoted in a reason: enough to say what went wrong.
REASON_CHARS = 160
_ids = itertools.count(1)


def _http(parts: SplitResult, timeout_s: float) -> http.client.HTTPConnection | None:
    """A connection (not opened yet) to the hub at `parts`, or None when it is no http(s) URL."""
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    return kind(parts.hostname, parts.port, timeout=timeout_s)


# -- tool calls ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HubResult:
    """The hub's `tools/call` result exactly as it sent it (content, isError, …)."""

    result: dict[str, Any]

    @property
    def is_error(self) -> bool:
        return bool(self.result.get("isError"))

    @property
    def text(self) -> str:
        """The first text item: the JSON payload, or the error's message."""
        for item in self.result.get("content") or ():
            if isinstance(item, dict) and item.get("type") == "text":
                return str(item.get("text", ""))
        return ""

    @property
    def message(self) -> str:
        """An error's own words, without the request id the hub appends to the text item (its
        structured data keeps them apart): what a device says in its own answer."""
        data = (self.result.get("structuredContent") or {}).get("data")
        if isinstance(data, dict) and isinstance(data.get("message"), str):
            return str(data["message"])
        return self.text

    @property
    def category(self) -> str | None:
        """An error's category, as the hub's structured data gives it."""
        data = (self.result.get("structuredContent") or {}).get("data")
        found = data.get("category") if isinstance(data, dict) else None
        return found if isinstance(found, str) else None

    def payload(self) -> Any:
        """The payload of a successful result (one JSON text item, as the contract says)."""
        return orjson.loads(self.text)


@dataclass(frozen=True, slots=True)
class HubFailure:
    """Why the hub gave no tool result: a short reason, for a Note or an error message."""

    reason: str


HubAnswer = HubResult | HubFailure


def call_tool(
    connection: Connection, tool: str, arguments: Any, *, agent: str, timeout_s: float
) -> HubAnswer:
    """Call `tool` on the hub and wait at most `timeout_s` for its answer."""
    pending = start(connection, tool, arguments, agent=agent, timeout_s=timeout_s)
    return wait(pending, timeout_s)


def start(
    connection: Connection, tool: str, arguments: Any, *, agent: str, timeout_s: float
) -> Future[HubAnswer]:
    """Send the call in a daemon thread; `wait` collects it. The device's own answer is worked
    out meanwhile, so a merged read costs the slower of the two, not their sum."""
    future: Future[HubAnswer] = Future()

    def run() -> None:
        try:
            future.set_result(_request(connection, tool, arguments, agent, timeout_s))
        except BaseException as error:  # a bug here must reach the caller as a reason, not hang it
            future.set_result(HubFailure(f"{type(error).__name__}: {error}"))

    threading.Thread(target=run, name="origin-hub-call", daemon=True).start()
    return future


def wait(future: Future[HubAnswer], timeout_s: float, budget_s: float | None = None) -> HubAnswer:
    """The hub's answer, or a timeout failure once `timeout_s` has passed; its reason names the
    whole `budget_s` the call had (what is left of it is all this wait gets)."""
    try:
        return future.result(timeout=max(0.0, timeout_s))
    except TimeoutError:
        return HubFailure(timed_out(timeout_s if budget_s is None else budget_s))


def timed_out(timeout_s: float) -> str:
    return f"timed out after {round(timeout_s * 1000)} ms"


def _request(
    connection: Connection, tool: str, arguments: Any, agent: str, timeout_s: float
) -> HubAnswer:
    parts = urlsplit(connection.url)
    client = _http(parts, max(timeout_s, 0.05))
    if client is None:
        return HubFailure(f"the hub's address {connection.url!r} is not an http(s) URL")
    body = orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": next(_ids),
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments if arguments is not None else {}},
        }
    )
    headers = {
        **connection.headers(),
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "X-Origin-Client": agent,
    }
    try:
        client.request("POST", parts.path or "/mcp", body=body, headers=headers)
        response = client.getresponse()
        data = response.read()
    except TimeoutError:
        return HubFailure(timed_out(timeout_s))
    except ConnectionRefusedError:
        return HubFailure("connection refused")
    except OSError as error:
        return HubFailure(_os_reason(error))
    except http.client.HTTPException as error:
        return HubFailure(f"the hub's answer was cut off ({type(error).__name__})")
    finally:
        client.close()
    if response.status != 200:
        return HubFailure(_http_reason(response.status, response.reason, data))
    try:
        message = orjson.loads(data)
    except orjson.JSONDecodeError:
        return HubFailure("the hub's answer was not JSON")
    result = message.get("result") if isinstance(message, dict) else None
    if isinstance(result, dict):
        return HubResult(result)
    refusal = message.get("error") if isinstance(message, dict) else None
    if isinstance(refusal, dict) and isinstance(refusal.get("message"), str):
        return HubFailure(f"the hub refused the call: {_short(refusal['message'])}")
    return HubFailure("the hub's answer was not a tool result")


def _os_reason(error: OSError) -> str:
    if isinstance(error, socket.gaierror):
        return "the hub's host name could not be resolved"
    if error.errno == errno.ECONNRESET:
        return "the connection was reset"
    return error.strerror or str(error) or type(error).__name__


def _http_reason(status: int, phrase: str, data: bytes) -> str:
    """`401 Invalid or revoked token.`: the status and the hub's own message when it gave one."""
    message = phrase
    try:
        error = orjson.loads(data).get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            message = error["message"]
    except (orjson.JSONDecodeError, AttributeError):
        pass
    return f"{status} {_short(message)}".strip()


def _short(message: str) -> str:
    message = " ".join(message.split())
    return message if len(message) <= REASON_CHARS else message[: REASON_CHARS - 1] + "…"


def relay_unreachable(connection: Connection, reason: str) -> str:
    """The one message of every tool on a relay whose hub gave no answer."""
    return (
        f"This device is a relay: it answers only through its Origin hub ({connection.url}), "
        f"which could not be reached ({reason})."
    )


def relay_has_no_store(connection: Connection) -> str:
    """What a relay says to a command that needs an archive of its own."""
    return (
        f"This device is a relay: it keeps no archive and answers only through its Origin hub "
        f"({connection.url}). Run origin disconnect to keep an archive here."
    )


# -- sync ----------------------------------------------------------------------------------------


class SyncError(OriginError):
    """The hub could not be reached, or refused: `status` is its HTTP status (0: no answer)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message, "upstream_failure")
        self.status = status


#: What a connection the hub closed while it was idle raises at the next request on it.
_STALE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


def _why(error: Exception) -> str:
    """What went wrong, in the words sync has always used (those of its earlier HTTP library)."""
    if isinstance(error, http.client.RemoteDisconnected):
        return "Server disconnected without sending a response."
    return str(error) or type(error).__name__


class HubClient:
    """One sync's requests, on one kept-alive connection: the connection's headers on every
    request, `timeout_s` on connecting and on every read and write."""

    def __init__(self, connection: Connection, timeout_s: float) -> None:
        self.connection = connection
        parts = urlsplit(connection.base)
        self.prefix = parts.path.rstrip("/")
        self.http = _http(parts, timeout_s)

    def close(self) -> None:
        if self.http is not None:
            self.http.close()

    def __enter__(self) -> HubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def push(self, body: bytes) -> dict[str, Any]:
        """One batch, already serialized (`Batch.bodies`)."""
        return self._send("POST", "/sync/push", body)

    def pull(self, after: int, limit: int) -> dict[str, Any]:
        return self._send("GET", f"/sync/pull?after={int(after)}&limit={int(limit)}")

    def _send(self, method: str, path: str, body: bytes | None = None) -> dict[str, Any]:
        base = self.connection.base
        headers = self.connection.headers()
        if body is not None:
            headers["Content-Type"] = "application/json"
        try:
            status, data = self._exchange(method, self.prefix + path, body, headers)
        except TimeoutError:
            raise SyncError(f"the hub at {base} did not answer in time") from None
        except (OSError, http.client.HTTPException) as error:
            raise SyncError(f"the hub at {base} cannot be reached ({_why(error)})") from None
        try:
            answer = orjson.loads(data)
        except orjson.JSONDecodeError:
            answer = None
        if status != 200:
            found = answer.get("error") if isinstance(answer, dict) else None
            message = found.get("message") if isinstance(found, dict) else None
            if status == 404 and message is None:
                message = "it has no sync endpoints (is this an Origin hub?)"
            text = data.decode("utf-8", "replace")[:200]
            raise SyncError(f"the hub at {base} answered {status}: {message or text}", status)
        if not isinstance(answer, dict):
            raise SyncError(f"the hub at {base} answered something not JSON")
        return answer

    def _exchange(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> tuple[int, bytes]:
        """The status and body of one request. A kept-alive connection the hub closed meanwhile
        is opened again once (both endpoints take a request twice without harm)."""
        if self.http is None:
            raise OSError(f"the hub's address {self.connection.url!r} is not an http(s) URL")
        reused = self.http.sock is not None
        try:
            return self._once(self.http, method, path, body, headers)
        except _STALE:
            if not reused:
                raise
            self.http.close()
            return self._once(self.http, method, path, body, headers)

    @staticmethod
    def _once(
        conn: http.client.HTTPConnection,
        method: str,
        path: str,
        body: bytes | None,
        headers: dict[str, str],
    ) -> tuple[int, bytes]:
        """One request and its answer; a connection left halfway is closed (the next opens anew)."""
        try:
            try:
                conn.request(method, path, body=body, headers=headers)
            except _STALE as error:
                # A hub may answer before it has read a body it refuses (413), and close: its
                # answer is what counts, when it arrived.
                try:
                    response = conn.getresponse()
                except (OSError, http.client.HTTPException):
                    raise error from None
            else:
                response = conn.getresponse()
            return response.status, response.read()
        except BaseException:
            conn.close()
            raise
