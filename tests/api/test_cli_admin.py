"""The archive's care through `origin_api.admin`, and the CLI commands that only render it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import fixture_env
from typer.testing import CliRunner

from origin_api import admin
from origin_api.cli.commands import app
from origin_api.cli.memory_cmds import KINDS
from origin_api.contract.timeargs import render
from origin_api.errors import OriginError
from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_search import SearchIndex
from origin_store import Settings
from origin_store.model import ENTRY_KINDS


@pytest.fixture
def env(tmp_path: Path, fixtures_dir: Path) -> dict[str, str]:
    return {**fixture_env(tmp_path), "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0"}


@pytest.fixture
def opened(env: dict[str, str]):
    with Origin.open(Settings.from_env(env)) as origin:
        yield origin


def _cli(env: dict[str, str], *args: str):
    return CliRunner().invoke(app, list(args), env=env)


def test_ingest_status_verify_and_index(opened: Origin):
    plan = admin.plan_ingest(opened)
    assert plan.files and plan.pending_bytes > 0
    report = admin.ingest(opened, plan=plan)
    assert report.events > 0
    assert admin.plan_ingest(opened).pending_bytes == 0
    info = admin.status(opened)
    assert info["events"] == report.events and info["last_ingest"]["events"] == report.events
    assert admin.verify(opened).ok
    indexed = admin.index(opened)
    assert indexed.docs >= report.events
    assert admin.reindex(opened).docs == indexed.docs


def test_tokens(opened: Origin):
    secret = admin.create_token(opened, "laptop", "read")
    assert secret.startswith("ogn_")
    assert [(t.name, t.scope, t.active) for t in admin.list_tokens(opened)] == [
        ("laptop", "read", True)
    ]
    assert admin.revoke_token(opened, "laptop").revoked
    kept = admin.hub_token(opened, opened.home / admin.TOKEN_FILE)
    assert admin.hub_token(opened, opened.home / admin.TOKEN_FILE).secret == kept.secret
    tokens = {t.name: t for t in admin.list_tokens(opened)}
    assert tokens[admin.LOCAL_TOKEN].active and not tokens["laptop"].active


def test_restore_undoes_a_forget_and_refuses_unknown_tombstones(opened: Origin):
    admin.ingest(opened)
    caller = Caller("test", "testbox")
    event = call(opened, "search", {"scope": "events", "limit": 1}, caller)["events"][0]
    cited = {
        "kind": "memory",
        "text": "the cache lives in /var/cache",
        "sources": [{"event_id": event["id"]}],
        "confidence": 0.9,
    }
    entry = call(opened, "remember", cited, caller)
    entry_id = entry["entry"]["id"]
    forgotten = call(opened, "forget", {"id": entry_id, "reason": "wrong"}, caller)
    with pytest.raises(OriginError, match="has been forgotten"):
        call(opened, "get", {"id": entry_id}, caller)
    admin.restore(opened, forgotten["tombstone"])
    assert call(opened, "get", {"id": entry_id}, caller)["entry"]["id"] == entry_id
    with pytest.raises(OriginError, match="Unknown tombstone tmb_nothing"):
        admin.restore(opened, "tmb_nothing")


def test_the_demo_is_an_archive_of_its_own_under_the_home(env: dict[str, str]):
    settings = Settings.from_env(env)
    demo = admin.demo_of(settings)
    assert demo.home == Path(env["ORIGIN_HOME"]) / "demo" and demo.samples == demo.home / "samples"
    shown = demo.settings(settings)
    assert shown.environ["CLAUDE_CONFIG_DIR"] == str(demo.samples / "claude")
    assert shown.environ["CODEX_HOME"] == str(demo.samples / "codex")
    assert not demo.exists and not demo.written


def test_cli_status_and_token_list_render_times_like_the_tools(env: dict[str, str]):
    assert _cli(env, "ingest").exit_code == 0
    with Origin.open(Settings.from_env(env)) as origin:
        last = admin.status(origin)["last_ingest"]["time"]
    out = _cli(env, "status").output
    assert f"last ingest {render(last)}:" in out
    assert _cli(env, "token", "create", "laptop").exit_code == 0
    with Origin.open(Settings.from_env(env)) as origin:
        created = admin.list_tokens(origin)[0].created
    listed = _cli(env, "token", "list").output
    assert f"created {render(created)}" in listed and "never" in listed


def test_cli_reindex_with_the_index_writer_held_exits_2_with_a_message(env: dict[str, str]):
    assert _cli(env, "ingest").exit_code == 0
    held = SearchIndex.open(Path(env["ORIGIN_HOME"]) / "index").writer()
    try:
        result = _cli(env, "reindex")
    finally:
        held.close()
    assert result.exit_code == 2, result.output
    assert (
        "error:" in result.output
        and "Another process is writing to the search index" in result.output
    )
    assert "Traceback" not in result.output
    assert _cli(env, "reindex").exit_code == 0


def test_cli_errors_of_each_layer_exit_2(env: dict[str, str]):
    result = _cli(env, "restore", "tmb_nothing")
    assert result.exit_code == 2 and "Unknown tombstone tmb_nothing." in result.output
    result = _cli(env, "token", "revoke", "nobody")
    assert result.exit_code == 2 and "error:" in result.output


def test_cli_compact_refuses_a_missing_or_damaged_store_in_one_line(env: dict[str, str]):
    home = Path(env["ORIGIN_HOME"])
    result = _cli(env, "compact")
    assert result.exit_code == 2, result.output
    assert "There is no store at" in result.output and "Traceback" not in result.output
    (home / "store").mkdir(parents=True)
    garbage = bytes(range(256)) * 400  # not an LMDB file
    (home / "store" / "data.mdb").write_bytes(garbage)
    result = _cli(env, "compact")
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "its store cannot be opened" in said and "MDB_INVALID" in said
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert (home / "store" / "data.mdb").read_bytes() == garbage  # left as it was
    assert not (home / "store.compacting").exists()


def test_kind_help_names_every_entry_kind():
    assert KINDS == "memory, knowledge or cognition" or all(kind in KINDS for kind in ENTRY_KINDS)
    for command in ("search", "remember"):
        out = CliRunner().invoke(app, [command, "--help"], terminal_width=200).output
        assert all(kind in out for kind in ENTRY_KINDS), command


def test_cli_reaches_the_lower_layers_only_for_error_types_and_entry_kinds():
    import ast

    from helpers import ROOT

    lower = ("origin_store", "origin_search")
    allowed = {
        ("origin_store", "StoreError"),
        ("origin_search", "SearchError"),
        ("origin_store.model", "ENTRY_KINDS"),
    }
    for path in sorted((ROOT / "origin_api" / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                assert not any(a.name.split(".")[0] in lower for a in node.names), path.name
            elif (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and (node.module or "").split(".")[0] in lower
            ):
                assert {(node.module, a.name) for a in node.names} <= allowed, (
                    path.name,
                    node.module,
                )
