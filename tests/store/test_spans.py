"""Event texts kept once (`spans`): a sealed frame leaves out the texts its events' records hold,
and every line comes back byte for byte, through every way a line reaches a frame."""

from __future__ import annotations

import os
import time

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mirror_support import iter_mirror
from plain_format import PLAIN

from origin_store import Ingester, Settings, Store
from origin_store.care.verify import verify
from origin_store.core import keys
from origin_store.core.lmdbio import pairs
from origin_store.mirrors import mirror as mirrors
from origin_store.mirrors import spans

ARGS = '{"command":["bash","-lc","pytest -q tests/test_x.py"],"workdir":"/home/dev/app"}'
LONG = 'the build failed at step 3: "make check" timed out after 300 s \\ see log\n'


def _line(**fields: object) -> bytes:
    return orjson.dumps(fields)


def _key(event: bytes | int) -> bytes:
    assert isinstance(event, bytes)  # a cut names an event not stored yet by its key
    return event


def _texts(found: dict[int, str]) -> spans.Texts:
    return lambda seqs: {seq: found[seq] for seq in seqs if seq in found}


@pytest.mark.parametrize(
    ("line", "texts", "spans_found"),
    [
        # a text found as its JSON string, escapes and all
        (_line(id=1, text=LONG), [LONG], 1),
        # written twice in one line (a tool's output and its result): both occurrences go
        (_line(a=LONG, b={"c": LONG}), [LONG], 2),
        # short texts stay in the line: a patch would cost more than it saves
        (_line(text="ok, done"), ["ok, done"], 0),
        # a text the line does not hold word for word (the agent escaped differently)
        (_line(text=LONG).replace(b"\\n", b"\\u000a"), [LONG], 0),
        # two texts, one inside the other's place: only spans that do not overlap are cut
        (_line(text=LONG + LONG), [LONG + LONG, LONG], 1),
        # characters beyond ASCII are written as UTF-8 by the agents, as orjson writes them
        (_line(text="数据库 " * 30), ["数据库 " * 30], 1),
        # a tool call: its name, then its arguments as the log's string (Codex) ...
        (_line(name="shell", arguments=ARGS), ["shell " + ARGS], 1),
        # ... or as the log's object (Claude Code)
        (
            _line(name="Write", input=orjson.loads(ARGS)),
            ["Write " + orjson.dumps(orjson.loads(ARGS)).decode()],
            1,
        ),
        # an output kept as JSON text inside the line's JSON (Codex's tool outputs)
        (_line(output=orjson.dumps({"output": LONG, "exit": 0}).decode()), [LONG], 1),
    ],
)
def test_a_line_loses_its_texts_and_gets_them_back(line, texts, spans_found):
    cuts = spans.find_cuts(line, [(f"e{n}".encode(), text) for n, text in enumerate(texts)])
    assert len(cuts) == spans_found
    kept, patches = spans.cut_line(line, cuts, 0)
    assert len(kept) == len(line) - sum(end - start for start, end, _, _, _ in cuts)
    by_key = {f"e{n}".encode(): n + 1 for n in range(len(texts))}
    resolved = [(i, o, by_key[_key(event)], b"", form) for i, o, event, _, form in patches]
    found = {n + 1: text for n, text in enumerate(texts)}
    assert spans.rebuild([kept], spans.decode(spans.encode(resolved)), _texts(found)) == [line]


def test_a_cut_whose_span_moved_is_left_out():
    line = _line(text=LONG)
    [cut] = spans.find_cuts(line, [(b"e", LONG)])
    kept, patches = spans.cut_line(b"x" + line, [cut], 0)
    assert kept == b"x" + line and patches == []


