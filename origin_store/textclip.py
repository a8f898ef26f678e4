"""How long texts are kept and shown: whole up to a bound, else head and tail with a count."""

from __future__ import annotations

#: Event text is kept whole up to this many characters (what `get` returns).
STORED_CHARS = 20_000
_STORED_HEAD = 16_000
_STORED_TAIL = 4_000


def cut_note(count: int) -> str:
    return f"… [{count:,} characters cut]"


def clip_for_storage(text: str) -> str:
    """Keep head and tail of a huge text, so `get` still shows how a long tool output ended."""
    if len(text) <= STORED_CHARS:
        return text
    cut = len(text) - _STORED_HEAD - _STORED_TAIL
    return f"{text[:_STORED_HEAD]}\n{cut_note(cut)}\n{text[-_STORED_TAIL:]}"


def cut_counted(head: str, total: int, limit: int) -> str:
    """The contract's cut of a text of `total` characters of which `head` is the beginning
    (at least `limit` characters of it, or all of it)."""
    if total <= limit:
        return head
    return f"{head[:limit]}{cut_note(total - limit)}"


def cut(text: str, limit: int) -> str:
    """The contract's cut: the kept text, then the number of characters cut noted at the end."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}{cut_note(len(text) - limit)}"
