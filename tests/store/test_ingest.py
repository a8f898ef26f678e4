"""The ingest engine against real LMDB and real files: growth, rewrites, bad lines, crashes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from mirror_support import iter_mirror, read_mirror_line
from plain_format import line

from origin_store import Ingester, Settings, Store
from origin_store.care.verify import verify
from origin_store.reader import get_event, read_mirror_text

HERE = Path(__file__).parent


def all_events(store: Store) -> dict[str, dict]:
    with store.read() as txn:
        return {k.decode(): store.codec.decode(txn, k, v) for k, v in store.iter_events(txn)}


def mirror_lines(store: Store, settings: Settings, path: Path) -> list[bytes]:
    with store.read() as txn:
        cursor = store.get(txn, "files", str(path).encode())
    mid = cursor["mirror"]["id"]
    whole = list(iter_mirror(store, settings.home, mid))
    assert len(whole) == cursor["lines"]
    if cursor["lines"] <= 200:  # line by line too, the way `sources` reads it
        assert [w[: 1 << 20] for w in whole] == [
            read_mirror_line(store, settings.home, mid, n) for n in range(1, cursor["lines"] + 1)
        ]
    return whole


def test_ingest_counts_events_and_mirrors_every_line(plain_env):
    settings, logs, store, ingester = plain_env
    log = logs / "a.jsonl"
    log.write_bytes(b"".join(line(i) for i in range(50)))
    report = ingester.run()
    assert report.events == 50 and report.lines == 50 and not report.problems
    assert mirror_lines(store, settings, log) == log.read_bytes().split(b"\n")[:-1]
    again = ingester.run()
    assert again.events == 0 and again.files_changed == 0
    with store.read() as txn:
        event = get_event(store, txn, "plain:7")
    assert event["text"] == "hello 7" and event["line"] == 8 and event["project"] == "plain-project"


def test_records_keep_the_first_characters_and_the_original_length(plain_env):
    """Fields beyond the usual ones only where needed: a cut text's length, a label."""
    settings, logs, store, ingester = plain_env
    texts = {"short": "x" * 20_000, "long": "数" * 20_001, "huge": "y" * 200_000}
    log = logs / "a.jsonl"
    lines = [orjson.dumps({"id": key, "text": text}) + b"\n" for key, text in texts.items()]
    lines.append(
        orjson.dumps({"id": "labelled", "text": "CI build fix", "label": [[0, "thread name: "]]})
        + b"\n"
    )
    log.write_bytes(b"".join(lines))
    ingester.run()
    events = all_events(store)
    assert (
        events["plain:short"]["text"] == texts["short"]
        and "text_chars" not in events["plain:short"]
    )
    assert (events["plain:long"]["text"], events["plain:long"]["text_chars"]) == (
        "数" * 20_000,
        20_001,
    )
    assert (events["plain:huge"]["text"], events["plain:huge"]["text_chars"]) == (
        "y" * 20_000,
        200_000,
    )
    assert not any("label" in events[f"plain:{key}"] for key in texts)
    assert (
        events["plain:labelled"]["label"] == [[0, "thread name: "]]
        and events["plain:labelled"]["text"] == "CI build fix"
    )
    assert verify(store, settings.home).ok


def test_half_written_last_line_waits_for_the_next_pass(plain_env):
    settings, logs, store, ingester = plain_env
    log = logs / "a.jsonl"
    whole = line(3)
    log.write_bytes(line(1) + line(2) + whole[:10])
    assert ingester.run().events == 2
    with open(log, "ab") as f:
        f.write(whole[10:] + line(4))
    report = ingester.run()
    assert report.events == 2 and not report.problems
    assert set(all_events(store)) == {f"plain:{i}" for i in (1, 2, 3, 4)}
    assert mirror_lines(store, settings, log)[2] == whole[:-1]


def test_rewritten_file_is_a_new_version_without_duplicates(plain_env):
    settings, logs, store, ingester = plain_env
    log = logs / "a.jsonl"
    log.write_bytes(b"".join(line(i) for i in range(10)))
    ingester.run()
    log.write_bytes(b"".join(line(i, "rewritten") for i in range(5, 8)))  # shorter, new head
    report = ingester.run()
    assert report.rewritten == 1 and report.events == 0 and report.duplicates == 3
    assert len(all_events(store)) == 10
    assert mirror_lines(store, settings, log) == log.read_bytes().split(b"\n")[:-1]
    # The first version's mirror is still readable for the events that point at it.
    with store.read() as txn:
        event = get_event(store, txn, "plain:9")
    assert read_mirror_line(store, settings.home, event["m"], event["line"]) == line(9)[:-1]


