"""Imported entries: a memory file's versions mirrored into one entry, in a real store.

Each pass of a test stores the parser's events and calls `import_memories` in the same write
transaction, as the ingest commit does: the file's text and mtime go through `file_line` and the
memory parser, so the ids, sessions and projects are the real ones."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import DATA
from parse_support import events

from origin_store import Store
from origin_store.core import keys
from origin_store.entries import versions as store_entries
from origin_store.entries.imports import import_memories, memory_file_key
from origin_store.model import EventRecord, SessionFact, merge_session, new_session, widen
from origin_store.parsers import memory
from origin_store.parsers.base import file_line
from origin_store.project import project_of
from origin_store.reader import get_session

T0 = 1_793_000_000_000
MINUTE = 60_000
A = "# How I work\n\n- Reply in the language I write in.\n"
B = "# How I work\n\n- Reply in the language I write in.\n- Keep pull requests small.\n"
C = "# How I work\n\n- Always answer in English.\n"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(tmp_path / "origin", map_size=1 << 24)
    yield opened
    opened.close()


@pytest.fixture
def claude_md(tmp_path: Path) -> Path:
    """~/.claude/CLAUDE.md of a test's home."""
    path = tmp_path / "home" / ".claude" / "CLAUDE.md"
    path.parent.mkdir(parents=True)
    return path


def version(path: Path, text: str, mtime: int, rel: str = "CLAUDE.md") -> list[Any]:
    """A version of a user file as the parser reads it from its row log line."""
    path.write_text(text)
    kind = memory.MEMORY_KINDS["claude-code"][0]
    return kind.parse(file_line(str(path), text.encode(), mtime), 1, kind.start(rel))


def ingest(store: Store, records: list[Any], device: str | None = "laptop") -> list[str]:
    """Events and sessions stored, then the import, in one write transaction."""
    found = events(records)
    facts = [r for r in records if isinstance(r, SessionFact)]

    def work(txn: Any) -> list[str]:
        for fact in facts:
            key = keys.session_key(fact.source, fact.session)
            session = store.get(txn, "sessions", key) or new_session(fact.source, fact.session)
            merge_session(session, fact)
            store.put(txn, "sessions", key, session)
        for event in found:
            _put_event(store, txn, event)
        return import_memories(store, txn, found, device)

    return store.write(work)


def _put_event(store: Store, txn: Any, event: EventRecord) -> None:
    key = event.id.encode()
    if store.event_value(txn, key) is not None:
        return
    record = {
        "id": event.id,
        "time": event.time,
        "source": event.source,
        "project": project_of(event.cwd),
        "session": event.session,
        "role": event.role,
        "kind": event.kind,
        "text": event.text,
        "cwd": event.cwd,
        "git_branch": None,
        "agent_version": None,
        "m": 0,
        "line": 0,
    }
    seq = store.put_event_value(txn, key, orjson.dumps(record))
    session_key = keys.session_key(event.source, event.session)
    session = store.get(txn, "sessions", session_key)
    assert session is not None  # its fact came first
    session["events"] += 1
    widen(session, event.time)
    store.put(txn, "sessions", session_key, session)
    txn.put(session_key, store.session_value(event.time, key, seq), db=store.sess_db, dupdata=True)


def chain(store: Store, path: Path) -> tuple[list[dict[str, Any]], str | None]:
    """The entry mirroring a file: its versions oldest first, and the current one's id."""
    with store.read() as txn:
        known = store.meta_get(txn, memory_file_key(str(path)))
        if known is None or known["root"] is None:
            return [], None
        line = store_entries.lineage(store, txn, known["root"])
        return line.versions, line.current


def hidden(store: Store, item: str) -> bool:
    with store.read() as txn:
        return store_entries.is_hidden(store, txn, item)


def visible_events(store: Store, path: Path) -> int:
    with store.read() as txn:
        session = get_session(store, txn, "claude-code", f"memory:{path}")
        return int(session["events"]) if session else 0


def correct(store: Store, current: dict[str, Any], text: str) -> dict[str, Any]:
    """A correction made in Origin, as `correct` builds and writes it."""
    fixed = store_entries.new_version(
        kind=current["kind"],
        text=text,
        confidence=0.8,
        project=current["project"],
        author="user@laptop",
        created=current["created"] + MINUTE,
        sources=list(current["sources"]),
        imported=bool(current.get("imported")),
        after=current,
    )
    store.write(lambda txn: store_entries.put_version(store, txn, fixed))
    return fixed


# --- a new file, its changes --------------------------------------------------------------------


