"""How a table of secret shapes (`redact.PATTERNS`) is applied fast: one scan of a batch for every
trigger at once, a regular expression only where a trigger is, and the lines of a private key
block that a log writes one line at a time.

The scan is the cost every line pays, secret or not. It is a multi-pattern search (the
`ahocorasick_rs` package, a binding of the Rust aho-corasick crate, whose SIMD searcher takes
the table's ~60 triggers at 1.5-6 GB/s); without it, one `bytes.find` per trigger does the same
about twenty times slower (`python -m bench.redact` measures both).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import accumulate
from typing import NamedTuple

#: What a masked secret becomes.
MARK = "[redacted {}]"
#: Bytes looked back from a trigger for a pattern that is searched for (`back` = SEARCH).
LOOK_BACK = 64
SEARCH = -1
#: Switched off only by tests that need a store ingested as before redaction existed.
ENABLED = [True]


@dataclass(frozen=True, slots=True)
class Pattern:
    """One shape of secret. `triggers` are (literal, back): every match contains one of the
    literals, starting `back` bytes before it (SEARCH: somewhere in the LOOK_BACK bytes before).
    `group` is what is masked (of a tuple, the group that took part); `real`, when set, tells a
    real value from a placeholder."""

    kind: str
    regex: re.Pattern[bytes]
    why: str
    triggers: tuple[tuple[bytes, int], ...]
    group: str | int | tuple[str, ...] = 0
    real: Callable[[re.Match[bytes]], bool] | None = None


def masked(kind: str) -> bytes:
    return MARK.format(kind).encode()


#: A line of a private key written on lines of its own: base64, or an encrypted key's header.
_KEY_BODY = re.compile(
    rb"[ \t+>|-]*(?:[A-Za-z0-9+/]{16,}={0,2}|(?:Proc-Type|DEK-Info|Comment|Version):[^\r\n]*|)"
    rb"[ \t]*\r?"
)
_KEY_END = re.compile(
    rb"[ \t+>|-]*[A-Za-z0-9+/=]*-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
)
KEY_KIND = "private-key"
#: Lines joined and scanned at once.
GROUP = 1024

Hit = tuple[int, int]  # (trigger index, offset)
Span = tuple[int, int, int]  # (start, end, pattern index)


class Redacted(NamedTuple):
    lines: list[bytes]
    counts: Counter[str]
    #: The batch ended inside a private key block written a line at a time.
    open_key: bool = False


_NOTHING: Counter[str] = Counter()


@contextmanager
def disabled() -> Iterator[None]:
    """Ingest as Origin did before redaction (for tests of `origin redact --rescan`)."""
    ENABLED[0] = False
    try:
        yield
    finally:
        ENABLED[0] = True


def _find_each(literals: list[bytes]) -> Callable[[bytes], list[Hit]]:
    """Every occurrence of every literal with one `find` per literal (without the package)."""

    def scan(data: bytes) -> list[Hit]:
        hits: list[Hit] = []
        for index, literal in enumerate(literals):
            at = data.find(literal)
            while at >= 0:
                hits.append((index, at))
                at = data.find(literal, at + 1)
        return hits

    return scan


def scanner(literals: list[bytes], *, fast: bool = True) -> Callable[[bytes], list[Hit]]:
    """Every literal's occurrences in a batch: leftmost, not overlapping, in one pass."""
    try:
        if not fast:
            raise ImportError
        from ahocorasick_rs import BytesAhoCorasick, MatchKind
    except ImportError:
        return _find_each(literals)
    automaton = BytesAhoCorasick(literals, matchkind=MatchKind.LeftmostFirst)

    def scan(data: bytes) -> list[Hit]:
        return [(index, start) for index, start, _ in automaton.find_matches_as_indexes(data)]

    return scan


def _bounds(data: bytes, ends: list[int], index: int) -> tuple[int, int]:
    """Where line `index` starts and ends, its newline left out."""
    start = ends[index - 1] if index else 0
    end = ends[index]
    if end > start and data[end - 1] == 10:
        end -= 1
    return start, end


def _group_span(match: re.Match[bytes], group: str | int | tuple[str, ...]) -> tuple[int, int]:
    if isinstance(group, tuple):
        found = next((name for name in group if match.group(name) is not None), 0)
        return match.span(found)
    return match.span(group)


def resolve(spans: list[Span]) -> list[Span]:
    """Spans in order, none overlapping: where two do, the one that starts first (at the same
    start, the one higher in the table) is kept."""
    kept: list[Span] = []
    last = -1
    for span in sorted(spans, key=lambda s: (s[0], s[2])):
        if span[0] >= last:
            kept.append(span)
            last = span[1]
    return kept


