"""The tantivy index: multilingual search, hostile queries, filters, upserts, locking, rebuilds."""

from __future__ import annotations

import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from origin_search import (
    MAX_CLAUSES,
    PARTITIONS,
    VALID_FOREVER,
    Filters,
    QueryError,
    SearchIndex,
    clauses,
    matches,
)
from origin_search.index import VERSION_FILE


def event(id_: str, text: str, **kw: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "id": id_,
        "doc": "event",
        "kind": "message",
        "role": "user",
        "source": "claude-code",
        "project": "demo",
        "session": "s1",
        "time": 1_000,
        "valid_to": None,
        "text": text,
    }
    d.update(kw)
    return d


def entry(id_: str, text: str, **kw: Any) -> dict[str, Any]:
    d = event(id_, text, doc="entry", kind="memory", role=None, source=None, session=None)
    d.update(kw)
    return d


CORPUS: list[dict[str, Any]] = [
    event("zh1", "我们把数据库迁移了", time=1),
    event("zh2", "数据和库", time=2),
    event("zh3", "据库数据", time=3),
    event("ja1", "新しいデータベースを作成した", time=4),
    event("ja2", "データとベース", time=5),
    event("ko1", "데이터베이스 오류가 발생했습니다", time=6),
    event("ko2", "데이터 오류", time=7),
    event("ru1", "Привет, мир", time=8),
    event("ru2", "приветствие", time=9),
    event("el1", "αβγ δεζ", time=10),
    event("el2", "αβγδ", time=11),
    event("ar1", "مرحبا بالعالم", time=12),
    event("ar2", "مرحب", time=13),
    event("fr1", "Le Café est ouvert", time=14, source="codex"),
    event("fr2", "cafeteria", time=15, source="codex"),
    event("emoji1", "shipped it 🚀 finally", time=16, kind="tool_result", role="assistant"),
    event("emoji2", "shipped it ✈ finally", time=17, kind="tool_use", role="assistant"),
    event(
        "en1",
        "Fixed KeyError: 'x' in parse_query() at C:\\path\\to\\file",
        time=18,
        project="other",
    ),
    event("en2", "parse the query, then fix", time=19, project=None),
    entry("m1", "Releases are tagged from master", time=20, kind="memory"),
    entry("m2", "Releases used to be tagged by hand", time=21, kind="knowledge", valid_to=30),
]
ALL_IDS = {d["id"] for d in CORPUS}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SearchIndex]:
    ix = SearchIndex.open(tmp_path_factory.mktemp("corpus"))
    with ix.writer() as w:
        w.upsert(CORPUS)
        w.commit()
    yield ix


def found(ix: SearchIndex, query: str, **filters: Any) -> set[str]:
    return {i for i, _ in ix.search(clauses(query), Filters(**filters), limit=100)}


SEARCHES: list[tuple[str, set[str]]] = [
    ("数据库", {"zh1"}),  # a phrase of its characters: not 数据和库, not 据库数据
    ("库", {"zh1", "zh2", "zh3"}),
    ("迁移 数据库", {"zh1"}),
    ("データベース", {"ja1"}),  # not データとベース
    ("データ", {"ja1", "ja2"}),
    ("데이터베이스", {"ko1"}),
    ("오류", {"ko1", "ko2"}),
    ("Привет", {"ru1"}),  # whole words: not приветствие
    ("ПРИВЕТ мир", {"ru1"}),
    ("αβγ", {"el1"}),
    ("ΑΒΓ", {"el1"}),
    ("مرحبا", {"ar1"}),
    ("cafe", {"fr1"}),  # folded; not cafeteria
    ("CAFÉ", {"fr1"}),
    ("🚀", {"emoji1"}),
    ("shipped finally", {"emoji1", "emoji2"}),
    ("parse_query", {"en1"}),  # a phrase: not "parse the query"
    ("parse query", {"en1", "en2"}),
    ("KeyError: 'x'", {"en1"}),
    ("C:\\path\\to", {"en1"}),
    ("releases tagged", {"m1", "m2"}),
    ("nothing-like-this", set()),
]


@pytest.mark.parametrize(("query", "expected"), SEARCHES, ids=[q for q, _ in SEARCHES])
def test_search_finds_exactly(index: SearchIndex, query: str, expected: set[str]) -> None:
    assert found(index, query) == expected
    for d in CORPUS:  # the Python matcher agrees with the index on every document
        assert matches(d["text"], clauses(query)) == (d["id"] in expected), d["id"]


