"""`compact`: a store rewritten into a new file gives back what LMDB freed and converts the
layout of events from before schema 7, losing and changing nothing that can be read; it is
refused while another process has the store open, and a kill at any moment leaves the store
whole, compacted or not."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import lmdb
import pytest
from plain_format import PLAIN, keepsakes, line

from origin_store import Ingester, Settings, Store
from origin_store.care.compact import WORK_DIR, Room, compact, room
from origin_store.care.verify import verify
from origin_store.core import codec
from origin_store.core.codec import ZSTD, ZSTD_ID
from origin_store.core.storelock import hold, release
from origin_store.entries import versions as entries
from origin_store.errors import SchemaMismatch, StoreBusy, StoreError
from origin_store.reader import events_at, get_event, session_event_ids
from origin_store.replication import tokens

#: Databases that compacting copies byte for byte, whatever the layout.
_VERBATIM = (
    "entries",
    "roots",
    "cites",
    "tombstones",
    "hidden",
    "tokens",
    "files",
    "mirrors",
    "frames",
    "dicts",
    "problems",
    "cwds",
    "tail_cuts",
    "sessions",
    "events",
)


@pytest.fixture(autouse=True)
def small_generations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dictionaries due after a few hundred events, as a real store's are after thousands."""
    monkeypatch.setattr(codec, "GENERATIONS", (200, 1200))
    monkeypatch.setattr(codec, "SAMPLE_BYTES", 20_000)


def _settings(tmp_path: Path) -> Settings:
    logs = tmp_path / "logs"
    logs.mkdir(exist_ok=True)
    return Settings.from_env(
        {"HOME": str(tmp_path), "ORIGIN_HOME": str(tmp_path / "origin"), "PLAIN_HOME": str(logs)}
    )


def _archive(tmp_path: Path, *, older: bool, events: int = 1500) -> tuple[Settings, str]:
    """A store of `events` events in sessions of 50, with an entry citing one, a forget and a
    token; `older`: in the layout a store created before schema 7 keeps. Returns the token."""
    settings = _settings(tmp_path)
    if older:
        with Store.open(settings.home) as store:

            def as_schema_6(txn: Any) -> None:
                txn.delete(b"ids", db=store.dbs["meta"])
                txn.put(b"schema", b"6", db=store.dbs["meta"])

            store.write(as_schema_6)
    with open(tmp_path / "logs" / "a.jsonl", "wb") as f:
        for i in range(events):
            f.write(line(i, "compact the store " * (1 + i % 7), session=f"s{i // 50}"))
    with Store.open(settings.home) as store:
        Ingester(store, settings, {"plain": PLAIN}).run()
        assert store.seq_ids is not older
        _, secret = keepsakes(store)
    return settings, secret


def _snapshot(home: Path) -> dict[str, Any]:
    """Everything a reader sees: each event by id, each session's events in order, the feed
    and the ids its positions name (what the search index names its hits by), and the
    databases copied as they are."""
    with Store.open(home) as store:
        with store.read() as txn:
            events = {
                key.decode(): store.codec.decode(txn, key, value)
                for key, value in store.iter_events(txn)
            }
            timelines = {
                key: list(session_event_ids(store, txn, *key.decode().split("\0")))
                for key, _ in txn.cursor(db=store.dbs["sessions"])
            }
            feed = list(store.feed_since(txn, 0))
            verbatim = {n: list(txn.cursor(db=store.dbs[n])) for n in _VERBATIM}
            by_id = get_event(store, txn, "plain:1499")
        named = [a[0] if a else None for a in events_at(store, [seq for seq, _ in feed])]
    return {
        "events": events,
        "timelines": timelines,
        "feed": feed,
        "named": named,
        "verbatim": verbatim,
        "by_id": by_id,
    }


def _layout(home: Path) -> dict[str, Any]:
    with Store.open(home) as store, store.read() as txn:
        return {
            "seq_ids": store.seq_ids,
            "counts": {
                n: txn.stat(store.dbs[n])["entries"]
                for n in ("ev_ids", "ev_keys", "sess_events", "sess_seqs")
            },
            "markers": {bytes(v)[0] for _, v in txn.cursor(db=store.dbs["ev"])},
            "feed": {bytes(v)[:1] for _, v in txn.cursor(db=store.dbs["feed"])},
        }