class Engine:
    """A table of patterns made ready: its triggers' scanner and which patterns each starts."""

    def __init__(self, patterns: tuple[Pattern, ...], *, fast: bool = True) -> None:
        self.patterns = patterns
        literals = list(dict.fromkeys(lit for p in patterns for lit, _ in p.triggers))
        self.by_literal = [
            [(n, p, back) for n, p in enumerate(patterns) for lit, back in p.triggers if lit == one]
            for one in literals
        ]
        self.scan = scanner(literals, fast=fast)
        self.marks = [masked(p.kind) for p in patterns]
        self.key = next((n for n, p in enumerate(patterns) if p.kind == KEY_KIND), -1)
        self.key_literals = {
            i for i, found in enumerate(self.by_literal) if found[0][0] == self.key
        }

    def lines(self, lines: list[bytes], *, open_key: bool = False) -> Redacted:
        """A batch of lines with their secrets masked: the same list when none is found.

        Scanned GROUP lines at a time: a group (~1 MB of log) joined and scanned while it is
        in the processor's cache took a 32 MB batch at twice the speed of one scan of it all."""
        if not ENABLED[0] or not lines:
            return Redacted(lines, _NOTHING, False)
        if len(lines) <= GROUP:
            return self._group(lines, open_key)
        out: list[bytes] | None = None
        counts: Counter[str] = Counter()
        for first in range(0, len(lines), GROUP):
            group = lines[first : first + GROUP]
            done = self._group(group, open_key)
            open_key = done.open_key
            if done.lines is not group:
                if out is None:
                    out = list(lines)
                out[first : first + GROUP] = done.lines
                counts.update(done.counts)
        return Redacted(lines if out is None else out, counts or _NOTHING, open_key)

    def _group(self, lines: list[bytes], open_key: bool) -> Redacted:
        """One pass, then again over each line it changed until the line stays as it is: a mark
        can change what its neighbour looks like (a key that ended where another began is
        followed by `[` now), and masking twice must mask nothing more."""
        done = self._pass(lines, open_key)
        if done.lines is lines:
            return done
        out, counts = done.lines, Counter(done.counts)
        for index, before in enumerate(lines):
            line = out[index]
            if line is before:
                continue
            for _ in range(4):
                again = self._pass([line], False)
                if not again.counts and again.lines[0] == line:
                    break
                line = again.lines[0]
                counts.update(again.counts)
            out[index] = line
        return Redacted(out, counts, done.open_key)

    def _pass(self, lines: list[bytes], open_key: bool) -> Redacted:
        data = lines[0] if len(lines) == 1 else b"".join(lines)
        hits = self.scan(data)
        if not hits and not open_key:
            return Redacted(lines, _NOTHING, False)
        found, opened = self.spans(data, hits)
        if not found and not opened and not open_key and not self._key_hit(hits):
            return Redacted(lines, _NOTHING, False)
        ends = list(accumulate(map(len, lines)))
        spans = resolve(found)
        counts = Counter(self.patterns[n].kind for _, _, n in spans)
        blocks = _KeyBlocks(self, data, ends, spans)
        opened_lines = [bisect_right(ends, at) for at in opened]
        still_open = blocks.walk([-1, *opened_lines] if open_key else opened_lines, hits)
        counts.update(blocks.counts)
        if not blocks.spans:
            return Redacted(lines, _NOTHING, still_open)
        return Redacted(self._rebuild(lines, data, ends, blocks.spans), counts, still_open)

    def _key_hit(self, hits: list[Hit]) -> bool:
        return any(literal in self.key_literals for literal, _ in hits)

    def spans(self, data: bytes, hits: list[Hit], floor: int = 0) -> tuple[list[Span], list[int]]:
        """What each trigger leads to (the span to mask of the first pattern that matches
        there), and where private keys begin without ending on their line."""
        spans: list[Span] = []
        opened: list[int] = []
        for literal, at in hits:
            start = max(data.rfind(b"\n", 0, at) + 1, floor)
            end = data.find(b"\n", at)
            if end < 0:
                end = len(data)
            for number, pattern, back in self.by_literal[literal]:
                if back == SEARCH:
                    match = pattern.regex.search(data, max(start, at - LOOK_BACK), end)
                elif at - back < start:
                    continue
                else:
                    match = pattern.regex.match(data, at - back, end)
                if match is None or (pattern.real is not None and not pattern.real(match)):
                    continue
                left, right = _group_span(match, pattern.group)
                if right > left:
                    spans.append((left, right, number))
                    if number == self.key and match.group("open") is not None and right == end:
                        opened.append(left)
                    break
        return spans, opened

    def _rebuild(
        self, lines: list[bytes], data: bytes, ends: list[int], spans: list[Span]
    ) -> list[bytes]:
        """The batch's lines with each span replaced by its mark; untouched lines are kept as
        they were (the same objects)."""
        out = list(lines)
        by_line: dict[int, list[Span]] = {}
        for span in spans:
            by_line.setdefault(bisect_right(ends, span[0]), []).append(span)
        for index, found in by_line.items():
            at = ends[index - 1] if index else 0
            pieces: list[bytes] = []
            for start, end, number in found:
                pieces += (data[at:start], self.marks[number])
                at = end
            pieces.append(data[at : ends[index]])
            out[index] = b"".join(pieces)
        return out