def test_a_new_file_is_an_imported_entry_citing_its_event(store: Store, claude_md: Path) -> None:
    records = version(claude_md, A, T0)
    [event] = events(records)
    [written] = ingest(store, records)
    versions, current = chain(store, claude_md)
    [entry] = versions
    assert current == written == entry["id"] == entry["root"]
    assert entry["imported"] is True and entry["kind"] == "memory"
    assert entry["text"] == A.strip() and entry["confidence"] == 1.0
    assert entry["author"] == "claude-code@laptop" and entry["created"] == T0
    assert entry["sources"] == [{"event_id": event.id, "quote": None}]
    assert (entry["supersedes"], entry["project"], entry["valid_to"]) == (None, None, None)
    with store.read() as txn:
        assert store_entries.citing_entries(store, txn, event.id) == [written]
        items = [item for _, item in store.feed_since(txn, 0)]
    assert {"t": "entry", "id": written, "root": written} in items


def test_a_project_file_gives_its_entry_the_project(store: Store, tmp_path: Path) -> None:
    project = Path(shutil.copytree(DATA / "memory" / "project", tmp_path / "shop-api"))
    (project / ".git").mkdir()
    directory = project / "services" / "billing"
    rel = "AGENTS.override.md"
    kind = memory.PROJECT_KINDS["codex"]
    line = file_line(str(directory / rel), (directory / rel).read_bytes(), T0)
    records = kind.parse(line, 1, kind.start(rel))
    [written] = ingest(store, records, device="desk")
    with store.read() as txn:
        entry = store_entries.get_entry(store, txn, written)
    assert entry is not None
    assert entry["project"] == "shop-api" and entry["author"] == "codex@desk"
    assert "整数分" in entry["text"]


def test_without_a_device_the_author_is_the_agent(store: Store, claude_md: Path) -> None:
    [written] = ingest(store, version(claude_md, A, T0), device=None)
    versions, _ = chain(store, claude_md)
    assert [v["author"] for v in versions] == ["claude-code"] and versions[0]["id"] == written


SEQUENCES = [
    # the file's texts with their mtimes, in the order read -> the texts of the entry's versions
    ([(A, 1)], [A]),
    ([(A, 1), (A, 1)], [A]),  # the same line read again
    ([(A, 1), (A, 2)], [A]),  # touched, or saved unchanged
    ([(A, 1), (B, 2)], [A, B]),
    ([(A, 1), (B, 2), (A, 3)], [A, B, A]),  # reverted: the file says A again
    ([(A, 1), (B, 2), (A, 1), (B, 2)], [A, B]),  # a row log read again from its start
    ([("", 1), (A, 2)], [A]),  # nothing to mirror until the file says something
    ([(A, 1), ("\n", 2), (B, 3)], [A, A, B]),  # emptied: the last text, no longer valid
]


@pytest.mark.parametrize(("texts", "expected"), SEQUENCES)
def test_a_file_s_versions_make_one_chain(
    store: Store, claude_md: Path, texts: list[tuple[str, int]], expected: list[str]
) -> None:
    for text, minute in texts:
        ingest(store, version(claude_md, text, T0 + minute * MINUTE))
    versions, current = chain(store, claude_md)
    assert [v["text"] for v in versions] == [t.strip() for t in expected]
    assert [v["supersedes"] for v in versions] == [None] + [v["id"] for v in versions[:-1]]
    assert current == versions[-1]["id"]
    assert all(v["imported"] and v["root"] == versions[0]["id"] for v in versions)


def test_an_emptied_file_ends_the_entry_s_validity_until_it_says_something_again(
    store: Store, claude_md: Path
) -> None:
    ingest(store, version(claude_md, A, T0))
    [emptied] = events(version(claude_md, "", T0 + MINUTE))
    ingest(store, version(claude_md, "", T0 + MINUTE))
    ingest(store, version(claude_md, B, T0 + 2 * MINUTE))
    versions, _ = chain(store, claude_md)
    assert [v["valid_to"] for v in versions] == [None, T0 + MINUTE, None]
    assert versions[1]["sources"] == [{"event_id": emptied.id, "quote": None}]


def test_a_changed_file_supersedes_the_current_version(store: Store, claude_md: Path) -> None:
    [first] = ingest(store, version(claude_md, A, T0))
    records = version(claude_md, B, T0 + MINUTE)
    [event] = events(records)
    [second] = ingest(store, records)
    versions, current = chain(store, claude_md)
    assert [v["id"] for v in versions] == [first, second] and current == second
    assert versions[1]["sources"] == [{"event_id": event.id, "quote": None}]
    assert versions[1]["created"] == T0 + MINUTE


def test_several_versions_in_one_batch_chain_in_file_order(store: Store, claude_md: Path) -> None:
    records = version(claude_md, A, T0) + version(claude_md, B, T0 + MINUTE)
    written = ingest(store, records)
    versions, current = chain(store, claude_md)
    assert [v["id"] for v in versions] == written and current == written[1]


