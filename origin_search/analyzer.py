"""The one definition of a token, shared by indexing, queries, snippets and the Python matcher.

Text is NFKC-normalised first, so composed and decomposed, halfwidth and fullwidth forms are one
spelling (``ﾃﾞｰﾀ`` is ``データ``, decomposed Hangul is composed). Tokens are then lowercased,
ASCII-folded runs of letters and digits (``Café`` → ``cafe``, ``straße`` → ``strasse``,
``ＡＢＣ１２３`` → ``abc123``); ``_`` and punctuation separate them. Combining marks other than
accents are letters of their word (``काम`` is not ``कम``), spelled ``x<hex>`` inside it;
invisible characters (soft hyphen, joiners, tatweel) are left out and do not split a word.
Operators of code (``++``, ``->``, ``C#``'s ``#``) are tokens of their own (operators.py), and
so is each emoji sequence (sequences.py). Han, Hiragana, Katakana and
Hangul characters are one token each, and so is each grapheme cluster of Thai, Lao, Myanmar,
Khmer and the other scripts of South-East Asia written without spaces, spelled ``sea<hex code
points>``; a word of those scripts is searched as a phrase of them. Where punctuation or space
stands between two such tokens, a position is left empty, so a phrase does not match across it.
Other symbols (emoji, arrows, currency, maths) are one token per character, spelled
``sym<hex code point>`` so that they survive tantivy's tokenizer.

How the work is split, and why (figures in docs/search.md): tantivy's regex tokenizer is several
times slower than its built-in ``simple`` tokenizer, and most log text is plain ASCII. So
:func:`prepare` leaves ASCII text untouched (tantivy's ``simple`` + ``lowercase`` handle it) and
rewrites any other text, mostly in one ``str.translate`` pass, into lowercased, folded words
separated by spaces or control characters. Every character that can reach tantivy is then either
ASCII or a character both Python and Rust call alphanumeric, so tantivy's split equals the
Python split done by :func:`tokens` — a property the tests check over random multilingual text
and over every code point.

Tokens of :data:`TOKEN_MAX_BYTES` UTF-8 bytes or more (base64 blobs, minified code) are not
indexed; tantivy leaves a gap in positions for them, which the Python side mirrors with ``""``.
The empty position between two CJK characters or clusters is made the same way: a filler word
of that length stands where the punctuation was.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from tantivy import Filter, TextAnalyzer, TextAnalyzerBuilder, Tokenizer

from . import operators
from .letters import (
    fold_letter,
    is_cjk,
    is_letter_mark,
    is_sea,
    joins_previous,
    mark_word,
)
from .sequences import TIBETAN_ENDING_OUT_RE, with_sequences
from .unicode_tables import (
    INVISIBLE,
    OPERATOR_FORMS,
    STACKERS,
)

#: Name under which the analyzer is registered on the index (tantivy does not persist it).
ANALYZER_NAME = "origin"
#: Bump when token output changes: the index stores tokens, so it must then be rebuilt.
#: 2: NFKC, South-East Asian clusters, empty positions at punctuation between CJK tokens.
#: 3: combining marks are letters in every script, invisible characters do not split a word,
#: emoji sequences are one symbol, Tibetan attached endings are words of their own.
ANALYZER_VERSION = 3
#: Tokens this long or longer (UTF-8 bytes) are dropped; tantivy's ``remove_long`` uses ``<``.
TOKEN_MAX_BYTES = 100
#: Marks a dropped long token in Python token lists, keeping positions aligned with tantivy.
GAP = ""

_SYMBOL_PREFIX = "sym"
_CLUSTER_PREFIX = "sea"

# What kind of piece a character yields, one class letter per input character so that spans in
# the class string are spans in the (normalised) text: w = part of a word, c = a CJK token,
# b = a South-East Asian letter (starts a cluster), k = a South-East Asian combining mark (goes
# on with the cluster), v = a stacker (as k, and pulls the next letter in), y = a symbol token,
# m = dropped (accents, invisible characters), space = separator. k and v with no cluster
# before them are dropped like m. Two more are set after the translation, where context
# decides: t = a word that starts right after another (a Tibetan attached ending), e = the rest
# of an emoji sequence that starts with y.
_WORD, _CJK, _BASE, _SIGN, _STACK, _SYM, _MARK, _SEP = "w", "c", "b", "k", "v", "y", "m", " "
_ASCII_WORD_RE = re.compile(r"[a-z0-9]+")

# Control characters inside the rewritten text. \x1c, \x1d and \x1e are whitespace to str.split
# and separators to tantivy, so they may stay; \x1b and \x1f never do.
#   \x1c  on both sides of a CJK character, before a cluster: a token searched alone
#   \x1d  after a cluster's letter or mark, \x1e after its stacker (it pulls a letter in)
#   \x1f  before a South-East Asian mark: it joins the cluster before it, or is dropped
#   \x1b  before a character NFKC may join to the one before it
#   \x1a  in a piece that may be part of an emoji sequence (joiner, keycap, flag half, tone)
_ALONE = "\x1c"
_JOINS = "\x1b"
_SEQ = "\x1a"  # after a piece that may belong to an emoji sequence; never left in the output
_SIGN_START = "\x1f"
_CLUSTER_START = _ALONE + _CLUSTER_PREFIX
# Marks left over once joined to their clusters stand after no cluster: dropped.
_STRAY_RE = re.compile("\x1f[0-9a-f]+[\x1d\x1e]")
# Separators between two tokens searched alone: an over-long word that tantivy drops, leaving
# its position empty, so a phrase does not match across punctuation or space there.
_GAP_RE = re.compile("\x1c +\x1c")
_FILLER = " " + "g" * TOKEN_MAX_BYTES + " "


def _piece(cp: int) -> tuple[str, str]:
    """(rewritten text, class letter) for one code point of NFKC text outside the ASCII path."""
    ch = chr(cp)
    if cp < 128:
        return (ch.lower(), _WORD) if ch.isalnum() else (" ", _SEP)
    if cp in INVISIBLE:
        # The joiner and emoji tags may be inside an emoji sequence: _SEQ marks the text
        # for with_sequences. Otherwise, as all invisible characters, they are left out.
        return (_SEQ if cp == 0x200D or cp >= 0xE0000 else ""), _MARK
    if cp == 0x20E3:  # a keycap: read with its digit by with_sequences, or dropped
        return _SEQ, _MARK
    category = unicodedata.category(ch)
    if category[0] in "LM" and is_sea(cp):
        if category[0] == "L":
            return f"{_CLUSTER_START}{cp:04x}\x1d", _BASE
        if cp in STACKERS:
            return f"{_SIGN_START}{cp:04x}\x1e", _STACK
        return f"{_SIGN_START}{cp:04x}\x1d", _SIGN
    if is_cjk(cp) and ch.isalnum():
        return f"{_ALONE}{ch}{_ALONE}", _CJK
    if ch.isalnum():
        folded = fold_letter(ch)
        return (folded, _WORD) if folded else ("", _MARK)
    if category[0] == "S":
        if 0x1F1E6 <= cp <= 0x1F1FF or 0x1F3FB <= cp <= 0x1F3FF:  # flag halves, skin tones
            return f" {_SYMBOL_PREFIX}{cp:x}{_SEQ} ", _SYM
        return f" {_SYMBOL_PREFIX}{cp:x} ", _SYM
    if category[0] == "M":
        return (mark_word(cp), _WORD) if is_letter_mark(ch) else ("", _MARK)
    return " ", _SEP  # punctuation, spaces, controls, unassigned, lone surrogates


def _prepare_piece(cp: int) -> str:
    """The rewritten text of one code point of any text: its own NFKC form, rewritten, after
    _JOINS when NFKC may join it to the character before, or make it an operator's."""
    ch = chr(cp)
    norm = unicodedata.normalize("NFKC", ch)
    piece = _piece(cp)[0] if norm == ch else "".join(_piece(ord(c))[0] for c in norm)
    return _JOINS + piece if joins_previous(ch) or ch in OPERATOR_FORMS else piece