def test_a_cold_file_goes_straight_into_frames_and_grows_a_tail_when_written_again(plain_env):
    settings, logs, store, ingester = plain_env
    log = logs / "a.jsonl"
    log.write_bytes(b"".join(line(i, "x" * 3000) for i in range(200)))  # ~600 KB: several frames
    old = time.time() - 3600
    os.utime(log, (old, old))
    assert ingester.run().events == 200
    with store.read() as txn:
        state = store.get(txn, "files", str(log).encode())["mirror"]
    assert state["sealed"] == 200 and state["tail"] == 0
    assert not (settings.home / "raw" / "plain" / "a.jsonl.tail").exists()  # never written
    assert mirror_lines(store, settings, log) == log.read_bytes().split(b"\n")[:-1]
    with open(log, "ab") as f:  # the agent resumes the session: the file is hot again
        f.write(line(200) + line(201))
    assert ingester.run().events == 2
    with store.read() as txn:
        state = store.get(txn, "files", str(log).encode())["mirror"]
    assert state["sealed"] == 200 and state["tail"] > 0
    assert (settings.home / "raw" / "plain" / "a.jsonl.tail").stat().st_size == state["tail"]
    assert mirror_lines(store, settings, log) == log.read_bytes().split(b"\n")[:-1]
    assert verify(store, settings.home).ok


def test_same_size_rewrite_is_detected_by_the_head(plain_env):
    settings, logs, store, ingester = plain_env
    log = logs / "a.jsonl"
    log.write_bytes(line(1, "aaaa") + line(2))
    ingester.run()
    log.write_bytes(line(1, "bbbb") + line(2))
    os.utime(log, ns=(time.time_ns(), time.time_ns() + 10_000_000))
    assert ingester.run().rewritten == 1


def test_corrupt_and_binary_lines_are_counted_and_skipped(plain_env):
    settings, logs, store, ingester = plain_env
    log = logs / "a.jsonl"
    garbage = bytes(range(256)).replace(b"\n", b"") + b"\xff\xfe\x00"
    log.write_bytes(line(1) + b"{not json\n" + garbage + b"\n" + b"[1,2]\n" + line(2))
    report = ingester.run()
    assert report.events == 2
    assert report.problems == {"invalid-json": 2, "not-an-object": 1}
    assert mirror_lines(store, settings, log)[2] == garbage
    from origin_store.reader import status

    assert status(store, settings.home)["skipped_lines"] == {"invalid-json": 2, "not-an-object": 1}


def test_fifty_megabyte_line_does_not_exhaust_memory(plain_env):
    settings, logs, store, ingester = plain_env
    log = logs / "a.jsonl"
    big = b'{"id": "big", "text": "' + b"x" * (50 * 1024 * 1024) + b'"}\n'
    log.write_bytes(line(1) + big + line(2))
    del big
    tracemalloc.start()
    report = ingester.run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 30 * 1024 * 1024, f"peak {peak:,} bytes"
    assert report.events == 2 and report.problems == {"oversized-line": 1}
    assert set(all_events(store)) == {"plain:1", "plain:2"}
    lines = mirror_lines(store, settings, log)
    assert lines[0] == line(1)[:-1] and lines[2] == line(2)[:-1]
    assert len(lines[1]) == 50 * 1024 * 1024 + 25
    with store.read() as txn:
        mid = store.get(txn, "files", str(log).encode())["mirror"]["id"]
    prefix = read_mirror_line(store, settings.home, mid, 2, limit=4000)
    assert prefix == lines[1][:4000]
    # `sources` counts the whole line's characters, streaming it rather than holding it.
    tracemalloc.start()
    head, count = read_mirror_text(store, settings.home, mid, 2, 4000)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert (head, count) == (lines[1][:4000].decode(), 50 * 1024 * 1024 + 25)
    assert peak < 8 * 1024 * 1024, f"peak {peak:,} bytes"


