"""Event texts kept once: a sealed mirror frame leaves out each event's text where its line
holds it word for word, and patches in the `frames` record put it back.

An agent writes an event's text into its log as a JSON string; the store keeps the same text
in the event's record. In the logs Origin reads, those strings are most of the bytes: cut out,
a mirror frame compresses to about half. So where the bytes of `orjson.dumps(text)` occur in
the line an event came from (Node's and serde's JSON escape what orjson escapes), the sealed
frame holds the line without them and a patch says where they go back and which event's
record holds the text. Reading the line decodes those records and inserts their texts,
encoded again, at the same places: the line comes back byte for byte.

What this rests on: a record's text never changes once a patch names it. Ingest only cuts
lines of append-only logs (a row log's rows, whose events are replaced by newer versions, keep
their bytes) and only texts kept whole (a text cut at `textclip.STORED_CHARS` is not the
log's). The one rewrite of texts, `origin redact --rescan`, masks a secret in the record and
in the line alike, so the rebuilt line is the masked one, as a rescan of a whole line gives.
A text that an event already stored (the same id read from another file) holds differently is
kept in the patch itself (a literal), so a patch never depends on which file came first.

A text is not always the whole string: a tool call's text is the tool's name and then its
arguments, which the line holds as a string (Codex) or as an object (Claude Code), and Codex
writes a tool's output inside a JSON string of JSON. So a cut names one of `FORMS`: how the
text's bytes were written in the line.

A cut is (start, end, event, span, form) in a line: `event` is the event's key while the batch
that stores it is not written (`commit` turns it into the record's sequence number) or already
that number. A patch is (line in the frame, offset in the line as kept, sequence number, or 0
with the span itself, form).
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable, Iterable, Sequence

import orjson
import zstandard

from ..errors import StoreError

#: The shortest JSON string worth cutting: a patch costs a few bytes, and a short string costs
#: few in a compressed frame.
MIN_SPAN = 48

Cut = tuple[int, int, "bytes | int", bytes, int]
#: A patch as sealed, its event named as its cut names it.
Pending = tuple[int, int, "bytes | int", bytes, int]
Patch = tuple[int, int, int, bytes, int]


_HEAD = struct.Struct("<II")  # patches, bytes of literals


class SpanError(StoreError, ValueError):
    """A patch that cannot be applied: a damaged record, or an event that is not there."""


def as_json(text: str) -> bytes | None:
    """The JSON string of `text` as agents write it, or None for what JSON cannot hold (a lone
    surrogate)."""
    try:
        return orjson.dumps(text)
    except TypeError:
        return None


#: How a text's bytes may sit in its line, tried in this order: its JSON string; the JSON
#: string of what follows its first word (a tool's arguments after its name); what follows its
#: first word as it is (arguments written as an object); its JSON string inside another JSON
#: string (an output kept as JSON text), without the outer quotes. Each as (its name, whether
#: it is what follows the first word, how it is encoded); a patch keeps its index.
_FORMS = (
    ("json", False, "json"),
    ("json-after-word", True, "json"),
    ("raw-after-word", True, "raw"),
    ("json-in-json", False, "json-in-json"),
)
FORMS = tuple(name for name, _, _ in _FORMS)
#: Characters of a text whose form is looked for first: a text is encoded whole only where the
#: line holds its start (JSON escapes each character alone, so the start's bytes are the start
#: of the whole's). Encoding every text in every form and looking for all of it cost ~15 µs an
#: event, half as much as parsing it.
PROBE_CHARS = 24
#: Bytes that close an encoded string, left out of a probe.
_CLOSING = {"json": 1, "raw": 0, "json-in-json": 2}


def _encode(part: str, how: str) -> bytes | None:
    if how == "raw":
        try:
            return part.encode()
        except UnicodeEncodeError:
            return None
    inner = as_json(part)
    if how == "json" or inner is None:
        return inner
    outer = as_json(inner.decode())
    return outer[1:-1] if outer is not None else None


def _part(text: str, form: int) -> str | None:
    if not _FORMS[form][1]:
        return text
    after = text.find(" ") + 1
    return text[after:] if 0 < after < len(text) else None


def written(text: str, form: int) -> bytes | None:
    """The bytes `text` takes in a line in `form` (an index of FORMS), or None when it has no
    such form (no first word, a lone surrogate)."""
    part = _part(text, form)
    return None if part is None else _encode(part, _FORMS[form][2])


def _probe(part: str, how: str) -> bytes | None:
    head = _encode(part[:PROBE_CHARS], how)
    if head is None:
        return None
    return head[: len(head) - _CLOSING[how]] if len(part) > PROBE_CHARS else head


def find_cuts(line: bytes, texts: Iterable[tuple[bytes, str]]) -> list[Cut]:
    """Where each text occurs in `line`, in the first of FORMS the line holds it in (every
    occurrence that overlaps no other: an agent may write a tool's output twice in one line),
    in line order."""
    cuts: list[Cut] = []
    for key, text in texts:
        if len(text) < MIN_SPAN - 2:
            continue
        for form, (_, _, how) in enumerate(_FORMS):
            part = _part(text, form)
            probe = None if part is None else _probe(part, how)
            at = -1 if probe is None else line.find(probe)
            span = None if at < 0 or part is None else _encode(part, how)
            if probe is None or span is None or len(span) < MIN_SPAN:
                continue
            found = False
            while at >= 0:
                end = at + len(span)
                if line.startswith(span, at) and not any(
                    start < end and at < stop for start, stop, _, _, _ in cuts
                ):
                    cuts.append((at, end, key, span, form))
                    found = True
                    at = line.find(probe, end)
                else:
                    at = line.find(probe, at + 1)
            if found:
                break
    cuts.sort(key=lambda cut: cut[0])
    return cuts


def cut_line(line: bytes, cuts: Sequence[Cut], index: int) -> tuple[bytes, list[Pending]]:
    """The line without its cuts' spans, and the patches (unresolved: the event as the cut
    names it) that put them back. A cut whose span is not where it says is left out."""
    kept: list[bytes] = []
    patches: list[Pending] = []
    at = 0
    removed = 0
    for start, end, event, span, form in cuts:
        if start < at or line[start:end] != span:
            continue
        kept.append(line[at:start])
        patches.append((index, start - removed, event, span, form))
        removed += end - start
        at = end
    if not patches:
        return line, []
    kept.append(line[at:])
    return b"".join(kept), patches


def encode(patches: Sequence[Patch]) -> bytes:
    """A frame's patches, resolved (sequence numbers, 0 for a literal), as the bytes kept after
    its offsets in `frames`: columns (lines and numbers as deltas; a byte per patch, 0 for a
    literal, else 1 + its form), compressed."""
    if not patches:
        return b""
    lines = array("I")
    offsets = array("I")
    seqs = array("q")
    kinds = bytearray()
    literals: list[bytes] = []
    last_line = 0
    last_seq = 0
    for line, offset, seq, span, form in patches:
        lines.append(line - last_line)
        offsets.append(offset)
        last_line = line
        if seq:
            kinds.append(1 + form)
            seqs.append(seq - last_seq)
            last_seq = seq
        else:
            kinds.append(0)
            seqs.append(0)
            literals.append(struct.pack("<I", len(span)) + span)
    literal = b"".join(literals)
    body = b"".join(
        (
            _HEAD.pack(len(patches), len(literal)),
            lines.tobytes(),
            offsets.tobytes(),
            seqs.tobytes(),
            bytes(kinds),
            literal,
        )
    )
    return zstandard.ZstdCompressor(level=3).compress(body)


def decode(blob: bytes) -> list[Patch]:
    """The patches `encode` kept; the literal's span is given, a reference's is b""."""
    if not blob:
        return []
    try:
        body = zstandard.ZstdDecompressor().decompress(blob)
        count, literal_bytes = _HEAD.unpack_from(body)
        at = _HEAD.size
        lines = array("I", body[at : at + 4 * count])
        at += 4 * count
        offsets = array("I", body[at : at + 4 * count])
        at += 4 * count
        seqs = array("q", body[at : at + 8 * count])
        at += 8 * count
        kinds = body[at : at + count]
        literal = body[at + count : at + count + literal_bytes]
        if len(kinds) != count or len(literal) != literal_bytes:
            raise ValueError("cut short")
        out: list[Patch] = []
        line = seq = 0
        taken = 0
        for n in range(count):
            line += lines[n]
            if kinds[n]:
                seq += seqs[n]
                out.append((line, offsets[n], seq, b"", kinds[n] - 1))
            else:
                (size,) = struct.unpack_from("<I", literal, taken)
                out.append((line, offsets[n], 0, literal[taken + 4 : taken + 4 + size], 0))
                taken += 4 + size
    except (zstandard.ZstdError, struct.error, ValueError) as error:
        raise SpanError(f"a frame's patches are damaged ({error})") from None
    return out


#: Gives each event's text by sequence number (an absent one is not kept).
Texts = Callable[[Iterable[int]], dict[int, str]]


def rebuild(lines: list[bytes], patches: Sequence[Patch], texts: Texts) -> list[bytes]:
    """A frame's lines as the log had them: each patch's span put back where it was cut.
    `lines` are the frame's lines as kept; SpanError when a patch names an event not kept."""
    if not patches:
        return lines
    found = texts({patch[2] for patch in patches if patch[2]})
    out = list(lines)
    by_line: dict[int, list[Patch]] = {}
    for patch in patches:
        by_line.setdefault(patch[0], []).append(patch)
    for index, some in by_line.items():
        if not 0 <= index < len(out):
            raise SpanError(f"a patch names line {index + 1} of a frame of {len(out)}")
        line = out[index]
        pieces: list[bytes] = []
        at = 0
        for _, offset, seq, literal, form in some:
            if seq:
                text = found.get(seq)
                if text is None:
                    raise SpanError(f"the event at {seq} that a mirror line holds is not kept")
                span = written(text, form)
                if span is None:
                    raise SpanError(f"the text of the event at {seq} has no {FORMS[form]} form")
            else:
                span = literal
            if offset < at or offset > len(line):
                raise SpanError(f"a patch at byte {offset} is outside its line")
            pieces.append(line[at:offset])
            pieces.append(span)
            at = offset
        pieces.append(line[at:])
        out[index] = b"".join(pieces)
    return out


_TAIL_CUT = struct.Struct("<IIQB")


def pack_tail_cuts(cuts: Sequence[tuple[int, int, int, int]]) -> bytes:
    """The cuts of a line still in a mirror's plain tail, (start, end, seq, form) each, for when
    it is sealed (`tail_cuts`)."""
    return b"".join(_TAIL_CUT.pack(*cut) for cut in cuts)


def unpack_tail_cuts(value: bytes) -> list[tuple[int, int, int, int]]:
    size = _TAIL_CUT.size
    return [_TAIL_CUT.unpack_from(value, at) for at in range(0, len(value) - size + 1, size)]


__all__ = [
    "FORMS",
    "MIN_SPAN",
    "Cut",
    "Patch",
    "Pending",
    "SpanError",
    "Texts",
    "as_json",
    "cut_line",
    "decode",
    "encode",
    "find_cuts",
    "pack_tail_cuts",
    "rebuild",
    "unpack_tail_cuts",
    "written",
]
