"""verify() finds damage that is put there on purpose, and passes on a healthy store."""

from __future__ import annotations

import orjson
from plain_format import line

from origin_store import bounds
from origin_store.care.verify import verify


def _ingest_big(logs, ingester, n: int = 3000) -> None:
    log = logs / "a.jsonl"
    log.write_bytes(b"".join(line(i, "payload " * 40) for i in range(n)))
    ingester.run()


def test_healthy_store_verifies(plain_env):
    settings, logs, store, ingester = plain_env
    _ingest_big(logs, ingester)
    report = verify(store, settings.home)
    assert report.ok, report.problems
    assert report.events == 3000 and report.lines == 3000 and report.frames >= 2


def test_a_flipped_byte_in_a_frame_is_reported(plain_env):
    settings, logs, store, ingester = plain_env
    _ingest_big(logs, ingester)
    [zst] = list((settings.home / "raw").rglob("*.zst"))
    data = bytearray(zst.read_bytes())
    data[len(data) // 3] ^= 0xFF
    zst.write_bytes(bytes(data))
    report = verify(store, settings.home)
    assert not report.ok and any("damaged" in p or "holds" in p for p in report.problems)


def test_a_changed_tail_is_reported(plain_env):
    settings, logs, store, ingester = plain_env
    (logs / "a.jsonl").write_bytes(line(1) + line(2))
    ingester.run()
    [tail] = list((settings.home / "raw").rglob("*.tail"))
    tail.write_bytes(tail.read_bytes().replace(b"hello", b"HELLO"))
    report = verify(store, settings.home)
    assert any("tail does not match" in p for p in report.problems)


def test_a_truncated_mirror_is_reported(plain_env):
    settings, logs, store, ingester = plain_env
    _ingest_big(logs, ingester)
    [zst] = list((settings.home / "raw").rglob("*.zst"))
    zst.write_bytes(zst.read_bytes()[:100])
    assert not verify(store, settings.home).ok


def test_an_event_pointing_past_its_mirror_is_reported(plain_env):
    settings, logs, store, ingester = plain_env
    (logs / "a.jsonl").write_bytes(line(1))
    ingester.run()

    def corrupt(txn) -> None:
        event = store.event(txn, "plain:1")
        event["line"] = 99
        store.put_event_value(txn, b"plain:1", orjson.dumps(event))

    store.write(corrupt)
    assert any("points at line 99" in p for p in verify(store, settings.home).problems)


def test_a_kept_text_or_label_that_does_not_fit_is_reported(plain_env):
    settings, logs, store, ingester = plain_env
    (logs / "a.jsonl").write_bytes(line(1) + line(2) + line(3) + line(4))
    ingester.run()

    def damage(event_id: str, **fields) -> None:
        def work(txn):
            record = store.event(txn, event_id)
            record.update(fields)
            store.put_event_value(txn, event_id.encode(), orjson.dumps(record))

        store.write(work)

    damage("plain:1", text_chars=5)  # a whole text needs no length; this one is not even cut
    damage("plain:2", label=[[99, "thread name: "]])  # past the end of the text
    damage("plain:3", label=[[3, "a"], [1, "b"]])  # out of order
    damage("plain:4", label=[[0, "thread name: "]])  # fine
    problems = verify(store, settings.home).problems
    assert len(problems) == 3 and all(
        p.startswith(("plain:1:", "plain:2:", "plain:3:")) for p in problems
    ), problems


def test_a_time_no_front_door_renders_is_reported(plain_env):
    """As an earlier version's hub kept a pushed one: every read showing it failed."""
    settings, logs, store, ingester = plain_env
    (logs / "a.jsonl").write_bytes(line(1) + line(2) + line(3))
    ingester.run()

    def damage(event_id: str, when: object) -> None:
        def work(txn):
            record = store.event(txn, event_id)
            record["time"] = when
            store.put_event_value(txn, event_id.encode(), orjson.dumps(record))

        store.write(work)

    damage("plain:1", 2**62 - 1)
    damage("plain:2", -(2**62) + 1)
    damage("plain:3", bounds.TIME_MAX_MS)  # the latest kept: fine
    # Records changed behind the writers' back move their days: the figures say so too.
    problems = [p for p in verify(store, settings.home).problems if not p.startswith("activity of")]
    assert [p.split(":")[1] for p in problems] == ["1", "2"], problems
    assert all("is not between 0001-01-02 and 9999-12-30" in p for p in problems), problems
