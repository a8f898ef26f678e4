"""How event texts are kept and shown: the first characters and the original length, and the
contract's cut, which notes how many characters of the original were left out.

An event record keeps in `text` only the log's own words, at most STORED_CHARS of them; when
the text was longer, `text_chars` holds its original length (records without it are whole).
Words Origin adds to describe an event (`thread name: `, `turn: model `, …) are not in `text`,
which is what the index and snippets see, but in `label`: (offset in the text, words) pairs,
put back in place when the event is shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: Event text is kept up to this many characters: what `get`, the longest cut, returns.
STORED_CHARS = 20_000

#: Origin's words in an event's text: (offset in the log's words, words) pairs in text order.
Label = Sequence[tuple[int, str]]


def cut_note(count: int) -> str:
    return f"… [{count:,} characters cut]"


def uncut(text: str) -> str:
    """A text shown cut, without the cut's note: the characters that were kept."""
    head, sep, tail = text.rpartition("… [")
    if (
        sep
        and tail.endswith(" characters cut]")
        and tail[: -len(" characters cut]")].replace(",", "").isdigit()
    ):
        return head
    return text


def cut_counted(head: str, total: int, limit: int) -> str:
    """The contract's cut of a text of `total` characters of which `head` is the beginning
    (at least `limit` characters of it, or all of it)."""
    if total <= limit:
        return head
    return f"{head[:limit]}{cut_note(total - limit)}"


def with_label(text: str, label: Label | None) -> str:
    """The log's words with Origin's put back where they stood. Words placed after the end of
    a text kept only in part are left out: they come after everything that is kept."""
    if not label:
        return text
    parts: list[str] = []
    at = 0
    end = len(text)
    for offset, words in label:
        if offset > end:
            break
        if offset > at:
            parts.append(text[at:offset])
            at = offset
        parts.append(words)
    parts.append(text[at:])
    return "".join(parts)


def shown(event: Mapping[str, Any], limit: int) -> str:
    """An event record's text as the tools show it: labelled, cut to `limit` characters
    (at most STORED_CHARS), the cut counted on the original text with its label."""
    text: str = event["text"]
    total: int = event.get("text_chars") or len(text)
    label = event.get("label")
    if label:
        text = with_label(text, label)
        total += sum(len(words) for _, words in label)
    return cut_counted(text, total, limit)
