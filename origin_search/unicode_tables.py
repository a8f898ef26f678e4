"""The Unicode tables the analyzer reads: which blocks are searched a character or a cluster at
a time, which signs stack a cluster, which letters fold to an obvious ASCII spelling, and which
characters NFKC joins to the one before them. Data only; the rules are in analyzer.py.
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
