"""Every word must occur, in any language: searches through a real tantivy index.

Scripts written without spaces (Thai, Lao, Khmer, Myanmar) are found inside sentences;
punctuation and space between CJK characters or clusters stop a phrase; halfwidth and fullwidth
kana, composed and decomposed Hangul are one word. The index, the Python matcher for unindexed
events and the snippets agree on each case.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from origin_search import SearchIndex, clauses, matches, snippet
from origin_search.analyzer import ANALYZER_VERSION, GAP, build_analyzer, prepare, tokens
from origin_search.index import VERSION, VERSION_FILE


def event(id_: str, text: str, time: int) -> dict[str, Any]:
    return {
        "id": id_,
        "doc": "event",
        "kind": "message",
        "role": "user",
        "source": "claude-code",
        "project": "demo",
        "session": "s1",
        "time": time,
        "valid_to": None,
        "text": text,
    }


NFD = unicodedata.normalize("NFD", "데이터베이스 오류가 발생했습니다")
TEXTS: dict[str, str] = {
    # a phrase across punctuation or space between CJK characters
    "zh_comma": "请检查数据、库存和订单",
    "zh_stop": "我们有数据。库存很多",
    "zh_fullwidth_comma": "备份数据，库房已满",
    "zh_space": "数据 库",
    "zh_newline": "数据\n库",
    "zh_whole": "数据库迁移完成了",
    "ja_dot": "データ・ベースの話",
    # Thai: a word inside a sentence, vowel marks are letters
    "th_server": "ฉันต้องย้ายฐานข้อมูลไปยังเซิร์ฟเวอร์ใหม่",
    "th_colour": "สีแดงมาก",
    "th_letter": "ส เป็นตัวอักษร",
    "th_water": "ฉันดื่มน้ำเย็น",
    # Lao, Khmer, Myanmar: a word inside a sentence
    "lo_server": "ຂ້ອຍຕ້ອງຍ້າຍຖານຂໍ້ມູນໄປຫາເຊີບເວີໃໝ່",
    "km_data": "ខ្ញុំត្រូវផ្លាស់ទីមូលដ្ឋានទិន្នន័យទៅម៉ាស៊ីនមេថ្មី",
    "my_server": "ဒေတာဘေ့စ်ကို ဆာဗာအသစ်သို့ ပြောင်းရန်လိုသည်",
    # halfwidth and fullwidth kana
    "ja_half": "ﾃﾞｰﾀﾍﾞｰｽを移行した",
    "ja_full": "新しいデータベースを作成した",
    "ja_unvoiced": "テータヘースという誤字",
    # decomposed and composed Hangul
    "ko_nfd": NFD,
    "ko_nfc": "한국어 문서를 읽었습니다",
    "ko_other": "데이타 오류",
    # Latin keeps its behaviour: punctuation between words is no gap
    "en_space": "call foo bar then parse query",
}
CORPUS = [event(id_, text, time=i) for i, (id_, text) in enumerate(TEXTS.items())]

SEARCHES: list[tuple[str, set[str]]] = [
    # not across 、 。 ， a space, a line break, ・ ; the whole word still found
    ("数据库", {"zh_whole"}),
    ("数据", {"zh_comma", "zh_stop", "zh_fullwidth_comma", "zh_space", "zh_newline", "zh_whole"}),
    ("库存", {"zh_comma", "zh_stop"}),
    ("データベース", {"ja_half", "ja_full"}),
    # the query with its punctuation finds that text (and the same phrase across any separator)
    ("数据、库", {"zh_comma", "zh_stop", "zh_fullwidth_comma", "zh_space", "zh_newline"}),
    ("データ・ベース", {"ja_dot"}),
    # Thai
    ("เซิร์ฟเวอร์", {"th_server"}),
    ("ฐานข้อมูล", {"th_server"}),
    ("สี", {"th_colour"}),
    ("ส", {"th_letter"}),  # not the ส of สี
    ("น้ำ", {"th_water"}),
    ("เซิร์ฟเวอร", set()),  # without the last mark: its last cluster is another one
    ("เซิร์ฟเวอร์ใหม่มาก", set()),
    # Lao, Khmer, Myanmar
    ("ເຊີບເວີ", {"lo_server"}),
    ("ໃໝ່", {"lo_server"}),  # ໝ is ຫມ after NFKC, in the text and in the query
    ("ຖານຂໍ້ມູນ", {"lo_server"}),
    ("ទិន្នន័យ", {"km_data"}),
    ("ម៉ាស៊ីនមេ", {"km_data"}),
    ("ន័យទៅ", {"km_data"}),
    ("ន្ន", {"km_data"}),  # a stacked cluster
    ("ញ", set()),  # stacked under ខ in ខ្ញុំ, not a cluster of its own
    ("ဆာဗာ", {"my_server"}),
    ("အသစ်", {"my_server"}),  # ends with asat, followed by a consonant in the text
    ("ဒေတာဘေ့စ်", {"my_server"}),
    ("ဆာဗာဟောင်း", set()),
    # kana
    ("ﾃﾞｰﾀﾍﾞｰｽ", {"ja_half", "ja_full"}),
    ("ﾃﾞｰﾀ", {"ja_half", "ja_full", "ja_dot"}),
    ("テータ", {"ja_unvoiced"}),
    # Hangul
    ("데이터베이스", {"ko_nfd"}),
    (unicodedata.normalize("NFD", "오류가"), {"ko_nfd"}),
    (unicodedata.normalize("NFD", "한국어"), {"ko_nfc"}),
    ("데이타", {"ko_other"}),
    ("오류", {"ko_nfd", "ko_other"}),
    # Latin as before
    ("foo.bar", {"en_space"}),
    ("parse_query", {"en_space"}),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SearchIndex]:
    ix = SearchIndex.open(tmp_path_factory.mktemp("scripts"))
    with ix.writer() as w:
        w.upsert(CORPUS)
        w.commit()
    yield ix


@pytest.mark.parametrize(("query", "expected"), SEARCHES, ids=[q for q, _ in SEARCHES])
def test_search_finds_exactly(index: SearchIndex, query: str, expected: set[str]) -> None:
    cl = clauses(query)
    assert cl
    assert {i for i, _ in index.search(cl, limit=100)} == expected
    for id_, text in TEXTS.items():  # the unindexed-tail matcher agrees document for document
        assert matches(text, cl) == (id_ in expected), id_
    for id_ in expected:  # and the snippet brackets the match in the text as written
        s = snippet(TEXTS[id_], cl)
        marked = [part.split("]")[0] for part in s.split("[")[1:]]
        assert marked, (id_, s)
        assert all(m in TEXTS[id_].replace("\n", " ") for m in marked), s  # as written
        assert any(_has(tokens(m), c) for m in marked for c in cl), (id_, s)


def _has(toks: list[str], clause: tuple[str, ...]) -> bool:
    n = len(clause)
    return any(
        all(c == GAP or toks[i + k] == c for k, c in enumerate(clause))
        for i in range(len(toks) - n + 1)
    )


def test_tantivy_leaves_the_position_of_the_filler_empty(index: SearchIndex) -> None:
    """The separator between two CJK characters is a word tantivy drops as too long; the
    phrase over both characters finds nothing, the phrase with a gap finds the text."""
    analyzed = build_analyzer().pre_tokenize(prepare("数据、库"))
    assert [(t.text, t.position) for t in analyzed.tokens] == [("数", 0), ("据", 1), ("库", 3)]
    assert {i for i, _ in index.search([("数", "据", "库")], limit=100)} == {"zh_whole"}
    assert {i for i, _ in index.search([("据", "库")], limit=100)} == {"zh_whole"}
    assert {i for i, _ in index.search([("据", GAP, "库")], limit=100)} == {
        "zh_comma",
        "zh_stop",
        "zh_fullwidth_comma",
        "zh_space",
        "zh_newline",
    }


def test_snippet_of_a_phrase_with_punctuation() -> None:
    assert snippet(TEXTS["zh_comma"], clauses("数据、库")) == "请检查[数据、库]存和订单"
    assert snippet(TEXTS["zh_comma"], clauses("数据库")) == TEXTS["zh_comma"]  # no match
    assert snippet(TEXTS["ja_half"], clauses("データベース")) == "[ﾃﾞｰﾀﾍﾞｰｽ]を移行した"
    assert snippet(NFD, clauses("데이터베이스")) == unicodedata.normalize(
        "NFD", "[데이터베이스] 오류가 발생했습니다"
    )


def test_an_index_of_the_previous_analyzer_is_rebuilt(tmp_path: Path) -> None:
    assert f"analyzer {ANALYZER_VERSION}\n" in VERSION
    ix = SearchIndex.open(tmp_path)
    with ix.writer() as w:
        w.upsert([event("a", "数据、库", 1)])
        w.commit()
    assert not SearchIndex.open(tmp_path).rebuilt
    (tmp_path / VERSION_FILE).write_text(
        VERSION.replace(f"analyzer {ANALYZER_VERSION}", f"analyzer {ANALYZER_VERSION - 1}")
    )
    again = SearchIndex.open(tmp_path)
    assert again.rebuilt and again.count() == 0
    assert (tmp_path / VERSION_FILE).read_text() == VERSION


# Random corpora in these scripts: the Python matcher agrees with tantivy document for document.
PIECES = st.sampled_from(
    [
        "数",
        "据",
        "库",
        "数据库",
        "、",
        "。",
        "，",
        " ",
        "\n",
        "ﾃﾞｰﾀ",
        "データ",
        "ﾞ",
        "テ",
        "\u1112\u1161",
        "\u11ab",
        "한",
        "하",
        "ส",
        "สี",
        "\u0e35",
        "น้ำ",
        "ເຊີບ",
        "ໃໝ່",
        "ខ្មែរ",
        "\u17d2",
        "မြန်",
        "\u1039",
        "a",
        "x" * 100,
    ]
)
TEXT = st.lists(PIECES, max_size=20).map("".join)
QUERY = st.lists(PIECES, min_size=1, max_size=5).map("".join)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    return SearchIndex.open(tmp_path_factory.mktemp("scratch-scripts"))


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(TEXT, min_size=1, max_size=8), st.lists(QUERY, min_size=1, max_size=8))
def test_matches_agrees_with_the_index(
    scratch: SearchIndex, texts: list[str], queries: list[str]
) -> None:
    with scratch.writer() as w:
        w.delete_all()
        w.upsert(event(f"d{i}", t, time=i) for i, t in enumerate(texts))
        w.commit()
    for q in queries:
        cl = clauses(q)
        expected = {f"d{i}" for i, t in enumerate(texts) if matches(t, cl)}
        assert {i for i, _ in scratch.search(cl, limit=100)} == expected, (q, cl)
