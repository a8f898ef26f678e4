"""Secrets never reach the archive: a Claude Code log (and a memory file, read through a row
log) holding one planted secret of each kind, in prose, JSON, diffs and env files, goes through
`origin ingest`; none of the values is then in the LMDB file, the index, a mirror, a row log or
any tool's answer, `[redacted <kind>]` stands where each was, and the mirror has the original's
lines. Then `origin redact --rescan` mends a store ingested before redaction, index included.

The values are fake (FAKE, EXAMPLE, test keys) but have the real shapes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
import zstandard

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_store import Settings
from origin_store.care.verify import verify
from origin_store.redaction import mask as redact
from origin_store.redaction.find import disabled

ORIGIN = str(Path(sys.executable).with_name("origin"))
SESSION = "5ec7e7a1-0000-4000-8000-00000000a001"

#: (kind, the secret's value, how it appears in the log's text).
PLANTED = [
    ("aws-access-key", "AKIAFAKEEXAMPLE12345", "export AWS_ACCESS_KEY_ID={}"),
    ("aws-secret-key", "FAKEfake/EXAMPLE+example0123456789FAKEab", "AWS_SECRET_ACCESS_KEY={}"),
    ("github-token", "ghp_FAKEexample0123456789FAKEexample0123", "push with {} please"),
    ("anthropic-key", "sk-ant-api03-FAKEexample0123456789-FAKEexampleAA", "key: {}"),
    ("openai-key", "sk-proj-FAKEexample0123456789FAKEexampleZZ", "OPENAI key is {} ok"),
    ("slack-token", "xoxb-123456789012-FAKEexample01", "the bot token {}."),
    ("slack-webhook", "services/T00FAKE00/B00FAKE00/FAKEexample0123456789ab",
     "curl -X POST https://hooks.slack.com/{} -d hi"),
    ("stripe-key", "sk_live_FAKEexample0123456789", "stripe.api_key = '{}'"),
    ("google-api-key", "AIzaFAKEexample0123456789_FAKEexample-0", "maps {}"),
    ("gitlab-token", "glpat-FAKEexample0123456789", "GL {}"),
    ("npm-token", "npm_FAKEexample0123456789FAKEexample0123", "//registry/:_authToken={}"),
    ("huggingface-token", "hf_FAKEexample0123456789FAKEexample01", "hf login {}"),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJGQUtFIn0.FAKEsignatureEXAMPLE0123",
     "cookie session={}"),
    ("bearer-token", "FAKEbearer0123456789example", "-H 'Authorization: Bearer {}'"),
    ("basic-auth", "RkFLRTpFWEFNUExFcGFzc3dvcmQ=", "Authorization: Basic {}"),
    ("connection-password", "FAKEpass0123", "DATABASE_URL=postgres://app:{}@db.internal:5432/app"),
    ("password", "FAKE-hunter2-pass", "DB_PASSWORD={}"),
    ("secret", "FAKEclientSecret0123", "client_secret: {}"),
]  # fmt: skip
KEY_LINES = ["MIIEowIBAAKCAQEAFAKEEXAMPLEKEYMATERIAL0123456789abcdef", "FAKEEXAMPLEKEY0123456789=="]
KEY = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(KEY_LINES) + "\n-----END RSA PRIVATE KEY-----"
SECRETS = [value for _, value, _ in PLANTED] + KEY_LINES


def _said(kind: str) -> str:
    return next(template.format(value) for k, value, template in PLANTED if k == kind)


def _line(kind: str, n: int, content: object, role: str) -> bytes:
    record = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/vault",
        "sessionId": SESSION,
        "version": "2.1.241",
        "gitBranch": "main",
        "type": kind,
        "message": {"role": role, "content": content}
        if role == "user"
        else {"id": f"msg_{n}", "type": "message", "role": role, "content": content},
        "uuid": f"5ec7e7a1-0000-4000-8000-{n:012d}",
        "timestamp": f"2026-10-22T09:00:{n:02d}.000Z",
    }
    return orjson.dumps(record) + b"\n"


def write_logs(claude: Path) -> Path:
    """The log: prose (a user's message), JSON (a tool call's input), an env file and a diff
    (tool results), and a private key; plus a memory file holding a secret (a row log)."""
    prose = "Here is everything: " + "; ".join(_said(k) for k, _, _ in PLANTED[:13])
    tool_input = {"command": f"{_said('bearer-token')} {_said('basic-auth')}", "token": "x"}
    env_file = "\n".join(
        _said(k) for k in ("aws-access-key", "aws-secret-key", "connection-password", "password")
    )
    diff = f"diff --git a/.env b/.env\n+{_said('secret')}\n+API_KEY={PLANTED[2][1]}\n"
    lines = [
        _line("user", 1, prose, "user"),
        _line("assistant", 2, [{"type": "text", "text": "I will look at the env file."}], "a"),
        _line(
            "assistant",
            3,
            [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": tool_input}],
            "assistant",
        ),  # fmt: skip
        _line(
            "user",
            4,
            [{"type": "tool_result", "tool_use_id": "toolu_1", "content": env_file}],
            "user",
        ),  # fmt: skip
        _line(
            "user", 5, [{"type": "tool_result", "tool_use_id": "toolu_1", "content": diff}], "user"
        ),  # fmt: skip
        _line("user", 6, f"and the deploy key:\n{KEY}\nkeep it safe", "user"),
    ]
    log = claude / "projects" / "-home-dev-vault" / f"{SESSION}.jsonl"
    log.parent.mkdir(parents=True)
    log.write_bytes(b"".join(lines))
    (claude / "CLAUDE.md").write_text(f"# Notes\nDeploy with GITHUB_TOKEN={PLANTED[2][1]}\n")
    return log


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    claude = tmp_path / "claude"
    write_logs(claude)
    for name in ("codex", "zcode", "grok"):
        (tmp_path / name).mkdir()
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("ORIGIN_", "CLAUDE_"))},
        "HOME": str(tmp_path),
        "ORIGIN_HOME": str(tmp_path / "origin"),
        "CLAUDE_CONFIG_DIR": str(claude),
        "CODEX_HOME": str(tmp_path / "codex"),
        "ZCODE_STORAGE_DIR": str(tmp_path / "zcode"),
        "GROK_HOME": str(tmp_path / "grok"),
        "ORIGIN_DEVICE": "testbox",
        "ORIGIN_WATCH_INTERVAL_MS": "0",
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0",
    }


def _files(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()]


def _mirror_bytes(raw: Path) -> bytes:
    """Every mirror decompressed (each .zst frame) and every tail, as one blob."""
    out = []
    for path in _files(raw):
        if path.name.endswith(".zst"):
            with open(path, "rb") as handle:
                reader = zstandard.ZstdDecompressor().stream_reader(handle, read_across_frames=True)
                out.append(reader.read())
        elif path.name.endswith(".tail"):
            out.append(path.read_bytes())
    return b"\n".join(out)


def _store_bytes(origin: Origin) -> bytes:
    """The LMDB data file's pages in use (the file is sparse, as large as the map)."""
    env = origin.store.env
    used = (env.info()["last_pgno"] + 1) * env.stat()["psize"]
    with open(origin.home / "store" / "data.mdb", "rb") as handle:
        return handle.read(used)


