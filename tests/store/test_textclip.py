"""The contract's cut of an event's text, and taking its note off again (a device checks a quote
against the hub's copy of an event, which arrives cut as `get` shows it)."""

from __future__ import annotations

import pytest

from origin_store.textclip import cut_counted, uncut


@pytest.mark.parametrize(
    ("head", "total", "limit", "kept"),
    [
        ("short", 5, 10, "short"),
        ("x" * 30, 30, 10, "x" * 10),
        ("y" * 20_000, 1_234_567, 20_000, "y" * 20_000),  # a count with thousands separators
    ],
)
def test_uncut_gives_back_what_the_cut_kept(head: str, total: int, limit: int, kept: str):
    assert uncut(cut_counted(head, total, limit)) == kept


@pytest.mark.parametrize(
    "text",
    ["… [many characters cut]", "ends with … [12 characters cut] and more", "… [ characters cut]"],
)
def test_a_text_without_a_cut_note_is_left_as_it_is(text: str):
    assert uncut(text) == text
