"""`origin register codex` with the real `codex`: its own `codex mcp add` for stdio and Origin's
config.toml table for the hub, read back by `codex mcp get`; then `codex exec` starts both servers
and offers Origin's tools to the model. The model is a stand-in on loopback that records the one
request Codex sends it (Codex lists the MCP tools it connected to in that request), so nothing
leaves the machine and no account is needed."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest
from clients_support import BARE_PATH, ORIGIN, RunningHub, User, client

pytestmark = [pytest.mark.clients, pytest.mark.e2e]

ALL_TOOLS = {"search", "timeline", "get", "sources", "remember", "correct", "forget", "ingest"}


class Model(BaseHTTPRequestHandler):
    """Answers every request with a 400 after keeping its body: Codex then gives up at once."""

    bodies: list[dict[str, Any]]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        self.bodies.append(json.loads(body))
        answer = b'{"error":{"message":"a test model","type":"invalid_request_error"}}'
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def model() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    bodies: list[dict[str, Any]] = []
    handler = type("Recorder", (Model,), {"bodies": bodies})
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1", bodies
    finally:
        server.shutdown()
        server.server_close()


def codex_get(user: User, name: str) -> dict[str, Any]:
    done = user.run(client("codex"), "mcp", "get", name, "--json")
    return dict(json.loads(done.stdout))


def offered_tools(user: User, model: tuple[str, list[dict[str, Any]]]) -> dict[str, set[str]]:
    """`codex exec` against the stand-in model: the MCP servers' tools, per namespace, that
    Codex put in its request (so it started each server and listed its tools)."""
    base_url, bodies = model
    provider = (
        f'{{name="test", base_url="{base_url}", env_key="TEST_MODEL_KEY", '
        'wire_api="responses", request_max_retries=0, stream_max_retries=0}'
    )
    done = user.run(
        client("codex"),
        "exec",
        "--skip-git-repo-check",
        "-c",
        f"model_providers.test={provider}",
        "-c",
        'model_provider="test"',
        "-c",
        'model="gpt-5"',
        "say hi",
        check=False,
        TEST_MODEL_KEY="unused",
    )
    assert bodies, (done.stdout, done.stderr)
    found: dict[str, set[str]] = {}
    for tool in bodies[0].get("tools", []):
        if tool.get("name", "").startswith("mcp__"):
            found[tool["name"]] = {t["name"] for t in tool.get("tools", [])}
    print({k: sorted(v) for k, v in found.items()})
    return found


def test_stdio_and_hub_registered_by_origin_are_started_by_codex(
    user: User, hub: RunningHub, model: tuple[str, list[dict[str, Any]]]
) -> None:
    client("codex")
    config = user.home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('# the user\'s own settings\napproval_policy = "never"\n')
    said = user.origin("register", "codex").stdout
    assert said.startswith("Registered origin (stdio) with Codex:\n  codex mcp add origin"), said
    said = user.origin("register", "codex", "--hub", hub.url, "--token", hub.token).stdout
    assert (
        said == f"Registered origin-hub (http) with Codex in {config}.\nCheck it: codex mcp list\n"
    )
    assert config.read_text().startswith('# the user\'s own settings\napproval_policy = "never"\n')

    stdio = codex_get(user, "origin")["transport"]
    assert stdio == {**stdio, "type": "stdio", "command": str(ORIGIN), "args": ["mcp"]}
    http = codex_get(user, "origin-hub")["transport"]
    assert http["type"] == "streamable_http" and http["url"] == hub.url
    assert http["http_headers"] == {
        "Authorization": f"Bearer {hub.token}",
        "X-Origin-Client": "codex",
    }
    tools = offered_tools(user, model)
    assert tools.get("mcp__origin") == ALL_TOOLS, tools
    hub_tools = [v for k, v in tools.items() if k != "mcp__origin"]
    assert hub_tools == [ALL_TOOLS], tools


def test_without_the_codex_cli_the_table_origin_writes_is_what_codex_reads(
    user: User, model: tuple[str, list[dict[str, Any]]]
) -> None:
    codex = client("codex")
    user.run(ORIGIN, "register", "codex", PATH=BARE_PATH)
    for _ in range(2):
        user.run(codex, "mcp", "add", "origin", "--", ORIGIN, "mcp")  # and Codex's own, again
    text = (user.home / ".codex" / "config.toml").read_text()
    assert text.count("[mcp_servers.origin]") == 1, text
    assert offered_tools(user, model).get("mcp__origin") == ALL_TOOLS
