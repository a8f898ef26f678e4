"""The analyzer: what a token is, and proof that Python and tantivy agree on it."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from origin_search.analyzer import (
    GAP,
    TOKEN_MAX_BYTES,
    build_analyzer,
    prepare,
    spans,
    tokens,
)

ANALYZER = build_analyzer()


def tantivy_tokens(text: str) -> list[str]:
    """What the index stores for ``text``, with ``""`` at positions left empty."""
    toks = ANALYZER.pre_tokenize(prepare(text)).tokens
    out = [GAP] * (toks[-1].position + 1 if toks else 0)
    for t in toks:
        out[t.position] = t.text
    return out


def same_as_tantivy(text: str) -> None:
    mine = tokens(text)
    while mine and mine[-1] == GAP:
        mine.pop()  # tantivy has no position after its last token
    assert mine == tantivy_tokens(text)


CASES: list[tuple[str, str, list[str]]] = [
    (
        "english",
        "The Release workflow FAILED twice.",
        ["the", "release", "workflow", "failed", "twice"],
    ),
    ("snake case", "parse_query", ["parse", "query"]),
    ("camel case", "fooBar", ["foobar"]),
    ("dotted", "foo.bar()", ["foo", "bar"]),
    ("windows path", "C:\\Users\\dev", ["c", "users", "dev"]),
    ("error text", "KeyError: 'x'", ["keyerror", "x"]),
    ("version", "v2.3.1", ["v2", "3", "1"]),
    ("c++", "C++ -v *", ["c", "v"]),
    ("chinese", "我们把数据库迁移了", ["我", "们", "把", "数", "据", "库", "迁", "移", "了"]),
    ("chinese punctuation", "数据，库。", ["数", "据", "库"]),
    (
        "japanese kana and kanji",
        "データベースを移行",
        ["デ", "ー", "タ", "ベ", "ー", "ス", "を", "移", "行"],
    ),
    ("hiragana", "ひらがな", ["ひ", "ら", "が", "な"]),
    ("halfwidth katakana", "ﾃﾞｰﾀ", ["テ", "ﾞ", "ー", "タ"]),
    ("korean", "데이터베이스 오류", ["데", "이", "터", "베", "이", "스", "오", "류"]),
    ("cjk next to latin", "DB42数据库v2", ["db42", "数", "据", "库", "v2"]),
    ("cyrillic", "Привет, мир", ["привет", "мир"]),
    ("greek", "ΑΒΓ αβγ ΟΔΟΣ οδος", ["αβγ", "αβγ", "οδοσ", "οδοσ"]),
    ("arabic", "مرحبا بالعالم", ["مرحبا", "بالعالم"]),
    ("arabic digits", "٣٤", ["34"]),
    ("accented latin", "Café naïve Ångström", ["cafe", "naive", "angstrom"]),
    ("decomposed accent", "Cafe\u0301 re\u0301sume\u0301", ["cafe", "resume"]),
    ("sharp s", "straße STRASSE", ["strasse", "strasse"]),
    ("ligatures", "Æsir œuvre ﬁle", ["aesir", "oeuvre", "file"]),
    ("nordic", "Øresund Łódź", ["oresund", "lodz"]),
    ("full width", "ＡＢＣ１２３", ["abc123"]),
    ("turkish", "İstanbul ılık", ["istanbul", "ilik"]),
    ("emoji", "ship it 🚀 👍🏽", ["ship", "it", "sym1f680", "sym1f44d", "sym1f3fd"]),
    ("symbols", "→ ✓ €5 ©", ["sym2192", "sym2713", "sym20ac", "5", "syma9"]),
    ("emoji inside a word", "fix✅done", ["fix", "sym2705", "done"]),
    ("zero width joiner", "👨\u200d💻", ["sym1f468", "sym1f4bb"]),
    ("nul and controls", "a\x00b\x1bc", ["a", "b", "c"]),
    ("lone surrogate", "ab\ud800cd", ["ab", "cd"]),
    ("empty", "", []),
    ("punctuation only", "!@#$%^&*()_+-=[]{}|;':\",./<>?`~\\", []),
]


@pytest.mark.parametrize(
    ("text", "expected"), [(t, e) for _, t, e in CASES], ids=[n for n, _, _ in CASES]
)
def test_tokens(text: str, expected: list[str]) -> None:
    assert tokens(text) == expected
    same_as_tantivy(text)
    toks, starts, ends = spans(text)
    assert toks == expected
    for tok, a, b in zip(toks, starts, ends, strict=True):
        assert tokens(text[a:b]) == [tok]  # each span is exactly its token


def test_long_tokens_leave_a_gap_like_tantivy() -> None:
    long = "a" * TOKEN_MAX_BYTES
    almost = "b" * (TOKEN_MAX_BYTES - 1)
    wide = "ж" * (TOKEN_MAX_BYTES // 2)  # 2 bytes each: at the limit in bytes, not in chars
    text = f"x {long} y {almost} {wide} z"
    assert tokens(text) == ["x", GAP, "y", almost, GAP, "z"]
    same_as_tantivy(text)


def test_ascii_text_reaches_tantivy_unchanged() -> None:
    text = "Fix parse_query() in C:\\src\\main.py"
    assert prepare(text) is text


MULTILINGUAL = st.sampled_from(
    list("aZz09_ .,:;-'\"\\/\t\n")
    + list("éÉßøæœıİΣσςЖжΩω")
    + list("数据库我们データベースー데이터")
    + list("مرحبا")
    + ["\u0301", "\u0308", "\u200d", "\ufe0f", "🚀", "👍", "🏽", "→", "€", "©", "。", "、", "・"]
    + ["ＡＢＣ１", "ﾃﾞ", "½", "²", "ǅ", "ﬁ", "Ⓐ", "\x00", "\ud800", "\U000e0041"]
)
MIXED_TEXT = st.lists(MULTILINGUAL, max_size=40).map("".join)
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=40)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(MIXED_TEXT, ANY_TEXT))
def test_python_tokens_equal_tantivy_tokens(text: str) -> None:
    same_as_tantivy(text)
    toks, starts, ends = spans(text)
    assert toks == tokens(text)
    assert starts == sorted(starts) and all(a < b for a, b in zip(starts, ends, strict=True))


@settings(max_examples=150, deadline=None)
@given(MIXED_TEXT, st.integers(0, 40), st.integers(0, 40))
def test_spans_of_a_slice_are_offsets_in_the_text(text: str, i: int, j: int) -> None:
    lo, hi = sorted((min(i, len(text)), min(j, len(text))))
    toks, starts, ends = spans(text, lo, hi)
    assert (toks, [s - lo for s in starts], [e - lo for e in ends]) == spans(text[lo:hi])


def test_every_code_point_agrees_with_tantivy() -> None:
    """Python's and Rust's Unicode tables differ; prepare() must hide every difference."""
    # Planes 4 to 13 hold no characters in any Unicode version so far.
    for lo in [*range(0, 0x40000, 0x8000), *range(0xE0000, 0x110000, 0x8000)]:
        text = " ".join(f"{chr(cp)}a{chr(cp)}{chr(cp)}" for cp in range(lo, lo + 0x8000))
        mine = tokens(text)
        assert mine == tantivy_tokens(text), hex(lo)