@pytest.mark.parametrize("p", list(string.punctuation))
def test_punctuation_separates_like_the_index(index: SearchIndex, p: str) -> None:
    assert found(index, f"parse{p}query") == {"en1"}
    assert found(index, f"{p}shipped{p} {p}finally{p}") == {"emoji1", "emoji2"}


HOSTILE = [
    *string.punctuation,
    "KeyError: 'x'",
    "C:\\path",
    "-v",
    "*",
    "* *",
    '"',
    '"unclosed',
    "(",
    "(a b",
    "a)",
    "^",
    "x^2",
    "AND",
    "a AND",
    "NOT",
    "[1 TO",
    "title:",
    "source:claude",
    "数据库:",
    "",
    "   \t\n ",
    "\x00",
    "a\x00b",
    "\ud800",
    "x\udfffy",
    "x" * 10_000,
    "数" * 10_000,
    "a " * 5_000,
    "🚀" * 300,
]


@pytest.mark.parametrize("query", HOSTILE, ids=[repr(q[:20]) for q in HOSTILE])
def test_hostile_queries_raise_only_query_error(index: SearchIndex, query: str) -> None:
    try:
        result = index.search(clauses(query), limit=100)
    except QueryError as e:
        assert str(e)
        return
    assert {i for i, _ in result} != ALL_IDS
    if query.strip() in {"*", "* *", "", "^", '"', "("}:
        assert result == []


def test_too_many_words_is_a_readable_error() -> None:
    clauses(" ".join(f"w{i}" for i in range(MAX_CLAUSES)))
    with pytest.raises(QueryError, match=str(MAX_CLAUSES)):
        clauses(" ".join(f"w{i}" for i in range(MAX_CLAUSES + 1)))
    with pytest.raises(QueryError):
        clauses(None)  # type: ignore[arg-type]


def test_a_query_with_nothing_searchable_finds_nothing(index: SearchIndex) -> None:
    assert clauses("!!! ... ---") == []
    assert index.search([]) == []
    assert not matches("anything", [])


def test_filters_do_not_change_scores(index: SearchIndex) -> None:
    plain = index.search(clauses("releases tagged"))
    assert len(plain) == 2
    for filters in (
        {"doc": "entry"},
        {"since_ms": 0},
        {"kinds": ["memory", "knowledge"]},
        {"project": "demo", "valid_at_ms": 25},
    ):
        assert index.search(clauses("releases tagged"), Filters(**filters)) == plain, filters


FILTERED: list[tuple[str, dict[str, Any], set[str]]] = [
    ("cafe", {"source": "codex"}, {"fr1"}),
    ("cafe", {"source": "claude-code"}, set()),
    ("shipped", {"kinds": ["tool_use"]}, {"emoji2"}),
    ("shipped", {"kinds": []}, set()),
    ("shipped", {"kinds": "tool_use"}, {"emoji2"}),  # one kind, given as a string
    ("shipped", {"doc": "note"}, set()),  # no such document type
    ("parse", {"project": "other"}, {"en1"}),
    ("releases", {"doc": "event"}, set()),
    ("releases", {"doc": "entry"}, {"m1", "m2"}),
    ("releases", {"valid_at_ms": 29}, {"m1", "m2"}),
    ("releases", {"valid_at_ms": 30}, {"m1"}),  # valid_to is exclusive
    ("库", {"since_ms": 2}, {"zh2", "zh3"}),  # since inclusive
    ("库", {"until_ms": 3}, {"zh1", "zh2"}),  # until exclusive
    ("库", {"since_ms": 2, "until_ms": 3}, {"zh2"}),
]


@pytest.mark.parametrize(("query", "filters", "expected"), FILTERED)
def test_filters(
    index: SearchIndex, query: str, filters: dict[str, Any], expected: set[str]
) -> None:
    assert found(index, query, **filters) == expected
    # The unindexed tail's matcher reads the same Filters and agrees.
    chosen = Filters(**filters)
    tail = {d["id"] for d in CORPUS if chosen.admits(d) and matches(d["text"], clauses(query))}
    assert tail == expected