@given(
    st.lists(
        st.tuples(
            st.integers(0, 50),
            st.integers(0, 1 << 20),
            st.integers(0, 1 << 40),
            st.integers(0, len(spans.FORMS) - 1),
        ),
        max_size=60,
    ).map(sorted),
    st.binary(max_size=40),
)
def test_patches_come_back_as_they_were_kept(rows, literal):
    patches = [
        (line, offset, seq, b"" if seq else literal, form if seq else 0)
        for line, offset, seq, form in rows
    ]
    assert spans.decode(spans.encode(patches)) == patches


@given(
    st.lists(st.text(alphabet='ab "\\\n\t数é\u2028😀', min_size=0, max_size=80), max_size=6),
    st.lists(st.sampled_from(["x", "y", "z"]), max_size=6),
)
def test_any_json_line_rebuilds_exactly(texts, names):
    line = orjson.dumps(
        {f"{name}{n}": text for n, (name, text) in enumerate(zip(names, texts, strict=False))}
    )
    keyed = [(str(n).encode(), text) for n, text in enumerate(texts)]
    kept, patches = spans.cut_line(line, spans.find_cuts(line, keyed), 3)
    found = dict(enumerate(texts, start=1))
    resolved = [(i, o, int(_key(e)) + 1, b"", form) for i, o, e, _, form in patches]
    assert spans.rebuild([b"", b"", b"", kept], resolved, _texts(found))[3] == line


def test_a_missing_text_is_an_error_not_a_wrong_line():
    with pytest.raises(spans.SpanError):
        spans.rebuild([b'{"a":}'], [(0, 5, 9, b"", 0)], _texts({}))


# -- through ingest --------------------------------------------------------------------------


