"""The serving process's budget of mapped store pages: checked after each tool call, at most
once a period, unmapping the store's pages on a thread of its own when over budget."""

from __future__ import annotations

import sys
import weakref
from pathlib import Path

import pytest
from helpers import fixture_env, resident

from origin_api.footprint import Footprint
from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_api.settings import Settings
from origin_store.system.pages import mapped_file_bytes

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="mapped pages are read from Linux's /proc"
)


def test_the_budget_releases_when_over_at_most_once_a_period() -> None:
    released: list[int] = []
    mapped = mapped_file_bytes()
    assert mapped is not None and mapped > 1 << 20  # the interpreter's own libraries

    roomy = Footprint(mapped + (1 << 30), lambda: released.append(1))
    assert not roomy.check() and roomy.stats.checks == 1 and not released

    tight = Footprint(1 << 20, lambda: released.append(1), every_s=3600)
    assert tight.check() and tight.wait()
    assert released == [1] and tight.stats.trims == 1 and tight.stats.last_before >= mapped
    assert not tight.check()  # not due again for an hour, however much is mapped
    assert tight.stats.checks == 1

    off = Footprint(0, lambda: released.append(1))
    assert not off.check() and off.stats.checks == 0 and released == [1]


def test_what_stays_mapped_after_a_release_is_not_released_again() -> None:
    """Past the budget with nothing of the store's left (the index's pages, the libraries),
    another release frees nothing: it waits until the total grows by a quarter budget."""
    released: list[int] = []
    footprint = Footprint(1 << 20, lambda: released.append(1), every_s=0)
    assert footprint.check() and footprint.wait()
    assert not footprint.check()  # the same pages: no growth since
    footprint.stats.last_after -= 1 << 20  # as if 1 MiB more were mapped since
    assert footprint.check() and footprint.wait()
    assert released == [1, 1]


def test_every_tool_call_brings_the_process_under_its_budget(tmp_path: Path) -> None:
    """The front doors' one entry point checks the budget after answering: a search over the
    sample archive leaves none of the store's pages mapped under a budget of 1 MiB."""
    env = {**fixture_env(tmp_path), "ORIGIN_MAPPED_BUDGET_MB": "1"}
    with Origin.open(Settings.from_env(env)) as origin:
        answer = call(origin, "search", {"query": "limiter"}, Caller("test", "box"))
        assert answer["events"]
        assert origin.footprint.wait()  # the release runs beside the answer
        assert origin.footprint.stats.checks == 1 and origin.footprint.stats.trims == 1
        assert resident(origin.store.path / "data.mdb") == 0
        assert call(origin, "search", {"query": "limiter"}, Caller("test", "box")) == answer


def test_the_index_is_let_go_of_and_opened_again(tmp_path: Path) -> None:
    """tantivy's maps are released by tantivy: the index object is dropped (its files unmapped
    once no search holds it) and opened again, so the next search maps only what it reads."""
    env = {**fixture_env(tmp_path), "ORIGIN_MAPPED_BUDGET_MB": str(1 << 20)}  # not reached
    with Origin.open(Settings.from_env(env)) as origin:
        answer = call(origin, "search", {"query": "limiter"}, Caller("test", "box"))
        first = weakref.ref(origin.searcher.index)
        assert resident(origin.home / "index") > 0 and origin.footprint.stats.trims == 0
        origin.footprint.budget, origin.footprint.every_s = 1 << 20, 0
        origin.footprint._due = 0.0
        assert origin.footprint.check() and origin.footprint.wait()
        assert first() is None  # nothing held it: its files are unmapped with it
        assert origin.searcher.index is not None  # opened again by the release
        assert call(origin, "search", {"query": "limiter"}, Caller("test", "box")) == answer


def test_a_negative_budget_is_no_limit(tmp_path: Path) -> None:
    env = {**fixture_env(tmp_path), "ORIGIN_MAPPED_BUDGET_MB": "-5"}
    with Origin.open(Settings.from_env(env)) as origin:
        assert origin.footprint.budget == 0
        call(origin, "search", {"query": "limiter"}, Caller("test", "box"))
        assert origin.footprint.stats.checks == 0 and origin.footprint.stats.trims == 0
