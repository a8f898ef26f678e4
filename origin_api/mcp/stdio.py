"""`origin mcp`: the tools over MCP stdio (newline-delimited JSON-RPC 2.0), without the SDK.

Agents start this process for every session, and Origin promises a first answer within a few
hundred milliseconds of start. Importing the MCP SDK alone takes over a second on a small
machine (its protocol types are hundreds of pydantic models), so this loop speaks the protocol's
handshake era directly, from the same tool table and results as the SDK-based servers (`sdk`).

Freshness follows the contract: ingest in the background at start, a watcher that ingests when a
log file changed, and one last ingest (at most 5 s) when the agent closes the stream.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any, BinaryIO

import orjson

from ..contract.tools import INSTRUCTIONS, TOOLS
from ..errors import OriginError
from ..freshness import Freshness, ingest_and_sync
from ..runtime import Origin
from ..service import Caller
from .results import run_tool, server_info, tool_result

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
EXIT_INGEST_SECONDS = 5.0


def serve(origin: Origin) -> bool:
    """Serve on this process's stdin and stdout until the agent closes stdin. Returns False
    if background work still uses the store: the caller then keeps it open (`keep_open`)."""
    return StdioServer(
        origin, sys.stdin.buffer, os.fdopen(sys.stdout.fileno(), "wb", buffering=0, closefd=False)
    ).serve()


class StdioServer:
    def __init__(self, origin: Origin, reader: BinaryIO, writer: BinaryIO) -> None:
        self.origin = origin
        self.reader = reader
        self.writer = writer
        self.caller = Caller("unknown", origin.settings.device)
        self._write_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="origin-tool")

    # -- the loop -------------------------------------------------------------------------------

    def serve(self) -> bool:
        """Returns False if background work still uses the store at the end (a pass or the
        exit's ingest that outran its time): the caller then keeps it open."""
        if self.origin.relay:  # no archive here: nothing to read logs into, nothing to ingest
            try:
                self._loop()
            finally:
                self._pool.shutdown(wait=True)
            return True
        freshness = Freshness(self.origin, self.origin.settings.watch_interval_ms / 1000)
        freshness.start()
        try:
            self._loop()
        finally:
            freshness.stop(wait_s=0)
            self._pool.shutdown(wait=True)
            deadline = time.monotonic() + EXIT_INGEST_SECONDS
            final = threading.Thread(
                target=ingest_and_sync,
                args=(self.origin, EXIT_INGEST_SECONDS),
                name="origin-exit-ingest",
                daemon=True,
            )
            final.start()
            final.join(EXIT_INGEST_SECONDS)
            # A watcher tick under way when stdin closed ends with the exit's ingest.
            freshness.stop(wait_s=max(0.0, deadline - time.monotonic()))
        return not (final.is_alive() or freshness.busy)

    def _loop(self) -> None:
        for raw in self.reader:
            line = raw.strip()
            if line:
                self._handle_line(line)

    def _handle_line(self, line: bytes) -> None:
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError:
            self._send(
                {
                    "jsonrpc": "2.0",
                    "id": None,
                    "error": {"code": -32700, "message": "Parse error: not JSON."},
                }
            )
            return
        if isinstance(message, list):
            for item in message:
                self._dispatch(item)
            return
        self._dispatch(message)

    def _dispatch(self, message: Any) -> None:
        if (
            not isinstance(message, dict)
            or message.get("jsonrpc") != "2.0"
            or not isinstance(message.get("method"), str)
        ):
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return  # a response to nothing we asked: ignore
            self._send(
                {
                    "jsonrpc": "2.0",
                    "id": message.get("id") if isinstance(message, dict) else None,
                    "error": {
                        "code": -32600,
                        "message": "Invalid request: expected a JSON-RPC 2.0 message.",
                    },
                }
            )
            return
        method, request_id, params = message["method"], message.get("id"), message.get("params")
        if "id" not in message:
            return  # notifications (initialized, cancelled, …) need no answer
        if method == "tools/call":
            self._pool.submit(self._call_tool, request_id, params)
            return
        try:
            result = self._answer(method, params)
        except _RpcError as error:
            self._send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": error.code, "message": error.message},
                }
            )
            return
        self._send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def _answer(self, method: str, params: Any) -> dict[str, Any]:
        if method == "initialize":
            params = params if isinstance(params, dict) else {}
            client = params.get("clientInfo")
            if (
                isinstance(client, dict)
                and isinstance(client.get("name"), str)
                and client["name"].strip()
            ):
                self.caller = Caller(client["name"].strip()[:100], self.origin.settings.device)
            asked = params.get("protocolVersion")
            version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
            return {
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": server_info(),
                "instructions": INSTRUCTIONS,
            }
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": [tool.as_mcp() for tool in TOOLS]}
        if method in ("resources/list", "prompts/list"):
            return {method.split("/")[0]: []}
        raise _RpcError(-32601, f"Method not found: {method}")

    def _call_tool(self, request_id: Any, params: Any) -> None:
        try:
            if not isinstance(params, dict) or not isinstance(params.get("name"), str):
                result = tool_result(
                    None, error=OriginError("tools/call needs a tool name and its arguments.")
                )
            else:
                result = run_tool(
                    self.origin,
                    params["name"],
                    params.get("arguments"),
                    self.caller,
                    merged=True,
                )
            self._send({"jsonrpc": "2.0", "id": request_id, "result": result})
        except Exception:
            traceback.print_exc(file=sys.stderr)

    def _send(self, message: dict[str, Any]) -> None:
        data = orjson.dumps(message) + b"\n"
        with self._write_lock:
            self.writer.write(data)
            self.writer.flush()


class _RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
