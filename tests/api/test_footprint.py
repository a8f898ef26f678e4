"""The mapped-pages budget on a real store: unmapping drops the pages from the process, not
from the store, whether read, committed or written in the transaction still open."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from helpers import fixture_env

from origin_api.footprint import Footprint, archive_maps, mapped_file_bytes, unmap
from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_api.settings import Settings
from origin_store import Store

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="mapped pages are read from Linux's /proc"
)

VALUE = 256 << 10  # each over LMDB's page: its own overflow pages, as big records are
COUNT = 48  # 12 MiB in all


def values(salt: str) -> dict[str, str]:
    return {f"big-{i}": (salt + os.urandom(VALUE // 2).hex())[:VALUE] for i in range(COUNT)}


def resident_under(home: Path) -> int:
    """Bytes of this process's maps of files under `home` that are resident (smaps' Rss)."""
    prefix = str(home.resolve()) + os.sep
    total = 0
    inside = False
    with open("/proc/self/smaps", encoding="utf-8", errors="replace") as f:
        for line in f:
            head = line.split(maxsplit=5)
            if head and "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
                inside = len(head) == 6 and head[5].rstrip("\n").startswith(prefix)
            elif inside and line.startswith("Rss:"):
                total += int(line.split()[1]) << 10
    return total


def read_all(store: Store, keys: list[str]) -> dict[str, str]:
    with store.read() as txn:
        return {k: store.meta_get(txn, k) for k in keys}


def test_unmapping_drops_the_read_pages_and_keeps_the_data(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    try:
        written = values("a")
        store.write(lambda txn: [store.meta_put(txn, k, v) for k, v in written.items()])
        assert read_all(store, list(written)) == written
        before = resident_under(tmp_path)
        assert before >= COUNT * VALUE  # every value's pages mapped by the read
        maps = archive_maps(tmp_path)
        assert maps and all(length > 0 for _, length in maps)
        assert unmap(maps) == len(maps)
        assert resident_under(tmp_path) < before // 8
        assert read_all(store, list(written)) == written  # mapped again, from the cache
    finally:
        store.close()


def test_unmapping_inside_a_write_loses_none_of_it(tmp_path: Path) -> None:
    """The store writes through its shared map: a page dirtied by the open transaction and
    unmapped before the commit keeps its bytes, in the cache and then on disk."""
    store = Store.open(tmp_path)
    first, second = values("b"), values("c")
    second = {k + "-2": v for k, v in second.items()}

    def work(txn: object) -> None:
        for k, v in first.items():
            store.meta_put(txn, k, v)
        unmap(archive_maps(tmp_path))
        for k, v in second.items():
            store.meta_put(txn, k, v)
        unmap(archive_maps(tmp_path))

    store.write(work, durable=True)
    unmap(archive_maps(tmp_path))
    assert read_all(store, [*first, *second]) == {**first, **second}
    store.close()
    reopened = Store.open(tmp_path)
    try:
        assert read_all(reopened, [*first, *second]) == {**first, **second}
    finally:
        reopened.close()


def test_the_budget_unmaps_when_over_at_most_once_a_period(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    try:
        written = values("d")
        store.write(lambda txn: [store.meta_put(txn, k, v) for k, v in written.items()])
        read_all(store, list(written))
        mapped = mapped_file_bytes()
        assert mapped is not None and mapped > COUNT * VALUE
        held = resident_under(tmp_path)

        roomy = Footprint(tmp_path, budget_bytes=mapped + (1 << 30))
        assert not roomy.check()  # under budget: nothing unmapped
        assert resident_under(tmp_path) >= held - (1 << 20)

        tight = Footprint(tmp_path, budget_bytes=1 << 20, every_s=3600)
        assert tight.check()
        assert tight.stats.trims == 1 and tight.stats.last_after < tight.stats.last_before
        assert resident_under(tmp_path) < held // 8
        read_all(store, list(written))
        assert not tight.check()  # not due again for an hour, however much is mapped
        assert tight.stats.checks == 1

        off = Footprint(tmp_path, budget_bytes=0)
        assert not off.check() and off.stats.checks == 0
    finally:
        store.close()


def test_only_the_archives_files_are_named(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    try:
        names = set()
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            starts = {start for start, _ in archive_maps(tmp_path)}
            for line in f:
                parts = line.split(maxsplit=5)
                if int(parts[0].partition("-")[0], 16) in starts:
                    names.add(os.path.basename(parts[5].strip()))
        assert names == {"data.mdb"}  # the lock file's reader table stays mapped
    finally:
        store.close()


def test_every_tool_call_brings_the_process_under_its_budget(tmp_path: Path) -> None:
    """The front doors' one entry point checks the budget after answering: a search over the
    sample archive leaves none of the store's or index's pages mapped under a budget of 1 MiB."""
    env = {**fixture_env(tmp_path), "ORIGIN_MAPPED_BUDGET_MB": "1"}
    with Origin.open(Settings.from_env(env)) as origin:
        answer = call(origin, "search", {"query": "limiter"}, Caller("test", "box"))
        assert answer["events"]
        assert origin.footprint.stats.checks == 1 and origin.footprint.stats.trims == 1
        assert resident_under(origin.home) < 1 << 20
        assert call(origin, "search", {"query": "limiter"}, Caller("test", "box")) == answer
