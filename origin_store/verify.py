"""Integrity as an API: check that the store and the mirrors on disk still agree.

`verify()` reads every mirror frame (zstd checksums included), counts lines against each
file's cursor, checks each tail's checksum, and checks that every event points at a line that
exists, that the change feed announces each event once, and that an event's kept text and label
agree with its original length (`text_chars`, `label`; records from before them have neither). It reports problems; it never
repairs, so a person can see what happened before anything is rewritten.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zstandard

from . import keys
from . import mirror as mirrors
from .db import Store, loads
from .textclip import STORED_CHARS


@dataclass(slots=True)
class Report:
    files: int = 0
    frames: int = 0
    lines: int = 0
    events: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(store: Store, home: Path, *, max_problems: int = 100) -> Report:
    report = Report()
    raw_root = home / "raw"
    dctx = zstandard.ZstdDecompressor()
    lines_of: dict[int, int] = {}

    def problem(text: str) -> None:
        if len(report.problems) < max_problems:
            report.problems.append(text)

    with store.read() as txn:
        for key, value in txn.cursor(db=store.dbs["files"]):
            cursor = loads(value)
            report.files += 1
            state = cursor["mirror"]
            mid = state["id"]
            lines_of[mid] = cursor["lines"]
            zst, tail = mirrors.paths(raw_root, state["rel"])
            prefix = keys.mirror_key(mid)
            counted = 0
            expected_offset = 0
            frames = txn.cursor(db=store.dbs["frames"])
            if frames.set_range(prefix):
                data = zst.read_bytes() if zst.exists() else b""
                for fkey, fvalue in frames:
                    if not fkey.startswith(prefix):
                        break
                    frame = mirrors.Frame.unpack(keys.line_of(fkey), fvalue)
                    report.frames += 1
                    if frame.first_line != counted + 1 or frame.offset != expected_offset:
                        problem(f"{state['rel']}: frame at line {frame.first_line} does not follow line {counted}")
                    chunk = data[frame.offset : frame.offset + frame.length]
                    if len(chunk) != frame.length:
                        problem(f"{state['rel']}: the .zst ends inside the frame at line {frame.first_line}")
                    try:
                        text = dctx.decompressobj().decompress(chunk)
                    except zstandard.ZstdError as error:
                        problem(f"{state['rel']}: frame at line {frame.first_line} is damaged ({error})")
                        text = b""
                    held = text.count(b"\n")
                    if text and held != frame.lines:
                        problem(f"{state['rel']}: frame at line {frame.first_line} holds {held} lines, not {frame.lines}")
                    counted += frame.lines
                    expected_offset = frame.offset + frame.length
            if counted != state["sealed"] or expected_offset != state["zst"]:
                problem(f"{state['rel']}: frames hold {counted} lines / {expected_offset} bytes, the cursor says {state['sealed']} / {state['zst']}")
            body = tail.read_bytes()[: state["tail"]] if tail.exists() else b""
            if len(body) != state["tail"] or zlib.crc32(body) != state["crc"]:
                problem(f"{state['rel']}: the tail does not match its checksum")
            counted += body.count(b"\n")
            if counted != cursor["lines"]:
                problem(f"{key.decode(errors='replace')}: mirror has {counted} lines, the cursor says {cursor['lines']}")
            report.lines += counted
        announced: set[str] = set()
        for key, value in txn.cursor(db=store.dbs["feed"]):
            item = loads(value)
            if item["t"] == "event":
                if item["id"] in announced:
                    problem(f"the change feed announces {item['id']} twice (seq {keys.feed_seq(key)})")
                announced.add(item["id"])
        for _key, value in txn.cursor(db=store.dbs["events"]):
            event = loads(value)
            report.events += 1
            known = lines_of.get(event["m"])
            if known is not None and not 1 <= event["line"] <= known:
                problem(f"{event['id']}: points at line {event['line']} of a mirror with {known} lines")
            if event["id"] not in announced:
                problem(f"{event['id']}: never announced on the change feed (the index would miss it)")
            shape = _text_problem(event)
            if shape:
                problem(f"{event['id']}: {shape}")
    return report


def _text_problem(event: dict[str, Any]) -> str | None:
    """What is wrong with an event's kept text and label, if anything."""
    text = event.get("text")
    if not isinstance(text, str):
        return "has no text"
    total = event.get("text_chars")
    if total is not None and (len(text) != STORED_CHARS or not isinstance(total, int) or total <= STORED_CHARS):
        return f"keeps {len(text):,} characters of a text of {total!r}"
    label = event.get("label")
    if label is None:
        return None
    at = 0
    for item in label if isinstance(label, list) else [None]:
        if (
            not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], int)
            or not isinstance(item[1], str) or not item[1] or not at <= item[0] <= (total or len(text))
        ):
            return f"has a label that does not fit its text: {label!r:.200}"
        at = item[0]
    return None