def test_other_events_are_passed_over(store: Store) -> None:
    event = EventRecord("codex:s1:L1", T0, "codex", "s1", "user", "message", "hello")
    assert store.write(lambda txn: import_memories(store, txn, [event], "laptop")) == []
    with store.read() as txn:
        assert txn.stat(store.dbs["entries"])["entries"] == 0


def test_a_file_seen_again_unchanged_writes_nothing(store: Store, claude_md: Path) -> None:
    ingest(store, version(claude_md, A, T0))
    with store.read() as txn:
        before = store.feed_last(txn)
    assert ingest(store, version(claude_md, A, T0 + MINUTE)) == []
    with store.read() as txn:
        assert store.feed_last(txn) == before


# --- the file against Origin: corrections, forgets, restores ------------------------------------


def test_the_file_s_next_version_supersedes_a_correction_made_in_origin(
    store: Store, claude_md: Path
) -> None:
    ingest(store, version(claude_md, A, T0))
    versions, _ = chain(store, claude_md)
    fixed = correct(store, versions[0], "Reply in English unless asked otherwise.")
    assert chain(store, claude_md)[1] == fixed["id"] and fixed["imported"] is True
    assert ingest(store, version(claude_md, A, T0 + 2 * MINUTE)) == []  # unchanged: it stays
    assert chain(store, claude_md)[1] == fixed["id"]
    [latest] = ingest(store, version(claude_md, B, T0 + 3 * MINUTE))
    versions, current = chain(store, claude_md)
    assert current == latest and versions[-1]["supersedes"] == fixed["id"]
    assert versions[-1]["text"] == B.strip() and versions[-1]["author"] == "claude-code@laptop"


def test_a_change_older_than_the_correction_still_comes_after_it(
    store: Store, claude_md: Path
) -> None:
    ingest(store, version(claude_md, A, T0))
    fixed = correct(store, chain(store, claude_md)[0][0], "corrected")
    [latest] = ingest(store, version(claude_md, B, T0 + 1))  # written before the correction
    versions, current = chain(store, claude_md)
    assert current == latest and versions[-1]["created"] == fixed["created"] + 1


def test_a_forgotten_entry_stays_forgotten_as_its_file_changes_until_restored(
    store: Store, claude_md: Path
) -> None:
    [first] = ingest(store, version(claude_md, A, T0))
    forgot = store.write(
        lambda txn: store_entries.forget(store, txn, first, "not for the archive", "user@laptop")
    )
    assert visible_events(store, claude_md) == 0
    records = version(claude_md, B, T0 + MINUTE)
    [event] = events(records)
    [second] = ingest(store, records)
    assert hidden(store, first) and hidden(store, second) and hidden(store, event.id)
    assert visible_events(store, claude_md) == 0
    [third] = ingest(store, version(claude_md, C, T0 + 2 * MINUTE))
    assert hidden(store, third)
    with store.read() as txn:
        tombstone = store.get(txn, "tombstones", forgot["tombstone"].encode())
    assert tombstone is not None and tombstone["entries"] == [first, second, third]

    back = store.write(lambda txn: store_entries.restore(store, txn, forgot["tombstone"]))
    assert back["restored_entries"] == [first, second, third]
    versions, current = chain(store, claude_md)
    assert current == third and versions[-1]["text"] == C.strip()
    assert not any(hidden(store, v["id"]) for v in versions)
    assert visible_events(store, claude_md) == 3


def test_forgetting_the_memory_event_forgets_the_entry_through_later_versions(
    store: Store, claude_md: Path
) -> None:
    records = version(claude_md, A, T0)
    [event] = events(records)
    [first] = ingest(store, records)
    store.write(lambda txn: store_entries.forget(store, txn, event.id, "a secret", "user@laptop"))
    assert hidden(store, first)
    [second] = ingest(store, version(claude_md, B, T0 + MINUTE))
    assert hidden(store, second)
    assert ingest(store, version(claude_md, A, T0 + 2 * MINUTE)) != []  # back to A: still hidden
    versions, _ = chain(store, claude_md)
    assert all(hidden(store, v["id"]) for v in versions)


def test_a_restored_forget_no_longer_hides_what_comes_next(store: Store, claude_md: Path) -> None:
    [first] = ingest(store, version(claude_md, A, T0))
    forgot = store.write(lambda txn: store_entries.forget(store, txn, first, "r", "user@laptop"))
    store.write(lambda txn: store_entries.restore(store, txn, forgot["tombstone"]))
    [second] = ingest(store, version(claude_md, B, T0 + MINUTE))
    assert not hidden(store, second) and chain(store, claude_md)[1] == second
