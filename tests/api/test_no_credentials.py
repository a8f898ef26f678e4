"""Credentials stored beside agents' chats (Cursor's auth tokens, grok-cli's settings, zcode's
provider keys) are never read: none of the samples' `FAKE-…-DO-NOT-INGEST` values reaches the
store, a row log, a mirror, the index or any tool's answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import DATA, SHARED_FIXTURES, fixture_env

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_store import Settings
from origin_store.core.db import loads
from origin_store.core.lmdbio import pairs
from origin_store.reader import read_mirror_text

MARK = b"DO-NOT-INGEST"
ROOTS = [DATA, *([SHARED_FIXTURES] if SHARED_FIXTURES.is_dir() else [])]


def _planted(root: Path) -> int:
    """How many files of the samples hold a marked value (the test would prove nothing else)."""
    return sum(MARK in path.read_bytes() for path in root.rglob("*") if path.is_file())


@pytest.mark.parametrize("root", ROOTS, ids=lambda root: root.name)
def test_no_marked_value_is_archived_or_answered(tmp_path: Path, root: Path):
    assert _planted(root) >= 2
    env = {**fixture_env(tmp_path, root=root), "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0"}
    with Origin.open(Settings.from_env(env)) as origin:
        report = origin.ingest()
        assert report is not None and report.events > 50
        store = origin.store
        with store.read() as txn:
            for key, value in store.iter_events(txn):
                assert MARK.decode() not in str(store.codec.decode(txn, key, value)), key
            for name in ("sessions", "problems", "files", "mirrors", "entries", "meta"):
                for key, value in pairs(txn.cursor(db=store.dbs[name])):
                    assert MARK not in key + value, (name, key)
            cursors = [loads(value) for _, value in pairs(txn.cursor(db=store.dbs["files"]))]
        for cursor in cursors:  # every line of every mirror, as `sources` reads it
            mirror = cursor["mirror"]["id"]
            for number in range(1, cursor["lines"] + 1):
                line = read_mirror_text(store, origin.home, mirror, number, 1 << 20)
                assert line is not None and MARK.decode() not in line[0], (mirror, number)
        for path in (origin.home / "rows").rglob("*"):
            assert path.is_dir() or MARK not in path.read_bytes(), path
        caller = Caller("test-agent", origin.settings.device)
        for words in ("DO-NOT-INGEST", "FAKE", "accessToken"):
            found = call(origin, "search", {"query": words, "include_tools": True}, caller)
            assert MARK.decode() not in str(found), words
