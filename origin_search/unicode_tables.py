"""The Unicode tables the analyzer reads: which blocks are searched a character or a cluster at
a time, which signs stack a cluster, which combining marks are accents that fold away and which
characters are invisible, which letters fold to an obvious ASCII spelling, and which characters
NFKC joins to the one before them. Data only; the rules are in analyzer.py.
"""

from __future__ import annotations

# Blocks written without spaces between words, searched per character. Only the letters and
# digits inside them become tokens; their punctuation (。、・「」) still separates.
CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x2E80, 0x2FDF),  # CJK radicals, Kangxi radicals
    (0x3005, 0x3007),  # 々 〆 〇
    (0x3021, 0x3029),  # Hangzhou numerals
    (0x3031, 0x303C),  # kana repeat marks, 〸〹〺〻〼
    (0x3040, 0x30FF),  # Hiragana, Katakana (incl. ー)
    (0x3130, 0x318F),  # Hangul compatibility Jamo
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA960, 0xA97F),  # Hangul Jamo extended A
    (0xAC00, 0xD7FF),  # Hangul syllables, Jamo extended B
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFFDC),  # halfwidth Katakana and Hangul
    (0x1AFF0, 0x1B16F),  # Kana extended, supplement, small kana
    (0x20000, 0x3FFFF),  # CJK extensions B and later
)

# Scripts of South-East Asia written without spaces between words. Their letters and combining
# marks become grapheme clusters, one token each, searched like CJK characters; their digits
# are words (folded to ASCII), their punctuation separates. All in the BMP: 4 hex digits each.
SEA_RANGES: tuple[tuple[int, int], ...] = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x1950, 0x1AAF),  # Tai Le, New Tai Lue, Khmer symbols, Buginese, Tai Tham
    (0xA9E0, 0xA9FF),  # Myanmar extended B
    (0xAA60, 0xAADF),  # Myanmar extended A, Tai Viet
)

# Signs that stack the next consonant under the current one: the cluster goes on with it. The
# Myanmar asat (U+103A) is not one: it ends a syllable, very often a word, and pulling the next
# consonant in would make a word's last cluster differ between the query and the text.
STACKERS = frozenset(
    {
        0x0E3A,  # Thai phinthu
        0x0EBA,  # Lao Pali virama
        0x1039,  # Myanmar virama (stacker)
        0x17D2,  # Khmer coeng
        0x1A60,  # Tai Tham sakot
    }
)

# Combining marks that are accents or pointing writers put in or leave out, folded away like
# the accent of ``é``: generic diacritics, Cyrillic titlo, Hebrew points, Arabic and Syriac
# vowel signs, the kana voicing marks, variation selectors. Every other combining mark (an
# Indic vowel sign or virama, a Tibetan subjoined letter) spells a different word and is part
# of it: ``कम`` is not ``काम``.
ACCENT_RANGES: tuple[tuple[int, int], ...] = (
    (0x0300, 0x036F),  # combining diacritical marks (and the grapheme joiner)
    (0x0483, 0x0489),  # Cyrillic titlo, palatalisation, enclosing signs
    (0x0591, 0x05C7),  # Hebrew cantillation and points
    (0x0610, 0x061A),  # Arabic honorifics and small signs
    (0x064B, 0x065F),  # Arabic harakat: fatha, kasra, shadda, sukun, ...
    (0x0670, 0x0670),  # Arabic superscript alef
    (0x06D6, 0x06ED),  # Arabic Quranic annotation signs
    (0x0730, 0x074A),  # Syriac points
    (0x0898, 0x08FF),  # Arabic extended marks
    (0x180B, 0x180F),  # Mongolian free variation selectors
    (0x1AB0, 0x1AFF),  # combining diacritical marks extended
    (0x1DC0, 0x1DFF),  # combining diacritical marks supplement
    (0x20D0, 0x20FF),  # combining marks for symbols (a keycap's is read with its digit)
    (0x3099, 0x309A),  # kana voiced and semi-voiced marks
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFE20, 0xFE2F),  # combining half marks
    (0xE0100, 0xE01EF),  # variation selectors supplement
)

# Characters that are invisible inside a word and do not split it: the soft hyphen, the word
# joiner and zero-width no-break space, the Arabic tatweel (a stretched joining line), the
# joiners (ZWNJ, ZWJ) and emoji tags. They are left out, so a word is found whether it was
# written with them or not (Persian ``می‌خواهم`` and ``میخواهم``). The zero-width space is not
# here: it separates words.
INVISIBLE = frozenset(
    {0x00AD, 0x0640, 0x180E, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF}
    | set(range(0xE0001, 0xE0002))
    | set(range(0xE0020, 0xE0080))
)

# Letters that have no decomposition but an obvious ASCII spelling (as in Lucene's folding).
SPECIAL_FOLDS: dict[str, str] = {
    "ß": "ss",
    "æ": "ae",
    "œ": "oe",
    "ø": "o",
    "đ": "d",
    "ð": "d",
    "ł": "l",
    "ŀ": "l",
    "þ": "th",
    "ħ": "h",
    "ı": "i",
    "ŧ": "t",
    "ŋ": "n",
    "ĸ": "q",
    "ƀ": "b",
    "ƒ": "f",
    "ȷ": "j",
    "ς": "σ",  # final sigma: one spelling, whatever the position in the word
}

# Characters of canonical combining class 0 that compose with the character before them (the
# second half of two-part vowels: Bengali ো is ে + া). Hangul medial and final jamo are ranges
# below. A test derives this set from unicodedata again.
COMPOSE_WITH_PREVIOUS = frozenset(
    map(
        chr,
        (
            0x09BE,
            0x09D7,
            0x0B3E,
            0x0B56,
            0x0B57,
            0x0BBE,
            0x0BD7,
            0x0CC2,
            0x0CD5,
            0x0CD6,
            0x0D3E,
            0x0D57,
            0x0DCF,
            0x0DDF,
            0x102E,
            0x1B35,
            0x11127,
            0x1133E,
            0x11357,
            0x114B0,
            0x114BA,
            0x114BD,
            0x115AF,
            0x11930,
        ),
    )
)

# Characters whose NFKC form holds an ASCII operator character (``＋`` is ``+``, ``⩵`` is
# ``==``): a text with one is normalised whole before its operators are found, so ``ｉ＋＋`` is
# ``i++``. A test derives this set from unicodedata again.
OPERATOR_FORMS = frozenset(
    map(
        chr,
        (
            *(0x203C, 0x2048, 0x2049, 0x207A, 0x207C, 0x208A, 0x208C),
            *(0x2100, 0x2101, 0x2105, 0x2106, 0x2A74, 0x2A75, 0x2A76, 0xFB29),
            *(0xFE13, 0xFE15, 0xFE55, 0xFE57, 0xFE5F, 0xFE60, 0xFE61, 0xFE62, 0xFE63, 0xFE64),
            *(0xFE65, 0xFE66, 0xFE6A, 0xFF01, 0xFF03, 0xFF05, 0xFF06, 0xFF0A, 0xFF0B, 0xFF0D),
            *(0xFF0F, 0xFF1A, 0xFF1C, 0xFF1D, 0xFF1E, 0xFF3E, 0xFF5C, 0xFF5E),
        ),
    )
)
