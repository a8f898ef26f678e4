"""A mirror line's first characters and its exact length in characters, wherever the line is
kept: the tail, a frame of many lines, or a frame of its own (streamed)."""

from __future__ import annotations

import orjson
import pytest
from plain_format import line

from origin_store import reader
from origin_store.reader import _frame_for, read_mirror_text


def _mirror(store, log) -> int:
    with store.read() as txn:
        return store.get(txn, "files", str(log).encode())["mirror"]["id"]


def _lines(texts: list[str]) -> list[bytes]:
    out = [orjson.dumps({"id": i, "text": t}) + b"\n" for i, t in enumerate(texts)]
    out.append(
        b'{"id": "bad", "text": "caf\xe9 \xf0\x9f na\xc3"}\n'
    )  # invalid UTF-8, kept as written
    return out


def _check(
    store, home, mid: int, originals: list[bytes], keeps=(0, 1, 4_000, 10**7), first: int = 1
) -> None:
    for number, raw in enumerate(originals, start=first):
        whole = raw[:-1].decode("utf-8", errors="replace")
        for keep in keeps:
            assert read_mirror_text(store, home, mid, number, keep) == (whole[:keep], len(whole)), (
                number,
                keep,
            )


def test_tail_lines(plain_env) -> None:
    settings, logs, store, ingester = plain_env
    log = logs / "a.jsonl"
    originals = _lines(["hello", "数据库" * 3000, "x" * 5000, ""])
    log.write_bytes(b"".join(originals))
    ingester.run()
    with store.read() as txn:
        assert store.get(txn, "files", str(log).encode())["mirror"]["sealed"] == 0
    _check(store, settings.home, _mirror(store, log), originals)
    assert read_mirror_text(store, settings.home, _mirror(store, log), 99, 10) is None


def test_lines_in_frames_of_many(plain_env) -> None:
    settings, logs, store, ingester = plain_env
    log = logs / "a.jsonl"
    originals = [line(i, "数据 payload " * 40) for i in range(3000)] + _lines(["終わり" * 100])
    log.write_bytes(b"".join(originals))
    ingester.run()
    mid = _mirror(store, log)
    with store.read() as txn:
        assert _frame_for(store, txn, mid, 1).lines > 1
    for number in (1, 2, 1500, 2999, 3000, 3001, 3002):
        _check(
            store,
            settings.home,
            mid,
            originals[number - 1 : number],
            keeps=(0, 7, 4_000),
            first=number,
        )


@pytest.mark.parametrize("chunk", [7, 1 << 20])
def test_a_line_in_a_frame_of_its_own_is_streamed_exactly(plain_env, monkeypatch, chunk) -> None:
    """Chunks of 7 bytes split every multi-byte character and the invalid bytes somewhere."""
    settings, logs, store, ingester = plain_env
    monkeypatch.setattr(reader, "_STREAM_CHUNK", chunk)
    log = logs / "a.jsonl"
    big = (
        b'{"id": "big", "text": "' + ("数据库 migration ✓ " * 20_000).encode() + b'\xe9\xf0\x9f"}\n'
    )
    originals = [big, line(1), line(2)]
    log.write_bytes(b"".join(originals))
    ingester.run()
    mid = _mirror(store, log)
    with store.read() as txn:
        frame = _frame_for(store, txn, mid, 1)
    assert frame is not None and frame.lines == 1
    _check(store, settings.home, mid, originals, keeps=(0, 1, 3, 4_000, 20_000, 10**7))


def test_many_lines_at_once_read_as_each_alone(plain_env) -> None:
    """MirrorLines (a sync batch's reader) gives what read_mirror_text gives, line by line, in
    any order: frames of many lines, an oversized line's frame of its own, the tail, and lines
    that do not exist."""
    settings, logs, store, ingester = plain_env
    a, b = logs / "a.jsonl", logs / "b.jsonl"
    big = b'{"id": "big", "text": "' + ("数据库 ✓ " * 60_000).encode() + b'"}\n'
    a.write_bytes(b"".join([line(i, "数据 payload " * 40) for i in range(2500)] + [big]))
    b.write_bytes(b"".join(_lines(["short", "数据库" * 30])))
    ingester.run()
    with a.open("ab") as f:  # lines after the last seal stay in the tail
        f.write(b"".join(_lines(["tail line"])))
    ingester.run()
    many = reader.MirrorLines(store, settings.home, 300)
    wanted = [(_mirror(store, a), n) for n in (*range(1, 2505), 1, 2503, 9999)]
    wanted += [(_mirror(store, b), n) for n in (1, 2, 3, 4, 0)]
    wanted += [(_mirror(store, a), n) for n in (1200, 7, 2501)]
    for mid, number in wanted:
        expected = read_mirror_text(store, settings.home, mid, number, 300)
        assert many.text(mid, number) == expected, (mid, number)
    assert len(many._frames) <= many.KEPT_FRAMES