def test_no_clauses_lists_newest_first(index: SearchIndex) -> None:
    newest = [i for i, _ in index.search(None, limit=5)]
    assert newest == ["m2", "m1", "en2", "en1", "emoji2"]
    events = [i for i, _ in index.search(None, Filters(doc="event", source="codex"))]
    assert events == ["fr2", "fr1"]
    assert index.search(clauses("库"), Filters(newest_first=True)) == [
        ("zh3", 0.0),
        ("zh2", 0.0),
        ("zh1", 0.0),
    ]


def test_best_match_first(index: SearchIndex) -> None:
    hits = index.search(clauses("库"))
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)


def test_upsert_keeps_one_document_per_id(tmp_path: Path) -> None:
    ix = SearchIndex.open(tmp_path)
    with ix.writer() as w:
        w.upsert([event("a", "first text"), event("b", "other")])
        w.commit()
        w.upsert([event("a", "second text")])
        w.upsert([event("a", "third text")])
        w.commit()
    assert ix.count() == 2
    assert [i for i, _ in ix.search(clauses("text"))] == ["a"]
    assert ix.search(clauses("first")) == [] and ix.search(clauses("second")) == []
    with ix.writer() as w:
        w.delete(["a", "missing"])
        w.commit()
    assert ix.count() == 1


def test_uncommitted_changes_are_invisible_and_discarded_on_close(tmp_path: Path) -> None:
    ix = SearchIndex.open(tmp_path)
    w = ix.writer()
    w.upsert([event("a", "pending")])
    assert ix.search(clauses("pending")) == []
    w.close()
    with ix.writer() as w2:
        w2.commit()
    assert ix.count() == 0


def test_only_one_writer(tmp_path: Path) -> None:
    ix = SearchIndex.open(tmp_path)
    other = SearchIndex.open(tmp_path)  # as another process would open it
    first = ix.try_writer()
    assert first is not None
    assert ix.try_writer() is None
    assert other.try_writer() is None
    first.close()
    second = other.try_writer()
    assert second is not None
    second.close()


def test_other_openers_see_commits_after_reload(tmp_path: Path) -> None:
    reader = SearchIndex.open(tmp_path)
    writer_side = SearchIndex.open(tmp_path)
    with writer_side.writer() as w:
        w.upsert([event("a", "fresh words")])
        w.commit()
    assert [i for i, _ in writer_side.search(clauses("fresh"))] == ["a"]  # at once, same opener
    reader.reload()
    assert [i for i, _ in reader.search(clauses("fresh"))] == ["a"]


def test_a_reload_that_finds_segment_files_gone_keeps_what_it_had(tmp_path: Path) -> None:
    """Another process's merge deletes the files it replaced, which tantivy guards only from
    its own readers: a reload that lists a segment whose files are gone searches on."""
    reader = SearchIndex.open(tmp_path)
    writer_side = SearchIndex.open(tmp_path)
    with writer_side.writer() as w:
        w.upsert([event("a", "fresh words")])
        w.commit()
    reader.reload()
    before = {p.name for p in tmp_path.rglob("*") if p.is_file()}
    with writer_side.writer() as w:
        w.upsert([event("b", "fresh words again")])
        w.commit()
    for new in {p for p in tmp_path.rglob("*") if p.is_file() and p.name not in before}:
        if new.name != "meta.json" and not new.name.startswith("."):
            new.unlink()  # as if deleted by the other process before this one read them
    reader.reload()
    assert [i for i, _ in reader.search(clauses("fresh"))] == ["a"]


def test_open_creates_then_reuses(tmp_path: Path) -> None:
    path = tmp_path / "ix"
    first = SearchIndex.open(path)
    assert first.rebuilt
    with first.writer() as w:
        w.upsert([event("a", "kept")])
        w.commit()
    again = SearchIndex.open(path)
    assert not again.rebuilt and again.count() == 1


def test_a_hit_the_store_cannot_name_is_an_error_not_a_wrong_id(tmp_path: Path) -> None:
    """A stored ``seq`` the store names nothing at (a store restored from an older copy, a
    damaged feed): an entry is still named by its stored id, and an event, which has none, is
    a readable IndexUnavailable rather than a made-up id."""
    from origin_search import IndexUnavailable

    ix = SearchIndex.open(tmp_path, named_by_seq=lambda seqs: [None for _ in seqs])
    with ix.writer() as w:
        w.upsert([event("ev-1", "lonely words", seq=2**62), entry("ent-1", "lonely entry")])
        w.commit()
    with pytest.raises(IndexUnavailable, match="neither an id stored nor a seq"):
        ix.search(clauses("lonely"))
    assert [i for i, _ in ix.search(clauses("entry"))] == ["ent-1"]


