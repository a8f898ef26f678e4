"""One walk for several patterns finds exactly what glob.glob finds for each, on random trees."""

from __future__ import annotations

import glob
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from origin_store.parsers.registry import SOURCES
from origin_store.system.globwalk import match_many

AGENT_PATTERNS = [
    pattern for source in SOURCES.values() for kind in source.files for pattern in kind.patterns
]
OTHER_PATTERNS = [
    "**/*.jsonl",
    "*/x*",
    "a?/[ab]*.jsonl",
    "**/sub/**/*",
    ".h*/*",
    "sessions/**/**/r*",
]
NAMES = [
    "a",
    "ab",
    ".h",
    ".hidden",
    "x1",
    "sub",
    "subagents",
    "projects",
    "sessions",
    "archived_sessions",
    "2026",
]
FILES = [
    "a.jsonl",
    "b.jsonl",
    "rollout-1.jsonl",
    "rollout-2.jsonl.zst",
    "x.txt",
    ".h.jsonl",
    "session_index.jsonl",
    "r",
]

paths = st.lists(
    st.tuples(st.lists(st.sampled_from(NAMES), max_size=4), st.sampled_from(FILES + NAMES)),
    min_size=1,
    max_size=25,
)


def glob_of(root: Path, pattern: str) -> list[str]:
    return sorted(
        set(glob.glob(f"{glob.escape(str(root))}/{pattern}", recursive=True, include_hidden=True))
    )


def build(root: Path, tree: list[tuple[list[str], str]]) -> None:
    for dirs, leaf in tree:
        parent = root.joinpath(*dirs)
        try:
            parent.mkdir(parents=True, exist_ok=True)
            target = parent / leaf
            if leaf in NAMES:
                target.mkdir(exist_ok=True)
            elif not target.exists():
                target.write_bytes(b"{}\n")
        except (FileExistsError, NotADirectoryError):
            continue  # a file already sits where this path wants a directory


@settings(deadline=None)
@given(tree=paths)
def test_one_walk_equals_glob_for_every_pattern(tree):
    root = Path(tempfile.mkdtemp())
    try:
        build(root, tree)
        patterns = AGENT_PATTERNS + OTHER_PATTERNS
        together = match_many(str(root), patterns)
        for pattern, found in zip(patterns, together, strict=True):
            assert sorted(found) == glob_of(root, pattern), pattern
            assert sorted(match_many(str(root), [pattern])[0]) == sorted(found)
    finally:
        shutil.rmtree(root)


def test_the_agents_layouts(tmp_path):
    for name in (
        "projects/-home-a/s1.jsonl",
        "projects/-home-a/s1/subagents/agent-x.jsonl",
        "projects/-home-a/s1/subagents/agent-x.meta.json",
        "projects/-home-a/memory/notes.md",
        "sessions/2026/11/23/rollout-1.jsonl",
        "sessions/2026/11/23/rollout-2.jsonl.zst",
        "sessions/rollout-0.jsonl",
        "archived_sessions/rollout-3.jsonl",
        "history.jsonl",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    found = match_many(str(tmp_path), AGENT_PATTERNS)
    every = {Path(p).relative_to(tmp_path).as_posix() for paths in found for p in paths}
    assert every == {
        "projects/-home-a/s1.jsonl",
        "projects/-home-a/s1/subagents/agent-x.jsonl",
        "projects/-home-a/memory/notes.md",  # Claude Code's auto-memory: a memory file
        "sessions/2026/11/23/rollout-1.jsonl",
        "sessions/2026/11/23/rollout-2.jsonl.zst",
        "sessions/rollout-0.jsonl",
        "archived_sessions/rollout-3.jsonl",
    }
    for pattern, paths in zip(AGENT_PATTERNS, found, strict=True):
        assert sorted(paths) == glob_of(tmp_path, pattern)


def test_a_pattern_ending_in_double_star_is_refused():
    with pytest.raises(ValueError):
        match_many("/", ["a/**"])


def test_a_symbolic_link_loop_ends(tmp_path):
    (tmp_path / "sessions" / "a").mkdir(parents=True)
    (tmp_path / "sessions" / "a" / "rollout-1.jsonl").write_bytes(b"")
    (tmp_path / "sessions" / "a" / "loop").symlink_to(tmp_path / "sessions")
    [found] = match_many(str(tmp_path), ["sessions/**/rollout-*.jsonl"])
    assert str(tmp_path / "sessions" / "a" / "rollout-1.jsonl") in found
    assert 1 < len(found) <= 40  # the same file through the loop, cut at the depth bound