class _KeyBlocks:
    """Private keys written over several real lines (a text transcript, `cat id_rsa` in a plain
    log): after a BEGIN line, the key's lines up to its END line are masked whole; an END line
    whose BEGIN came in an earlier batch takes the key's lines just before it in this one."""

    def __init__(self, engine: Engine, data: bytes, ends: list[int], spans: list[Span]) -> None:
        self.engine, self.data, self.ends = engine, data, ends
        self.spans = list(spans)
        self.counts: Counter[str] = Counter()
        self.covered = {bisect_right(ends, s) for s, _, _ in spans}

    def walk(self, opened: list[int], hits: list[Hit]) -> bool:
        """Mask what follows each opened line (-1: the batch starts inside a key) and what
        precedes each lone END line; whether the batch ends inside a key."""
        still_open = False
        for index in opened:
            still_open = self._forward(index + 1)
        self._lone_ends(hits)
        self.spans.sort()
        return still_open

    def _forward(self, index: int) -> bool:
        data = self.data
        while index < len(self.ends):
            start, end = _bounds(data, self.ends, index)
            closing = _KEY_END.match(data, start, end)
            if closing is not None:
                self._mask(index, start, closing.end())
                return False
            if index in self.covered or not _KEY_BODY.fullmatch(data, start, end):
                return False
            self._mask(index, start, end - (data[end - 1 : end] == b"\r"))
            index += 1
        return True

    def _lone_ends(self, hits: list[Hit]) -> None:
        data = self.data
        for literal, at in hits:
            index = bisect_right(self.ends, at)
            if literal not in self.engine.key_literals or index in self.covered:
                continue
            start, end = _bounds(data, self.ends, index)
            closing = _KEY_END.match(data, start, end)
            if closing is None or b"-----BEGIN" in data[start:end]:
                continue
            self._mask(index, start, closing.end())
            self.counts[KEY_KIND] += 1
            back = index - 1
            while back >= 0 and back not in self.covered:
                first, last = _bounds(data, self.ends, back)
                if last == first or not _KEY_BODY.fullmatch(data, first, last):
                    break
                self._mask(back, first, last - (data[last - 1 : last] == b"\r"))
                back -= 1

    def _mask(self, index: int, start: int, end: int) -> None:
        if end > start and index not in self.covered:
            self.spans.append((start, end, self.engine.key))
        self.covered.add(index)


class StreamRedactor:
    """One line too long to hold (an oversized line, streamed into a frame of its own) redacted
    chunk by chunk. A secret across two chunks is caught: every match is at most ~33 KB (the
    table's quantifiers are bounded) and a chunk's last OVERLAP bytes wait for the next one, so
    each match is seen whole; a little context is kept before them for the look-behinds."""

    OVERLAP = 64 * 1024
    EMIT = 4 * OVERLAP

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.pending = b""
        self.context = b""
        self.counts: Counter[str] = Counter()

    def redact(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            self.pending += chunk
            if len(self.pending) >= self.EMIT:
                out = self._emit(final=False)
                if out:
                    yield out
        last = self._emit(final=True)
        if last:
            yield last

    def _emit(self, *, final: bool) -> bytes:
        base = len(self.context)
        data = self.context + self.pending
        active = ENABLED[0]
        limit = len(data) if final or not active else len(data) - self.OVERLAP
        spans: list[Span] = []
        if active:
            found, _ = self.engine.spans(data, self.engine.scan(data), floor=base)
            spans = [s for s in resolve(found) if s[0] < limit]
        cut = max([limit, *(end for _, end, _ in spans)])
        pieces: list[bytes] = []
        at = base
        for start, end, number in spans:
            pieces += (data[at:start], self.engine.marks[number])
            self.counts[self.engine.patterns[number].kind] += 1
            at = end
        pieces.append(data[at:cut])
        self.context = data[max(0, cut - LOOK_BACK) : cut]
        self.pending = data[cut:]
        return b"".join(pieces)