def test_an_older_store_is_converted_and_keeps_everything(tmp_path: Path) -> None:
    settings, secret = _archive(tmp_path, older=True)
    before = _snapshot(settings.home)
    assert len(before["events"]) == 1500 and len(before["timelines"]) == 30
    assert ZSTD in _layout(settings.home)["markers"]
    with Store.open(settings.home) as store:
        found = room(store)
    assert found.older and found.older_layout > 0

    done = compact(settings.home)

    assert done.converted and done.events == 1500
    assert done.after < done.before
    layout = _layout(settings.home)
    assert layout["seq_ids"]
    assert layout["counts"] == {"ev_ids": 0, "ev_keys": 1500, "sess_events": 0, "sess_seqs": 1500}
    assert ZSTD_ID in layout["markers"] and ZSTD not in layout["markers"]
    assert b"e" not in layout["feed"] and b"E" in layout["feed"]
    assert _snapshot(settings.home) == before
    with Store.open(settings.home) as store:
        assert room(store) == Room(free=room(store).free, older_layout=0, older=False)
        assert verify(store, settings.home).ok
        assert tokens.verify(store, secret) is not None
        with store.read() as txn:
            assert entries.is_hidden(store, txn, "plain:9")
            assert entries.get_entry(store, txn, "ent_1")["text"] == "a fact"
        # It ingests on, naming new events by sequence number after the ones it kept.
        with open(tmp_path / "logs" / "a.jsonl", "ab") as f:
            f.write(line(1500, "after compacting", session="s29"))
        Ingester(store, settings, {"plain": PLAIN}).run()
        with store.read() as txn:
            assert get_event(store, txn, "plain:1500")["text"] == "after compacting 1500"
            assert list(session_event_ids(store, txn, "plain", "s29"))[-1] == "plain:1500"
        assert verify(store, settings.home).ok
    assert not (settings.home / WORK_DIR).exists()


def test_what_lmdb_freed_is_given_back(tmp_path: Path) -> None:
    settings, _ = _archive(tmp_path, older=False, events=300)
    with Store.open(settings.home) as store:
        junk = os.urandom(4096)

        def fill(txn: Any) -> None:
            for n in range(5000):
                txn.put(b"junk:%d" % n, junk, db=store.dbs["meta"])

        def empty(txn: Any) -> None:
            for n in range(5000):
                txn.delete(b"junk:%d" % n, db=store.dbs["meta"])

        store.write(fill)
        store.write(empty)
        assert room(store).free >= 5000 * 4096
    before = _snapshot(settings.home)

    done = compact(settings.home)

    assert not done.converted and done.events == 300
    assert done.before - done.after > 15_000_000, done  # ~20 MB of freed pages
    assert _snapshot(settings.home) == before
    with Store.open(settings.home) as store:
        assert verify(store, settings.home).ok


def test_it_is_refused_while_the_store_is_open_and_opening_waits_for_none(tmp_path: Path) -> None:
    settings, _ = _archive(tmp_path, older=False, events=100)
    before = _snapshot(settings.home)
    with Store.open(settings.home), pytest.raises(StoreBusy, match="open in another process"):
        compact(settings.home)
    # While it runs, the store is not opened: a clear refusal, not a wait.
    held = hold(settings.home / "store", alone=True)
    try:
        with pytest.raises(StoreBusy, match="being compacted"):
            Store.open(settings.home)
    finally:
        release(held)
    assert _snapshot(settings.home) == before


def test_a_store_that_cannot_be_opened_lets_go_of_its_lock(tmp_path: Path) -> None:
    """A store from a newer Origin refuses to open; the shared lock it took is let go of, or
    the process could never compact or be told apart from one that has the store open."""
    settings = _settings(tmp_path)
    with Store.open(settings.home) as store:
        store.write(lambda txn: txn.put(b"schema", b"99", db=store.dbs["meta"]))
    with pytest.raises(SchemaMismatch):
        Store.open(settings.home)
    release(hold(settings.home / "store", alone=True))