def test_an_index_of_one_partition_is_rebuilt_in_partitions(tmp_path: Path) -> None:
    """An index of schema 5 (one tantivy index at the directory's root) cannot be read as
    partitions: it is wiped, every file of it, and recreated empty for a rebuild."""
    from tantivy import Index, SchemaBuilder

    from origin_search.analyzer import ANALYZER_VERSION
    from origin_search.index import VERSION

    sb = SchemaBuilder()
    sb.add_text_field("id", tokenizer_name="raw")
    old = Index(sb.build(), path=str(tmp_path), reuse=False)
    writer = old.writer(heap_size=15_000_000, num_threads=1)
    writer.add_json('{"id": "old-1"}')
    writer.commit()
    writer.wait_merging_threads()
    del writer, old
    (tmp_path / VERSION_FILE).write_text(f"origin-search schema 5 analyzer {ANALYZER_VERSION}\n")

    ix = SearchIndex.open(tmp_path)
    assert ix.rebuilt and ix.count() == 0
    assert (tmp_path / VERSION_FILE).read_text() == VERSION
    assert not (tmp_path / "meta.json").exists()
    assert {p.name for p in tmp_path.iterdir() if p.is_dir()} == {p.name for p in PARTITIONS}


@pytest.mark.parametrize("damage", ["version", "meta"])
def test_open_rebuilds_a_foreign_or_damaged_index(tmp_path: Path, damage: str) -> None:
    ix = SearchIndex.open(tmp_path)
    with ix.writer() as w:
        w.upsert([event("a", "old")])
        w.commit()
    if damage == "version":
        (tmp_path / VERSION_FILE).write_text("origin-search schema 0\n")
    else:
        (tmp_path / "messages" / "meta.json").write_text("{not json")
    rebuilt = SearchIndex.open(tmp_path)
    assert rebuilt.rebuilt and rebuilt.count() == 0
    with rebuilt.writer() as w:
        w.upsert([event("b", "new")])
        w.commit()
    assert [i for i, _ in rebuilt.search(clauses("new"))] == ["b"]


def test_clear_and_stats(tmp_path: Path) -> None:
    ix = SearchIndex.open(tmp_path)
    with ix.writer() as w:
        w.upsert(event(f"e{i}", f"text number {i}") for i in range(50))
        w.commit()
    stats = ix.stats()
    assert stats.docs == 50 and stats.bytes > 0 and stats.segments >= 1
    ix.clear()
    assert ix.count() == 0


def test_entries_without_end_never_expire(tmp_path: Path) -> None:
    ix = SearchIndex.open(tmp_path)
    with ix.writer() as w:
        w.upsert([entry("m", "forever")])
        w.commit()
    assert ix.search(clauses("forever"), Filters(valid_at_ms=VALID_FOREVER - 1))


# Random corpora: the pure-Python matcher must agree with tantivy document for document.
PIECES = st.sampled_from(
    [
        "error",
        "fix",
        "Fix",
        "数",
        "据",
        "库",
        "数据库",
        "データ",
        "ベース",
        "데이터",
        "Café",
        "cafe",
        "parse",
        "query",
        "🚀",
        "x",
        "a" * 100,
        "ж" * 60,
        " ",
        "  ",
        ".",
        "_",
        "、",
        "\n",
    ]
)
TEXT = st.lists(PIECES, max_size=25).map("".join)
QUERY = st.lists(PIECES, min_size=1, max_size=6).map("".join)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    return SearchIndex.open(tmp_path_factory.mktemp("scratch"))


def index_agrees_with_matches(scratch: SearchIndex, texts: list[str], queries: list[str]) -> None:
    """The index finds, for each query, exactly the texts `matches` (the Python reference of
    the phrases of tokens) says it should."""
    with scratch.writer() as w:
        w.delete_all()
        w.upsert(event(f"d{i}", t) for i, t in enumerate(texts))
        w.commit()
    for q in queries:
        cl = clauses(q)
        expected = {f"d{i}" for i, t in enumerate(texts) if matches(t, cl)}
        assert {i for i, _ in scratch.search(cl, limit=100)} == expected, (q, cl)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(TEXT, min_size=1, max_size=8), st.lists(QUERY, min_size=1, max_size=8))
