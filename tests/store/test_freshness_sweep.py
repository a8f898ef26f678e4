"""The sweep: directory listings reused while their directory's mtime holds, new files and
directories found, deleted files dropped, and the cold logs checked in turns."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from origin_store import Settings
from origin_store.ingest import discovery
from origin_store.ingest.discovery import Sweep, discover
from origin_store.parsers.registry import SOURCES

OLD = time.time() - 3 * 86400  # written long ago: neither racy nor hot


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    claude = tmp_path / "claude"
    for project, names in {"p1": ["a", "b"], "p2": ["c"]}.items():
        folder = claude / "projects" / project
        folder.mkdir(parents=True)
        for name in names:
            (folder / f"{name}.jsonl").write_text("{}\n")
    _age(claude)
    return claude


def _age(root: Path) -> None:
    """Every file and directory under root (and root) written long ago."""
    for folder, dirs, files in os.walk(root):
        for name in files + dirs:
            os.utime(os.path.join(folder, name), (OLD, OLD))
    os.utime(root, (OLD, OLD))


def _settings(tmp_path: Path, claude: Path) -> Settings:
    return Settings.from_env(
        {
            "HOME": str(tmp_path / "home"),
            "ORIGIN_HOME": str(tmp_path / "origin"),
            "CLAUDE_CONFIG_DIR": str(claude),
            "CODEX_HOME": str(tmp_path / "no-codex"),
        }
    )


def _walk(tmp_path: Path, claude: Path) -> tuple[Sweep, list[str]]:
    """One pass's discovery with the sweep the last one saved; saved again after."""
    sweep = Sweep.load(tmp_path / "sweep")
    found = sweep.discover(SOURCES, _settings(tmp_path, claude))
    sweep.save()
    return sweep, sorted(os.path.relpath(name, claude) for name, *_ in found)


def test_listings_are_reused_and_changes_are_found(
    tmp_path: Path, tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scanned: list[str] = []
    original = discovery.scan

    def counted(directory: str) -> list[tuple[str, bool]] | None:
        scanned.append(os.path.relpath(directory, tree))
        return original(directory)

    monkeypatch.setattr(discovery, "scan", counted)
    first, found = _walk(tmp_path, tree)
    assert found == ["projects/p1/a.jsonl", "projects/p1/b.jsonl", "projects/p2/c.jsonl"]
    assert not first.known and sorted(scanned) == [".", "projects", "projects/p1", "projects/p2"]

    scanned.clear()
    again, found_again = _walk(tmp_path, tree)
    assert again.known and found_again == found and scanned == [] and again.new == set()

    # A new file in an existing directory: that directory alone is read again.
    (tree / "projects" / "p1" / "d.jsonl").write_text("{}\n")
    os.utime(tree / "projects" / "p1", (OLD + 60, OLD + 60))
    scanned.clear()
    sweep, found = _walk(tmp_path, tree)
    assert "projects/p1/d.jsonl" in found and scanned == ["projects/p1"]
    assert sweep.new == {str(tree / "projects" / "p1" / "d.jsonl")}

    # A new directory: its parent's mtime changes, and the new one is read.
    (tree / "projects" / "p3").mkdir()
    (tree / "projects" / "p3" / "e.jsonl").write_text("{}\n")
    _age(tree / "projects" / "p3")
    os.utime(tree / "projects", (OLD + 120, OLD + 120))
    scanned.clear()
    sweep, found = _walk(tmp_path, tree)
    assert "projects/p3/e.jsonl" in found and sorted(scanned) == ["projects", "projects/p3"]
    assert sweep.new == {str(tree / "projects" / "p3" / "e.jsonl")}

    # A deleted file is gone from what the next pass finds.
    (tree / "projects" / "p2" / "c.jsonl").unlink()
    os.utime(tree / "projects" / "p2", (OLD + 180, OLD + 180))
    sweep, found = _walk(tmp_path, tree)
    assert "projects/p2/c.jsonl" not in found
    assert found == sorted(
        os.path.relpath(log.path, tree) for log in discover(SOURCES, _settings(tmp_path, tree))
    )


def test_a_directory_written_just_now_is_read_again(
    tmp_path: Path, tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its mtime might not show an entry added within the same tick of the clock."""
    (tree / "projects" / "p1" / "d.jsonl").write_text("{}\n")  # p1's mtime is now
    _walk(tmp_path, tree)
    scanned: list[str] = []
    original = discovery.scan

    def counted(directory: str) -> list[tuple[str, bool]] | None:
        scanned.append(os.path.relpath(directory, tree))
        return original(directory)

    monkeypatch.setattr(discovery, "scan", counted)
    (tree / "projects" / "p1" / "f.jsonl").write_text("{}\n")
    _, found = _walk(tmp_path, tree)
    assert "projects/p1/f.jsonl" in found and scanned == ["projects/p1"]


def test_cold_logs_take_turns_and_new_and_hot_ones_are_always_checked(
    tmp_path: Path, tree: Path
) -> None:
    _walk(tmp_path, tree)
    found = Sweep.load(tmp_path / "sweep").discover(SOURCES, _settings(tmp_path, tree))
    sweep = Sweep.load(tmp_path / "sweep")
    sweep.discover(SOURCES, _settings(tmp_path, tree))
    hot = found[0][0]
    sweep.hot[hot] = time.time_ns()
    checked: list[set[str]] = []
    turn = 0
    for _ in range(2):
        chosen, turn = sweep.pick(found, 2, turn)
        checked.append({name for name, *_ in chosen})
    assert all(hot in names for names in checked)
    assert set().union(*checked) == {name for name, *_ in found}
    assert checked[0] != checked[1]
    # A first pass, or one round, checks everything.
    assert Sweep(tmp_path / "none").pick(found, 6, 0)[0] == found
    assert sweep.pick(found, 1, 3) == (found, 0)
