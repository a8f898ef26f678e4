"""A catch-up whose feed is read by a second process builds the index a catch-up reading it
here builds; a reader that dies leaves the rest to this process, which loses and repeats
nothing. Real store, real ingest of the sample logs, real spawned reader."""

from __future__ import annotations

import multiprocessing
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import ingested_store

from origin_search import SearchIndex, clauses, open_searcher, tokens
from origin_search.catchup import catch_up
from origin_search.feed import read_batches
from origin_search.feeder import batches
from origin_store import Ingester, Settings, Store
from origin_store.core.lmdbio import pairs as lmdb_pairs
from origin_store.entries.versions import put_version
from origin_store.reader import get_event


def ingested(tmp_path: Path) -> Store:
    store = ingested_store(tmp_path)
    entry = {
        "id": "ent_1",
        "kind": "decision",
        "text": "feeder entries cross the pipe too",
        "confidence": 1.0,
        "project": None,
        "author": "test",
        "created": 1,
        "valid_from": None,
        "valid_to": None,
        "supersedes": None,
        "root": "ent_1",
        "imported": False,
        "sources": [],
    }
    store.write(lambda txn: put_version(store, txn, entry))
    return store


def common_words(store: Store, count: int) -> list[str]:
    seen: Counter[str] = Counter()
    with store.read() as txn:
        for _, item in store.feed_since(txn, 0):
            if item["t"] == "event":
                event = get_event(store, txn, item["id"])
                if event is not None:
                    seen.update(set(tokens(event["text"])) - {""})
    return [word for word, _ in seen.most_common(count)]


def found(index: SearchIndex, word: str) -> set[Any]:
    return {hit for hit, _ in index.search(clauses(word), limit=1_000)}


def test_a_feed_read_apart_builds_the_same_index(tmp_path: Path) -> None:
    store = ingested(tmp_path)
    try:
        here = open_searcher(store, tmp_path / "here").index
        alone = catch_up(store, here, apart_from=10**9)
        apart_index = open_searcher(store, tmp_path / "apart").index  # new: the mark is reset
        apart = catch_up(store, apart_index, apart_from=1)
        assert not alone.apart and apart.apart
        assert (apart.items, apart.docs, apart.seq) == (alone.items, alone.docs, alone.seq)
        assert apart_index.count() == here.count() == alone.docs
        words = common_words(store, 40) + ["feeder", "pipe"]
        for word in words:
            hits = found(here, word)
            assert hits and found(apart_index, word) == hits, word
        assert found(apart_index, "feeder") == {"ent_1"}
        assert not [p for p in multiprocessing.active_children() if p.name == "origin-index-reader"]
    finally:
        store.close()


def test_a_reader_killed_midway_leaves_the_rest_to_this_process(tmp_path: Path) -> None:
    store = ingested(tmp_path)
    try:
        expected = list(read_batches(store, 0, 10))
        assert len(expected) > 20
        got = []
        for batch in batches(store, 0, 10):
            got.append(batch)
            if len(got) == 2:
                readers = [
                    p for p in multiprocessing.active_children() if p.name == "origin-index-reader"
                ]
                assert len(readers) == 1
                readers[0].kill()
                readers[0].join()
        assert got == expected  # every batch once, in order, whoever read it
    finally:
        store.close()


def _plain_store(tmp_path: Path, events: int) -> tuple[dict[str, str], Store]:
    """A store of `events` plain-format events, each with a word of its own (`only<i>`)."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "store"))
    from plain_format import PLAIN

    logs = tmp_path / "logs"
    logs.mkdir()
    rng = random.Random(3)
    per_file = events // 8
    for f in range(8):
        with open(logs / f"f{f}.jsonl", "wb") as out:
            for i in range(f * per_file, (f + 1) * per_file):
                words = " ".join(f"w{rng.randrange(400)}" for _ in range(rng.choice([5, 40, 200])))
                line = {"id": str(i), "t": i, "s": f"s{f}", "text": f"only{i} {words}"}
                out.write(orjson.dumps(line) + b"\n")
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "ORIGIN_HOME": str(tmp_path / "origin"),
        "PLAIN_HOME": str(logs),
    }
    settings = Settings.from_env(env)
    store = Store.open(settings.home, map_size=settings.map_size)
    assert Ingester(store, settings, {"plain": PLAIN}).run().events == per_file * 8
    return env, store


def _group(pgid: int) -> list[int]:
    """The live (not zombie) processes of a process group, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] != "Z" and int(fields[2]) == pgid:
                found.append(int(entry))
    return found


