"""The analyzer: what a token is, and proof that Python and tantivy agree on it."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from origin_search import analyzer, offsets, operators
from origin_search.analyzer import (
    GAP,
    TOKEN_MAX_BYTES,
    build_analyzer,
    prepare,
    tokens,
)
from origin_search.letters import joins_previous
from origin_search.offsets import _normalized, spans
from origin_search.unicode_tables import COMPOSE_WITH_PREVIOUS, OPERATOR_FORMS

ANALYZER = build_analyzer()
POSTFIX_TOKENS = {operators.TOKENS[op] for op in operators.POSTFIX}


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
    # operators are words in code; other punctuation still separates
    ("c++", "C++ -v *", ["c", "sym2bz2b", "v"]),
    ("c sharp", "C# F#.", ["c", "sym23", "f", "sym23"]),
    (
        "no hash inside a word, after a longer one or before a number",
        "a#b issue# #2 ## x",
        ["a", "b", "issue", "2", "x"],
    ),
    ("increment", "i++; ++j", ["i", "sym2bz2b", "sym2bz2b", "j"]),
    ("decrement after a word only", "i-- --verbose a--b", ["i", "sym2dz2d", "verbose", "a", "b"]),
    ("arrows", "a->b x => y", ["a", "sym2dz3e", "b", "x", "sym3dz3e", "y"]),
    ("logic", "a || b && c", ["a", "sym7cz7c", "b", "sym26z26", "c"]),
    ("a longer run is not its operators", "<!-- a --> ==> **b**", ["a", "b"]),
    ("operators next to cjk", "数==据", ["数", "sym3dz3d", "据"]),
    ("fullwidth operator", "ｉ＋＋ ⩵", ["i", "sym2bz2b", "sym3dz3d"]),
    ("chinese", "我们把数据库迁移了", ["我", "们", "把", "数", "据", "库", "迁", "移", "了"]),
    ("chinese punctuation leaves a position empty", "数据，库。", ["数", "据", GAP, "库"]),
    (
        "every separator between cjk characters",
        "数、据。库，存 在\n们\t你：他",
        ["数", GAP, "据", GAP, "库", GAP, "存", GAP, "在", GAP, "们", GAP, "你", GAP, "他"],
    ),
    ("one empty position per run of separators", "数、 。\n据", ["数", GAP, "据"]),
    ("no empty position next to a word", "数 abc、据 v2", ["数", "abc", "据", "v2"]),
    ("no empty position next to a symbol", "数 🚀 据", ["数", "sym1f680", "据"]),
    ("a mark between cjk characters is not a separator", "数\u0301据", ["数", "据"]),
    (
        "japanese kana and kanji",
        "データベースを移行",
        ["デ", "ー", "タ", "ベ", "ー", "ス", "を", "移", "行"],
    ),
    ("hiragana", "ひらがな", ["ひ", "ら", "が", "な"]),
    ("halfwidth katakana", "ﾃﾞｰﾀﾍﾞｰｽ", ["デ", "ー", "タ", "ベ", "ー", "ス"]),
    ("fullwidth katakana", "データベース", ["デ", "ー", "タ", "ベ", "ー", "ス"]),
    ("decomposed kana", "\u30c6\u3099\u30fc\u30bf", ["デ", "ー", "タ"]),
    ("halfwidth semi-voiced", "ﾊﾟｽ", ["パ", "ス"]),
    ("korean", "데이터베이스 오류", ["데", "이", "터", "베", "이", "스", GAP, "오", "류"]),
    ("decomposed hangul", "\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165", ["한", "국", "어"]),
    ("halfwidth hangul jamo", "\uffbe\uffc2\uffa4", ["하", "ᄂ"]),
    (
        "thai word",
        "เซิร์ฟเวอร์",
        [
            "sea0e40",
            "sea0e0b0e34",
            "sea0e230e4c",
            "sea0e1f",
            "sea0e40",
            "sea0e27",
            "sea0e2d",
            "sea0e230e4c",
        ],
    ),
    (
        "thai vowel and tone marks are part of the letter",
        "สี ส ส่",
        ["sea0e2a0e35", GAP, "sea0e2a", GAP, "sea0e2a0e48"],
    ),
    ("thai sara am is normalised", "น้ำ", ["sea0e190e490e4d", "sea0e32"]),
    ("thai digits are a word", "ปี๒๕๖๗", ["sea0e1b0e35", "2567"]),
    (
        "thai punctuation separates",
        "ก ฯ ๆ ข๏ค",
        ["sea0e01", GAP, "sea0e2f", GAP, "sea0e46", GAP, "sea0e02", GAP, "sea0e04"],
    ),
    ("thai phinthu stacks", "ธมฺม", ["sea0e18", "sea0e210e3a0e21"]),
    ("lao ligature is normalised", "ໃໝ່", ["sea0ec3", "sea0eab", "sea0ea10ec8"]),
    ("khmer coeng stacks", "ខ្មែរ", ["sea178117d2179817c2", "sea179a"]),
    ("khmer punctuation separates", "ខ។រ", ["sea1781", GAP, "sea179a"]),
    ("myanmar", "မြန်မာ", ["sea1019103c", "sea1014103a", "sea1019102c"]),
    ("myanmar stacker", "ဗုဒ္ဓ", ["sea1017102f", "sea101210391013"]),
    (
        "myanmar asat does not stack",
        "အသစ်သို့",
        ["sea1021", "sea101e", "sea1005103a", "sea101e102d102f1037"],
    ),
    ("myanmar decomposed vowel is composed", "\u1025\u102e", ["sea1026"]),
    ("sea script next to latin and cjk", "dbเซ数", ["db", "sea0e40", "sea0e0b", "数"]),
    ("stray marks are dropped", "\u0e35a\u0e35b \u17d2ก", ["ab", "sea0e01"]),
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
    ("compatibility forms", "Origin™ ½ ㎞ …", ["origintm", "1", "sym2044", "2", "km"]),
    ("emoji inside a word", "fix✅done", ["fix", "sym2705", "done"]),
    # combining marks are letters in every script; accents and pointing fold away
    ("devanagari vowel sign", "कम काम", ["कम", "कx93eम"]),
    ("devanagari virama", "क्ष", ["कx94dष"]),
    ("devanagari nukta is a letter", "क़ ऩ", ["कx93c", "ऩ"]),
    ("bengali vowel sign", "কম কাম", ["কম", "কx9beম"]),
    ("bengali two-part vowel is composed", "ক\u09c7\u09be ক\u09cb", ["কx9cb", "কx9cb"]),
    ("tamil pulli", "பல் பல", ["பலxbcd", "பல"]),
    ("tamil au is not o", "ஔ ஒ", ["ஔ", "ஒ"]),
    ("sinhala with joiner", "ශ්\u200dරී ශ්රී", ["ශxdcaරxdd3", "ශxdcaරxdd3"]),
    ("telugu", "తెలుగు", ["తxc46లxc41గxc41"]),
    ("tibetan syllables", "བོད་ཡིག", ["བxf7cད", "ཡxf72ག"]),
    ("tibetan attached ending", "རྒྱལ་པོའི་", ["རxf92xfb1ལ", "པxf7c", "འxf72"]),
    ("tibetan a-chung suffix is no ending", "དགའ་བ", ["དགའ", "བ"]),
    ("tibetan ending after a soft hyphen", "པོ\u00adའི", ["པxf7c", "འxf72"]),
    ("hebrew points fold away", "שָׁלוֹם שלום", ["שלום", "שלום"]),
    ("arabic harakat fold away", "كِتَاب كتاب", ["كتاب", "كتاب"]),
    ("a lone letter mark is a word", "\u093e", ["x93e"]),
    # invisible characters do not split a word; a zero-width space does
    ("soft hyphen", "soft\u00adware", ["software"]),
    ("word joiner and bom", "a\u2060b c\ufeffd", ["ab", "cd"]),
    ("tatweel", "كتـــاب", ["كتاب"]),
    ("variation selector", "a\ufe0eb", ["ab"]),
    ("persian zwnj", "می\u200cخواهم", ["میخواهم"]),
    ("zero width space separates", "zero\u200bwidth", ["zero", "width"]),
    # an emoji sequence is one symbol; a skin tone follows it as a token of its own
    ("zero width joiner", "👨\u200d💻", ["sym1f468z1f4bb"]),
    ("toned zwj sequence", "👨🏽\u200d🔬", ["sym1f468z1f52c", "sym1f3fd"]),
    ("flags pair up", "🇺🇸🇯🇵 🇸🇯", ["sym1f1faz1f1f8", "sym1f1efz1f1f5", "sym1f1f8z1f1ef"]),
    ("a lone regional indicator", "🇺 x", ["sym1f1fa", "x"]),
    ("keycap is not the digit", "1\ufe0f\u20e3 1\u20e3 1", ["sym31z20e3", "sym31z20e3", "1"]),
    ("emoji presentation selector", "❤\ufe0f ❤", ["sym2764", "sym2764"]),
    (
        "tag flag",
        "🏴\U000e0067\U000e0062\U000e0077\U000e006c\U000e0073\U000e007f",
        ["sym1f3f4ze0067ze0062ze0077ze006cze0073ze007f"],
    ),
    ("a joiner after a letter joins no symbol", "a\u200d👍", ["a", "sym1f44d"]),
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
        if tok == GAP:  # an over-long word, or the separators between two CJK tokens
            assert tokens(text[a:b]) in ([GAP], [])
        elif tok in POSTFIX_TOKENS:  # ``#`` is an operator after ``C`` only
            assert tokens(text[a - 1 : b])[-1] == tok
        elif unicodedata.is_normalized("NFKC", text[a:b]) and starts.count(a) == 1:
            assert tokens(text[a:b]) == [tok]  # each span is exactly its token
        else:  # one character (½ → 1 ⁄ 2) or emoji sequence (👍🏽) may yield several tokens,
            assert tok in tokens(text[a:b])  # each spanning all of it


def test_long_tokens_leave_a_gap_like_tantivy() -> None:
    long = "a" * TOKEN_MAX_BYTES
    almost = "b" * (TOKEN_MAX_BYTES - 1)
    wide = "ж" * (TOKEN_MAX_BYTES // 2)  # 2 bytes each: at the limit in bytes, not in chars
    text = f"x {long} y {almost} {wide} z"
    assert tokens(text) == ["x", GAP, "y", almost, GAP, "z"]
    same_as_tantivy(text)


def test_ascii_text_reaches_tantivy_unchanged() -> None:
    text = "Fix parse_query() in C:\\src\\main.py --verbose"
    assert prepare(text) is text
    assert prepare("i++ -> C#") == "i sym2bz2b   sym2dz3e  C sym23 "  # but for operators


# South-East Asian letters, vowel and tone marks, stackers, digits and punctuation.
THAI = list("สีเซิร์ฟวอกขำ๑ฯๆ") + ["\u0e3a", "\u0e48", "\u0e4d", "น้ำ"]
LAO = list("ລາວເຊີບໃໝ່ຳ໑") + ["\u0eba", "\u0edc"]
KHMER = list("ខមែរ៊ីន។៛០") + ["\u17d2", "ខ្មែរ"]
MYANMAR = list("မြနာသစ်၊၁") + ["\u1039", "\u103a", "\u1025\u102e", "ဗုဒ္ဓ"]
OTHER_SEA = ["\u1a20", "\u1a60", "\u1a6e", "\uaa80", "\uaab0", "\ua9e0", "\u1980"]
# Halfwidth kana and voicing marks, decomposed and compatibility Hangul, CJK punctuation.
KANA = ["ﾃ", "ﾞ", "ﾟ", "ﾊ", "ｰ", "ｶﾞ", "\u3099", "\u309b", "テ", "パ"]
HANGUL = [
    "\u1112",
    "\u1161",
    "\u11ab",
    "\u1100",
    "\u116e",
    "\u11a8",
    "ㄱ",
    "ㅏ",
    "ㄳ",
    "\uffa1",
    "가",
    "한",
]
CJK_PUNCTUATION = list("、。，「」：！（）・\u3000") + ["\u00a0", "…", "™", "´", "\u200b"]
MULTILINGUAL = st.sampled_from(
    list("aZz09_ .,:;-'\"\\/\t\n")
    + list("éÉßøæœıİΣσςЖжΩω")
    + list("数据库我们データベースー데이터")
    + list("مرحبا")
    + ["\u0301", "\u0308", "\u200d", "\ufe0f", "🚀", "👍", "🏽", "→", "€", "©", "。", "、", "・"]
    + ["ＡＢＣ１", "ﾃﾞ", "½", "²", "ǅ", "ﬁ", "Ⓐ", "\x00", "\ud800", "\U000e0041"]
    + THAI
    + LAO
    + KHMER
    + MYANMAR
    + OTHER_SEA
    + KANA
    + HANGUL
    + CJK_PUNCTUATION
    + ["\u09c7", "\u09be", "\u0b47", "\u0b3e", "\U00011131", "\U00011127"]  # two-part vowels
    + list("कम\u093e\u094dষ\u09be\u0bcdශ\u0dcaར\u0f92\u0f7cའ\u0f72\u0f0bཔ")  # letter marks
    + ["\u00ad", "\u2060", "\u0640", "\u200c", "\u200b", "\ufe0e"]  # invisible, and a ZWSP
    + ["🇺", "🇸", "🇯", "\u20e3", "👨", "🔬", "1", "#", "\U000e0067", "\U000e007f", "🏴"]  # emoji
    + ["+", "=", "<", ">", "|", "&", "!", "#", "C", "i", "++", "->", "=>", "||", "--", "＋"]
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
    assert ends == sorted(ends) and (not ends or ends[-1] <= len(text))


#: Log text: ASCII with a few other characters (``→`` in a file listing, ``’``, an emoji, é).
MOSTLY_ASCII = st.lists(
    st.one_of(
        st.text(st.sampled_from(list("aZz09_ .,:;-'\"\\/\t\n(){}=")), min_size=8, max_size=40),
        MULTILINGUAL,
    ),
    max_size=30,
).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(MOSTLY_ASCII, MIXED_TEXT, ANY_TEXT))
def test_translating_ascii_as_bytes_is_the_same_translation(text: str) -> None:
    """The fast path for mostly-ASCII text gives what the table gives character by character."""
    assert analyzer._translate(text) == text.translate(analyzer._PREPARE)
    same_as_tantivy(text)


@settings(max_examples=300, deadline=None)
@given(MIXED_TEXT)
def test_composed_decomposed_halfwidth_and_fullwidth_are_one_spelling(text: str) -> None:
    expected = tokens(text)
    for form in ("NFC", "NFD", "NFKC", "NFKD"):
        assert tokens(unicodedata.normalize(form, text)) == expected, form


def _joins_the_previous(s: str) -> bool:
    """Starts with what NFKC or a cluster attaches to the character before: a mark, ﾞ, ำ, a
    Hangul medial or final jamo."""
    head = unicodedata.normalize("NFKD", s[0])[0]
    return unicodedata.category(head)[0] == "M" or "\u1160" <= head <= "\u11ff"


def _word(alphabet: list[str], stackers: str) -> st.SearchStrategy[str]:
    """A word as it stands in text: starts with a letter, does not end with a stacker."""
    letters = [
        c for c in alphabet if unicodedata.category(c[0])[0] == "L" and not _joins_the_previous(c)
    ]
    return (
        st.tuples(st.sampled_from(letters), st.lists(st.sampled_from(alphabet), max_size=8))
        .map(lambda t: t[0] + "".join(t[1]))
        .filter(lambda w: not w.endswith(tuple(stackers)))
    )


SEA_WORDS = st.one_of(
    _word(THAI, "\u0e3a"),
    _word(LAO, "\u0eba"),
    _word(KHMER, "\u17d2"),
    _word(MYANMAR, "\u1039"),
    _word(KANA[:3] + ["ﾊ", "ｰ", "ｶﾞ", "テ", "パ", "ー"], ""),
    _word(["가", "한", "\u1112\u1161\u11ab", "\u1100\u116e\u11a8"], ""),
)
SENTENCE_PIECES = st.lists(
    st.one_of(SEA_WORDS, st.sampled_from(CJK_PUNCTUATION + list(" \n.,a数")))
)


@settings(max_examples=300, deadline=None)
@given(SENTENCE_PIECES, SEA_WORDS, SENTENCE_PIECES)
def test_a_word_is_found_inside_a_sentence(before: list[str], word: str, after: list[str]) -> None:
    """Every word must occur: its tokens in a row wherever it stands in a run of its script.

    Text before it ends, and text after it starts, as real text does around a word: not with
    a stacker before it, not with a combining mark, a voicing mark or a jamo after it.
    """
    head = "".join(before)
    tail = "".join(after)
    assume(not head.endswith(("\u0e3a", "\u0eba", "\u17d2", "\u1039")))
    assume(not (tail and _joins_the_previous(tail)))
    # digits are a word: ๑a is 1a, ๑™ is 1tm (a mark after a digit is dropped, so ๑ี ends in ๑)
    last = word.rstrip("".join(c for c in word if unicodedata.category(c)[0] == "M"))[-1:]
    assume(not (last.isdecimal() and unicodedata.normalize("NFKC", tail[:1])[:1].isalnum()))
    want = tokens(word)
    got = tokens(head + word + tail)
    assert any(got[i : i + len(want)] == want for i in range(len(got) - len(want) + 1)), (
        want,
        got,
    )


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


# --- offsets through NFKC --------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(MIXED_TEXT)
def test_each_normalised_character_maps_to_the_stretch_it_came_from(text: str) -> None:
    norm, starts, ends = _normalized(text)
    assert norm == unicodedata.normalize("NFKC", text)
    if starts is None or ends is None:  # one character for one
        starts, ends = list(range(len(text))), list(range(1, len(text) + 1))
    assert len(starts) == len(ends) == len(norm)
    for ch, a, b in zip(norm, starts, ends, strict=True):
        assert ch in unicodedata.normalize("NFKC", text[a:b])
        assert b - a <= 8  # stretches, not the whole text (the fallback)


def test_the_characters_that_compose_with_the_previous_one_are_all_known() -> None:
    """The second halves of canonical compositions with combining class 0, in this Python's
    Unicode version (Hangul jamo are ranges): NFKC may join them to the character before."""
    found = set()
    for cp in range(0x110000):
        decomposition = unicodedata.decomposition(chr(cp))
        if not decomposition or decomposition.startswith("<"):
            continue
        parts = [chr(int(x, 16)) for x in decomposition.split()]
        if len(parts) != 2 or unicodedata.combining(parts[1]):
            continue
        if unicodedata.normalize("NFC", "".join(parts)) == chr(cp):  # not a composition exclusion
            found.add(parts[1])
    assert found <= COMPOSE_WITH_PREVIOUS


CODE = st.lists(
    st.sampled_from(list("ab1 _-+*/%=<>!&|^~:#\n.C") + ["C#", "i--", "->", "==", "<!--", "://"]),
    max_size=30,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(CODE)
def test_the_ascii_operator_pass_equals_the_general_one(text: str) -> None:
    """prepare's one pass over ASCII text replaces exactly the operators find() finds."""
    assert operators.rewrite_ascii(text) == operators.replaced(text, operators.find(text))
    same_as_tantivy(text)
    assert spans(text)[0] == tokens(text)


