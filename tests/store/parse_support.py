"""Helpers for the parser tests: fixture roots, and records seen the way the store sees them."""

from __future__ import annotations

from pathlib import Path

from helpers import FIXTURES

from origin_store.model import EventRecord, Record, SessionFact

if not FIXTURES.is_dir():  # fail loudly: a missing fixture tree must never skip the parser tests
    raise RuntimeError(f"the shared fixtures are missing at {FIXTURES}")


def fixture_root(source_dir: str) -> Path:
    return FIXTURES / source_dir


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