def test_an_origin_from_before_the_lock_holding_the_store_is_seen(tmp_path: Path) -> None:
    """An older Origin takes no lock of ours, only LMDB's: a process that has the environment
    open through LMDB alone makes compacting refuse, and the store stays as it was."""
    settings, _ = _archive(tmp_path, older=True, events=100)
    before = _snapshot(settings.home)
    with subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import lmdb, sys; env = lmdb.open(sys.argv[1], max_dbs=64); print('open', flush=True);"
            " sys.stdin.read()",
            str(settings.home / "store"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as older:
        try:
            assert older.stdout is not None and older.stdout.readline() == b"open\n"
            with pytest.raises(StoreBusy, match="open in another process"):
                compact(settings.home)
        finally:
            older.kill()
    assert _snapshot(settings.home) == before
    assert compact(settings.home).converted


def test_a_copy_that_fails_leaves_the_store_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, _ = _archive(tmp_path, older=True, events=300)
    before = _snapshot(settings.home)
    from origin_store.care import compact as module

    real, calls = module._copy, []

    def fails_third(env: Any, db: Any, items: Any) -> None:
        calls.append(db)
        if len(calls) == 3:
            raise lmdb.MapFullError("no room in the new map")
        real(env, db, items)

    monkeypatch.setattr(module, "_copy", fails_third)
    with pytest.raises(StoreError, match="failed .* the store is as it was"):
        compact(settings.home)
    assert not (settings.home / WORK_DIR).exists()
    assert _snapshot(settings.home) == before  # and it opens: the lock was let go
    assert not _layout(settings.home)["seq_ids"]


_CHILD = """
import sys, time
from pathlib import Path
from origin_store.care import compact as c
c.BATCH = 100  # many small transactions: a kill lands between and inside them
if sys.argv[2] == "hold":  # stop with the new file written, before it is swapped in
    swap = c._swap
    def held(new, path):
        print("copied", flush=True)
        time.sleep(60)
        swap(new, path)
    c._swap = held
print("ready", flush=True)
c.compact(Path(sys.argv[1]))
print("done", flush=True)
"""


@pytest.mark.e2e
def test_a_kill_at_any_moment_leaves_the_store_whole(tmp_path: Path) -> None:
    settings, secret = _archive(tmp_path, older=True)
    before = _snapshot(settings.home)
    rng = random.Random(11)

    def run(delay: float | None, mode: str = "run") -> float:
        with subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(settings.home), mode], stdout=subprocess.PIPE
        ) as child:
            assert child.stdout is not None and child.stdout.readline() == b"ready\n"
            started = time.monotonic()
            if mode == "hold":
                assert child.stdout.readline() == b"copied\n"
                assert (settings.home / WORK_DIR / "data.mdb").exists()
            elif delay is None:
                assert child.stdout.read() == b"done\n"
                child.wait()
                return time.monotonic() - started
            else:
                time.sleep(delay)
            child.send_signal(signal.SIGKILL)
        return 0.0

    # How long one takes, on a copy: the kills below land at random moments within it.
    whole = tmp_path / "whole"
    subprocess.run(["cp", "-a", str(settings.home), str(whole)], check=True)
    original = settings.home
    settings.home.rename(tmp_path / "kept")
    whole.rename(original)
    seconds = run(None)
    subprocess.run(["rm", "-rf", str(original)], check=True)
    (tmp_path / "kept").rename(original)

    # The first kill comes with the new file written, just before its swap; the rest at
    # random moments, some after a swap, where the next run compacts a converted store.
    layouts = []
    for delay in [None, *(rng.uniform(0, seconds) for _ in range(7))]:
        run(delay, "hold" if delay is None else "run")
        layouts.append(_layout(settings.home)["seq_ids"])
        assert _snapshot(settings.home) == before
        with Store.open(settings.home) as store:
            assert verify(store, settings.home).ok
            assert tokens.verify(store, secret) is not None
    assert layouts[0] is False  # the older store, as it was
    done = compact(settings.home)
    assert done.events == 1500
    assert _snapshot(settings.home) == before
    assert not (settings.home / WORK_DIR).exists()  # what a kill left, the next run removed
