"""A row log's digests (`rowdigests.Digests`): the same answers as a dict of identities, in a
table of 24-48 bytes a row, saved and loaded whole, and read from the form before it."""

from __future__ import annotations

import hashlib
import marshal
import os
import time
import tracemalloc

from hypothesis import given
from hypothesis import strategies as st
from rows_format import create, note

from origin_store.ingest import rowlog
from origin_store.ingest.rowdigests import Digests, digest
from origin_store.parsers.base import load_row

identities = st.text(alphabet="abc/01", min_size=1, max_size=6)
operations = st.lists(st.tuples(identities, st.integers(0, 3)), max_size=500)


@given(operations)
def test_answers_as_a_dict_of_identities_does_and_survives_saving(ops):
    model: dict[str, int] = {}
    digests = Digests()
    half = len(ops) // 2
    for n, (identity, value) in enumerate(ops):
        if n == half:  # saved and loaded midway, as between two reads
            loaded = Digests.from_state(marshal.loads(marshal.dumps(digests.state())))
            assert loaded is not None
            digests = loaded
        expected = model.get(identity) != value
        model[identity] = value
        assert digests.changed(identity, value) is expected
    assert len(digests) == len(model)


def test_a_row_takes_tens_of_bytes_not_hundreds():
    tracemalloc.start()
    try:
        digests = Digests()
        for i in range(100_000):
            digests.changed(f"notes/{i}", i)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # 16 bytes a slot, a third to two thirds full; a dict of identity strings held ~190 a row.
    assert held / 100_000 <= 48
    # Every row is still found after the table grew, and a changed one is told.
    assert not any(digests.changed(f"notes/{i}", i) for i in range(0, 100_000, 499))
    assert digests.changed("notes/5", 6) and len(digests) == 100_000


def test_damaged_states_are_refused_not_trusted():
    good = Digests()
    good.changed("a", 1)
    state = good.state()
    assert Digests.from_state(state) is not None
    assert Digests.from_state({**state, "keys": state["keys"][:-8]}) is None
    assert Digests.from_state({**state, "keys": b"\x01" * len(state["keys"])}) is None  # full
    assert Digests.from_state({"version": 3}) is None
    assert Digests.from_state({"version": 2, "keys": "x", "values": b""}) is None


def test_a_row_log_saved_by_the_earlier_form_reads_on_without_writing_rows_again(rows_env):
    """Digests kept as identities with 12-byte digests (version 1) carry over: an unchanged row
    is not appended again, a changed one is."""
    settings, agent, store, ingester = rows_env
    db = agent / "chat.db"
    connection = create(db)
    for i in range(50):
        note(connection, f"n{i}", f"note {i}", t=i)
    ingester.run()
    log = rowlog.row_log_path(settings.home / "rows", "notesdb", db)
    lines = log.read_bytes().splitlines()
    old_rows = {}
    for line in lines:
        row = load_row(line)
        assert isinstance(row, tuple)
        old_rows[f"{row[0]}/{row[1]}"] = hashlib.blake2b(line, digest_size=12).digest()
    log.with_suffix(".rows").write_bytes(marshal.dumps({"version": 1, "rows": old_rows}))
    carried = Digests.from_state({"version": 1, "rows": old_rows})
    assert carried is not None
    assert not any(
        carried.changed(k, digest(line)) for k, line in zip(old_rows, lines, strict=True)
    )
    note(connection, "n7", "note 7, corrected", t=7)
    connection.close()
    os.utime(db, (time.time() + 5, time.time() + 5))  # a change the stamp sees
    report = ingester.run()
    assert not report.errors
    after = log.read_bytes().splitlines()
    assert after[: len(lines)] == lines and len(after) == len(lines) + 1
    assert b"note 7, corrected" in after[-1]


def test_a_small_database_s_digests_stay_small_on_disk():
    """Hundreds of small databases (Cursor keeps one per chat) each keep their own digests."""
    digests = Digests()
    for i in range(3):
        digests.changed(f"notes/{i}", i)
    assert len(marshal.dumps(digests.state())) < 512
