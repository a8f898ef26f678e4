"""How event texts are kept and shown: the first characters and the original length, and the
contract's cut, which notes how many characters of the original were left out.

An event record keeps in `text` at most STORED_CHARS characters; when the text was longer,
`text_chars` holds its original length (records without it are whole).
"""

from __future__ import annotations

from collections.abc import Mapping

#: Event text is kept up to this many characters: what `get`, the longest cut, returns.
STORED_CHARS = 20_000


def cut_note(count: int) -> str:
    return f"… [{count:,} characters cut]"


def cut(text: str, limit: int) -> str:
    """The contract's cut of a whole text: the first `limit` characters, then the number of
    characters cut noted at the end."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}{cut_note(len(text) - limit)}"


def cut_counted(head: str, total: int, limit: int) -> str:
    """The contract's cut of a text of `total` characters of which `head` is the beginning
    (at least `limit` characters of it, or all of it)."""
    if total <= limit:
        return head
    return f"{head[:limit]}{cut_note(total - limit)}"


def shown(event: Mapping, limit: int) -> str:
    """An event record's text as the tools show it: cut to `limit` characters (at most
    STORED_CHARS), the cut counted on the original text."""
    text = event["text"]
    total = event.get("text_chars") or len(text)
    if total <= limit:
        return text
    return f"{text[:limit]}{cut_note(total - limit)}"
