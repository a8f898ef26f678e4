"""Tokens that context decides, which the analyzer's per-character translation cannot: emoji
sequences and Tibetan attached endings.

An emoji sequence is one symbol (UTS #51): two regional indicators are one flag, so ``🇸🇯`` is
not found inside ``🇺🇸🇯🇵``; a keycap ``1️⃣`` is not the digit ``1``; a ZWJ sequence ``👨‍🔬`` is
one token. A skin tone is left out of the sequence's token and follows it as a token of its
own, so ``👨‍🔬`` finds ``👨🏽‍🔬`` as ``👍`` finds ``👍🏽``, and ``👨🏽‍🔬`` finds only that tone.
Each token of a sequence spans the whole sequence, so a snippet brackets it whole.

A Tibetan syllable may carry a case ending written onto it after an ``འ`` (``པོའི``, "of the
king's"): the ending is a word of its own, so ``རྒྱལ་པོ`` is found in ``རྒྱལ་པོའི``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .unicode_tables import ACCENT_RANGES, INVISIBLE

_RI = "\U0001f1e6-\U0001f1ff"
_TONE = "\U0001f3fb-\U0001f3ff"
_TAG = "\U000e0020-\U000e007f"
_MOD = f"(?:\ufe0f|[{_TONE}{_TAG}])"
# A character that may start an emoji sequence: not a letter, digit, space, joiner or modifier.
# Checked again by category in _tokens: a sequence whose parts are not all symbols is not one.
_BASE = f"[^\\w\\s\u200d\ufe0f{_TONE}{_TAG}]"
_SEQUENCE_RE = re.compile(
    f"[{_RI}][{_RI}]|[0-9#*]\ufe0f?\u20e3|{_BASE}{_MOD}*(?:\u200d{_BASE}{_MOD}*)+|{_BASE}{_MOD}+"
)
_PREFIX = "sym"


def _is_tone(ch: str) -> bool:
    return "\U0001f3fb" <= ch <= "\U0001f3ff"


@lru_cache(maxsize=4096)
def _replacement(seq: str) -> tuple[str, int]:
    """What the text of a sequence becomes, and how many tokens that is (0: it is no sequence,
    the text is left as it is). Cached: the same few emoji sequences recur."""
    toks = _tokens(seq)
    if toks is None:
        return seq, 0
    return " " + " ".join(toks) + " ", len(toks)


def _tokens(seq: str) -> list[str] | None:
    """The tokens of one sequence: its symbol (code points in hex joined by ``z``), then its
    skin tones; None when it is not an emoji sequence (a letter before a joiner)."""
    if seq[-1] == "\u20e3":
        return [f"{_PREFIX}{ord(seq[0]):x}z20e3"]
    first = ord(seq[0])
    if 0x1F1E6 <= first <= 0x1F1FF and len(seq) == 2 and seq[1] >= "\U0001f1e6":
        return [f"{_PREFIX}{first:x}z{ord(seq[1]):x}"]
    parts: list[str] = []
    tones: list[str] = []
    for piece in seq.split("\u200d"):
        base = piece[0]
        if (
            base.isascii()
            or unicodedata.category(base)[0] != "S"
            or not unicodedata.is_normalized("NFKC", base)  # ゛ is a space and a mark
        ):
            return None
        codes = [f"{ord(base):x}"]
        for ch in piece[1:]:
            if _is_tone(ch):
                tones.append(f"{_PREFIX}{ord(ch):x}")
            elif ch != "\ufe0f":
                codes.append(f"{ord(ch):x}")  # a tag: England's flag is not Scotland's
        parts.append("z".join(codes))
    return [_PREFIX + "z".join(parts), *tones]


def with_sequences(
    text: str,
    found: list[tuple[int, int, int]] | None = None,
    operators: list[tuple[int, int, str]] | None = None,
    emoji: bool = True,
) -> str:
    """``text`` with each emoji sequence and each of the ``operators`` (operators.find)
    replaced by its tokens, between spaces: ASCII that the analyzer's translation keeps as it
    is. The places replaced, as (start, end, number of tokens), are appended to ``found``.
    Emoji sequences are only looked for where ``emoji`` says the text may hold one."""
    if not operators:
        if found is None:
            return _SEQUENCE_RE.sub(lambda m: _replacement(m.group())[0], text)

        def replace(m: re.Match[str]) -> str:
            out, count = _replacement(m.group())
            if count:
                found.append((m.start(), m.end(), count))
            return out

        return _SEQUENCE_RE.sub(replace, text)
    places = [(a, b, f" {tok} ", 1) for a, b, tok in operators]
    for m in _SEQUENCE_RE.finditer(text) if emoji else ():
        out, count = _replacement(m.group())
        if count:
            places.append((m.start(), m.end(), out, count))
    places.sort(key=lambda p: (p[0], -p[1]))  # a keycap before the # it starts with
    pieces: list[str] = []
    pos = 0
    for a, b, out, count in places:
        if a < pos:
            continue  # the # of C#️⃣: the keycap's
        pieces.append(text[pos:a])
        pieces.append(out)
        if found is not None:
            found.append((a, b, count))
        pos = b
    pieces.append(text[pos:])
    return "".join(pieces)


# An ending after an ``འ`` that follows a letter or mark of the same syllable: ``འི`` (``འིས``),
# ``འོ``, ``འུ``, and ``འམ`` or ``འང`` closing the syllable. Characters the analyzer leaves
# out (invisible ones, accents) may stand between. Matched on the text, for offsets (the
# match ends at the ``འ``)...
_TIBETAN_BEFORE = (
    "\u0f18\u0f19\u0f35\u0f37\u0f39\u0f3e-\u0f6c\u0f71-\u0f84\u0f86\u0f87\u0f8d-\u0fbc\u0fc6"
)
_LEFT_OUT = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in ACCENT_RANGES) + "".join(
    map(chr, sorted(INVISIBLE))
)
TIBETAN_ENDING_RE = re.compile(
    f"(?<=[{_TIBETAN_BEFORE}])[{_LEFT_OUT}]*\u0f60"
    f"(?=[{_LEFT_OUT}]*(?:[\u0f72\u0f7c\u0f74]|[\u0f58\u0f44](?![{_LEFT_OUT}]*[{_TIBETAN_BEFORE}])))"
)
# ...and on the translated text, where each Tibetan mark is spelled x and its hex code point.
TIBETAN_ENDING_OUT_RE = re.compile(
    "(?:(?<=[\u0f40-\u0f6c])|(?<=xf[0-9a-f]{2}))"
    "(?=\u0f60(?:xf72|xf7c|xf74|[\u0f58\u0f44](?![\u0f40-\u0f6c]|xf[0-9a-f]{2})))"
)
