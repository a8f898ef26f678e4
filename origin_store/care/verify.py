"""Integrity as an API: check that the store and the mirrors on disk still agree.

`verify()` reads every mirror frame (zstd checksums included), counts lines against each
file's cursor, checks each tail's checksum, and checks that every event points at a line that
exists, that every event record decodes (`codec`: plain, or compressed with a dictionary that is
there), that the change feed announces each event once, that the activity figures equal a
recount of the records (`activity`), and that an event's kept text and label
agree with its original length (`text_chars`, `label`; records from before them have neither).
It reports problems; it never repairs, so a person can see what happened before anything is
rewritten.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import lmdb
import zstandard

from .. import activity, bounds
from ..core import keys
from ..core.codec import CodecError
from ..core.db import Store, loads
from ..core.lmdbio import pairs, prefixed
from ..mirrors import mirror as mirrors
from ..mirrors import spans
from ..records import Cursor, EventDoc, MirrorState
from ..textclip import STORED_CHARS


@dataclass(slots=True)
class Report:
    files: int = 0
    frames: int = 0
    lines: int = 0
    events: int = 0
    #: Records that do not decode (each is a problem too, while problems are not too many).
    damaged: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


class _Check:
    """One verification: its report, the mirrors' line counts, the events the feed announced."""

    def __init__(
        self, store: Store, txn: lmdb.Transaction, raw_root: Path, max_problems: int
    ) -> None:
        self.store = store
        self.txn = txn
        self.raw_root = raw_root
        self.max_problems = max_problems
        self.report = Report()
        self.dctx = zstandard.ZstdDecompressor()
        self.lines_of: dict[int, int] = {}
        self.announced: set[str] = set()
        self.recount = activity.Recount()

    def problem(self, text: str) -> None:
        if len(self.report.problems) < self.max_problems:
            self.report.problems.append(text)

    def files(self) -> None:
        """Each file's mirror: frames in order and whole, the tail's checksum, the line count."""
        for key, value in pairs(self.txn.cursor(db=self.store.dbs["files"])):
            cursor: Cursor = loads(value)
            state = cursor["mirror"]
            self.report.files += 1
            self.lines_of[state["id"]] = cursor["lines"]
            zst, tail = mirrors.paths(self.raw_root, state["rel"])
            counted, zst_bytes = self._frames(state, zst)
            if counted != state["sealed"] or zst_bytes != state["zst"]:
                self.problem(
                    f"{state['rel']}: frames hold {counted} lines / {zst_bytes} bytes"
                    f", the cursor says {state['sealed']} / {state['zst']}"
                )
            body = tail.read_bytes()[: state["tail"]] if tail.exists() else b""
            if len(body) != state["tail"] or zlib.crc32(body) != state["crc"]:
                self.problem(f"{state['rel']}: the tail does not match its checksum")
            counted += body.count(b"\n")
            if counted != cursor["lines"]:
                self.problem(
                    f"{key.decode(errors='replace')}: mirror has {counted} lines, the cursor says {cursor['lines']}"
                )
            self.report.lines += counted

    def _frames(self, state: MirrorState, zst: Path) -> tuple[int, int]:
        """Lines and bytes of a mirror's frames, each decompressed and counted."""
        rel = state["rel"]
        counted = 0
        expected_offset = 0
        data: bytes | None = None
        for fkey, fvalue in prefixed(
            self.txn.cursor(db=self.store.dbs["frames"]), keys.mirror_key(state["id"])
        ):
            if data is None:
                data = zst.read_bytes() if zst.exists() else b""
            frame = mirrors.Frame.unpack(keys.line_of(fkey), fvalue)
            self.report.frames += 1
            if frame.first_line != counted + 1 or frame.offset != expected_offset:
                self.problem(
                    f"{rel}: frame at line {frame.first_line} does not follow line {counted}"
                )
            chunk = data[frame.offset : frame.offset + frame.length]
            if len(chunk) != frame.length:
                self.problem(f"{rel}: the .zst ends inside the frame at line {frame.first_line}")
            try:
                text = self.dctx.decompressobj().decompress(chunk)
            except zstandard.ZstdError as error:
                self.problem(f"{rel}: frame at line {frame.first_line} is damaged ({error})")
                text = b""
            held = text.count(b"\n")
            if text and held != frame.lines:
                self.problem(
                    f"{rel}: frame at line {frame.first_line} holds {held} lines, not {frame.lines}"
                )
            if frame.patches:
                self._patches(rel, frame, text.split(b"\n"))
            counted += frame.lines
            expected_offset = frame.offset + frame.length
        return counted, expected_offset

    def _patches(self, rel: str, frame: mirrors.Frame, lines: list[bytes]) -> None:
        """A frame's patches (`spans`): each in a line of the frame, and each event it names
        kept, so every line can be put back together."""
        where = f"{rel}: frame at line {frame.first_line}"
        try:
            patches = spans.decode(frame.patches)
        except spans.SpanError as error:
            self.problem(f"{where}: {error}")
            return
        ev = self.store.dbs["ev"]
        for index, offset, seq, _, _ in patches:
            if index >= frame.lines or (lines and offset > len(lines[index])):
                self.problem(f"{where}: a patch points outside line {frame.first_line + index}")
                return
            if seq and self.txn.get(keys.u64(seq), db=ev) is None:
                self.problem(
                    f"{where}: line {frame.first_line + index} needs the text of event record"
                    f" {seq}, which is not kept"
                )
                return

    def feed(self) -> None:
        for key, value in pairs(self.txn.cursor(db=self.store.dbs["feed"])):
            item = self.store.feed_item(self.txn, value)
            if item["t"] == "event":
                event_id = item.get("id", "")
                if not event_id:
                    self.problem(
                        "the change feed announces an event whose record is missing or damaged"
                        f" (seq {keys.feed_seq(key)})"
                    )
                    continue
                if event_id in self.announced:
                    self.problem(
                        f"the change feed announces {event_id} twice (seq {keys.feed_seq(key)})"
                    )
                self.announced.add(event_id)

    def _unnamed(self, seq: int) -> None:
        """A record of a `seq_ids` store that cannot say whose it is (its head damaged): no
        other place names it."""
        self.report.events += 1
        self.problem(f"event record {seq}: it does not say whose it is")

    def events(self) -> None:
        decode = self.store.codec.decode
        indexed = self.txn.stat(self.store.ids_db)["entries"]
        kept = self.txn.stat(self.store.dbs["ev"])["entries"]
        if indexed != kept:
            self.problem(f"{kept} event records under {indexed} ids: the id index is damaged")
        for key, value in self.store.iter_events(self.txn, self._unnamed):
            self.report.events += 1
            try:
                event = cast(EventDoc, decode(self.txn, key, value))
            except CodecError as error:
                self.report.damaged += 1
                self.problem(
                    f"{key.decode(errors='replace')}: the record does not decode ({error})"
                )
                continue
            if event.get("id") != key.decode(errors="replace") or not isinstance(
                event.get("m"), int
            ):
                self.problem(f"{key.decode(errors='replace')}: the record is not this event's")
                continue
            if self.store.seq_ids and self.store.event_value(self.txn, key) != value:
                self.problem(f"{event['id']}: its id does not find its record")
            known = self.lines_of.get(event["m"])
            if known is not None and not 1 <= event["line"] <= known:
                self.problem(
                    f"{event['id']}: points at line {event['line']} of a mirror with {known} lines"
                )
            self.recount.add(cast(dict[str, Any], event))
            if event["id"] not in self.announced:
                self.problem(
                    f"{event['id']}: never announced on the change feed (the index would miss it)"
                )
            shape = _text_problem(event)
            if shape:
                self.problem(f"{event['id']}: {shape}")
            when = event.get("time")
            if not (type(when) is int and bounds.time_fits(when)):
                # Kept by an earlier version: every read that shows it would fail.
                self.problem(f"{event['id']}: its time {when!r} is not {bounds.TIME_RANGE}")


def verify(store: Store, home: Path, *, max_problems: int = 100) -> Report:
    with store.read() as txn:
        check = _Check(store, txn, home / "raw", max_problems)
        check.files()
        check.feed()
        check.events()
        for problem in activity.compare(store, txn, check.recount):
            check.problem(problem)
    return check.report


def _text_problem(event: EventDoc | dict[str, Any]) -> str | None:
    """What is wrong with an event's kept text and label, if anything."""
    text = event.get("text")
    if not isinstance(text, str):
        return "has no text"
    total = event.get("text_chars")
    # A cut text keeps STORED_CHARS characters, or fewer once `origin redact --rescan` masked
    # a secret in them: never more, and never all of the text.
    if total is not None and (
        len(text) > STORED_CHARS or not isinstance(total, int) or total <= len(text)
    ):
        return f"keeps {len(text):,} characters of a text of {total!r}"
    label = event.get("label")
    if label is None:
        return None
    at = 0
    for item in label if isinstance(label, list) else [None]:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not isinstance(item[0], int)
            or not isinstance(item[1], str)
            or not item[1]
            or not at <= item[0] <= (total or len(text))
        ):
            return f"has a label that does not fit its text: {label!r:.200}"
        at = item[0]
    return None
