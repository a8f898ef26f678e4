"""Tokens with their places in the original text: what snippets bracket.

The analyzer (analyzer.py) says what the tokens are; this module says where each one stands,
in character offsets of the text as it was, before NFKC normalisation. It reads the class
string, one class letter per character of the (normalised) text, which analyzer.py's
translation tables define, and maps the offsets back through NFKC wherever a character joined
the one before it or became several. Kept apart because only snippets need it, and its mapping
of offsets is a subject of its own: the tests hold ``spans(text)[0]`` to ``tokens(text)``.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right

from . import operators
from .analyzer import (
    _ALONE,
    _ASCII_WORD_RE,
    _CLASSES,
    _SYM,
    GAP,
    _drop_long,
    _piece,
    _rewrite,
    _Table,
)
from .letters import joins_previous
from .sequences import TIBETAN_ENDING_RE
from .unicode_tables import OPERATOR_FORMS

# Tokens in the class string: a CJK character, a cluster, a word, a symbol; and (group 1) the
# separators between two tokens searched alone, an empty position. Mirrors what _rewrite does.
_TOKEN_SPANS_RE = re.compile(r"c|b(?:vm*b|[kvm])*|[wt][wkvm]*|ye*")
_GAP_SPANS_RE = re.compile(r"[cb][kvm]*( [ kvm]*)(?=[cb])")
_CJK_GAP_SPANS_RE = re.compile(r"c( +)(?=c)")  # the same where there are no clusters or marks
_START, _END = re.Match.start, re.Match.end


def _norm_kind(cp: int) -> str:
    """``n`` when NFKC may join the character to the one before it; ``x`` when NFKC makes it
    several characters, ``s`` one other character; ``.`` when NFKC leaves it as it is."""
    ch = chr(cp)
    if joins_previous(ch):
        return "n"
    norm = unicodedata.normalize("NFKC", ch)
    return "." if norm == ch else "s" if len(norm) == 1 else "x"


#: Characters seen so far whose NFKC form is several characters (``…``, ``½``), and a pattern
#: finding them (None when one was added since): cheaper than classifying every character.
_GROWING: set[str] = set()
_growing_re: re.Pattern[str] | None = None


def _raw_classes(cp: int) -> str:
    """The class letters of a character's own NFKC form; ``N`` when NFKC may join it to the
    character before (then the text is normalised whole)."""
    global _growing_re
    ch = chr(cp)
    if joins_previous(ch) or ch in OPERATOR_FORMS:
        return "N"
    norm = unicodedata.normalize("NFKC", ch)
    if len(norm) > 1:
        _GROWING.add(ch)
        _growing_re = None
    return "".join(_piece(ord(c))[1] for c in norm)


_RAW_CLASSES = _Table(_raw_classes)
_NORM_KINDS = _Table(_norm_kind)
_NFKC_CHARS = _Table(lambda cp: unicodedata.normalize("NFKC", chr(cp)))


# Stretches NFKC must see together: a character with the ones it joins, or one that grows.
_SEGMENT_RE = re.compile(r"[.sx]?n+|x")


def _normalized(part: str) -> tuple[str, list[int], list[int]]:
    """NFKC of ``part``, and for each of its characters where it starts and ends in ``part``.

    The stretches that NFKC joins or lengthens are normalised one by one, each character they
    give mapping to its whole stretch. Should that differ from normalising ``part`` whole (a
    character this Unicode version composes that COMPOSE_WITH_PREVIOUS misses), every token
    spans all of ``part``.
    """
    kinds = part.translate(_NORM_KINDS)
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for m in _SEGMENT_RE.finditer(kinds):
        a, b = m.span()
        if a > pos:
            pieces.append(part[pos:a])
            starts.extend(range(pos, a))
            ends.extend(range(pos + 1, a + 1))
        seg = unicodedata.normalize("NFKC", part[a:b])
        pieces.append(seg)
        starts.extend([a] * len(seg))
        ends.extend([b] * len(seg))
        pos = b
    n = len(part)
    if pos < n:
        pieces.append(part[pos:])
        starts.extend(range(pos, n))
        ends.extend(range(pos + 1, n + 1))
    norm = "".join(pieces).translate(_NFKC_CHARS)  # the characters that become one other
    if "n" in kinds:
        whole = unicodedata.normalize("NFKC", part)
        if norm != whole:
            return whole, [0] * len(whole), [n] * len(whole)
    return norm, starts, ends


def _expansion_maps(part: str, size: int) -> tuple[list[int], list[int]]:
    """For text where nothing joins, but some characters become several (``…``, ``½``): where
    each of the ``size`` characters of its NFKC form starts and ends in ``part``."""
    global _growing_re
    pattern = _growing_re
    if pattern is None:
        pattern = _growing_re = re.compile("[" + "".join(map(re.escape, sorted(_GROWING))) + "]")
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for m in pattern.finditer(part):
        a = m.start()
        if a > pos:
            starts.extend(range(pos, a))
            ends.extend(range(pos + 1, a + 1))
        grown = len(_NFKC_CHARS[ord(part[a])])
        starts.extend([a] * grown)
        ends.extend([a + 1] * grown)
        pos = a + 1
    n = len(part)
    starts.extend(range(pos, n))
    ends.extend(range(pos + 1, n + 1))
    if len(starts) != size:  # another thread added a character while this one compiled
        _growing_re = None
        return _normalized(part)[1:]
    return starts, ends


def _ascii_spans_with_operators(
    found: list[re.Match[str]], ops: list[tuple[int, int, str]], start: int
) -> tuple[list[str], list[int], list[int]]:
    """The words and operators of ASCII text, in order, offsets shifted by ``start``."""
    merged = sorted([(m.start(), m.end(), m.group()) for m in found] + ops)
    words = _drop_long([tok for _, _, tok in merged])
    return words, [a + start for a, _, _ in merged], [b + start for _, b, _ in merged]


def _context_classes(part: str, classes: str, sequences: list[tuple[int, int, int]]) -> str:
    """The class string with what context decided: each emoji sequence one symbol (y, then e
    for the rest), each Tibetan attached ending the start of a word (t)."""
    chars = list(classes)
    for a, b, _ in sequences:
        chars[a:b] = _SYM + "e" * (b - a - 1)
    for m in TIBETAN_ENDING_RE.finditer(part):
        chars[m.end() - 1] = "t"
    return "".join(chars)


def _ascii_spans(part: str, start: int) -> tuple[list[str], list[int], list[int]]:
    """The tokens of ASCII text and their offsets, shifted by ``start``."""
    found = list(_ASCII_WORD_RE.finditer(part.lower()))
    ops = operators.find(part)
    if ops:
        return _ascii_spans_with_operators(found, ops, start)
    words = [m.group() for m in found]
    if start:
        return (
            _drop_long(words),
            [m.start() + start for m in found],
            [m.end() + start for m in found],
        )
    return _drop_long(words), [m.start() for m in found], [m.end() for m in found]


def _insert_gaps(
    classes: str, pad: int, words: list[str], starts: list[int], ends: list[int]
) -> None:
    """Put an empty position (``GAP``) where separators stand between two tokens searched
    alone, as the filler does in the indexed text."""
    plain = not ("b" in classes or "k" in classes or "v" in classes or "m" in classes)
    for m in (_CJK_GAP_SPANS_RE if plain else _GAP_SPANS_RE).finditer(classes, pad):
        a, b = m.span(1)
        i = bisect_right(starts, a)
        starts.insert(i, a)
        ends.insert(i, b)
        words.insert(i, GAP)


def spans(
    text: str, start: int = 0, end: int | None = None
) -> tuple[list[str], list[int], list[int]]:
    """Tokens of ``text[start:end]`` with their character offsets in ``text``.

    The slice is tokenized on its own, so a caller cutting inside a word must drop the edge
    tokens itself (see snippet.py). An empty position between CJK tokens is a ``""`` token
    spanning the separators; offsets are in the original text, before normalisation.
    """
    part = text[start:end] if (start or end is not None) else text
    if part.isascii():
        return _ascii_spans(part, start)
    smap: list[int] | None = None
    emap: list[int] | None = None
    if unicodedata.is_normalized("NFKC", part):
        classes = part.translate(_CLASSES)
    else:
        # Each character's NFKC form, as _rewrite takes it; normalised whole only when
        # something joins, and mapped back only where a character became several.
        classes = part.translate(_RAW_CLASSES)
        if "N" in classes:
            part, smap, emap = _normalized(part)
            classes = part.translate(_CLASSES)
        elif len(classes) != len(part):
            smap, emap = _expansion_maps(part, len(classes))
    sequences: list[tuple[int, int, int]] = []
    out = _rewrite(part, gaps=False, sequences=sequences)
    if (sequences or "\u0f60" in out) and len(classes) != len(part):
        # A character NFKC makes several (½) moved the classes off the places found in the
        # text: take the text normalised, stretch by stretch, as where something joins.
        part, smap, emap = _normalized(part)
        classes = part.translate(_CLASSES)
        sequences = []
        out = _rewrite(part, gaps=False, sequences=sequences)
    words = _drop_long(out.split())
    if sequences or "\u0f60" in out:
        classes = _context_classes(part, classes, sequences)
    # Offsets in ``text`` straight from the regex: the class string is searched from ``start``
    # behind that many spaces (shifting every offset afterwards costs more).
    pad = start if smap is None else 0
    if pad:
        classes = " " * pad + classes
    found = list(_TOKEN_SPANS_RE.finditer(classes, pad))
    starts = list(map(_START, found))
    ends = list(map(_END, found))
    for a, _, count in sequences:  # each token of a sequence spans all of it
        if count > 1:
            i = bisect_right(starts, a + pad) - 1
            starts[i:i] = [starts[i]] * (count - 1)
            ends[i:i] = [ends[i]] * (count - 1)
    if _ALONE in out and "\x1c " in out:  # a token searched alone, then a separator
        _insert_gaps(classes, pad, words, starts, ends)
    if smap is not None and emap is not None:
        emap.insert(0, 0)  # so that emap[end] is where the character before ``end`` ends
        starts = [smap[i] + start for i in starts]
        ends = [emap[i] + start for i in ends]
    return words, starts, ends
