"""Ephemeral mode's switch: a file under the home, read with one stat, ending by itself."""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson

from origin_store.pause import state as pause

T0 = 1_792_487_550_000  # 2026-10-20T09:12:30Z


def test_no_flag_no_pause(tmp_path: Path):
    assert pause.paused(tmp_path) is None and pause.last(tmp_path) is None
    assert pause.resume(tmp_path) is None
    assert pause.paused(tmp_path / "not-there" / "home") is None
    (tmp_path / "a-file").write_text("")
    assert pause.paused(tmp_path / "a-file") is None  # a file where the home should be


def test_a_pause_is_a_json_file_that_survives_the_process(tmp_path: Path):
    made = pause.pause(tmp_path, for_ms=3_600_000, reason="private work", now_ms=T0)
    assert made == pause.Pause(T0, T0 + 3_600_000, "private work")
    assert orjson.loads((tmp_path / "paused").read_bytes()) == {
        "since": "2026-10-20T09:12:30.000+00:00",
        "until": "2026-10-20T10:12:30.000+00:00",
        "reason": "private work",
    }
    assert os.stat(tmp_path / "paused").st_mode & 0o777 == 0o600
    pause._seen.clear()  # what another process, or this one after a restart, reads
    assert pause.paused(tmp_path, now_ms=T0 + 1) == made


def test_until_ends_it_by_itself_and_the_window_stays_readable(tmp_path: Path):
    made = pause.pause(tmp_path, for_ms=2_000, now_ms=T0)
    assert pause.paused(tmp_path, now_ms=T0 + 1_999) == made
    assert pause.paused(tmp_path, now_ms=T0 + 2_000) is None
    assert pause.last(tmp_path) == made  # for whoever skips what was written meanwhile
    assert pause.resume(tmp_path) == made and pause.last(tmp_path) is None


def test_without_until_it_lasts_until_resumed(tmp_path: Path):
    made = pause.pause(tmp_path, now_ms=T0)
    assert made.until is None and pause.paused(tmp_path, now_ms=T0 + 10**12) == made
    assert pause.resume(tmp_path) == made and pause.paused(tmp_path) is None


def test_pausing_again_keeps_when_it_began(tmp_path: Path):
    pause.pause(tmp_path, for_ms=60_000, reason="a call", now_ms=T0)
    again = pause.pause(tmp_path, for_ms=60_000, now_ms=T0 + 30_000)
    assert again == pause.Pause(T0, T0 + 90_000, "a call")
    after_it_ended = pause.pause(tmp_path, now_ms=T0 + 10**9)
    assert after_it_ended == pause.Pause(T0 + 10**9, None, None)


def test_a_flag_that_cannot_be_read_is_a_pause_without_end(tmp_path: Path):
    for text in ('{"since": "2026-10', "[]", '{"until": null}', '{"since": "soon"}'):
        (tmp_path / "paused").write_text(text)
        found = pause.paused(tmp_path)
        assert found is not None and found.until is None, text
        assert found.reason == pause.UNREADABLE


def test_another_process_changing_the_flag_is_seen_at_the_next_call(tmp_path: Path):
    """The cache holds only while the file's identity and mtime do: a flag rewritten (renamed
    over) or removed by another process is read again."""
    pause.pause(tmp_path, now_ms=T0)
    assert pause.paused(tmp_path) is not None
    (tmp_path / "paused").unlink()  # `origin resume` in another process
    assert pause.paused(tmp_path) is None
    other = tmp_path / ".other"
    other.write_bytes(orjson.dumps({"since": "2026-10-20T09:12:30Z", "until": None, "reason": "b"}))
    os.replace(other, tmp_path / "paused")
    assert pause.paused(tmp_path) == pause.Pause(T0, None, "b")


def test_a_look_at_an_unchanged_flag_costs_a_stat(tmp_path: Path):
    pause.pause(tmp_path, now_ms=T0)
    pause.paused(tmp_path)
    started = time.perf_counter()
    for _ in range(10_000):
        pause.paused(tmp_path)
    assert (time.perf_counter() - started) / 10_000 < 200e-6  # a stat and a dict lookup