CODE_BEYOND_ASCII = st.lists(
    st.sampled_from(
        ["C#", "i--", "->", "==", "<!--", "ｉ＋＋", "é", "é", "数据", "ก่", "\u200d", "🇺", "👍"]
    )
    | CODE,
    max_size=12,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(CODE_BEYOND_ASCII)
def test_one_translation_with_operators_equals_two(text: str) -> None:
    """Text beyond ASCII is translated once, its operators replaced first; the general way
    translates it, then again with its operators (and emoji sequences) replaced."""
    norm = text
    out = analyzer._translate(text)
    if analyzer._JOINS in out and not unicodedata.is_normalized("NFKC", text):
        norm = unicodedata.normalize("NFKC", text)
    ops = operators.find(norm)
    general = analyzer._with_emoji(norm, ops, None)
    found: list[tuple[int, int, int]] = []
    assert analyzer._translated(text, found) == general
    expected: list[tuple[int, int, int]] = []
    analyzer._with_emoji(norm, ops, expected)
    assert found == expected


def test_the_operator_forms_are_all_known() -> None:
    ops = set("-+*/%=<>!&|^~:#")
    derived = {
        ch
        for cp in range(0x80, 0x110000)
        if (ch := chr(cp)) != (norm := unicodedata.normalize("NFKC", ch)) and ops & set(norm)
    }
    assert derived == OPERATOR_FORMS


def test_text_is_normalised_character_by_character_unless_something_joins() -> None:
    """Text without characters NFKC may join to the one before is rewritten without
    normalising it whole: every code point, alone, inside a word and doubled, gives the tokens
    of its normalised form (and a text with one that joins is normalised whole)."""
    for lo in [*range(0, 0x40000, 0x8000), *range(0xE0000, 0x110000, 0x8000)]:
        cps = [cp for cp in range(lo, lo + 0x8000) if not joins_previous(chr(cp))]
        text = " ".join(f"{chr(cp)}a{chr(cp)}{chr(cp)}" for cp in cps)
        assert tokens(text) == tokens(unicodedata.normalize("NFKC", text)), hex(lo)


def test_spans_stay_right_when_the_pattern_of_growing_characters_is_stale(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Characters NFKC makes several (…, ½) are found by a pattern kept up to date as they
    are first seen; were it stale (another thread adding one), the offsets are still right."""
    text = "数…据 ½ Loading… ﬁle"
    expected = spans(text)
    assert expected[0] == ["数", GAP, "据", "1", "sym2044", "2", "loading", "file"]
    monkeypatch.setattr(offsets, "_growing_re", re.compile("[^\\s\\S]"))  # finds nothing
    assert spans(text) == expected


def pairs_token_by_token(prepared: str) -> str:
    """The pairs field as its definition reads, with no shortcut: each two CJK tokens at
    adjacent positions, an empty position after a run that another token follows."""
    words: list[str] = []
    previous = ""
    for token in analyzer._words(prepared):
        if analyzer.is_alone(token):
            if previous:
                words.append(previous + token)
            previous = token
        elif previous:
            previous = ""
            if words and words[-1] != analyzer._FILLER_WORD:
                words.append(analyzer._FILLER_WORD)
    return " ".join(words)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(MOSTLY_ASCII, MIXED_TEXT))
def test_the_pairs_shortcut_changes_nothing(text: str) -> None:
    """`pairs` returns at once where no two CJK markers meet; that must be where the token by
    token definition finds no pair either."""
    prepared = prepare(text)
    assert analyzer.pairs(prepared) == pairs_token_by_token(prepared)