def _answers(origin: Origin) -> str:
    """What the tools say about the session: search (for pieces of every secret), timeline,
    get and sources of every event."""
    caller = Caller("test-agent", "testbox")
    said = [call(origin, "timeline", {"session": SESSION, "since": "3650d",
                                      "include_tools": True}, caller)]  # fmt: skip
    for words in ("FAKEexample0123456789", "FAKEpass0123", "hunter2", "MIIEowIBAAKCAQEAFAKE"):
        said.append(call(origin, "search", {"query": words, "include_tools": True}, caller))
    with origin.store.read() as txn:
        ids = [key.decode() for key, _ in origin.store.iter_events(txn)]
    for event_id in ids:
        said.append(call(origin, "get", {"id": event_id}, caller))
        said.append(call(origin, "sources", {"id": event_id}, caller))
    return str(said)


def assert_nothing_kept(origin: Origin, *, raw_store: bool = True) -> None:
    """No secret anywhere. `raw_store`: not even in the LMDB file's bytes, which holds only for
    what ingest masked: records rewritten by a rescan leave their old bytes in LMDB's free
    pages until they are reused (docs/redaction.md)."""
    home = origin.home
    data = _store_bytes(origin) if raw_store else b""
    mirrored = _mirror_bytes(home / "raw")
    rows = b"".join(path.read_bytes() for path in _files(home / "rows"))
    index = b"".join(path.read_bytes() for path in _files(home / "index"))
    answers = _answers(origin)
    for secret in SECRETS:
        raw = secret.encode()
        assert raw not in data, secret
        assert raw not in mirrored and raw not in rows, secret
        # The index keeps terms lowercased, split at punctuation; its term dictionary is an FST,
        # so the search tool is the real check, and the bytes a second one.
        for word in secret.replace("/", "-").replace("+", "-").replace(".", "-").split("-"):
            if len(word) >= 12:
                assert word.lower().encode() not in index, (secret, word)
        assert secret not in answers, secret
    with origin.store.read() as txn:
        texts = str(
            [origin.store.codec.decode(txn, k, v) for k, v in origin.store.iter_events(txn)]
        )
    assert all(secret not in texts for secret in SECRETS)


