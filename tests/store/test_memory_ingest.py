"""Memory files through the real ingest: read whole into row logs, each text a version once."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import DATA

from origin_store import Ingester, Settings, Store
from origin_store.parsers import memory
from origin_store.parsers.base import Source
from origin_store.reader import get_event, get_session, session_event_ids

FILES = {
    "CLAUDE.md",
    "rules/commits.md",
    "projects/-home-dev-shop-api/memory/MEMORY.md",
    "projects/-home-dev-shop-api/memory/project_migrations.md",
    "projects/-home-dev-shop-api/memory/feedback_reviews.md",
}


@pytest.fixture
def claude(tmp_path: Path) -> Iterator[tuple[Path, Store, Ingester]]:
    """~/.claude holding the samples, and an ingester that knows only its memory files."""
    root = Path(shutil.copytree(DATA / "memory" / "claude-code", tmp_path / ".claude"))
    source = Source("claude-code", lambda environ, home: [root], memory.MEMORY_KINDS["claude-code"])
    settings = Settings.from_env({"HOME": str(tmp_path), "ORIGIN_HOME": str(tmp_path / "origin")})
    store = Store.open(settings.home, map_size=1 << 24)
    yield root, store, Ingester(store, settings, {"claude-code": source})
    store.close()


def versions(store: Store, path: Path) -> list[tuple[str, int]]:
    """The file's memory events, oldest first: (text, time)."""
    with store.read() as txn:
        found = []
        for event_id in session_event_ids(store, txn, "claude-code", f"memory:{path}"):
            event = get_event(store, txn, event_id)
            assert event is not None
            found.append((event["text"], event["time"]))
        return found


def test_each_file_is_a_session_of_its_versions(claude: tuple[Path, Store, Ingester]) -> None:
    root, store, ingester = claude
    assert ingester.run().events == len(FILES)
    for rel in FILES:
        path = root / rel
        assert versions(store, path) == [(path.read_text(), path.stat().st_mtime_ns // 10**6)]
        with store.read() as txn:
            session = get_session(store, txn, "claude-code", f"memory:{path}")
        assert session is not None and session["title"] == f".claude/{rel}"
        assert session["events"] == 1 and session["project"] is None


def test_a_change_is_a_new_version_and_a_touch_is_none(
    claude: tuple[Path, Store, Ingester],
) -> None:
    root, store, ingester = claude
    ingester.run()
    path = root / "CLAUDE.md"
    first = path.read_text()
    path.write_text(first + "- Run the linter before pushing.\n")
    os.utime(path, ns=(1_800_000_000_000_000_000, 1_800_000_000_000_000_000))
    assert ingester.run().events == 1
    os.utime(path, ns=(1_800_000_060_000_000_000, 1_800_000_060_000_000_000))
    assert ingester.run().events == 0
    texts = [text for text, _ in versions(store, path)]
    assert texts == [first, first + "- Run the linter before pushing.\n"]
    assert versions(store, path)[1][1] == 1_800_000_000_000