def _env(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    settings = Settings.from_env(
        {"HOME": str(tmp_path), "ORIGIN_HOME": str(tmp_path / "origin"), "PLAIN_HOME": str(logs)}
    )
    return settings, logs


def _frames(store: Store) -> list[mirrors.Frame]:
    with store.read() as txn:
        return [
            mirrors.Frame.unpack(keys.line_of(key), value)
            for key, value in pairs(txn.cursor(db=store.dbs["frames"]))
        ]


def _mirror_of(store: Store, settings: Settings, path) -> list[bytes]:
    with store.read() as txn:
        cursor = store.get(txn, "files", str(path).encode())
    return list(iter_mirror(store, settings.home, cursor["mirror"]["id"]))


def _event_line(i: int, text: str) -> bytes:
    return orjson.dumps({"id": i, "t": 1_700_000_000_000 + i, "text": text}) + b"\n"


def test_a_cold_log_is_kept_once(tmp_path):
    settings, logs = _env(tmp_path)
    log = logs / "cold.jsonl"
    log.write_bytes(b"".join(_event_line(i, f"{i} {LONG * 5}") for i in range(400)))
    os.utime(log, (time.time() - 3600, time.time() - 3600))
    with Store.open(settings.home) as store:
        Ingester(store, settings, {"plain": PLAIN}).run()
        frames = _frames(store)
        patched = sum(len(spans.decode(frame.patches)) for frame in frames)
        assert patched == 400
        assert _mirror_of(store, settings, log) == log.read_bytes().split(b"\n")[:-1]
        assert verify(store, settings.home).ok
    # The texts were nearly all of the log: what is left of them is the skeleton of each line.
    [zst] = (settings.home / "raw").rglob("*.zst")
    assert zst.stat().st_size < 0.05 * log.stat().st_size


def test_lines_that_waited_in_the_tail_are_cut_when_sealed(tmp_path):
    """A session written a few lines at a time: its lines wait in the plain tail over several
    passes, their cuts kept in LMDB, until a frame's worth is sealed."""
    settings, logs = _env(tmp_path)
    log = logs / "hot.jsonl"
    with Store.open(settings.home) as store:
        ingester = Ingester(store, settings, {"plain": PLAIN})
        count = 0
        while not _frames(store):
            with open(log, "ab") as f:
                for _ in range(20):
                    f.write(_event_line(count, f"{count} {LONG * 20}"))
                    count += 1
            ingester.run()
            with store.read() as txn:
                waiting = txn.stat(store.dbs["tail_cuts"])["entries"]
            if not _frames(store):
                assert waiting == count  # each waiting line's cut, kept till it is sealed
        [frame] = _frames(store)
        assert frame.first_line == 1 and frame.lines > 20  # lines from several passes
        assert {patch[0] for patch in spans.decode(frame.patches)} == set(range(frame.lines))
        with store.read() as txn:
            left = [keys.line_of(key) for key, _ in pairs(txn.cursor(db=store.dbs["tail_cuts"]))]
        assert left == list(range(frame.lines + 1, count + 1))
        assert _mirror_of(store, settings, log) == log.read_bytes().split(b"\n")[:-1]
        assert verify(store, settings.home).ok


def test_an_event_read_again_elsewhere_is_named_or_kept_literally(tmp_path):
    """The same id in a second log: its text is the stored record's when it says the same, and
    kept in the patch itself when the second log says something else."""
    settings, logs = _env(tmp_path)
    first, second = logs / "a.jsonl", logs / "b.jsonl"
    first.write_bytes(_event_line(1, "one " + LONG) + _event_line(2, "two " + LONG))
    second.write_bytes(_event_line(1, "one " + LONG) + _event_line(2, "other " + LONG))
    for path in (first, second):
        os.utime(path, (time.time() - 3600, time.time() - 3600))
    with Store.open(settings.home) as store:
        ingester = Ingester(store, settings, {"plain": PLAIN})
        ingester.run()
        patches = [patch for frame in _frames(store) for patch in spans.decode(frame.patches)]
        assert len(patches) == 4 and sum(1 for patch in patches if patch[2] == 0) == 1
        for path in (first, second):
            assert _mirror_of(store, settings, path) == path.read_bytes().split(b"\n")[:-1]


def test_verify_reports_a_patch_whose_event_is_not_kept(tmp_path):
    settings, logs = _env(tmp_path)
    log = logs / "cold.jsonl"
    log.write_bytes(b"".join(_event_line(i, LONG * 3) for i in range(50)))
    os.utime(log, (time.time() - 3600, time.time() - 3600))
    with Store.open(settings.home) as store:
        Ingester(store, settings, {"plain": PLAIN}).run()
        [frame] = _frames(store)
        patches = spans.decode(frame.patches)
        frame.patches = spans.encode([(i, o, s + 10_000, lit, f) for i, o, s, lit, f in patches])

        def corrupt(txn) -> None:
            txn.put(keys.mirror_line_key(1, 1), frame.pack(), db=store.dbs["frames"])

        store.write(corrupt)
        report = verify(store, settings.home)
        assert any("which is not kept" in problem for problem in report.problems)


def test_a_rewritten_log_leaves_no_cuts_behind(tmp_path):
    """A live log rewritten before its tail was sealed: the old version keeps its lines in its
    tail, which is never sealed, so the cuts kept for them go."""
    settings, logs = _env(tmp_path)
    log = logs / "hot.jsonl"
    log.write_bytes(b"".join(_event_line(i, f"{i} {LONG}") for i in range(5)))
    with Store.open(settings.home) as store:
        ingester = Ingester(store, settings, {"plain": PLAIN})
        ingester.run()
        with store.read() as txn:
            assert txn.stat(store.dbs["tail_cuts"])["entries"] == 5
        old = log.read_bytes()
        log.write_bytes(_event_line(100, f"new {LONG}"))  # shorter: a new version
        ingester.run()
        with store.read() as txn:
            kept = [keys.line_of(key) for key, _ in pairs(txn.cursor(db=store.dbs["tail_cuts"]))]
            first = store.get(txn, "mirrors", keys.mirror_key(1))
        assert kept == [1]  # the new version's one line
        assert list(iter_mirror(store, settings.home, 1)) == old.split(b"\n")[:-1]
        assert first["final"]["tail"] == len(old)
