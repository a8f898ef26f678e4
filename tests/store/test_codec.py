"""Event records compressed with a dictionary per source: every record reads back exactly, old
plain records and compressed ones live side by side, dictionaries are trained once (the first
writer wins), verify() finds damaged values, and a schema-1 store is upgraded on open keeping
every event, entry, forget and token."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from plain_format import keepsakes, line

from origin_store import Ingester, Settings, Store
from origin_store.care.verify import verify
from origin_store.core import codec, keys, recordids
from origin_store.core.codec import PLAIN, ZSTD, ZSTD_ID, CodecError, EventCodec
from origin_store.core.db import SCHEMA_VERSION
from origin_store.entries import versions as entries
from origin_store.ingest import commit as commit_module
from origin_store.reader import get_event, session_event_ids
from origin_store.replication import tokens


@pytest.fixture
def small_generations(monkeypatch):
    """Dictionaries due after a few hundred events, as a real store's are after thousands."""
    monkeypatch.setattr(codec, "GENERATIONS", (200, 1200))
    monkeypatch.setattr(codec, "SAMPLE_BYTES", 20_000)


def _texts(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words = [
        "build",
        "test",
        "lint",
        "deploy",
        "cache",
        "index",
        "parse",
        "store",
        "mirror",
        "frame",
        "数据库",
        "迁移",
        "café",
    ]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(3, 120))) for _ in range(n)]


def _ingest(logs, ingester, texts: list[str], name: str = "a.jsonl", start: int = 0) -> None:
    with open(logs / name, "ab") as f:
        for i, text in enumerate(texts, start=start):
            f.write(line(i, text, session=f"s{i // 50}"))
    ingester.run()


def _values(store: Store) -> dict[bytes, bytes]:
    with store.read() as txn:
        return dict(store.iter_events(txn))


def test_every_record_reads_back_exactly_once_compressed(plain_env, small_generations):
    settings, logs, store, ingester = plain_env
    texts = _texts(3000)
    _ingest(logs, ingester, texts[:1500])
    _ingest(logs, ingester, texts[1500:], start=1500)
    values = _values(store)
    assert len(values) == 3000
    # The last generation's dictionary keeps every record, the ones written before it too.
    with store.read() as txn:
        meta = store.meta_get(txn, "dict:plain")
    assert meta["gen"] == 2
    heads = {v[:5] for v in values.values()}
    assert heads == {bytes([ZSTD_ID]) + meta["id"].to_bytes(4, "big")}
    with store.read() as txn:
        for i, text in enumerate(texts):
            event = get_event(store, txn, f"plain:{i}")
            assert event is not None
            assert event["id"] == f"plain:{i}" and event["text"] == f"{text} {i}"
            assert event["line"] == i + 1 and event["session"] == f"s{i // 50}"
            assert event["project"] == "plain-project"
    assert sum(map(len, values.values())) < sum(len(t) for t in texts) / 2
    assert verify(store, settings.home).ok


def test_a_first_batch_is_compressed_with_a_dictionary_trained_on_it(
    plain_env, small_generations, monkeypatch
):
    """One pass of one batch holding more records than a dictionary needs (a database's
    first read): the batch is sampled before it is encoded, so it is written compressed with
    the last generation's dictionary, not plain and then compressed again."""
    settings, logs, store, ingester = plain_env
    recompressed: list[int] = []
    real = commit_module.recompress

    def counted(store: Store) -> int:
        recompressed.append(real(store))
        return recompressed[-1]

    monkeypatch.setattr(commit_module, "recompress", counted)
    texts = _texts(1500)
    _ingest(logs, ingester, texts)  # one file of 1,500 lines: one batch
    with store.read() as txn:
        meta = store.meta_get(txn, "dict:plain")
    assert meta is not None and meta["gen"] == 2  # 1,500 seen at once: the last generation
    heads = {v[:5] for v in _values(store).values()}
    assert heads == {bytes([ZSTD_ID]) + meta["id"].to_bytes(4, "big")}
    assert sum(recompressed) == 0  # no record was written plain, to be compressed again
    with store.read() as txn:
        assert get_event(store, txn, "plain:1499")["text"] == f"{texts[1499]} 1499"
    assert verify(store, settings.home).ok


