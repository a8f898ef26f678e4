"""`origin mcp` fed malformed input straight on its stdin: readable JSON-RPC errors, tool errors
for bad arguments, and it keeps serving; the CLI turns errors into exit code 2 and a message."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import fixture_env

pytestmark = pytest.mark.e2e
ORIGIN = str(Path(sys.executable).with_name("origin"))


def test_garbage_on_stdin_gets_errors_and_the_server_keeps_serving(
    tmp_path: Path, fixtures_dir: Path
):
    env = {**os.environ, **fixture_env(tmp_path)}
    lines = [
        b"\xff\xfe not json at all\n",
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize"\n',  # cut short
        b"[1, 2, 3]\n",
        b'{"jsonrpc": "2.0", "id": 2, "method": "no/such/method"}\n',
        b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "search", "arguments": ["x"]}}\n',
        b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": "nope"}\n',
        b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "search", "arguments": {"query": "'
        + b"x" * 200_000
        + b'"}}}\n',
        b'{"jsonrpc": "2.0", "id": 6, "method": "tools/call",'
        b' "params": {"name": "search", "arguments": {"query": "token bucket"}}}\n',
    ]
    done = subprocess.run(
        [ORIGIN, "mcp"], input=b"".join(lines), env=env, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    by_id = {r.get("id"): r for r in replies}
    parse_errors = [r for r in replies if r.get("error", {}).get("code") == -32700]
    assert len(parse_errors) == 2
    assert [
        r["error"]["code"] for r in replies if r.get("id") is None and r["error"]["code"] == -32600
    ] == [-32600] * 3
    assert by_id[2]["error"]["code"] == -32601
    assert (
        by_id[3]["result"]["isError"]
        and by_id[3]["result"]["content"][0]["text"] == "The arguments of search must be an object."
    )
    assert (
        by_id[4]["result"]["isError"]
        and "needs a tool name" in by_id[4]["result"]["content"][0]["text"]
    )
    assert by_id[5]["result"]["isError"] and by_id[5]["result"]["content"][0]["text"].startswith(
        "query must have at most 10,000 characters"
    )
    found = json.loads(by_id[6]["result"]["content"][0]["text"])
    assert not by_id[6]["result"]["isError"] and any(
        e["id"].startswith("claude-code:") for e in found["events"]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "token", "--limit", "0"], "limit must be between 1 and 100; got 0."),
        (["search", "token", "--since", "yesterday"], "since is not a time"),
        (["get", "claude-code:nope"], "Unknown entry or event claude-code:nope."),
        (
            ["forget", "ent_000000000000", "--reason", "x"],
            "Unknown entry or event ent_000000000000.",
        ),
        (["restore", "tmb_nope"], "Unknown tombstone tmb_nope."),
    ],
)
def test_cli_errors_exit_2_with_the_message(tmp_path: Path, fixtures_dir: Path, args, message):
    env = {**os.environ, **fixture_env(tmp_path)}
    ingest = [ORIGIN, "ingest"]  # a read makes no archive: it says there is none
    subprocess.run(ingest, env=env, capture_output=True, timeout=120, check=True)
    done = subprocess.run([ORIGIN, *args], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert message in " ".join(done.stderr.split())
