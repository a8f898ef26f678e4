"""What a character is to the analyzer, one character at a time: CJK (searched alone), South-East
Asian (searched in clusters), a letter mark (part of its word) or an accent, and how a letter
folds. The rules that put characters together into tokens are in analyzer.py.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right

from .unicode_tables import (
    ACCENT_RANGES,
    CJK_RANGES,
    COMPOSE_WITH_PREVIOUS,
    SEA_RANGES,
    SPECIAL_FOLDS,
)

_CJK_STARTS = [lo for lo, _ in CJK_RANGES]
_SEA_STARTS = [lo for lo, _ in SEA_RANGES]
_ACCENT_STARTS = [lo for lo, _ in ACCENT_RANGES]


def in_ranges(ranges: tuple[tuple[int, int], ...], starts: list[int], cp: int) -> bool:
    i = bisect_right(starts, cp) - 1
    return i >= 0 and cp <= ranges[i][1]


def is_cjk(cp: int) -> bool:
    return in_ranges(CJK_RANGES, _CJK_STARTS, cp)


def is_sea(cp: int) -> bool:
    return in_ranges(SEA_RANGES, _SEA_STARTS, cp)


def is_letter_mark(ch: str) -> bool:
    """A combining mark that spells a different word (a vowel sign, a virama), not an accent."""
    cp = ord(ch)
    return (
        unicodedata.category(ch)[0] == "M"
        and not in_ranges(ACCENT_RANGES, _ACCENT_STARTS, cp)
        and not is_sea(cp)
        and not is_cjk(cp)
    )


def mark_word(cp: int) -> str:
    """The spelling of a letter mark inside a word: ASCII, so that tantivy, which splits at
    characters Rust does not call alphanumeric (a virama is not), keeps it in the word; the
    ``x`` keeps two marks in a row apart, and no word of real text is spelled ``कx94dष``."""
    return f"x{cp:x}"


def plain_word_char(ch: str) -> bool:
    """A character that is alphanumeric for Python and Rust alike and not searched alone."""
    return ch.isalnum() and not is_cjk(ord(ch))


def fold_letter(ch: str) -> str:
    """Lowercase and fold one letter or digit; the result is made only of plain word chars.

    Repeats because lowering a compatibility form can expose more to decompose (``ǅ`` → ``dž``
    → ``dz``). Anything that does not settle falls back to the lowered character's own word
    chars, never to a separator: folding must not split a word.
    """
    s = ch
    for _ in range(3):
        out = []
        for c in s.lower():
            special = SPECIAL_FOLDS.get(c)
            if special is not None:
                out.append(special)
                continue
            if c.isdecimal() and not c.isascii():
                out.append(str(unicodedata.decimal(c)))
                continue
            decomposed = unicodedata.normalize("NFKD", c)
            parts = [d for d in decomposed if unicodedata.category(d)[0] != "M"]
            if any(map(is_letter_mark, decomposed)):
                parts = []  # ऩ is न with a nukta, a letter of its own: not folded to न
            if parts and all(plain_word_char(d) for d in parts):
                out.extend(parts)
            elif plain_word_char(c):
                out.append(c)
        folded = "".join(out)
        if folded == s:
            break
        s = folded
    if all(plain_word_char(c) for c in s) and s.lower() == s:
        return s
    return "".join(c for c in ch.lower() if plain_word_char(c) and c.lower() == c)


def joins_previous(ch: str) -> bool:
    """Whether NFKC may join ``ch`` to the character before it: its decomposition starts with a
    combining mark (ﾞ too), a Hangul medial or final jamo, or the second half of a vowel.

    Text without such characters is NFKC-normalised character by character."""
    head = unicodedata.normalize("NFKD", ch)[0]
    h = ord(head)
    return bool(
        unicodedata.combining(head)
        or head in COMPOSE_WITH_PREVIOUS
        or 0x1160 <= h <= 0x11FF
        or 0xD7B0 <= h <= 0xD7FF
    )