def test_plain_and_compressed_records_live_side_by_side(plain_env, small_generations):
    settings, logs, store, ingester = plain_env
    _ingest(logs, ingester, _texts(1500))
    old = {"id": "plain:old", "time": 1, "source": "plain", "project": None, "session": "s0"}
    old |= {"role": "user", "kind": "message", "text": "from schema 1", "cwd": None}
    old |= {"git_branch": None, "agent_version": None, "m": 1, "line": 1}
    store.write(lambda txn: store.put(txn, "events", b"plain:old", old))
    with store.read() as txn:
        assert get_event(store, txn, "plain:old") == old
        assert get_event(store, txn, "plain:3")["text"].endswith(" 3")
        assert get_event(store, txn, "plain:nope") is None


def test_few_events_stay_plain_and_readable(plain_env):
    settings, logs, store, ingester = plain_env
    _ingest(logs, ingester, _texts(50))
    assert {v[0] for v in _values(store).values()} == {PLAIN}
    with store.read() as txn:
        assert store.meta_get(txn, "dict:plain") is None
        assert get_event(store, txn, "plain:7")["text"].endswith(" 7")
    assert verify(store, settings.home).ok


def test_the_first_dictionary_stored_wins(plain_env, small_generations):
    settings, logs, store, ingester = plain_env
    # Two codecs on one store stand for two processes sampling the same source.
    first, second = EventCodec(store), EventCodec(store)
    for i, text in enumerate(_texts(400)):
        record = {"id": f"plain:{i}", "source": "plain", "text": text}
        first.encoder("plain")(dict(record))
        second.encoder("plain")(dict(record))
    kept = first.prepare("plain")
    assert kept is not None
    # The second sees the stored dictionary of that generation and uses it, not its own.
    assert second.prepare("plain") == kept
    # Even when both trained before either stored: the later writer stores nothing.
    state = second._sources["plain"]
    state.gen = 0
    with store.read() as txn:
        assert store.meta_get(txn, "dict:plain")["id"] == kept
    assert store.write(lambda txn: second._keep(txn, "plain", state.seen, 1, b"other")) == (
        False,
        kept,
        1,
    )
    assert second.dict_for("plain") == kept
    with store.read() as txn:
        assert txn.stat(store.dbs["dicts"])["entries"] == 1


def test_a_dictionary_from_a_transaction_that_failed_is_never_used(plain_env, small_generations):
    """A write that stored a dictionary and then failed (a commit refused for a full map is run
    again) leaves nothing cached: the id it would have taken goes to another process's
    dictionary, and records compressed with the first under that id would read as damaged
    everywhere else."""
    settings, logs, store, ingester = plain_env
    mine, theirs = EventCodec(store), EventCodec(store)
    for i, text in enumerate(_texts(400)):
        record = {"id": f"plain:{i}", "source": "plain", "text": text}
        mine.encoder("plain")(dict(record))
        theirs.encoder("plain")(dict(record))

    def fails(txn) -> None:
        mine._keep(txn, "plain", 400, 1, b"never committed")
        raise RuntimeError("the commit failed")

    with pytest.raises(RuntimeError):
        store.write(fails)
    stored = theirs.prepare("plain")  # another process stores its own under that id
    assert stored is not None
    assert mine.prepare("plain") == stored
    encode = mine.encoder("plain", sample=False)
    record = {"id": "plain:x", "source": "plain", "text": "build test lint 数据库"}
    value = encode(dict(record))
    with store.read() as txn:
        assert theirs.decode(txn, b"plain:x", value) == record


