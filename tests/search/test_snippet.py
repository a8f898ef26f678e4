"""Snippets: the first match, every match bracketed, an exact character bound."""

from __future__ import annotations

import importlib
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from origin_search import operators
from origin_search.analyzer import GAP, tokens
from origin_search.query import clauses
from origin_search.snippet import ELLIPSIS, snippet

# The package exports the function under the module's name; reach the module itself.
snippet_module = importlib.import_module("origin_search.snippet")


def visible(s: str) -> int:
    """Characters counted against the bound: everything but the brackets we added."""
    return len(s) - s.count("[") - s.count("]")


def bracketed(s: str) -> list[str]:
    return re.findall(r"\[([^\[\]]*)\]", s)


CASES: list[tuple[str, str, str, str]] = [
    (
        "whole short text",
        "Set up the release workflow: tag from master, publish with provenance.",
        "release workflow",
        "Set up the [release] [workflow]: tag from master, publish with provenance.",
    ),
    (
        "phrase is one span, loose characters are not matches",
        "数据和库 are unrelated; 我们把数据库迁移了",
        "数据库",
        "数据和库 are unrelated; 我们把[数据库]迁移了",
    ),
    (
        "identifier phrase",
        "call parse_query() then parse it",
        "parse_query",
        "call [parse_query]() then parse it",
    ),
    ("folded match keeps the original text", "Le Café est ouvert", "cafe", "Le [Café] est ouvert"),
    (
        "every match",
        "error, then error again: ERROR",
        "error",
        "[error], then [error] again: [ERROR]",
    ),
    ("overlapping clauses merge", "foo.bar and foo", "foo.bar foo", "[foo.bar] and [foo]"),
    ("emoji", "shipped 🚀 today", "🚀", "shipped [🚀] today"),
    ("katakana word", "新しいデータベースです", "データベース", "新しい[データベース]です"),
    ("korean", "데이터베이스 오류가 발생했습니다", "오류", "데이터베이스 [오류]가 발생했습니다"),
    (
        "line breaks become spaces",
        "first line\nsecond\terror",
        "error",
        "first line second [error]",
    ),
    (
        "a phrase does not match across punctuation",
        "请检查数据、库存和订单，数据库正常",
        "数据库",
        "请检查数据、库存和订单，[数据库]正常",
    ),
    (
        "a query with the punctuation finds it",
        "请检查数据、库存和订单",
        "数据、库",
        "请检查[数据、库]存和订单",
    ),
    (
        "halfwidth text, fullwidth query",
        "ﾃﾞｰﾀﾍﾞｰｽを移行、データベースも",
        "データベース",
        "[ﾃﾞｰﾀﾍﾞｰｽ]を移行、[データベース]も",
    ),
    ("fullwidth text, halfwidth query", "新しいデータベース", "ﾃﾞｰﾀﾍﾞｰｽ", "新しい[データベース]"),
    (
        "decomposed hangul text, composed query",
        unicodedata.normalize("NFD", "데이터베이스 오류가 발생"),
        "오류",
        unicodedata.normalize("NFD", "데이터베이스 [오류]가 발생"),
    ),
    (
        "composed hangul text, decomposed query",
        "한국어 문서",
        unicodedata.normalize("NFD", "한국어"),
        "[한국어] 문서",
    ),
    (
        "thai word inside a sentence",
        "ฉันต้องย้ายฐานข้อมูลไปยังเซิร์ฟเวอร์ใหม่",
        "เซิร์ฟเวอร์",
        "ฉันต้องย้ายฐานข้อมูลไปยัง[เซิร์ฟเวอร์]ใหม่",
    ),
    ("thai vowel mark", "สีแดง ส", "ส", "สีแดง [ส]"),
    ("thai sara am", "ฉันดื่มน้ำเย็น", "น้ำ", "ฉันดื่ม[น้ำ]เย็น"),
    (
        "lao word inside a sentence",
        "ຂ້ອຍຕ້ອງຍ້າຍຖານຂໍ້ມູນໄປຫາເຊີບເວີໃໝ່",
        "ເຊີບເວີ",
        "ຂ້ອຍຕ້ອງຍ້າຍຖານຂໍ້ມູນໄປຫາ[ເຊີບເວີ]ໃໝ່",
    ),
    (
        "khmer word inside a sentence",
        "ខ្ញុំត្រូវផ្លាស់ទីមូលដ្ឋានទិន្នន័យទៅម៉ាស៊ីនមេថ្មី",
        "ទិន្នន័យ",
        "ខ្ញុំត្រូវផ្លាស់ទីមូលដ្ឋាន[ទិន្នន័យ]ទៅម៉ាស៊ីនមេថ្មី",
    ),
    (
        "myanmar word ending in asat inside a sentence",
        "ဒေတာဘေ့စ်ကို ဆာဗာအသစ်သို့ ပြောင်းရန်",
        "အသစ်",
        "ဒေတာဘေ့စ်ကို ဆာဗာ[အသစ်]သို့ ပြောင်းရန်",
    ),
    # every word in every script: marks, invisible characters, emoji sequences, operators
    ("a vowel sign is a letter", "कम पानी, काम बंद", "काम", "कम पानी, [काम] बंद"),
    ("a pulli is a letter", "பல நாட்கள் பல் வலி", "பல்", "பல நாட்கள் [பல்] வலி"),
    (
        "soft hyphen inside the word",
        "the soft\u00adware update",
        "software",
        "the [soft\u00adware] update",
    ),
    ("tatweel inside the word", "هذا كتـــاب", "كتاب", "هذا [كتـــاب]"),
    ("zwnj typed or not", "من می\u200cخواهم", "میخواهم", "من [می\u200cخواهم]"),
    ("a flag in its pair only", "🇺🇸🇯🇵 and 🇸🇯", "🇸🇯", "🇺🇸🇯🇵 and [🇸🇯]"),
    ("a toned sequence whole", "hi 👨🏽\u200d🔬 there", "👨\u200d🔬", "hi [👨🏽\u200d🔬] there"),
    ("c++ not plain c", "Plain C, then C++ code", "C++", "Plain C, then [C++] code"),
    ("i++ not I", "I said: use i++ here", "i++", "I said: use [i++] here"),
    ("an arrow", "map x => x + 1 -> y", "=>", "map x [=>] x + 1 -> y"),
    ("no match in this text", "nothing relevant here", "elsewhere", "nothing relevant here"),
    ("no clauses", "plain text", "!!!", "plain text"),
]