class _Table(dict[int, str]):
    """A ``str.translate`` table filled on first sight of each code point."""

    def __init__(self, fill: Callable[[int], str]) -> None:
        super().__init__()
        self._fill = fill

    def __missing__(self, cp: int) -> str:
        value = self._fill(cp)
        self[cp] = value
        return value


_PREPARE = _Table(_prepare_piece)
_CLASSES = _Table(lambda cp: _piece(cp)[1])
#: ``_PREPARE`` on ASCII as a byte table (a letter or digit lowered, anything else a space);
#: the bytes of UTF-8 sequences, all 0x80 or more, are left alone.
_ASCII_BYTES = bytes([ord(_PREPARE[b]) for b in range(128)] + list(range(128, 256)))
_ASCII_ALL = bytes(range(128))
#: More distinct characters beyond ASCII than this and a text is translated whole.
_FEW_CHARS = 12


def _translate(text: str) -> str:
    """``text.translate(_PREPARE)``, faster on mostly-ASCII text.

    ``str.translate`` looks each character of a non-ASCII string up in the table (~40 ns
    each: 50 µs for a 1,300-character file listing with a ``→`` on each line), where one
    text in eight of a coding agent's log is ASCII but for a few such characters. Such text is
    translated as bytes, ASCII by a byte table, then each of its few other characters replaced
    with its translation: ~7 µs. Only where every such translation is ASCII, so that no
    replacement is itself replaced; other text (CJK, Greek words) is translated whole."""
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) - len(text) > len(text) >> 3:  # more than a few: CJK, Cyrillic, Greek prose
        return text.translate(_PREPARE)
    others = set(raw.translate(None, _ASCII_ALL).decode("utf-8", "surrogatepass"))
    if len(others) > _FEW_CHARS:
        return text.translate(_PREPARE)
    pieces = [(ch, _PREPARE[ord(ch)]) for ch in others]
    if not all(piece.isascii() for _, piece in pieces):
        return text.translate(_PREPARE)
    out = raw.translate(_ASCII_BYTES).decode("utf-8", "surrogatepass")
    for ch, piece in pieces:
        out = out.replace(ch, piece)
    return out


