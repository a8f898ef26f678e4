"""The last freshness pass, shared by every process through the store: a new process within the
interval answers without walking the agents' trees; after it, the next search reads new lines."""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest
from helpers import fixture_env

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_store import Settings, marks
from origin_store.ingest import discovery

SESSION_LOG = "projects/-home-dev-demo-app/7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10.jsonl"
LINE = {
    "parentUuid": None,
    "isSidechain": False,
    "type": "user",
    "cwd": "/home/dev/demo-app",
    "sessionId": "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10",
    "version": "2.1.241",
    "gitBranch": "feat/rate-limit",
    "uuid": "f00dcafe-0000-4000-8000-00000000feed",
    "timestamp": "2026-10-20T10:59:00.000Z",
    "message": {"role": "user", "content": "the quokkafern limiter is ready"},
}
NEW_ID = "claude-code:f00dcafe-0000-4000-8000-00000000feed"


@pytest.fixture
def env(tmp_path: Path, fixtures_dir: Path) -> dict[str, str]:
    return fixture_env(tmp_path, copy=True)


def _search(origin: Origin, query: str) -> set[str]:
    result = call(origin, "search", {"query": query}, Caller("test", "box"))
    return {event["id"] for event in result["events"]}


def _append(env: dict[str, str]) -> None:
    with open(Path(env["CLAUDE_CONFIG_DIR"]) / SESSION_LOG, "ab") as file:
        file.write(orjson.dumps(LINE) + b"\n")


def _walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the passes that looked at the agents' trees."""
    calls: list[int] = []
    original = discovery.Sweep.discover

    def counted(self: discovery.Sweep, *args: object, **kwargs: object) -> list[discovery.Found]:
        calls.append(1)
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(discovery.Sweep, "discover", counted)
    return calls


def test_a_second_process_within_the_interval_skips_the_pass(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings.from_env({**env, "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "60000"})
    with Origin.open(settings) as first:
        assert _search(first, "quokkafern") == set()
        with first.store.read() as txn:
            record = marks.last_pass(first.store, txn)
        assert record is not None and record["files"] > 0 and record["checked"] == record["files"]
    _append(env)
    walks = _walks(monkeypatch)
    with Origin.open(settings) as second:
        assert _search(second, "quokkafern") == set()  # the first one's pass is 60 s fresh
        assert walks == []
        # A forced pass (remember, correct) does not wait for the interval.
        call(
            second,
            "remember",
            {
                "kind": "memory",
                "text": "Quokkafern is ready.",
                "confidence": 0.9,
                "sources": [{"quote": "quokkafern"}],
            },
            Caller("test", "box"),
        )
        assert walks == [1]
        assert _search(second, "quokkafern") >= {NEW_ID}


def test_after_the_interval_the_next_process_reads_the_new_line(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings.from_env({**env, "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "300"})
    with Origin.open(settings) as first:
        assert _search(first, "quokkafern") == set()
    _append(env)
    walks = _walks(monkeypatch)
    with Origin.open(settings) as second:
        time.sleep(0.35)
        assert _search(second, "quokkafern") == {NEW_ID}
        assert walks == [1]
        assert _search(second, "quokkafern") == {NEW_ID}
        assert walks == [1]  # within the interval again, in this process too


def test_the_watchers_check_sees_appends_and_new_files(env: dict[str, str]) -> None:
    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()
        assert not origin.changed()
        _append(env)
        assert origin.changed()
        origin.ingest()
        assert not origin.changed()
        folder = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-home-dev-new-project"
        folder.mkdir()
        (folder / "0b0b0b0b-0000-4000-8000-000000000001.jsonl").write_bytes(
            orjson.dumps({**LINE, "sessionId": "0b0b0b0b-0000-4000-8000-000000000001"}) + b"\n"
        )
        assert origin.changed()
        origin.ingest()
        assert not origin.changed()


@pytest.mark.parametrize(
    "damage",
    [
        b"",  # empty
        b"\x00\xff garbage \x80",  # not marshal at all
        b"\xfb",  # marshal cut after its first byte
        None,  # a marshalled dict of the right version whose values have the wrong types
    ],
    ids=["empty", "garbage", "truncated", "wrong-types"],
)
def test_a_damaged_sweep_file_costs_a_full_check_and_loses_nothing(env, damage):
    """The sweep files are a cache under ORIGIN_HOME: whatever a crash or a person leaves in
    them, the next pass reads every log again, finds the new line, and writes them anew."""
    import marshal

    env = {**env, "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0"}  # every search runs its pass
    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()
        home = origin.home
    wrong = {"version": discovery.SWEEP_VERSION, "dirs": 5, "roots": "x", "found": None}
    for name in ("sweep", "sweep.dirs"):
        (home / name).write_bytes(marshal.dumps(wrong) if damage is None else damage)
    _append(env)
    with Origin.open(Settings.from_env(env)) as origin:
        assert NEW_ID in _search(origin, "quokkafern")
    assert discovery.Sweep.load(home / "sweep").known  # written anew, readable


def _last_pass(origin: Origin) -> dict[str, object]:
    with origin.store.read() as txn:
        record = marks.last_pass(origin.store, txn)
    assert isinstance(record, dict)
    return record


def _lose_the_cursor(origin: Origin, env: dict[str, str]) -> None:
    """As an OS crash can leave it: the sweep file says the log was seen settled, the store's
    newest commits (this log's cursor) are gone."""
    key = str(Path(env["CLAUDE_CONFIG_DIR"]) / SESSION_LOG).encode()
    origin.store.write(lambda txn: txn.delete(key, db=origin.store.dbs["files"]))


def test_a_pass_trusts_the_sweep_within_a_boot_and_reads_every_cursor_after_one(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from origin_api import runtime

    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()
        origin.ingest(full=False, every=True)  # the sweep sees every log settled
        with origin.store.read() as txn:
            events = origin.store.event_count(txn)
        _lose_the_cursor(origin, env)
        report = origin.ingest(full=False, every=True)
        assert report is not None and report.files_changed == 0  # trusted: not noticed
        assert _last_pass(origin)["boot"] == runtime.boot_id()
        monkeypatch.setattr(runtime, "boot_id", lambda: "a-later-boot")
        report = origin.ingest(full=False, every=True)
        assert report is not None and report.files_changed == 1  # every cursor read: found
        assert _last_pass(origin)["boot"] == "a-later-boot"
        with origin.store.read() as txn:
            assert origin.store.event_count(txn) == events  # read again, nothing doubled
        report = origin.ingest(full=False, every=True)
        assert report is not None and report.files_changed == 0


def test_a_pass_over_every_log_checks_them_all_where_a_searchs_takes_a_turn(
    env: dict[str, str],
) -> None:
    """With the watcher on (60 s) and searches every 10 s, a search's pass checks a sixth of
    the logs written over an hour ago; a start-up's second pass, a watcher's, `remember`'s
    check every one (each a stat, a cursor read only where the stat moved)."""
    env = {**env, "ORIGIN_WATCH_INTERVAL_MS": "60000"}
    hour_ago = time.time() - 7200
    for log in Path(env["CLAUDE_CONFIG_DIR"]).rglob("*.jsonl"):
        os.utime(log, (hour_ago, hour_ago))
    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()
        found = _last_pass(origin)["files"]
        assert isinstance(found, int) and found >= 6
        origin.ingest(full=False)
        assert _last_pass(origin)["checked"] < found
        origin.ingest(full=False, every=True)
        assert _last_pass(origin)["checked"] == found