def _group_gone(pgid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not _group(pgid):
            return True
        time.sleep(0.02)
    return False


@pytest.mark.slow
@pytest.mark.e2e
def test_sigkill_of_a_build_reading_apart_takes_its_reader_and_loses_nothing(
    tmp_path: Path,
) -> None:
    """Only the indexing process is killed: its reader must end with it (nothing left to
    read a store no one indexes), and the next catch-up ends with each event once."""
    events = 40_000
    env, store = _plain_store(tmp_path, events)
    store.close()
    script = str(Path(__file__).parent / "feeder_build.py")
    began = time.perf_counter()
    subprocess.run([sys.executable, script], env=env, check=True, capture_output=True)
    full = time.perf_counter() - began
    shutil.rmtree(Path(env["ORIGIN_HOME"]) / "index")  # built again from nothing below
    rng = random.Random(7)
    landed = 0
    for _ in range(5):
        proc = subprocess.Popen(
            [sys.executable, script], env=env, start_new_session=True, stdout=subprocess.DEVNULL
        )
        # Once the reader runs (the build, multiprocessing's resource tracker, the reader),
        # a kill at a random point of the first part of what is left of the build.
        started = time.perf_counter()
        while len(_group(proc.pid)) < 3 and time.perf_counter() - started < full:
            time.sleep(0.005)
        left = full - (time.perf_counter() - started)
        time.sleep(rng.uniform(0.05, 0.5) * max(left, 0.0))
        os.kill(proc.pid, signal.SIGKILL)  # the indexing process alone, not its group
        landed += proc.wait() == -signal.SIGKILL
        assert _group_gone(proc.pid, 5.0), "a feed reader outlived the process it read for"
    assert landed >= 4, "too few kills landed while the build was running"
    settings = Settings.from_env(env)
    with Store.open(settings.home, map_size=settings.map_size) as store:
        index = open_searcher(store, settings.home / "index").index
        catch_up(store, index)
        assert index.count() == events
        for i in random.Random(1).sample(range(events), 200):
            assert len(index.search(clauses(f"only{i}"), limit=5)) == 1, i


def test_damaged_records_are_named_as_the_feed_names_them(tmp_path: Path) -> None:
    """Reading each record once must not change what a feed item says, where a record is cut
    short, its head is garbage or it is empty: those come without a record, the rest with
    theirs."""
    store = ingested(tmp_path)
    try:
        ev = store.dbs["ev"]
        with store.read() as txn:
            kept = list(lmdb_pairs(txn.cursor(db=ev)))[:3]
        damaged = [
            (kept[0][0], kept[0][1][: len(kept[0][1]) // 2]),
            (kept[1][0], b"\x02\xff\xff\xff\xff" + kept[1][1][5:]),
            (kept[2][0], b""),
        ]
        store.write(lambda txn: [txn.put(k, v, db=ev) for k, v in damaged])
        with store.read() as txn:
            named = list(store.feed_since(txn, 0))
            read = list(store.feed_since_events(txn, 0))
        assert [(seq, item) for seq, item, _ in read] == named
        events = [(item, record) for _, item, record in read if item["t"] == "event"]
        assert len(events) > 200
        assert sum(record is None for _, record in events) == len(damaged)
        assert all(record["id"] == item["id"] for item, record in events if record is not None)
    finally:
        store.close()