def _damage(store: Store, key: bytes, change) -> None:
    def work(txn) -> None:
        value = bytearray(store.event_value(txn, key))
        store.put_event_value(txn, key, bytes(change(value)))

    store.write(work)


def test_verify_finds_damaged_compressed_records(plain_env, small_generations):
    settings, logs, store, ingester = plain_env
    _ingest(logs, ingester, _texts(1500))
    assert verify(store, settings.home).ok

    def flip(value: bytearray) -> bytearray:
        value[len(value) // 2] ^= 0x55
        value[-1] ^= 0x55
        return value

    with store.read() as txn:
        seqs = {n: store.event_seq(txn, f"plain:{n}") for n in (10, 11, 12, 13)}
    _damage(store, b"plain:10", flip)
    _damage(store, b"plain:11", lambda v: b"\x09" + v[1:])
    _damage(store, b"plain:12", lambda v: v[:5] + b"garbage")
    _damage(store, b"plain:13", lambda v: v[:1] + (999).to_bytes(4, "big") + v[5:])
    report = verify(store, settings.home)
    # Each is named by its id where the record still says it, else by its place in `ev`.
    for n, seq in seqs.items():
        assert any(
            p.startswith((f"plain:{n}: the record", f"event record {seq}: it does not say"))
            for p in report.problems
        ), (n, report.problems)
    with store.read() as txn, pytest.raises(CodecError):
        get_event(store, txn, "plain:13")


def _downgrade(store: Store) -> None:
    """Make the store what schema 1 wrote: plain records under their ids in `events`, no
    dictionaries, a key per event in `sess_ev`, events named by their ids."""

    def work(txn) -> None:
        for key, value in list(store.iter_events(txn)):
            record = store.codec.decode(txn, key, value)
            txn.put(key, orjson.dumps(record), db=store.dbs["events"])
        for session, value in list(txn.cursor(db=store.sess_db)):
            named = keys.session_event_value(
                keys.read_u64(value[:8]), str(store.session_value_id(txn, value)).encode()
            )
            txn.put(bytes(session) + b"\0" + named, b"", db=store.dbs["sess_ev"])
        feed = store.dbs["feed"]
        for seq, value in list(txn.cursor(db=feed)):
            item = store.feed_item(txn, value)
            if item["t"] == "event":
                txn.put(seq, orjson.dumps(item), db=feed)
        for name in ("ev", "ev_ids", "ev_keys", "sess_events", "sess_seqs"):
            txn.drop(store.dbs[name], delete=False)
        txn.delete(b"ids", db=store.dbs["meta"])
        txn.drop(store.dbs["dicts"], delete=False)
        txn.delete(b"dict:plain", db=store.dbs["meta"])
        txn.put(b"schema", b"1", db=store.dbs["meta"])

    store.write(work)


def test_a_schema_1_store_is_upgraded_on_open_keeping_everything(plain_env, small_generations):
    settings, logs, store, ingester = plain_env
    _ingest(logs, ingester, _texts(1500))
    forgotten, secret = keepsakes(store)
    with store.read() as txn:
        timelines = {s: list(session_event_ids(store, txn, "plain", s)) for s in ("s0", "s29")}
    assert len(timelines["s0"]) == 50
    _downgrade(store)
    with store.read() as txn:
        before = {k.decode(): orjson.loads(v) for k, v in txn.cursor(db=store.dbs["events"])}
        hidden = dict(txn.cursor(db=store.dbs["hidden"]))
    assert {v[:1] for v in _values(store).values()} == {b"{"}
    store.close()

    store = Store.open(settings.home)
    try:
        values = _values(store)
        assert {v[0] for v in values.values()} == {ZSTD}
        with store.read() as txn:
            assert store.meta_get(txn, "schema") == SCHEMA_VERSION
            assert txn.stat(store.dbs["sess_ev"])["entries"] == 0
            assert txn.stat(store.dbs["events"])["entries"] == 0
            assert txn.stat(store.dbs["ev"])["entries"] == len(before)
            for session, ids in timelines.items():
                assert list(session_event_ids(store, txn, "plain", session)) == ids
            after = {k: get_event(store, txn, k) for k in before}
            assert after == before
            assert entries.get_entry(store, txn, "ent_1")["text"] == "a fact"
            assert dict(txn.cursor(db=store.dbs["hidden"])) == hidden
            assert entries.is_hidden(store, txn, "plain:9")
            assert store.get(txn, "tombstones", forgotten["tombstone"].encode())
        assert tokens.verify(store, secret) is not None
        assert verify(store, settings.home).ok
    finally:
        store.close()


def test_an_upgrade_cut_short_is_taken_up_again(plain_env, small_generations, monkeypatch):
    settings, logs, store, ingester = plain_env
    _ingest(logs, ingester, _texts(1500))
    _downgrade(store)
    store.close()
    from origin_store.core import migrate

    calls = 0
    real = migrate._rewrite

    def dies_after_one(store, txn, *, after):
        nonlocal calls
        calls += 1
        if calls > 1:
            raise KeyboardInterrupt
        return real(store, txn, after=after)

    monkeypatch.setattr(migrate, "BATCH", 500)
    monkeypatch.setattr(migrate, "_rewrite", dies_after_one)
    with pytest.raises(KeyboardInterrupt):
        Store.open(settings.home)
    monkeypatch.setattr(migrate, "_rewrite", real)
    store = Store.open(settings.home)
    try:
        assert {v[0] for v in _values(store).values()} == {ZSTD}
        with store.read() as txn:
            assert store.meta_get(txn, "schema") == SCHEMA_VERSION
            assert txn.stat(store.dbs["dicts"])["entries"] == 1
            assert len(list(session_event_ids(store, txn, "plain", "s3"))) == 50
            assert get_event(store, txn, "plain:1499")["text"].endswith(" 1499")
        assert verify(store, settings.home).ok
    finally:
        store.close()


def test_processes_that_each_see_few_events_still_train_from_the_store(plain_env):
    settings, logs, store, ingester = plain_env
    texts = [t + " " + t for t in _texts(2800, seed=11)]
    for n in range(4):
        store.codec = EventCodec(store)  # a process of its own, one short pass each
        part = texts[n * 700 : (n + 1) * 700]
        _ingest(logs, ingester, part, name=f"f{n}.jsonl", start=n * 700)
    with store.read() as txn:
        assert store.meta_get(txn, "dict:plain")["gen"] == 1
        assert store.meta_get(txn, "plain_left:plain") is None
        assert get_event(store, txn, "plain:5")["text"] == f"{texts[5]} 5"
    assert {v[0] for v in _values(store).values()} == {ZSTD_ID}
    assert verify(store, settings.home).ok


def _layout(store: Store) -> dict[str, object]:
    with store.read() as txn:
        first_feed = next(iter(txn.cursor(db=store.dbs["feed"])))[1]
        return {
            "seq_ids": store.seq_ids,
            "ids": {n: txn.stat(store.dbs[n])["entries"] for n in ("ev_ids", "ev_keys")},
            "sessions": {
                n: txn.stat(store.dbs[n])["entries"] for n in ("sess_events", "sess_seqs")
            },
            "feed": first_feed[:1],
            "timeline": list(session_event_ids(store, txn, "plain", "s0")),
        }


def test_a_new_store_names_events_by_sequence_and_an_older_one_by_id(tmp_path: Path) -> None:
    """A store created now keeps each id once, in its record; one created before schema 7
    keeps its layout (ids in `ev_ids`, `sess_events` and the feed) and reads the same."""
    from plain_format import PLAIN

    logs = tmp_path / "logs"
    logs.mkdir()
    texts = _texts(300)
    with open(logs / "a.jsonl", "wb") as f:
        for i, text in enumerate(texts):
            f.write(line(i, text, session=f"s{i // 50}"))

    def older(store: Store) -> Callable[[Any], None]:
        def work(txn: Any) -> None:  # as schema 6 made it: no layout named
            txn.delete(b"ids", db=store.dbs["meta"])
            txn.put(b"schema", b"6", db=store.dbs["meta"])

        return work

    found: dict[str, dict[str, object]] = {}
    for name in ("new", "older"):
        env = {"HOME": str(tmp_path), "ORIGIN_HOME": str(tmp_path / name), "PLAIN_HOME": str(logs)}
        settings = Settings.from_env(env)
        if name == "older":
            with Store.open(settings.home) as store:
                store.write(older(store))
        with Store.open(settings.home) as store:
            Ingester(store, settings, {"plain": PLAIN}).run()
            assert verify(store, settings.home).ok
            found[name] = _layout(store)
            with store.read() as txn:
                assert get_event(store, txn, "plain:7")["text"] == f"{texts[7]} 7"
    new, old = found["new"], found["older"]
    assert new["seq_ids"] and not old["seq_ids"]
    assert new["ids"] == {"ev_ids": 0, "ev_keys": 300}
    assert old["ids"] == {"ev_ids": 300, "ev_keys": 0}
    assert new["sessions"] == {"sess_events": 0, "sess_seqs": 300}  # values, not keys
    assert old["sessions"] == {"sess_events": 300, "sess_seqs": 0}
    assert (new["feed"], old["feed"]) == (b"E", b"e")
    assert new["timeline"] == old["timeline"] == [f"plain:{i}" for i in range(50)]


@pytest.mark.parametrize(
    ("event_id", "size"),
    [
        ("claude-code:0019085c-0ba5-437e-9724-7690b980429b", 17),
        ("codex:01a20d64-1bef-7fdf-a075-10fa73e83128:L673", 22),
        # what does not give the id back exactly is kept as it is
        ("claude-code:0019085C-0BA5-437E-9724-7690B980429B", 48),
        ("claude-code:0019085c-0ba5-437e-9724-7690b98042", 46),
        ("plain:7", 7),
        ("grok:数据", 11),
    ],
)
def test_an_id_is_kept_small_and_comes_back_exactly(event_id: str, size: int) -> None:
    kept = recordids.pack_id(event_id)
    assert len(kept) == size and recordids.unpack_id(kept) == event_id


@given(
    st.sampled_from(["claude-code:", "codex:", "grok:", "", "x:", "\x01", "\x00"]),
    st.uuids().map(str) | st.text(max_size=40),
    st.text(max_size=20),
)
def test_any_id_comes_back_exactly(prefix: str, middle: str, rest: str) -> None:
    event_id = prefix + middle + rest
    assert recordids.unpack_id(recordids.pack_id(event_id)) == event_id


def test_an_id_too_long_to_key_is_a_problem_and_the_rest_is_kept(plain_env, small_generations):
    """A hostile log's id longer than an entry's citation of it can key (`bounds`) is a counted
    problem of its line, never a record: the lines after it are kept and compressed as ever."""
    settings, logs, store, ingester = plain_env
    _ingest(logs, ingester, _texts(400))
    huge = "h" * 70_000
    with open(logs / "a.jsonl", "ab") as f:
        f.write(orjson.dumps({"id": huge, "t": 1, "s": "s0", "text": "a very long name"}) + b"\n")
    _ingest(logs, ingester, ["after the long one"], start=400)
    with store.read() as txn:
        assert store.event_value(txn, f"plain:{huge}".encode()) is None
        reasons = [orjson.loads(v)["reason"] for _, v in txn.cursor(db=store.dbs["problems"])]
        assert reasons == ["unstorable"]
        assert get_event(store, txn, "plain:400")["text"] == "after the long one 400"
        assert store.event_value(txn, b"plain:400")[0] == ZSTD_ID  # a dictionary was there
    assert verify(store, settings.home).ok
