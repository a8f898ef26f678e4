"""``prepare`` on 2,000 corpus texts equals what it gave when the file was written: speed-ups
of the analyzer's operator and emoji paths must not change a single token."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import zstandard

from origin_search.analyzer import prepare

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "prepare_golden.json.zst"
PAIRS: list[list[str]] = json.loads(
    zstandard.ZstdDecompressor().decompress(GOLDEN.read_bytes()).decode("utf-8", "surrogatepass")
)


def test_golden_sample_covers_the_slow_paths() -> None:
    ascii_rewritten = sum(1 for text, out in PAIRS if text.isascii() and text != out)
    other_with_symbols = sum(1 for text, out in PAIRS if not text.isascii() and " sym" in out)
    assert ascii_rewritten >= 500
    assert other_with_symbols >= 100


@pytest.mark.parametrize("start", range(0, len(PAIRS), 250))
def test_prepare_matches_recorded_output(start: int) -> None:
    for text, expected in PAIRS[start : start + 250]:
        assert prepare(text) == expected, text
