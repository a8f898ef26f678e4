"""Helpers for the parser tests: sample roots, and records seen the way the store sees them."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import zstandard
from helpers import SHARED_FIXTURES, sample_root

from origin_store.ingest import rowlog
from origin_store.model import EventRecord, Record, SessionFact
from origin_store.parsers.base import FileKind


def fixture_root(source_dir: str) -> Path:
    """The project's own sample logs of one agent (always present; databases built)."""
    return sample_root(source_dir)


def kind_lines(kind: FileKind, path: Path) -> list[bytes]:
    """The lines a kind's parser gets from a file: its own for a log, those of its row log (as a
    first read writes them) for a database or a file read whole."""
    if kind.snapshots:
        return [line for _, line, _ in rowlog.read_rows(path, kind)]
    return read_lines(path)


def shared_root(source_dir: str) -> Path:
    """The shared fixtures of one agent, for the cross-check; skips the test where they are absent."""
    if not SHARED_FIXTURES.is_dir():
        pytest.skip(f"cross-check against the shared fixtures: none at {SHARED_FIXTURES}")
    return SHARED_FIXTURES / source_dir


def read_lines(path: Path) -> list[bytes]:
    """A log's lines as the store feeds them: decompressed, and only those ended by a newline."""
    data = path.read_bytes()
    if path.name.endswith(".zst"):
        data = (
            zstandard.ZstdDecompressor()
            .stream_reader(io.BytesIO(data), read_across_frames=True)
            .read()
        )
    return data.split(b"\n")[:-1]


def events(records: list[Record]) -> list[EventRecord]:
    return [r for r in records if isinstance(r, EventRecord)]


def merged(records: list[Record]) -> dict[str, dict]:
    """Facts merged the way the store does: best rank wins (later on ties), first prompt/cwd."""
    sessions: dict[str, dict] = {}
    for fact in (r for r in records if isinstance(r, SessionFact)):
        s = sessions.setdefault(
            fact.session, {"title": None, "rank": -1, "prompt": None, "cwd": None, "parent": None}
        )
        if fact.title is not None and fact.title_rank >= s["rank"]:
            s["title"], s["rank"] = fact.title, fact.title_rank
        for key in ("prompt", "cwd", "parent"):
            if s[key] is None and getattr(fact, key) is not None:
                s[key] = getattr(fact, key)
    return sessions


def all_text(records: list[Record]) -> str:
    parts = []
    for r in records:
        if isinstance(r, EventRecord):
            parts.append(r.text)
        elif isinstance(r, SessionFact):
            parts.extend(x for x in (r.title, r.prompt) if x)
    return "\n".join(parts)
