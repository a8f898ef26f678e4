"""The one definition of a token, shared by indexing, queries, snippets and the Python matcher.

Tokens are lowercased, ASCII-folded runs of letters and digits (``Café`` → ``cafe``, ``straße`` →
``strasse``, ``ＡＢＣ１２３`` → ``abc123``); ``_`` and punctuation separate them. Han, Hiragana,
Katakana and Hangul characters are one token each, so a CJK word is searched as a phrase of its
characters. Other symbols (emoji, arrows, currency, maths) are one token per character, spelled
``sym<hex code point>`` so that they survive tantivy's tokenizer.

How the work is split, and why (figures in docs/search.md): tantivy's regex tokenizer is several
times slower than its built-in ``simple`` tokenizer, and most log text is plain ASCII. So
:func:`prepare` leaves ASCII text untouched (tantivy's ``simple`` + ``lowercase`` handle it) and
rewrites any other text in one ``str.translate`` pass into lowercased, folded words separated by
spaces. Every character that can reach tantivy is then either ASCII or a character both Python
and Rust call alphanumeric, so tantivy's split equals the Python split done by :func:`tokens` —
a property the tests check over random multilingual text and over every code point.

Tokens of :data:`TOKEN_MAX_BYTES` UTF-8 bytes or more (base64 blobs, minified code) are not
indexed; tantivy leaves a gap in positions for them, which the Python side mirrors with ``""``.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right

from tantivy import Filter, TextAnalyzer, TextAnalyzerBuilder, Tokenizer

#: Name under which the analyzer is registered on the index (tantivy does not persist it).
ANALYZER_NAME = "origin"
#: Bump when token output changes: the index stores tokens, so it must then be rebuilt.
ANALYZER_VERSION = 1
#: Tokens this long or longer (UTF-8 bytes) are dropped; tantivy's ``remove_long`` uses ``<``.
TOKEN_MAX_BYTES = 100
#: Marks a dropped long token in Python token lists, keeping positions aligned with tantivy.
GAP = ""

_SYMBOL_PREFIX = "sym"

# Blocks written without spaces between words, searched per character. Only the letters and
# digits inside them become tokens; their punctuation (。、・「」) still separates.
_CJK_RANGES: tuple[tuple[int, int], ...] = (
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
_CJK_STARTS = [lo for lo, _ in _CJK_RANGES]

# Letters that have no decomposition but an obvious ASCII spelling (as in Lucene's folding).
_SPECIAL_FOLDS: dict[str, str] = {
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

# What kind of piece a character yields, one character per input character so that spans in
# the class string are spans in the text: w = part of a word, c = a token on its own,
# m = dropped inside a word (combining marks), space = separator.
_WORD, _ALONE, _MARK, _SEP = "w", "c", "m", " "
_SPANS_RE = re.compile(r"c|w[wm]*")
_ASCII_WORD_RE = re.compile(r"[a-z0-9]+")


def _is_cjk(cp: int) -> bool:
    i = bisect_right(_CJK_STARTS, cp) - 1
    return i >= 0 and cp <= _CJK_RANGES[i][1]


def _plain_word_char(ch: str) -> bool:
    """A character that is alphanumeric for Python and Rust alike and not searched alone."""
    return ch.isalnum() and not _is_cjk(ord(ch))


def _fold_letter(ch: str) -> str:
    """Lowercase and fold one letter or digit; the result is made only of plain word chars.

    Repeats because lowering a compatibility form can expose more to decompose (``ǅ`` → ``dž``
    → ``dz``). Anything that does not settle falls back to the lowered character's own word
    chars, never to a separator: folding must not split a word.
    """
    s = ch
    for _ in range(3):
        out = []
        for c in s.lower():
            special = _SPECIAL_FOLDS.get(c)
            if special is not None:
                out.append(special)
                continue
            if c.isdecimal() and not c.isascii():
                out.append(str(unicodedata.decimal(c)))
                continue
            parts = [
                d for d in unicodedata.normalize("NFKD", c) if unicodedata.category(d)[0] != "M"
            ]
            if parts and all(_plain_word_char(d) for d in parts):
                out.extend(parts)
            elif _plain_word_char(c):
                out.append(c)
        folded = "".join(out)
        if folded == s:
            break
        s = folded
    if all(_plain_word_char(c) for c in s) and s.lower() == s:
        return s
    return "".join(c for c in ch.lower() if _plain_word_char(c) and c.lower() == c)


def _piece(cp: int) -> tuple[str, str]:
    """(text that goes to tantivy, class letter) for one code point outside the ASCII path."""
    ch = chr(cp)
    if cp < 128:
        return (ch.lower(), _WORD) if ch.isalnum() else (" ", _SEP)
    category = unicodedata.category(ch)
    if _is_cjk(cp) and ch.isalnum():
        norm = unicodedata.normalize("NFKC", ch)  # halfwidth ｶ → カ, compatibility 豈 → 豈
        if len(norm) == 1 and norm.isalnum() and _is_cjk(ord(norm)):
            ch = norm
        return f" {ch} ", _ALONE
    if ch.isalnum():
        folded = _fold_letter(ch)
        return (folded, _WORD) if folded else ("", _MARK)
    if category[0] == "S":
        return f" {_SYMBOL_PREFIX}{cp:x} ", _ALONE
    if category[0] == "M":
        return "", _MARK
    return " ", _SEP  # punctuation, spaces, controls, unassigned, lone surrogates


class _Table(dict[int, str]):
    """A ``str.translate`` table filled on first sight of each code point."""

    def __init__(self, which: int) -> None:
        super().__init__()
        self._which = which

    def __missing__(self, cp: int) -> str:
        value = _piece(cp)[self._which]
        self[cp] = value
        return value


_PREPARE = _Table(0)
_CLASSES = _Table(1)


def prepare(text: str) -> str:
    """The text handed to tantivy for indexing: ASCII as is, anything else already normalised."""
    if text.isascii():
        return text
    return text.translate(_PREPARE)


def build_analyzer() -> TextAnalyzer:
    """The tantivy side of the analyzer; only valid on text that went through :func:`prepare`."""
    return (
        TextAnalyzerBuilder(Tokenizer.simple())
        .filter(Filter.lowercase())
        .filter(Filter.remove_long(TOKEN_MAX_BYTES))
        .build()
    )


def _drop_long(words: list[str]) -> list[str]:
    limit = TOKEN_MAX_BYTES
    quarter = limit // 4
    if not words or max(map(len, words)) <= quarter:
        return words  # the common case, checked at C speed
    for i, w in enumerate(words):
        n = len(w)
        if n > quarter and (n >= limit or len(w.encode()) >= limit):
            words[i] = GAP
    return words


def tokens(text: str) -> list[str]:
    """The tokens tantivy indexes for ``text``, in position order, ``""`` where one was too long."""
    if text.isascii():
        return _drop_long(_ASCII_WORD_RE.findall(text.lower()))
    return _drop_long(text.translate(_PREPARE).split())


def spans(
    text: str, start: int = 0, end: int | None = None
) -> tuple[list[str], list[int], list[int]]:
    """Tokens of ``text[start:end]`` with their character offsets in ``text``.

    The slice is tokenized on its own, so a caller cutting inside a word must drop the edge
    tokens itself (see snippet.py).
    """
    part = text[start:end] if (start or end is not None) else text
    if part.isascii():
        found = list(_ASCII_WORD_RE.finditer(part.lower()))
        words = [m.group() for m in found]
        if start:
            return _drop_long(words), [m.start() + start for m in found], [m.end() + start for m in found]
        return _drop_long(words), [m.start() for m in found], [m.end() for m in found]
    words = part.translate(_PREPARE).split()
    classes = part.translate(_CLASSES)
    starts = []
    ends = []
    for m in _SPANS_RE.finditer(classes):
        starts.append(m.start() + start)
        ends.append(m.end() + start)
    return _drop_long(words), starts, ends