def test_matches_agrees_with_the_index(
    scratch: SearchIndex, texts: list[str], queries: list[str]
) -> None:
    index_agrees_with_matches(scratch, texts, queries)


# -- CJK words through the pairs field -------------------------------------------------------

#: Few characters, so that texts repeat pairs across runs: where a phrase of pairs could match
#: what the phrase of characters does not.
CJK_DENSE = st.lists(
    st.sampled_from(
        # characters, separators, and what NFKC joins, drops or spreads between them
        [
            "数",
            "据",
            "库",
            "デ",
            "ー",
            "タ",
            " ",
            "、",
            ".",
            "x",
            "ab",
            "。",
            "\n",
            "ﾃﾞ",
            "ｰ",
            "\u0301",
            "\u200d",
            "ก",
            "\u0e34",
            "🚀",
            "데",
            "…",
            "㈱",
            "\t",
            "_",
            "α",  # one-letter words beyond ASCII that are not CJK
            "ж",
        ]
    ),
    max_size=30,
).map("".join)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(CJK_DENSE, min_size=1, max_size=8), st.lists(CJK_DENSE, min_size=1, max_size=8))
def test_a_cjk_word_finds_exactly_what_the_phrase_of_its_characters_finds(
    scratch: SearchIndex, texts: list[str], queries: list[str]
) -> None:
    index_agrees_with_matches(scratch, texts, queries)


@pytest.mark.parametrize(
    ("text", "query", "found"),
    [
        ("数据库", "数据", True),  # a two-character word: one term of the pairs field
        ("数据库", "数据库", True),
        ("数据 库", "数据库", False),  # a space between CJK characters leaves an empty position
        ("数据、库", "数据库", False),
        ("数据x库", "数据库", False),
        ("数据x据库", "数据库", False),  # runs ending 数据 and starting 据库 are not one word
        ("数据。据库", "数据库", False),
        ("abc数据库def", "数据库", True),
        ("デー タ", "データ", False),
        ("データベース", "ータベ", True),
        ("α β", "α.β", True),  # one-letter words beyond ASCII are no CJK run: their phrase
        ("ж ж", "ж.ж", True),
        ("数 α", "数.α", True),
    ],
)
def test_cjk_words_and_the_runs_they_may_not_span(
    scratch: SearchIndex, text: str, query: str, found: bool
) -> None:
    with scratch.writer() as w:
        w.delete_all()
        w.upsert([event("d0", text)])
        w.commit()
    cl = clauses(query)
    assert matches(text, cl) == found
    assert ({i for i, _ in scratch.search(cl)} == {"d0"}) == found


def test_partitions_searched_side_by_side_in_a_forked_child_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The threads that search partitions side by side are not a forked child's: it starts
    its own rather than wait forever on its parent's."""
    import os
    import signal
    import threading
    import time

    from origin_search import index as index_module

    monkeypatch.setattr(index_module, "SIDE_BY_SIDE_AT", 0)
    ix = SearchIndex.open(tmp_path)
    with ix.writer() as w:
        w.upsert(
            event(f"e{i}", f"shared words {i}", kind=("message", "tool_use")[i % 2])
            for i in range(40)
        )
        w.commit()
    assert len(ix.search(clauses("shared"), limit=40)) == 40
    pool = index_module._side_by_side()  # as many threads as a busy parent starts
    gate = threading.Barrier(pool._max_workers + 1)  # type: ignore[attr-defined]
    started = [pool.submit(gate.wait) for _ in range(pool._max_workers)]  # type: ignore[attr-defined]
    gate.wait()
    assert all(f.result() is not None for f in started)
    time.sleep(0.2)  # its threads wait for work again, as a long-running process's do
    pid = os.fork()
    if pid == 0:  # the child: exit at once, 0 only if the search answered in full
        os._exit(0 if len(ix.search(clauses("shared"), limit=40)) == 40 else 1)
    deadline = time.monotonic() + 10
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if done[0] == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child's search never answered")
    assert os.waitstatus_to_exitcode(done[1]) == 0