def _translated(text: str, sequences: list[tuple[int, int, int]] | None) -> str:
    """``_translate`` of ``text`` (NFKC-normalised first where a character may join), its
    operators replaced by their tokens first, so that the text is translated once: the
    tokens are ASCII letters and digits between spaces, which the translation keeps. Only
    text with an emoji sequence's piece (rare) takes the general way, :func:`_with_emoji`."""
    ops = operators.find(text)
    out = _translate(operators.replaced(text, ops) if ops else text)
    if _JOINS in out:
        if not unicodedata.is_normalized("NFKC", text):
            text = unicodedata.normalize("NFKC", text)
            ops = operators.find(text)
            out = _translate(operators.replaced(text, ops) if ops else text)
        out = out.replace(_JOINS, "")
    if _SEQ in out:  # operators replace ASCII only: it is in the translation of text too
        return _with_emoji(text, ops, sequences)
    if ops and sequences is not None:
        sequences.extend((a, b, 1) for a, b, _ in ops)
    return out


def _with_emoji(
    text: str, ops: list[tuple[int, int, str]], sequences: list[tuple[int, int, int]] | None
) -> str:
    """The translation of (normalised) ``text`` holding a joiner, tag, flag half, tone or
    keycap: a sequence needs a symbol or a keycap, and is read whole (sequences.py)."""
    out = _translate(text).replace(_JOINS, "")
    emoji = " " + _SYMBOL_PREFIX in out or "\u20e3" in text
    if ops or emoji:
        out = _translate(with_sequences(text, sequences, ops, emoji)).replace(_JOINS, "")
    return out.replace(_SEQ, "")


