"""`origin mcp`: the tools over MCP stdio (newline-delimited JSON-RPC 2.0).

Agents start this process for every session, and Origin promises a first answer within a few
hundred milliseconds of start. Importing the MCP SDK alone takes over a second on a small
machine (its protocol types are hundreds of pydantic models), so the default loop here speaks
the protocol's handshake era directly, from the same tool table the SDK-based servers use.
`origin mcp --sdk` serves the same tools through the SDK's own stdio server instead.

Freshness follows the contract: ingest in the background at start, a watcher that ingests when a
log file changed, and one last ingest (at most 5 s) when the agent closes the stream.
"""

from __future__ import annotations

import os
import sys
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any, BinaryIO

import orjson

from .app import Origin
from .errors import OriginError
from .freshness import Freshness, ingest_now
from .service import Caller, call
from .tools import INSTRUCTIONS, TOOLS

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
SERVER_INFO = {"name": "origin", "title": "Origin", "version": "0.1.0"}
EXIT_INGEST_SECONDS = 5.0


def tool_result(payload: Any, *, error: OriginError | None = None, request_id: str | None = None) -> dict:
    """One JSON text item; errors carry the readable message (and the hub's structured data)."""
    if error is None:
        return {"content": [{"type": "text", "text": orjson.dumps(payload).decode()}], "isError": False}
    message = error.message + (f" (request {request_id})" if request_id else "")
    result: dict[str, Any] = {"content": [{"type": "text", "text": message}], "isError": True}
    if request_id:
        result["structuredContent"] = {"data": {"category": error.category, "message": error.message, "requestId": request_id}}
    return result


def run_tool(
    origin: Origin, name: str, arguments: Any, caller: Caller, allowed: frozenset[str] | None = None,
    request_id: str | None = None,
) -> dict:
    """Call a tool and shape its MCP result; every failure becomes a tool error, never a crash.
    With a request id (the hub), errors carry it and their category as structured data."""
    if allowed is not None and name not in allowed:
        return tool_result(None, error=OriginError(f"Unknown tool {name!r}.", "not_found"), request_id=request_id)
    try:
        return tool_result(call(origin, name, arguments, caller))
    except OriginError as error:
        return tool_result(None, error=error, request_id=request_id)
    except Exception as error:  # noqa: BLE001 - the edge: report, keep serving
        traceback.print_exc(file=sys.stderr)
        failed = OriginError(f"Origin failed while running {name}: {type(error).__name__}: {error}", "upstream_failure")
        return tool_result(None, error=failed, request_id=request_id)


class StdioServer:
    def __init__(self, origin: Origin, reader: BinaryIO, writer: BinaryIO) -> None:
        self.origin = origin
        self.reader = reader
        self.writer = writer
        self.caller = Caller("unknown", origin.settings.device)
        self._write_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="origin-tool")

    # -- the loop -------------------------------------------------------------------------------

    def serve(self) -> None:
        freshness = Freshness(self.origin, self.origin.settings.watch_interval_ms / 1000)
        freshness.start()
        try:
            for raw in self.reader:
                line = raw.strip()
                if line:
                    self._handle_line(line)
        finally:
            freshness.stop(wait_s=0)
            self._pool.shutdown(wait=True)
            final = threading.Thread(target=ingest_now, args=(self.origin,), name="origin-exit-ingest", daemon=True)
            final.start()
            final.join(EXIT_INGEST_SECONDS)

    def _handle_line(self, line: bytes) -> None:
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError:
            self._send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error: not JSON."}})
            return
        if isinstance(message, list):
            for item in message:
                self._dispatch(item)
            return
        self._dispatch(message)

    def _dispatch(self, message: Any) -> None:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return  # a response to nothing we asked: ignore
            self._send({"jsonrpc": "2.0", "id": message.get("id") if isinstance(message, dict) else None,
                        "error": {"code": -32600, "message": "Invalid request: expected a JSON-RPC 2.0 message."}})
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
            self._send({"jsonrpc": "2.0", "id": request_id, "error": {"code": error.code, "message": error.message}})
            return
        self._send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def _answer(self, method: str, params: Any) -> dict:
        if method == "initialize":
            params = params if isinstance(params, dict) else {}
            client = params.get("clientInfo")
            if isinstance(client, dict) and isinstance(client.get("name"), str) and client["name"].strip():
                self.caller = Caller(client["name"].strip()[:100], self.origin.settings.device)
            asked = params.get("protocolVersion")
            version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
            return {
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": SERVER_INFO,
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
                result = tool_result(None, error=OriginError("tools/call needs a tool name and its arguments."))
            else:
                result = run_tool(self.origin, params["name"], params.get("arguments"), self.caller)
            self._send({"jsonrpc": "2.0", "id": request_id, "result": result})
        except Exception:  # noqa: BLE001 - never let a worker die silently
            traceback.print_exc(file=sys.stderr)

    def _send(self, message: dict) -> None:
        data = orjson.dumps(message) + b"\n"
        with self._write_lock:
            self.writer.write(data)
            self.writer.flush()


class _RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def run_from_args(args: list[str]) -> int:
    """`origin mcp [--sdk]`: serve until the agent closes stdin."""
    unknown = [a for a in args if a != "--sdk"]
    if unknown:
        print(f"origin mcp: unknown option {unknown[0]} (see origin mcp --help)", file=sys.stderr)
        return 2
    origin = Origin.open()
    try:
        if "--sdk" in args:
            from .mcp_sdk import serve_stdio

            serve_stdio(origin)
        else:
            StdioServer(origin, sys.stdin.buffer, os.fdopen(sys.stdout.fileno(), "wb", buffering=0, closefd=False)).serve()
    finally:
        origin.close()
    return 0