@pytest.mark.e2e
def test_ingested_secrets_are_nowhere(env: dict[str, str], tmp_path: Path):
    done = subprocess.run([ORIGIN, "ingest", "--json"], env=env, capture_output=True, check=True)
    report = orjson.loads(done.stdout)
    assert report["events"] >= 6 and not report["errors"]
    # every kind counted, the memory file's token (a row log) too
    assert set(report["redacted"]) == set(redact.KINDS), report["redacted"]
    with Origin.open(Settings.from_env(env)) as origin:
        origin.searcher.catch_up()
        assert_nothing_kept(origin)
        mirror = origin.home / "raw" / "claude-code" / "projects" / "-home-dev-vault"
        original = tmp_path / "claude" / "projects" / "-home-dev-vault" / f"{SESSION}.jsonl"
        kept = _mirror_bytes(mirror).split(b"\n")
        lines = [line for line in kept if line]
        assert len(lines) == len(original.read_bytes().splitlines())
        assert all(orjson.loads(line) for line in lines)  # JSON stays JSON
        shown = b"\n".join(lines).decode()
        for kind in redact.KINDS:
            assert f"[redacted {kind}]" in shown or kind == "secret", kind
        assert "client_secret: [redacted secret]" in shown  # the name kept, the value masked
        assert "postgres://app:[redacted connection-password]@db.internal" in shown
        status = subprocess.run(
            [ORIGIN, "status", "--json"], env=env, capture_output=True, check=True
        )
        assert orjson.loads(status.stdout)["redacted"] == report["redacted"]
        assert verify(origin.store, origin.home).ok


@pytest.mark.e2e
def test_rescan_mends_an_archive_ingested_before_redaction(env: dict[str, str]):
    with Origin.open(Settings.from_env(env)) as origin, disabled():
        origin.ingest()
        origin.searcher.catch_up()
        caller = Caller("test-agent", "testbox")
        before = call(origin, "search", {"query": "FAKEpass0123", "include_tools": True}, caller)
        assert "FAKEpass0123" in str(before)  # the archive as it was: secrets stored and found
    done = subprocess.run(
        [ORIGIN, "redact", "--rescan", "--json"], env=env, capture_output=True, check=True
    )
    report = orjson.loads(done.stdout)
    assert report["events"] >= 5 and report["mirrors"] >= 2 and report["row_logs"] == 1
    assert report["sessions"] >= 1  # the first prompt, which held secrets
    assert set(report["redacted"]) == set(redact.KINDS)
    again = subprocess.run(
        [ORIGIN, "redact", "--rescan", "--json"], env=env, capture_output=True, check=True
    )
    assert orjson.loads(again.stdout)["mirrors"] == 0  # nothing left to do
    with Origin.open(Settings.from_env(env)) as origin:
        assert verify(origin.store, origin.home).ok
        assert_nothing_kept(origin, raw_store=False)
        assert origin.ingest().events == 0  # the row log is read again: the same events
        assert verify(origin.store, origin.home).ok
