"""Constants and the small fast formatters every writer shares."""

from __future__ import annotations

import calendar
import math
import random
import re
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

import orjson

#: Part of the benchmark's cache key: bump it whenever the same (events, seed) writes other bytes
#: or expects other events of them (the cached events table is what FTS5 indexes).
GENERATOR_VERSION = "5"

#: Sessions start inside this window (UTC), so output never depends on today's date.
BASE_MS = calendar.timegm((2026, 9, 1, 0, 0, 0)) * 1000
END_MS = calendar.timegm((2026, 11, 29, 0, 0, 0)) * 1000

MAX_TEXT = 20_000
EVENTS_FILE = "events.jsonl.zst"
INFO_FILE = "corpus.json"

EventRow = tuple[str, str, str, str, str, str, str, int]

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_WORD_CHAR = re.compile(r"\w")


def mostly_cjk(text: str) -> bool:
    """At least half of the text's word characters are Han, kana or Hangul."""
    return 2 * len(_CJK_CHAR.findall(text)) >= len(_WORD_CHAR.findall(text)) > 0


T = TypeVar("T")


def picker(rng: random.Random) -> Callable[[Sequence[T]], T]:
    """``rng.choice`` without its rejection sampling: several times faster, still seeded."""
    r = rng.random

    def pick(seq: Sequence[T]) -> T:
        return seq[int(r() * len(seq))]

    return pick


def cap(word: str) -> str:
    return word[:1].upper() + word[1:]


def slug(cwd: str) -> str:
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)


def dump(obj: object) -> bytes:
    return orjson.dumps(obj)


def iso(ms: int) -> str:
    s, r = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)) + f".{r:03d}Z"


def _hyphenate(value: int) -> str:
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def uuid4(rng: random.Random) -> str:
    return _hyphenate((rng.getrandbits(128) & ~(0xF << 76) & ~(0x3 << 62)) | (4 << 76) | (2 << 62))


def uuid7(rng: random.Random, ms: int) -> str:
    return _hyphenate(
        (ms << 80) | (7 << 76) | (rng.getrandbits(12) << 64) | (2 << 62) | rng.getrandbits(62)
    )


def b62(rng: random.Random, n: int) -> str:
    return "".join(rng.choices(_B62, k=n))


def lognorm_len(rng: random.Random, median: float, sigma: float, most: int = 20_000) -> int:
    return min(most, max(8, int(rng.lognormvariate(math.log(median), sigma))))


#: The longest text Origin stores as one event of a tool's output; a longer output is filed in
#: parts, each an event (`split_output` in origin_store/parsers/base.py, which this mirrors).
OUTPUT_PART_CHARS = 16_000


def output_parts(text: str) -> list[str]:
    """The parts Origin files a long output in: cut at a line break (else a space) in the
    second half of each window, so that joined they give the text back."""
    parts: list[str] = []
    at, size, least = 0, len(text), OUTPUT_PART_CHARS // 2
    while size - at > OUTPUT_PART_CHARS:
        window = text[at + least : at + OUTPUT_PART_CHARS]
        cut = window.rfind("\n")
        if cut < 0:
            cut = max(window.rfind(" "), window.rfind("\t"))
        end = at + (least + cut + 1 if cut >= 0 else OUTPUT_PART_CHARS)
        parts.append(text[at:end])
        at = end
    parts.append(text[at:])
    return parts


#: A tool's output in the formats whose parsers file long outputs in parts (Gemini CLI, Qwen
#: Code, Copilot CLI) is cut to this, with room for what the tool writes around it, so that a
#: tool call is two events in every format, as the turns count it.
ONE_PART = OUTPUT_PART_CHARS - 1_000


def result_texts(output: str, error: bool, numbered: bool = True) -> list[str]:
    """A tool's output as Origin files it: its parts, each labelled ``[error] `` when the
    command failed and, if ``numbered``, ``[part <n> of <total>] `` when there are several."""
    pieces = output_parts(output)
    failed = "[error] " if error else ""
    if not numbered or len(pieces) == 1:
        return [failed + piece for piece in pieces]
    return [f"{failed}[part {n} of {len(pieces)}] {piece}" for n, piece in enumerate(pieces, 1)]


def line_diff(old: str, new: str) -> str:
    """An edit as the lines it removes and adds, each marked ``-`` or ``+``."""
    removed = "".join(f"-{line}\n" for line in old.split("\n"))
    return removed + "".join(f"+{line}\n" for line in new.split("\n"))


def file_diff(name: str, old: str, new: str) -> str:
    """The ``fileDiff`` Gemini CLI and Qwen Code (its fork) show of an edit of file ``name``."""
    rule = "=" * 67
    return (
        f"Index: {name}\n{rule}\n--- {name}\tCurrent\n+++ {name}\tProposed\n{line_diff(old, new)}"
    )
