"""Symbols that are words in code: ``C++``, ``C#``, ``i++``, ``->``, ``=>``, ``||`` are found as
written, and ``C++`` does not find "Plain C" nor ``i++`` every "I".

Punctuation separates words, so ``C++`` was the word ``c``. Now an operator is a token of its
own, spelled ``sym`` and its characters' code points in hex joined by ``z`` (``->`` is
``sym2dz3e``), standing after the word it follows: ``C++`` is the phrase ``c sym2bz2b``, and a
search for ``count`` still finds ``count++``. An operator is a whole run of operator characters
(so ``<!--`` holds no ``--`` and ``==>`` no ``=>``) that is one of :data:`OPERATORS`; and ``--``
or ``#`` right after a letter or digit and before no other (``i--``, ``C#``, not ``a--b`` nor
``issue#2``). Other runs (``--`` of a command-line flag, markdown's ``**`` and ``---``) still
separate, so a phrase across them matches as before.

The analyzer's ASCII path must stay fast: :func:`find` costs one regular-expression scan for two
operator characters in a row (~8 ns a character) and a ``#`` lookup.
"""

from __future__ import annotations

#: Runs of operator characters that are one operator wherever they stand.
OPERATORS = frozenset(
    {"->", "=>", "<-", "|>", "||", "&&", "==", "===", "!=", "!==", "<=", ">=", "++", "::"}
    | {":=", "+=", "-=", "|=", "&="}
)
#: Operators only right after a letter or digit, and before none: ``i--``, and ``#`` after a
#: one-letter word (``C#``, ``F#``; a ``#`` after a longer word is punctuation, as in ``#tag#``).
POSTFIX = frozenset({"--", "#"})

_NOT_AFTER_HASH = frozenset("-+*/%=<>!&|^~:#_")
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def token(op: str) -> str:
    return "sym" + "z".join(f"{ord(c):x}" for c in op)


#: Each operator's token, and each token's operator (for the snippets' search in ASCII text).
TOKENS = {op: token(op) for op in OPERATORS | POSTFIX}
SOURCES = {tok: op for op, tok in TOKENS.items()}


# Each byte of a text's UTF-8 as 1 (a character of the operators above, ``-=<>|&!+:``), 3 (one
# that only makes a run longer, ``*/%^~``: ``//`` of a URL), 2 (an ASCII letter), # (#) or 0.
# Two 1s in a row, or a letter before #, are then a substring search (~1 ns a character where
# a regular expression takes 8 to 30), and they are in few texts.
_KINDS = bytes(
    1
    if chr(b) in "-=<>|&!+:"
    else 3
    if chr(b) in "*/%^~"
    else 2
    if chr(b).isalpha() and b < 128
    else b
    if b == 35
    else 0
    for b in range(256)
)


def find(text: str) -> list[tuple[int, int, str]]:
    """The operators in ``text``: (start, end, token), in order.

    The runs are found by substring search in the bytes of ``_KINDS``, where a regular
    expression takes ~30 ns a character, then their offsets counted in characters."""
    raw = text.encode("utf-8", "surrogatepass")
    kinds = raw.translate(_KINDS)
    if b"\x01\x01" not in kinds and b"\x02#" not in kinds:
        return []  # nearly every text
    runs = sorted(_runs(kinds, b"\x01\x01") + _runs(kinds, b"\x02#", 1))
    ascii_only = len(raw) == len(text)
    found: list[tuple[int, int, str]] = []
    chars = 0  # characters in raw[:done]
    done = 0
    for a, b in runs:
        run = raw[a:b].decode()
        if run not in OPERATORS and run != "--" and run != "#":
            continue
        if not ascii_only:
            chars += len(raw[done:a].decode("utf-8", "surrogatepass"))
            done = a
            a, b = chars, chars + (b - a)
        if run in OPERATORS:
            found.append((a, b, TOKENS[run]))
        elif run == "--":
            after = text[b : b + 1]
            if a and text[a - 1] in _ALNUM and not (after.isalnum() or after == "_"):
                found.append((a, b, TOKENS[run]))
        elif text[a - 1].isalpha() and _alone(text, a - 1, b):  # text[a - 1] is ASCII
            found.append((a, b, TOKENS[run]))
    return found


_RUN_BYTES = (1, 3, 35)  # operator characters and #, in _KINDS


def _runs(kinds: bytes, start: bytes, skip: int = 0) -> list[tuple[int, int]]:
    """The maximal runs of operator characters (and #) that hold ``start`` (from its byte
    ``skip``), as byte offsets."""
    out: list[tuple[int, int]] = []
    n = len(kinds)
    i = kinds.find(start)
    while i >= 0:
        a = i + skip
        while a > 0 and kinds[a - 1] in _RUN_BYTES:
            a -= 1
        b = i + len(start)
        while b < n and kinds[b] in _RUN_BYTES:
            b += 1
        out.append((a, b))
        i = kinds.find(start, b)
    return out


def _alone(text: str, a: int, b: int) -> bool:
    """Whether ``text[a:b]`` has no word character before it nor operator or word after it."""
    before = text[a - 1 : a] if a else ""
    after = text[b : b + 1]
    return not (before.isalnum() or before == "_") and not (
        after.isalnum() or after in _NOT_AFTER_HASH
    )


def replaced(text: str, found: list[tuple[int, int, str]]) -> str:
    """``text`` with each operator replaced by its token between spaces."""
    out: list[str] = []
    pos = 0
    for a, b, tok in found:
        out.append(text[pos:a])
        out.append(f" {tok} ")
        pos = b
    out.append(text[pos:])
    return "".join(out)
