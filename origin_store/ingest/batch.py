"""A batch's records made before the write transaction: LMDB lets one writer at a time into the
store across processes, so everything that needs no transaction (event records, their bytes,
sorted keys, feed items) is done before taking it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core import keys
from ..mirrors.mirror import Frame
from ..mirrors.spans import Cut
from ..model import EventRecord, ParseProblem, SessionFact
from ..project import project_of
from ..records import EventDoc
from ..textclip import STORED_CHARS

#: One event of a batch: [its record, the record's bytes (None until encoded by `commit`, once
#: its project is known), its session's key in `Store.sess_db`]. A list, not an object: one is
#: made per event. Its value there and its feed item name it by the sequence number `commit`
#: gives it, in a store that names events so.
Pending = list[Any]


@dataclass(slots=True)
class Batch:
    """What one commit records: parsed lines of one file, its mirror's new frames."""

    mirror_id: int
    source: str
    events: list[tuple[int, EventRecord]]  # (line, event)
    facts: list[SessionFact]
    problems: list[tuple[int, ParseProblem]]  # (line, problem)
    frames: list[Frame]
    #: A row log's batch: an event already stored is replaced when the row it came from
    #: changed (an append-only log's lines never change, so there the first one stays).
    upsert: bool = False
    #: The cuts (`spans`) of its lines that wait in the mirror's plain tail, by line number.
    tail_cuts: dict[int, list[Cut]] | None = None

    @property
    def memories(self) -> list[EventRecord]:
        """Its versions of memory files, which become imported entries in the same commit."""
        return [event for _, event in self.events if event.kind == "memory"]


def pending_events(batch: Batch) -> tuple[dict[bytes, Pending], int]:
    """The batch's events by key in file order, each once, and how many repeated a key."""
    mirror_id = batch.mirror_id
    source = batch.source
    upsert = batch.upsert  # a later version of a row (or of an open message) wins
    session_key = keys.session_key
    pending: dict[bytes, Pending] = {}
    duplicates = 0
    for number, event in batch.events:
        key = event.id.encode()  # keys.text_key, inline: this runs once per event
        if key in pending:
            duplicates += 1
            if not upsert:
                continue  # a log's first line with an id is the one that counts
        text = event.text
        record: EventDoc = {
            "id": event.id,
            "time": event.time,
            "source": event.source,
            "project": project_of(event.cwd) if event.cwd else None,
            "session": event.session,
            "role": event.role,
            "kind": event.kind,
            "text": text,
            "cwd": event.cwd,
            "git_branch": event.git_branch,
            "agent_version": event.agent_version,
            "m": mirror_id,
            "line": number,
        }
        # The first characters and the original length answer every cut exactly; the
        # mirror has the whole line. Extra fields only where needed, to keep records small.
        if len(text) > STORED_CHARS:
            record["text"] = text[:STORED_CHARS]
            record["text_chars"] = len(text)
        if event.label:
            record["label"] = event.label
        if event.usage:
            record["usage"] = list(event.usage)
        pending[key] = [record, None, session_key(source, event.session)]
    return pending, duplicates