def _rewrite(
    text: str, gaps: bool = True, sequences: list[tuple[int, int, int]] | None = None
) -> str:
    """Text (not all ASCII) → words separated by whitespace, as tantivy and Python split it.

    One ``str.translate`` does nearly all: NFKC per character, folding, CJK characters and
    cluster pieces between markers. Only text with characters that NFKC joins to the one
    before them, and that is not normalised yet, is normalised whole and translated again.
    The rest is ``str.replace`` on the markers: a mark joins the cluster before it, a stacker
    pulls in the letter after it, stray marks go, and where punctuation or space stands between
    two tokens searched alone the filler leaves a position empty (unless ``gaps`` is False:
    ``offsets.spans`` finds those places in the class string). Rarer still: emoji sequences are
    read whole (sequences.py; their places go to ``sequences``), a Tibetan attached ending is
    split from its syllable.
    """
    out = _translated(text, sequences)
    if "\u0f60" in out:
        out = TIBETAN_ENDING_OUT_RE.sub(" ", out)
    if "\x1d" in out or _SIGN_START in out:  # every South-East Asian piece holds one of them
        if _SIGN_START in out:
            out = out.replace("\x1d\x1f", "")
            if "\x1e\x1f" in out:
                out = out.replace("\x1e\x1f", "")
            if _SIGN_START in out:
                out = _STRAY_RE.sub("", out)
        if "\x1e" in out:
            out = out.replace("\x1e" + _CLUSTER_START, "").replace("\x1e", _ALONE)
        out = out.replace("\x1d", _ALONE)
    if gaps and _ALONE in out:
        out = _GAP_RE.sub(_FILLER, out)
    return out


def prepare(text: str) -> str:
    """The text handed to tantivy for indexing: ASCII as is but for operators (operators.py),
    anything else already normalised."""
    if text.isascii():
        return operators.rewrite_ascii(text)
    return _rewrite(text)


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


_FILLER_WORD = _FILLER.strip()


def _words(out: str) -> list[str]:
    """Split rewritten text; each filler becomes ``""`` (one step per filler, not per word)."""
    words = out.split()
    if _FILLER in out:
        i = -1
        find = words.index
        try:
            while True:
                i = find(_FILLER_WORD, i + 1)
                words[i] = GAP
        except ValueError:
            pass
    return _drop_long(words)


def tokens(text: str) -> list[str]:
    """The tokens tantivy indexes for ``text``, in position order, ``""`` where one was too long."""
    if text.isascii():
        return _drop_long(_ASCII_WORD_RE.findall(operators.rewrite_ascii(text).lower()))
    return _words(_rewrite(text))


class _CjkChars(dict[str, bool]):
    """Whether a character is CJK, filled on first sight (a range search once per character)."""

    def __missing__(self, ch: str) -> bool:
        found = self[ch] = is_cjk(ord(ch))
        return found


_CJK_CHARS = _CjkChars()


def is_alone(token: str) -> bool:
    """A token of one CJK character (each is searched alone, so a CJK word is a phrase of
    them): the pairs field joins two of them at adjacent positions. Other one-character tokens
    beyond ASCII (a one-letter Greek word) are not: `pairs` finds runs by the markers that
    `prepare` puts around CJK characters only."""
    return len(token) == 1 and token > "\x7f" and _CJK_CHARS[token]


def pair_tokens(clause: Sequence[str]) -> list[str]:
    """Each two adjacent tokens of a run of :func:`is_alone` tokens as one pairs-field token."""
    return [a + b for a, b in zip(clause, clause[1:], strict=False)]


def pairs(prepared: str) -> str:
    """The text of the pairs field for a text :func:`prepare` made: each two :func:`is_alone`
    tokens at adjacent positions as one token, at adjacent positions while their run lasts,
    and an empty position between runs, so that a phrase of pairs matches exactly where the
    phrase of their characters does (the tests compare the two on random texts). ``""``
    without a run of two. A CJK word of two characters is then one term, and a longer one a
    phrase of far rarer terms than its characters: at 10M events ``数据库`` took 104 ms as a
    phrase of characters found in about a million documents each."""
    # Two CJK tokens stand at adjacent positions only where their markers meet ("\x1c\x1c"):
    # any space, punctuation or other character between them became a word or a filler.
    if prepared.isascii() or _ALONE + _ALONE not in prepared:
        return ""
    words: list[str] = []
    previous = ""
    for token in _words(prepared):
        if is_alone(token):
            if previous:
                words.append(previous + token)
            previous = token
        elif previous:
            previous = ""
            if words and words[-1] != _FILLER_WORD:
                words.append(_FILLER_WORD)  # dropped by the analyzer: an empty position
    return " ".join(words)
