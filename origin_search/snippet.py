"""Snippets around the first match, with every match in brackets, counted in characters.

tantivy's own SnippetGenerator counts UTF-8 bytes (200 gives ~66 CJK characters), picks the
best-scoring fragment rather than the first match, and highlights a phrase term by term
(``[数][据][库]``, and the loose ``数`` in ``数据和库`` too). This module works from the same
tokens and clauses as the index instead, so a phrase is one bracketed span and only real matches
are bracketed. The brackets stand in the original text: the analyzer normalises (NFKC) and maps
its token offsets back, so ``ﾃﾞｰﾀ`` found by ``データ`` is bracketed as written.

The bound: the snippet minus its brackets is at most ``width`` characters, and that count
includes the ``…`` shown where text was left out at either end. Tabs and line breaks become
spaces, one for one, so a snippet is one line.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import lru_cache

from . import operators
from .analyzer import GAP, is_alone
from .offsets import spans
from .query import Clause, occurrences

ELLIPSIS = "…"
#: The first piece scanned is this many characters past the scan's start (which is a width
#: before the earliest possible match in ASCII text): enough for the window in most texts,
#: and a 20,000-character tool output with an early match is never tokenized whole.
_FIRST_SCAN_WIDTHS = 2
_FIRST_SCAN_EXTRA = 64
#: Tabs and line breaks, each shown as one space. A regex rather than ``str.translate``: a
#: snippet holds ``…`` or other non-ASCII text, where translate looks up every character
#: (9 µs for 200 characters against 0.7 µs).
_LINE_BREAKS = re.compile("[\n\r\t\v\f]")


def snippet(text: str, clause_list: Sequence[Clause], width: int = 200) -> str:
    """Up to ``width`` characters of ``text`` around the first match of any clause.

    The window starts about a third of the width before the first match (never before the
    text's start) and is moved back so it is full when the match is near the end. Without any
    match in ``text`` (the document matched through another field) it is the text's start.
    """
    if width < 3:
        raise ValueError("snippet width must be at least 3 characters")
    n = len(text)
    if n == 0:
        return ""
    if not clause_list:
        return _render(text, *_head(text, width), [])
    plain = text.isascii()
    if plain or _ALONE_OR_APART.fullmatch(text):
        pattern = _ascii_pattern(tuple(clause_list))
        if pattern is not None:
            ops = operators.find(text)
            # An operator is a token of its own, and so is every character of ALONE_OR_APART:
            # a phrase may not run across either, but a word of one token cannot hold them,
            # so for words they only end windows (`_AsciiWords`). A phrase of such characters
            # alone (数据库) is their text in a row: each is a token, and nothing else is.
            if (plain and not ops) or all(len(c) == 1 or _alone(c) for c in clause_list):
                return _ascii_snippet(text, clause_list, width, pattern, ops)
    return _token_snippet(text, clause_list, width)


#: Text of ASCII and of characters that are each a token of their own or no token, which
#: NFKC and case folding never turn into ASCII letters, digits or operator characters: CJK
#: ideographs, kana, Hangul, CJK, general and fullwidth punctuation, arrows, box drawing,
#: dingbats and Latin-1 signs (mostly-CJK texts with their `，`, and English with a `…`, `→`,
#: `✓` or `×`). Left out: 〶 and 〸〹〺, which fold to 〒 and to the ideographs 十卄卅, so a
#: phrase of ideographs could not be found as its characters in a row. In such text an ASCII
#: word's tokens are where the ASCII path finds them (`tests/search/test_snippet.py` checks
#: every code point listed).
ALONE_OR_APART_RANGES = (
    (0x00A0, 0x00A0),
    (0x00A9, 0x00A9),
    (0x00AE, 0x00AE),
    (0x00B0, 0x00B1),
    (0x00B7, 0x00B7),
    (0x00D7, 0x00D7),
    (0x00F7, 0x00F7),
    (0x2010, 0x2027),
    (0x2030, 0x203B),
    (0x203D, 0x2047),
    (0x204A, 0x205E),
    (0x2190, 0x21FF),
    (0x2500, 0x257F),
    (0x2700, 0x2775),
    (0x2794, 0x27BF),
    (0x3000, 0x3029),
    (0x3030, 0x3035),
    (0x3037, 0x3037),
    (0x303B, 0x303F),
    (0x3041, 0x3096),
    (0x30A1, 0x30FA),
    (0x30FC, 0x30FC),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7A3),
    (0xFF02, 0xFF02),
    (0xFF04, 0xFF04),
    (0xFF07, 0xFF09),
    (0xFF0C, 0xFF0C),
    (0xFF0E, 0xFF0E),
    (0xFF1B, 0xFF1B),
    (0xFF1F, 0xFF20),
    (0xFF3B, 0xFF3D),
    (0xFF3F, 0xFF40),
    (0xFF5B, 0xFF5B),
    (0xFF5D, 0xFF5D),
    (0xFF5F, 0xFF65),
)
_ALONE_OR_APART = re.compile(
    "[\\x00-\\x7f" + "".join(f"{chr(a)}-{chr(b)}" for a, b in ALONE_OR_APART_RANGES) + "]*"
)


def _token_snippet(text: str, clause_list: Sequence[Clause], width: int) -> str:
    """The general path: tokenize (a bounded part of) the text with the index's analyzer."""
    found = _scan(text, clause_list, width)
    if found is None:
        return _render(text, *_head(text, width), [])
    toks, starts, ends, first, first_len = found
    ms, me = starts[first], ends[first + first_len - 1]
    start, end = _window(text, width, ms, me, _Words(starts, ends))
    longest = max(len(c) for c in clause_list)
    marks = _marks(toks, starts, ends, clause_list, longest, start, end)
    return _finish(text, start, end, ms, me, marks)


def _finish(text: str, start: int, end: int, ms: int, me: int, marks: list[tuple[int, int]]) -> str:
    for a, b in marks:
        if b > end and a > ms:  # a later match cut by the window's end: leave it out whole
            end = a
            while end > me and text[end - 1].isspace():
                end -= 1
            break
    visible = [(a, min(b, end)) for a, b in marks if a < end]
    return _render(text, start, end, visible)


def _ascii_snippet(
    text: str,
    clause_list: Sequence[Clause],
    width: int,
    pattern: re.Pattern[str] | None = None,
    ops: Sequence[tuple[int, int, str]] = (),
) -> str:
    """The same snippet for ASCII text without tokenizing it: in ASCII the tokens are the
    [a-z0-9] runs of the lowercased text, so the clauses are one regular expression over it
    (a test holds this path and the token path to identical output).

    One pass: the first match found is the first match of the snippet, and the scan goes on
    from there for the marks until the window's end; no match starts before the first one.
    """
    lowered = text.lower()
    if pattern is None:
        pattern = _ascii_pattern(tuple(clause_list))
        assert pattern is not None, "clauses for the ASCII path"
    search = pattern.search
    pos = 0
    while True:
        m = search(lowered, pos)
        if m is None:
            return _render(text, *_head(text, width, lowered, ops), [])
        ms = m.start()
        if ms == 0 or lowered[ms - 1] not in _WORD_CHARS or lowered[ms] not in _WORD_CHARS:
            break  # a word's start, or a phrase of characters that are each a token
        pos = ms + 1  # a match inside a word: the next one may overlap it
    me = m.end()
    if len(text) <= width:
        start, end = 0, len(text)
    else:
        start, end = _window(text, width, ms, me, _AsciiWords(lowered, ops=ops))
    found = [(ms, me)]
    pos = ms + 1
    while (m := search(lowered, pos)) is not None:
        a = m.start()
        if a >= end:
            break
        if lowered[a - 1] not in _WORD_CHARS or lowered[a] not in _WORD_CHARS:  # a > ms >= 0
            found.append((a, m.end()))
        pos = a + 1  # overlapping matches too ("a a" twice in "a a a")
    return _finish(text, start, end, ms, me, _merge(found))


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


@lru_cache(maxsize=256)
def _ascii_pattern(clause_list: tuple[Clause, ...]) -> re.Pattern[str] | None:
    """All clauses as one pattern: each its tokens in a row, the last one whole; None when a
    clause cannot take the ASCII path (a gap, or a first token that is not ASCII). Cached, so
    the 20 snippets of one search check the clauses once.

    Clauses with more tokens come first, so at a given start the regex takes the longest
    match, which is what the token path takes; a shorter clause matching there lies inside
    it, and its mark would merge into the longer one's anyway. The start is checked by the
    caller, since a leading lookbehind would cost the regex engine its prefix scan.
    """
    alone = [c for c in clause_list if _alone(c)]
    words = [c for c in clause_list if not _alone(c)]
    if not all(GAP not in c and c[0].isascii() for c in words) or any(
        t in operators.SOURCES for c in words for t in c
    ):
        return None  # an operator's token is not its text: the token path finds it
    ordered = sorted(words, key=len, reverse=True)
    bodies = [r"[^a-z0-9]+".join(re.escape(tok) for tok in clause) for clause in ordered]
    branches = [rf"(?:{'|'.join(bodies)})(?![a-z0-9])"] if bodies else []
    if alone:  # their characters in a row, longest first; no word can hold them
        branches.append(
            "|".join(re.escape("".join(c)) for c in sorted(alone, key=len, reverse=True))
        )
    return re.compile("|".join(branches))


def _alone(clause: Clause) -> bool:
    """A clause of CJK characters, each a token of its own (数据库, データ, 한국어), all of
    them characters the ASCII path reads."""
    return all(is_alone(t) and _ALONE_OR_APART.fullmatch(t) for t in clause)


_Found = tuple[list[str], list[int], list[int], int, int]


def _scan(text: str, clause_list: Sequence[Clause], width: int) -> _Found | None:
    """Tokens from a little before the first match to past its window, and that match.

    Tokenizes in growing pieces, each character once but for the last token of a piece, and
    stops as soon as the first match and its window are known. In ASCII text a clause can only
    start where its first token occurs as a substring, so the scan starts shortly before the
    earliest such place, and a text that contains none of them is not tokenized at all.
    """
    n = len(text)
    longest = max(len(c) for c in clause_list)
    a = 0
    if text.isascii():
        lowered = text.lower()
        heads = [operators.SOURCES.get(c[0], c[0]) for c in clause_list]
        found = [p for h in heads if (p := lowered.find(h)) >= 0]
        if not found:
            return None
        a = max(0, min(found) - width)
        while a > 0 and lowered[a - 1].isalnum():
            a -= 1  # start at a word boundary so the first token is whole
    toks: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    step = _FIRST_SCAN_WIDTHS * width + _FIRST_SCAN_EXTRA
    while True:
        b = min(n, a + step)
        t, s, e = spans(text, a, b)
        next_a = b
        if b < n and t:
            # The last token may go on past the cut, its last characters may join the next
            # ones under NFKC, and what follows decides whether an empty position comes after
            # it (punctuation between CJK tokens): take it again with the next piece.
            next_a = s[-1]
            del t[-1], s[-1], e[-1]
        toks += t
        starts += s
        ends += e
        first, first_len = _first_match(toks, clause_list, len(toks))
        if b == n:
            return None if first is None else (toks, starts, ends, first, first_len)
        # A match starting this late may continue past the cut, and one further on may not
        # be the first; the window also needs the tokens after the match, and whole any later
        # match that starts inside it (one cut by the window's end is left out, so it must be
        # seen): the tokens reach a width past the match and a clause's length beyond that.
        if first is not None and starts[first] + width < next_a:
            inside = bisect_left(starts, starts[first] + width)
            if inside + longest - 1 <= len(toks):
                return toks, starts, ends, first, first_len
        a = next_a
        step *= 2


def _first_match(
    toks: list[str], clause_list: Sequence[Clause], complete: int
) -> tuple[int | None, int]:
    first: int | None = None
    first_len = 0
    for clause in clause_list:
        i = next(occurrences(toks, clause, 0, complete), None)
        if i is not None and (
            first is None or i < first or (i == first and len(clause) > first_len)
        ):
            first, first_len = i, len(clause)
    return first, first_len


class _Words:
    """Where the words are, from token offsets: which word a position falls strictly inside."""

    def __init__(self, starts: list[int], ends: list[int]) -> None:
        self.starts = starts
        self.ends = ends

    def around(self, pos: int) -> tuple[int, int] | None:
        k = bisect_right(self.starts, pos) - 1
        if k >= 0 and self.starts[k] < pos < self.ends[k]:
            return self.starts[k], self.ends[k]
        return None


class _AsciiWords:
    """The same question answered from lowercased ASCII text itself: words are [a-z0-9] runs
    and the operators `operators.find` gave (start, end, token), those whole before `limit`."""

    def __init__(
        self, lowered: str, limit: int | None = None, ops: Sequence[tuple[int, int, str]] = ()
    ) -> None:
        self.lowered = lowered
        self.limit = len(lowered) if limit is None else limit  # words are cut here (a slice's end)
        self.ops = [(a, b) for a, b, _ in ops if b <= self.limit]

    def around(self, pos: int) -> tuple[int, int] | None:
        low = self.lowered
        if (
            not 0 < pos < self.limit
            or low[pos - 1] not in _WORD_CHARS
            or low[pos] not in _WORD_CHARS
        ):
            if self.ops:
                k = bisect_right(self.ops, (pos, pos)) - 1
                if k >= 0 and self.ops[k][0] < pos < self.ops[k][1]:
                    return self.ops[k]
            return None
        a = pos - 1
        while a > 0 and low[a - 1] in _WORD_CHARS:
            a -= 1
        b = pos + 1
        while b < self.limit and low[b] in _WORD_CHARS:
            b += 1
        return a, b


def _head(
    text: str, width: int, lowered: str | None = None, ops: Sequence[tuple[int, int, str]] = ()
) -> tuple[int, int]:
    n = len(text)
    if n <= width:
        return 0, n
    if lowered is not None:
        words: _Words | _AsciiWords = _AsciiWords(lowered, width, ops)
    else:
        _, starts, ends = spans(text, 0, width)
        words = _Words(starts, ends)
    end = _snap_end(width - 1, 0, words)
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return 0, end


def _snap_end(end: int, keep: int, words: _Words | _AsciiWords) -> int:
    """Move ``end`` back out of a word it would cut, unless that word is part of ``keep``."""
    found = words.around(end)
    if found is not None and found[0] >= keep:
        return found[0]
    return end


def _window(
    text: str, width: int, ms: int, me: int, words: _Words | _AsciiWords
) -> tuple[int, int]:
    n = len(text)
    if n <= width:
        return 0, n
    start = max(0, ms - width // 3)
    if start == 0:
        end = width - 1  # room for the trailing ellipsis
    elif start + width - 1 >= n:
        start, end = n - (width - 1), n  # full window ending at the text's end
    else:
        end = start + width - 2  # room for both ellipses
    cut = words.around(start)
    if cut is not None and cut[1] <= ms:
        start = cut[1]  # do not show the tail of a cut word
    if end < n:
        end = _snap_end(end, me, words)
    while start < ms and text[start].isspace():
        start += 1
    while end > me and text[end - 1].isspace():
        end -= 1
    return start, end


def _marks(
    toks: list[str],
    starts: list[int],
    ends: list[int],
    clause_list: Sequence[Clause],
    longest: int,
    start: int,
    end: int,
) -> list[tuple[int, int]]:
    """Character spans of every match reaching into [start, end), merged where they overlap."""
    lo = max(0, bisect_right(ends, start) - longest)
    hi = min(len(toks), bisect_left(starts, end) + longest)
    found: list[tuple[int, int]] = []
    for clause in clause_list:
        size = len(clause)
        for i in occurrences(toks, clause, lo, hi):
            a, b = starts[i], ends[i + size - 1]
            if a < end and b > start:
                found.append((a, b))
    return _merge(found)


def _merge(found: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Match spans in order, overlapping ones joined (a phrase and a word inside it: one mark)."""
    found.sort()
    merged: list[tuple[int, int]] = []
    for a, b in found:
        if merged and a < merged[-1][1]:
            if b > merged[-1][1]:
                merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return merged


def _render(text: str, start: int, end: int, marks: list[tuple[int, int]]) -> str:
    parts: list[str] = []
    if start > 0 and not text[:start].isspace():
        parts.append(ELLIPSIS)
    pos = start
    for a, b in marks:
        parts.append(text[pos:a])
        parts.append("[")
        parts.append(text[a:b])
        parts.append("]")
        pos = b
    parts.append(text[pos:end])
    if end < len(text) and not text[end:].isspace():
        parts.append(ELLIPSIS)
    return _LINE_BREAKS.sub(" ", "".join(parts))