@pytest.mark.parametrize(
    ("text", "query", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_snippet(text: str, query: str, expected: str) -> None:
    assert snippet(text, clauses(query)) == expected


def test_an_operator_far_into_ascii_text_is_bracketed_within_the_window() -> None:
    text = "x " * 300 + "then call i++ and C# code " + "y " * 300
    s = snippet(text, clauses("i++ C#"), 60)
    assert bracketed(s) == ["i++", "C#"]
    assert visible(s) <= 60


def test_window_opens_a_third_before_the_first_match() -> None:
    text = " ".join(f"w{i:03d}" for i in range(300)) + " target " + " ".join(["after"] * 300)
    s = snippet(text, clauses("target"))
    assert visible(s) <= 200
    assert s.startswith(ELLIPSIS) and s.endswith(ELLIPSIS)
    assert bracketed(s) == ["target"]
    before = s.index("[target]")
    assert 50 <= before <= 70  # about 200 // 3, less a cut word and the ellipsis
    assert not s[1:].startswith(" ")  # the window does not start inside a word or with a space


def test_match_near_the_end_of_a_long_text() -> None:
    text = "lorem ipsum " * 1500 + "the 数据库 migration finished"
    s = snippet(text, clauses("数据库 finished"))
    assert s.endswith("[数据库] migration [finished]")
    assert s.startswith(ELLIPSIS)
    assert 190 <= visible(s) <= 200  # full, less a cut word at the start


def test_first_match_counts_not_the_best_one() -> None:
    text = "alpha once. " + "filler " * 60 + "alpha beta alpha beta alpha beta"
    s = snippet(text, clauses("alpha beta"))
    assert s.startswith("[alpha] once.")


def test_characters_not_bytes() -> None:
    text = "中文内容" * 200 + "目标" + "中文内容" * 200
    s = snippet(text, clauses("目标"))
    assert visible(s) == 200
    assert "[目标]" in s


def test_no_match_gives_the_start_of_the_text() -> None:
    text = "word " * 100
    s = snippet(text, clauses("absent"))
    assert s.startswith("word word") and s.endswith(ELLIPSIS) and "[" not in s
    assert visible(s) <= 200


def test_exact_width_text_has_no_ellipsis() -> None:
    text = "x" * 190 + " needle"
    assert len(text) < 200
    assert snippet(text, clauses("needle")) == "x" * 190 + " [needle]"


def test_long_text_is_not_tokenized_whole_when_the_match_is_early(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[int] = []
    real = snippet_module.spans

    def counting(text: str, start: int = 0, end: int | None = None):  # type: ignore[no-untyped-def]
        seen.append((len(text) if end is None else end) - start)
        return real(text, start, end)

    monkeypatch.setattr(snippet_module, "spans", counting)
    for head in ("the needle is here ", "数据库 is here "):
        seen.clear()
        text = head + "Ünïcode filler text " * 1000
        assert "[" in snippet(text, clauses(head.split()[1] if head[0] == "t" else "数据库"))
        assert sum(seen) <= 2_000, seen


WORDS = st.sampled_from(
    [
        "error",
        "fix",
        "数据库",
        "数据",
        "库",
        "データ",
        "데이터",
        "Café",
        "cafe",
        "parse_query",
        "🚀",
    ]
)
SEPS = st.sampled_from([" ", "  ", "\n", ". ", ", ", "、", "", "-"])
TEXTS = st.lists(st.tuples(WORDS, SEPS), max_size=120).map(lambda ps: "".join(w + s for w, s in ps))


@settings(deadline=None)
@given(TEXTS, st.lists(WORDS, min_size=1, max_size=3), st.sampled_from([20, 60, 200]))
def test_bound_and_brackets_hold_on_random_text(text: str, words: list[str], width: int) -> None:
    cl = clauses(" ".join(words))
    s = snippet(text, cl, width)
    assert visible(s) <= width
    if any(_occurs(tokens(text), c) for c in cl):
        assert bracketed(s), "a matching text shows its first match"
    for inside in bracketed(s):
        if ELLIPSIS not in s:  # a match cut by the window edge may show only in part
            assert any(_occurs(tokens(inside), c) for c in cl), inside
    plain = s.replace("[", "").replace("]", "").strip(ELLIPSIS)
    assert plain.replace(" ", "") in re.sub(r"\s", "", text)


def _occurs(toks: list[str], clause: tuple[str, ...]) -> bool:
    n = len(clause)
    return any(
        all(c == GAP or toks[i + k] == c for k, c in enumerate(clause))
        for i in range(len(toks) - n + 1)
    )


# --- the ASCII fast path agrees with the token path -----------------------------------------

_snippet_module = importlib.import_module("origin_search.snippet")
_ascii_words = st.sampled_from(
    ["foo", "bar", "baz", "a", "x1", "error", "Error", "foo_bar", "foo.bar", "2024", "q", "C#"]
)
_ascii_seps = st.sampled_from(
    [" ", "  ", ".", "_", "-", ", ", "\n", "\t", "::", "()", " " * 40, "!!!", "->", "++ "]
)


@settings(deadline=None)
@given(
    words=st.lists(st.tuples(_ascii_words, _ascii_seps), min_size=0, max_size=120),
    query=st.lists(_ascii_words, min_size=1, max_size=3),
    width=st.integers(min_value=3, max_value=240),
)
def test_ascii_fast_path_equals_the_token_path(words, query, width):
    text = "".join(w + s for w, s in words)
    found = clauses(" ".join(query))
    if not text or not found:
        return
    whole = _snippet_module._token_snippet(text, found, width)
    assert snippet(text, found, width) == whole
    pattern = _snippet_module._ascii_pattern(tuple(found))
    ops = operators.find(text)  # an operator (::) is a word of its own, which ends windows
    if pattern is not None and (not ops or all(len(c) == 1 for c in found)):
        assert _snippet_module._ascii_snippet(text, found, width, pattern, ops) == whole


_beside_ascii = st.sampled_from(
    [
        "数据",
        "库",
        "…",
        "→",
        "データ",
        "「",
        "」",
        "、",
        "한국",
        "—",
        "─",
        "，",
        "✓",
        "×",
        "❯",
        "\xa0",
    ]
)


@settings(deadline=None)
@given(
    words=st.lists(
        st.tuples(st.one_of(_ascii_words, _beside_ascii), _ascii_seps), min_size=0, max_size=80
    ),
    query=st.lists(_ascii_words, min_size=1, max_size=3),
    width=st.integers(min_value=3, max_value=240),
)
def test_ascii_words_in_cjk_and_punctuation_take_the_ascii_path(words, query, width):
    """Text of ASCII and characters that are each a token or none (ALONE_OR_APART_RANGES):
    a query of ASCII words is snipped by the regular expression, as by the tokens."""
    text = "".join(w + s for w, s in words)
    found = [c for c in clauses(" ".join(query)) if len(c) == 1]
    if not text or not found or _snippet_module._ascii_pattern(tuple(found)) is None:
        return
    ops = operators.find(text)
    fast = _snippet_module._ascii_snippet(text, found, width, None, ops)
    assert fast == _snippet_module._token_snippet(text, found, width)
    assert snippet(text, found, width) == fast


_alone_words = st.sampled_from(["数据", "数据库", "库", "数", "データ", "ー", "한국", "국어", "十"])


@settings(deadline=None)
@given(
    words=st.lists(
        st.tuples(
            st.one_of(_ascii_words, _beside_ascii, _alone_words), _ascii_seps | _beside_ascii
        ),
        min_size=0,
        max_size=80,
    ),
    query=st.lists(st.one_of(_ascii_words, _alone_words), min_size=1, max_size=3),
    width=st.integers(min_value=3, max_value=240),
)
def test_phrases_of_cjk_characters_take_the_ascii_path(words, query, width):
    """A phrase of characters that are each a token (数据库) is its characters in a row: with
    one-token words beside it, the regular expression snips it as the tokens do."""
    text = "".join(w + s for w, s in words)
    found = [c for c in clauses(" ".join(query)) if len(c) == 1 or _snippet_module._alone(c)]
    if not text or not found or not _snippet_module._ALONE_OR_APART.fullmatch(text):
        return
    pattern = _snippet_module._ascii_pattern(tuple(found))
    if pattern is None:
        return
    ops = operators.find(text)
    fast = _snippet_module._ascii_snippet(text, found, width, pattern, ops)
    assert fast == _snippet_module._token_snippet(text, found, width)
    assert snippet(text, found, width) == fast


def test_every_character_the_ascii_path_reads_beside_ascii_is_a_token_or_none() -> None:
    """Each listed code point, between two ASCII letters, leaves them two tokens, and NFKC or
    lowercasing makes it no ASCII letter, digit or operator character."""

    from origin_search.snippet import ALONE_OR_APART_RANGES

    marks = set("-=<>|&!+:*/%^~#")
    for a, b in ALONE_OR_APART_RANGES:
        for cp in range(a, b + 1):
            c = chr(cp)
            folded = unicodedata.normalize("NFKC", c)
            assert c.lower() == c, hex(cp)
            assert not any(ch.isascii() and (ch.isalnum() or ch in marks) for ch in folded), hex(cp)
            found = tokens(f"a{c}b")
            assert found[0] == "a" and found[-1] == "b", (hex(cp), found)
            # A phrase of characters that are each a token is found as them in a row: no
            # other character listed may fold into one of them.
            alone = [ch for ch in folded if _snippet_module._alone((ch,)) and tokens(ch) == [ch]]
            assert folded == c or not alone, hex(cp)


# --- every script, and the scan cut into pieces -----------------------------------------------

SCRIPT_WORDS = st.sampled_from(
    [
        "数据库",
        "数据",
        "库",
        "データベース",
        "ﾃﾞｰﾀﾍﾞｰｽ",
        "데이터",
        unicodedata.normalize("NFD", "데이터"),
        "เซิร์ฟเวอร์",
        "สี",
        "ส",
        "น้ำ",
        "ເຊີບເວີ",
        "ទិន្នន័យ",
        "អសចថ",
        "အသစ်",
        "ဗုဒ္ဓ",
        "error",
        "Café",
        "🚀",
    ]
)
SCRIPT_SEPS = st.sampled_from(["", "", " ", "、", "。", "，", "\n", "・", "…", "a", "１"])
SCRIPT_TEXTS = st.lists(st.tuples(SCRIPT_WORDS, SCRIPT_SEPS), max_size=80).map(
    lambda ps: "".join(w + s for w, s in ps)
)
SCRIPT_QUERIES = st.lists(st.one_of(SCRIPT_WORDS, st.just("数据、库")), min_size=1, max_size=3)


@settings(deadline=None)
@given(SCRIPT_TEXTS, SCRIPT_QUERIES, st.sampled_from([20, 60, 200]))
def test_every_script_is_bracketed_within_the_bound(
    text: str, words: list[str], width: int
) -> None:
    cl = clauses(" ".join(words))
    s = snippet(text, cl, width)
    assert visible(s) <= width
    if any(_occurs(tokens(text), c) for c in cl):
        assert bracketed(s), "a matching text shows its first match"
    for inside in bracketed(s):
        if ELLIPSIS not in s:
            assert any(_occurs(tokens(inside), c) for c in cl), inside
    plain = s.replace("[", "").replace("]", "").strip(ELLIPSIS)
    assert plain.replace(" ", "") in re.sub(r"\s", "", text)


@settings(deadline=None)
@given(SCRIPT_TEXTS, SCRIPT_QUERIES, st.sampled_from([20, 60, 200]))
def test_a_scan_in_small_pieces_gives_the_same_snippet(
    text: str, words: list[str], width: int
) -> None:
    """Each cut between pieces may fall inside a word, a cluster, a stretch NFKC joins, or the
    punctuation between two CJK characters; the snippet is the one from a single piece."""
    cl = clauses(" ".join(words))
    if not cl:
        return
    saved = snippet_module._FIRST_SCAN_WIDTHS, snippet_module._FIRST_SCAN_EXTRA
    try:
        snippet_module._FIRST_SCAN_WIDTHS, snippet_module._FIRST_SCAN_EXTRA = 0, 10**9
        whole = snippet_module._token_snippet(text, cl, width)
        for first_piece in range(1, 13):  # pieces of n, 2n, 4n… characters: cuts everywhere
            snippet_module._FIRST_SCAN_EXTRA = first_piece
            assert snippet_module._token_snippet(text, cl, width) == whole, first_piece
    finally:
        snippet_module._FIRST_SCAN_WIDTHS, snippet_module._FIRST_SCAN_EXTRA = saved


def test_long_halfwidth_and_decomposed_texts_keep_the_bound() -> None:
    for text, query in [
        ("ﾃｽﾄﾃﾞｰﾀ" * 300 + "ﾃﾞｰﾀﾍﾞｰｽ" + "ﾃｽﾄ" * 300, "データベース"),
        (
            unicodedata.normalize("NFD", "한국어 문서 " * 200 + "데이터베이스 " + "문서 " * 200),
            "데이터베이스",
        ),
        ("ฉันต้องย้าย" * 100 + "เซิร์ฟเวอร์" + "ใหม่" * 200, "เซิร์ฟเวอร์"),
    ]:
        s = snippet(text, clauses(query))
        assert visible(s) <= 200 and s.startswith(ELLIPSIS) and s.endswith(ELLIPSIS)
        [inside] = bracketed(s)
        assert tokens(inside) == tokens(query)
        assert inside in text  # the original characters, not their normalised form
