"""Releasing the store's mapped pages on a real store: they leave the process, not the store,
whether read, committed or written by the transaction still open."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import resident

from origin_store import Store
from origin_store.system.pages import mapped_ranges

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="mapped pages are read from Linux's /proc"
)

VALUE = 256 << 10  # each over LMDB's page: its own overflow pages, as big records are
COUNT = 48  # 12 MiB in all


def values(salt: str) -> dict[str, str]:
    return {f"big-{i}": (salt + os.urandom(VALUE // 2).hex())[:VALUE] for i in range(COUNT)}


def read_all(store: Store, keys: list[str]) -> dict[str, Any]:
    with store.read() as txn:
        return {k: store.meta_get(txn, k) for k in keys}


def test_released_pages_leave_the_process_and_the_data_stays(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        data = store.path / "data.mdb"
        written = values("a")
        store.write(lambda txn: [store.meta_put(txn, k, v) for k, v in written.items()])
        assert read_all(store, list(written)) == written
        before = resident(data)
        assert before >= COUNT * VALUE  # every value's pages mapped by the read
        assert store.release_pages() == len(mapped_ranges(data.resolve())) == 1
        assert resident(data) < before // 8
        assert read_all(store, list(written)) == written  # mapped again, from the cache


def test_releasing_inside_a_write_loses_none_of_it(tmp_path: Path) -> None:
    """The store writes through its shared map: a page dirtied by the open transaction and
    released before the commit keeps its bytes, in the cache and then on disk."""
    first = values("b")
    second = {k + "-2": v for k, v in values("c").items()}
    store = Store.open(tmp_path)

    def work(txn: Any) -> None:
        for k, v in first.items():
            store.meta_put(txn, k, v)
        assert store.release_pages() == 1
        for k, v in second.items():
            store.meta_put(txn, k, v)
        assert store.release_pages() == 1

    store.write(work, durable=True)
    store.release_pages()
    assert read_all(store, [*first, *second]) == {**first, **second}
    store.close()
    assert store.release_pages() == 0  # a closed store has no map to release
    with Store.open(tmp_path) as reopened:
        assert read_all(reopened, [*first, *second]) == {**first, **second}


def test_only_the_data_file_is_released(tmp_path: Path) -> None:
    """LMDB's lock file (the reader table every transaction reads) stays mapped."""
    with Store.open(tmp_path) as store:
        assert mapped_ranges((store.path / "data.mdb").resolve())
        lock = mapped_ranges((store.path / "lock.mdb").resolve())
        assert lock
        with store.read() as txn:
            store.meta_get(txn, "schema")
        held = resident(store.path / "lock.mdb")
        store.release_pages()
        assert resident(store.path / "lock.mdb") == held > 0
