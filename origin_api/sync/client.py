"""Talking to the hub's sync endpoints over HTTP: one request each, every failure one readable
line (`SyncError`), so `origin connect` and `origin sync` can say what went wrong."""

from __future__ import annotations

from typing import Any

import httpx2
import orjson

from ..connection import Connection
from ..errors import OriginError


class SyncError(OriginError):
    """The hub could not be reached, or refused: `status` is its HTTP status (0: no answer)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message, "upstream_failure")
        self.status = status


class HubClient:
    """One HTTP client per sync: the connection's headers on every request."""

    def __init__(self, connection: Connection, timeout_s: float) -> None:
        self.connection = connection
        self.http = httpx2.Client(
            base_url=connection.base,
            headers=connection.headers(),
            timeout=httpx2.Timeout(timeout_s),
        )

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> HubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def push(self, body: bytes) -> dict[str, Any]:
        """One batch, already serialized (`Batch.bodies`)."""
        return self._send("POST", "/sync/push", content=body)

    def pull(self, after: int, limit: int) -> dict[str, Any]:
        return self._send("GET", "/sync/pull", params={"after": after, "limit": limit})

    def _send(self, method: str, path: str, **kw: Any) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"} if "content" in kw else {}
        try:
            response = self.http.request(method, path, headers=headers, **kw)
        except httpx2.TimeoutException:
            raise SyncError(f"the hub at {self.connection.base} did not answer in time") from None
        except httpx2.HTTPError as error:
            raise SyncError(
                f"the hub at {self.connection.base} cannot be reached ({error or type(error).__name__})"
            ) from None
        try:
            body = orjson.loads(response.content)
        except orjson.JSONDecodeError:
            body = None
        if response.status_code != 200:
            found = body.get("error") if isinstance(body, dict) else None
            message = found.get("message") if isinstance(found, dict) else None
            if response.status_code == 404 and message is None:
                message = "it has no sync endpoints (is this an Origin hub?)"
            raise SyncError(
                f"the hub at {self.connection.base} answered {response.status_code}: "
                f"{message or response.text[:200]}",
                response.status_code,
            )
        if not isinstance(body, dict):
            raise SyncError(f"the hub at {self.connection.base} answered something not JSON")
        return body
