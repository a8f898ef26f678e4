"""An index being rebuilt says so on disk until its first commit after it: a process killed at
any step of a rebuild leaves the next one to start over, a process that opened the index during
another's rebuild does not undo it, and an index that is empty because nothing is searchable is
taken as it stands. Real store, real ingest of the sample logs, real index."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import ingested_store

from origin_search import SearchError, SearchIndex, open_searcher
from origin_search.catchup import catch_up, indexed_seq, start_over
from origin_search.indexdir import REBUILD_FILE
from origin_store import Store, marks


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = ingested_store(tmp_path)
    try:
        yield opened
    finally:
        opened.close()


def full_index(store: Store, path: Path) -> int:
    """Index everything once and return how many documents that is."""
    searcher = open_searcher(store, path)
    done = searcher.catch_up()
    assert done.docs > 200 and searcher.index.count() == done.docs
    assert not (path / REBUILD_FILE).exists()
    return done.docs


def test_a_process_that_recreated_the_index_and_died_leaves_it_to_be_filled(
    store: Store, tmp_path: Path
) -> None:
    """Recreated (its version changed, or it was deleted), then killed before its catch-up: the
    version file is current and the store's mark says everything is indexed; only the rebuild
    mark says otherwise."""
    path = tmp_path / "index"
    docs = full_index(store, path)
    shutil.rmtree(path)
    dying = SearchIndex.open(path)
    assert dying.rebuilt and (path / REBUILD_FILE).exists()
    del dying
    again = open_searcher(store, path)
    assert again.index.rebuilt
    again.catch_up()
    assert again.index.count() == docs and not again.index.rebuilt
    assert not (path / REBUILD_FILE).exists()


def test_a_kill_between_the_reset_and_the_emptying_commit_starts_over(
    store: Store, tmp_path: Path
) -> None:
    """A rebuild killed after it zeroed the store's mark but before the emptied index was
    committed: the index still holds every document, and adding them again without the
    delete an upsert makes would find each twice."""
    path = tmp_path / "index"
    docs = full_index(store, path)
    index = SearchIndex.open(path)
    writer = index.writer()
    writer.close()  # fails at its first call, right after the store's mark is zeroed
    with pytest.raises(SearchError, match="closed"):
        start_over(store, index, writer)
    assert indexed_seq(store) == 0 and index.count() == docs
    del index
    again = open_searcher(store, path)
    assert again.index.rebuilt
    again.catch_up()
    assert again.index.count() == docs
    assert indexed_seq(store) > 0 and not (path / REBUILD_FILE).exists()


def test_an_index_empty_because_nothing_is_searchable_is_not_read_again(
    store: Store, tmp_path: Path
) -> None:
    """An empty index beside a mark past 0 is also what an archive whose every event is hidden
    leaves: each new process must not read its whole feed again to find nothing."""
    path = tmp_path / "index"
    full_index(store, path)
    index = SearchIndex.open(path)
    with index.writer() as w:
        w.delete_all()
        w.commit()
    del index
    again = open_searcher(store, path)
    assert not again.index.rebuilt and again.index.count() == 0
    done = again.catch_up()
    assert done.current and done.docs == 0


def test_a_process_that_opened_during_a_rebuild_does_not_undo_it(
    store: Store, tmp_path: Path
) -> None:
    """B opens the index while A rebuilds it, so B learns of the rebuild; once A is done, B's
    first catch-up must find the mark gone and keep A's work instead of emptying it again."""
    path = tmp_path / "index"
    docs = full_index(store, path)
    shutil.rmtree(path)
    first = SearchIndex.open(path)
    second = SearchIndex.open(path)
    assert first.rebuilt and second.rebuilt
    assert catch_up(store, first).docs == docs
    mark = indexed_seq(store)
    later = catch_up(store, second)
    assert later.current or later.docs == 0
    assert not second.rebuilt and second.count() == docs
    assert indexed_seq(store) == mark


def test_a_rebuild_asked_for_keeps_its_mark_until_the_index_is_emptied(
    store: Store, tmp_path: Path
) -> None:
    """`Searcher.rebuild` (after a redaction, or asked for) empties and refills the index; the
    mark is on disk from before the store's mark is zeroed until the empty index is committed."""
    path = tmp_path / "index"
    docs = full_index(store, path)
    searcher = open_searcher(store, path)
    searcher.index.mark_rebuild()
    assert SearchIndex.open(path).rebuilt  # any process opening now learns it
    done = searcher.rebuild()
    assert done.docs == docs and searcher.index.count() == docs
    assert not (path / REBUILD_FILE).exists()
    with store.read() as txn:
        assert marks.indexed_seq(store, txn) == done.seq


def test_a_directory_holding_only_the_mark_is_an_index_to_recreate(tmp_path: Path) -> None:
    """Killed after the mark was written and before tantivy made its files."""
    path = tmp_path / "index"
    path.mkdir()
    (path / REBUILD_FILE).write_bytes(b"")
    index = SearchIndex.open(path)
    assert index.rebuilt and index.count() == 0
    with index.writer() as w:
        w.commit()
    assert not index.rebuilt and not SearchIndex.open(path).rebuilt