@hsettings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(st.integers(0, 40_000), st.integers(0, 3), st.booleans()), min_size=1, max_size=25
    )
)
def test_mirror_line_n_is_original_line_n(tmp_path_factory, steps):
    """Random appends, some cut mid-line, with an ingest after each: the mirror always agrees."""
    from plain_format import PLAIN

    tmp = tmp_path_factory.mktemp("prop")
    settings = Settings.from_env(
        {"HOME": str(tmp), "ORIGIN_HOME": str(tmp / "o"), "PLAIN_HOME": str(tmp / "logs")}
    )
    (tmp / "logs").mkdir()
    log = tmp / "logs" / "p.jsonl"
    log.write_bytes(b"")
    rng = random.Random(len(steps))
    store = Store.open(settings.home, map_size=settings.map_size)
    try:
        ingester = Ingester(store, settings, {"plain": PLAIN})
        pending = b""
        counter = 0
        for size, count, cut in steps:
            data = pending
            for _ in range(count):
                counter += 1
                text = "".join(rng.choice('ab c\r数据\t\\"') for _ in range(size // 4 + 1))
                data += orjson.dumps({"id": counter, "text": text}) + b"\n"
            if cut and data:
                keep = rng.randrange(len(data))
                data, pending = data[:keep], data[keep:]
            else:
                pending = b""
            with open(log, "ab") as f:
                f.write(data)
            ingester.run()
            complete = (
                log.read_bytes().rsplit(b"\n", 1)[0].split(b"\n")
                if b"\n" in log.read_bytes()
                else []
            )
            assert mirror_lines(store, settings, log) == complete
    finally:
        store.close()


def _write_corpus(logs: Path, files: int, lines_each: int) -> None:
    rng = random.Random(5)
    for f in range(files):
        with open(logs / f"f{f}.jsonl", "wb") as out:
            for i in range(lines_each):
                size = rng.choice([10, 50, 200, 3000])
                out.write(
                    orjson.dumps({"id": f"{f}-{i}", "t": i, "s": f"s{f}", "text": "w" * size})
                    + b"\n"
                )


def _env(home: Path, logs: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(home),
        "ORIGIN_HOME": str(home / "origin"),
        "PLAIN_HOME": str(logs),
    }


def _snapshot(home: Path, logs: Path) -> tuple[dict, dict]:
    settings = Settings.from_env(_env(home, logs))
    store = Store.open(settings.home)
    try:
        events = {k: {f: v for f, v in e.items() if f != "m"} for k, e in all_events(store).items()}
        mirrors = {p.name: mirror_lines(store, settings, p) for p in sorted(logs.glob("*.jsonl"))}
        with store.read() as txn:
            feed = [item["id"] for _, item in store.feed_since(txn, 0)]
        assert len(feed) == len(set(feed)) == len(events), (
            "the change feed repeats or misses events"
        )
        return events, mirrors
    finally:
        store.close()


@pytest.mark.slow
@pytest.mark.e2e
def test_sigkill_at_random_points_loses_and_duplicates_nothing(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    _write_corpus(logs, files=8, lines_each=12000)
    script = str(HERE / "plain_ingest.py")
    reference = tmp_path / "ref"
    began = time.perf_counter()
    subprocess.run([sys.executable, script], env=_env(reference, logs), check=True)
    full = time.perf_counter() - began
    began = time.perf_counter()
    subprocess.run([sys.executable, script], env=_env(reference, logs), check=True)  # nothing to do
    startup = time.perf_counter() - began
    killed = tmp_path / "killed"
    rng = random.Random(11)
    interrupted = 0
    for _ in range(12):
        proc = subprocess.Popen(
            [sys.executable, script], env=_env(killed, logs), start_new_session=True
        )
        # Each kill lands after start-up and at most a twelfth of the work in; it takes the
        # whole process group, ingest workers included.
        time.sleep(startup + rng.uniform(0, max(full - startup, 0.05) / 12))
        os.killpg(proc.pid, signal.SIGKILL)
        interrupted += proc.wait() == -signal.SIGKILL
    assert interrupted >= 6, "too few kills landed while the ingest was running"
    subprocess.run([sys.executable, script], env=_env(killed, logs), check=True)
    ref_events, ref_mirrors = _snapshot(reference, logs)
    got_events, got_mirrors = _snapshot(killed, logs)
    assert got_events == ref_events
    assert got_mirrors == ref_mirrors
    for name, lines in got_mirrors.items():
        assert lines == (logs / name).read_bytes().split(b"\n")[:-1]


@pytest.mark.e2e
def test_two_concurrent_ingests_end_like_one(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    _write_corpus(logs, files=4, lines_each=3000)
    script = str(HERE / "plain_ingest.py")
    subprocess.run([sys.executable, script], env=_env(tmp_path / "one", logs), check=True)
    procs = [
        subprocess.Popen([sys.executable, script], env=_env(tmp_path / "two", logs))
        for _ in range(2)
    ]
    assert [p.wait() for p in procs] == [0, 0]
    assert _snapshot(tmp_path / "two", logs) == _snapshot(tmp_path / "one", logs)


def test_a_full_map_grows_instead_of_failing(tmp_path):
    from plain_format import PLAIN

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_bytes(b"".join(line(i, "grow " * 200) for i in range(3000)))
    settings = Settings.from_env(
        {"HOME": str(tmp_path), "ORIGIN_HOME": str(tmp_path / "o"), "PLAIN_HOME": str(logs)}
    )
    store = Store.open(settings.home, map_size=256 * 1024)
    try:
        before = store.env.info()["map_size"]
        assert Ingester(store, settings, {"plain": PLAIN}).run().events == 3000
        assert store.env.info()["map_size"] > before
        assert len(all_events(store)) == 3000
    finally:
        store.close()


def test_a_failure_to_write_the_archive_is_not_blamed_on_the_agents_log(plain_env):
    """A file where the mirrors' folder should be makes the archive unusable: the error is
    raised (the command line turns it into one line) instead of being reported as a bad log."""
    settings, logs, store, ingester = plain_env
    (logs / "a.jsonl").write_bytes(line(1))
    raw = settings.home / "raw"
    assert not raw.exists()  # nothing ingested yet: no mirror written
    raw.write_bytes(b"in the way")
    with pytest.raises(OSError) as raised:
        ingester.run()
    assert str(settings.home) in str(raised.value)
