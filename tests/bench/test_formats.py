"""The per-source corpus (the writers of formats.py; Claude Code and Codex alone) through
Origin's real ingest: what each writer says it wrote is what Origin stores, event for event.
A source whose parser reads no files yet (a registered placeholder) is only written."""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson
import pytest

from bench import sources as bench_sources
from origin_api.samples import MAX_TEXT, iter_events
from origin_api.samples.formats import (
    ALL_SOURCES,
    FORMATS,
    HOME,
    FormatInfo,
    generate_formats,
    load_formats,
)
from origin_store import Ingester, IngestReport, Settings, Store
from origin_store.parsers.registry import SOURCES
from origin_store.reader import get_event, iter_sessions, session_event_ids
from origin_store.textclip import shown

EVENTS = 300
SEED = 7
#: What a stored event must hold as its writer's table row says (the text as shown, labelled).
FIELDS = ("source", "session", "kind", "role", "time")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, FormatInfo]]:
    out = tmp_path_factory.mktemp("formats") / "corpus"
    return out, generate_formats(out, EVENTS, SEED, ALL_SOURCES)


@pytest.fixture(scope="module")
def ingested(
    corpus: tuple[Path, dict[str, FormatInfo]], tmp_path_factory: pytest.TempPathFactory
) -> Any:
    out, infos = corpus
    origin = tmp_path_factory.mktemp("origin")
    settings = Settings.from_env(bench_sources.agent_env(out, origin))
    store = Store.open(settings.home)
    ingester = Ingester(store, settings, SOURCES)
    report = ingester.run()
    yield store, ingester, report
    store.close()


@pytest.fixture(scope="module")
def written(corpus: tuple[Path, dict[str, FormatInfo]]) -> dict[str, dict[str, tuple[Any, ...]]]:
    """The writers' events by source, then by id."""
    found: dict[str, dict[str, tuple[Any, ...]]] = defaultdict(dict)
    for row in iter_events(corpus[0]):
        found[row[2]][row[0]] = row
    return found


def test_ingest_has_no_problems_and_stores_every_event(
    corpus: tuple[Path, dict[str, FormatInfo]], ingested: Any
) -> None:
    _, infos = corpus
    _, _, report = ingested
    assert isinstance(report, IngestReport)
    assert not report.problems and not report.errors
    assert report.events == sum(info.events for info in infos.values()) == EVENTS * len(ALL_SOURCES)
    assert load_formats(corpus[0]) == infos


@pytest.mark.parametrize("source", ALL_SOURCES)
def test_each_source_stores_exactly_what_its_writer_wrote(
    source: str, corpus: tuple[Path, dict[str, FormatInfo]], ingested: Any, written: Any
) -> None:
    info = corpus[1][source]
    store = ingested[0]
    expected = written[source]
    assert info.events == len(expected) == EVENTS
    assert info.sessions > 1 and info.files >= 1 and info.bytes > 0
    with store.read() as txn:
        sessions = [s for s in iter_sessions(store, txn) if s["source"] == source]
        stored = {
            event_id
            for s in sessions
            for event_id in session_event_ids(store, txn, source, s["session"])
        }
        assert stored == set(expected)
        assert sum(s["events"] for s in sessions) == EVENTS
        assert len({s["session"] for s in sessions if s["events"]}) == info.sessions
        for event_id, row in expected.items():
            event = get_event(store, txn, event_id)
            assert event is not None
            values = dict(zip(("id", "text", "source", "project", "session", "kind", "role",
                               "time"), row, strict=True))  # fmt: skip
            assert {f: event[f] for f in FIELDS} == {f: values[f] for f in FIELDS}, event_id
            assert shown(event, MAX_TEXT) == values["text"], event_id


@pytest.mark.parametrize("source", FORMATS)
def test_every_session_has_a_title_and_a_prompt(source: str, ingested: Any) -> None:
    store = ingested[0]
    with store.read() as txn:
        sessions = [s for s in iter_sessions(store, txn) if s["source"] == source]
    assert sessions
    for session in sessions:
        assert session["title"], session["session"]
        assert session["prompt"], session["session"]
        assert session["project"], session["session"]


def test_a_second_ingest_adds_nothing(ingested: Any) -> None:
    _, ingester, _ = ingested
    again = ingester.run()
    assert again.events == 0 and again.files_changed == 0 and not again.problems


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    first = generate_formats(tmp_path / "a", 120, SEED)
    second = generate_formats(tmp_path / "b", 120, SEED)
    assert {k: (v.events, v.files, v.bytes) for k, v in first.items()} == {
        k: (v.events, v.files, v.bytes) for k, v in second.items()
    }
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    other = generate_formats(tmp_path / "c", 120, SEED + 1)
    assert _tree(tmp_path / "c") != _tree(tmp_path / "a")
    assert set(other) == set(FORMATS)


def _tree(root: Path) -> dict[str, bytes]:
    """Every file's bytes but formats.json's, which holds how long the writing took."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "formats.json"
    }


def test_nothing_credential_like_is_written(corpus: tuple[Path, dict[str, FormatInfo]]) -> None:
    """Cursor keeps login tokens and chat encryption keys beside the chats, ZCode provider keys
    and grok-cli an API key: the generated homes hold none of them, nor their places."""
    home = corpus[0] / HOME
    user = home / ".config/Cursor/User"
    keys = _column(user / "globalStorage/state.vscdb", "SELECT key FROM ItemTable")
    assert keys == ["workbench.colorTheme"]
    for db in (user / "workspaceStorage").glob("*/state.vscdb"):
        assert _column(db, "SELECT key FROM ItemTable") == ["composer.composerData"]
    composers = _column(
        user / "globalStorage/state.vscdb",
        "SELECT value FROM cursorDiskKV WHERE key LIKE 'composerData:%'",
    )
    assert composers
    for value in composers:
        assert not [name for name in orjson.loads(value) if "key" in name.lower()]
    assert _column(home / ".zcode/cli/db/db.sqlite", "SELECT key FROM local_setting") == []
    assert not (home / ".grok/user-settings.json").exists()
    assert not (home / ".zcode/cli/config.json").exists()


def _column(path: Path, sql: str) -> list[Any]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [row[0] for row in db.execute(sql)]
    finally:
        db.close()


def test_the_section_ingests_each_source_alone(tmp_path: Path) -> None:
    """bench/sources.py end to end at a tiny size: a line per source, every event stored."""
    results = bench_sources.measure(60, seed=SEED, root=tmp_path)
    for source in ALL_SOURCES:
        figures = results[source]
        assert figures["ingested"] == figures["events"] == 60, source
        assert not figures["problems"] and not figures["errors"], source
        assert figures["events_per_s"] > 0 and figures["disk_x_raw"] > 0
    lines = bench_sources.table(results)
    assert len(lines) == 1 + len(ALL_SOURCES) + 1
    assert all(any(line.lstrip().startswith(s) for line in lines) for s in ALL_SOURCES)
    assert bench_sources.cached_sources(60, SEED, tmp_path) == Path(results["corpus"])
