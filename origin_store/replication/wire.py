"""The sync wire format (docs/sync.md): one definition of a push batch and its items, which the
device builds (`origin_api.sync.batches`), the hub parses (`origin_api.hub.sync_routes`) and the
store checks and applies (`origin_store.replication.sync`, `origin_store.replication.check`).

A batch is `{"after", "last", "partial"?, "items"}` and each item `{"seq", "kind", …}` with one
payload per kind. The types are TypedDicts: they cost nothing at run time, as a device's push
serializes thousands of items and a hub parses them; whatever arrives is checked field by field
(`check_items`) before it is taken for these types. A batch's bytes are built from its items
serialized once each (`encode_item`, `batch_bytes`), so a batch cut into parts by size is not
serialized again to be cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NotRequired, TypedDict, cast

import orjson

from ..records import EntryVersion, SessionDoc, TombstoneDoc
from ..textclip import Label
from .check import PUSH_KINDS, BatchRefused, check_items


class WireEvent(TypedDict):
    """An event as a push carries it: as stored (`records.EventDoc`), with no mirror of its own
    (`m`): its original file and raw line travel beside it, in the item."""

    id: str
    time: int
    source: str
    project: str | None
    session: str
    role: str
    kind: str
    text: str
    cwd: str | None
    git_branch: str | None
    agent_version: str | None
    line: int
    text_chars: NotRequired[int]
    label: NotRequired[Label]
    usage: NotRequired[list[int]]


class EventItem(TypedDict):
    seq: int
    kind: Literal["event"]
    original_file: str | None
    event: WireEvent
    raw: str | None  # the mirror line, at most RAW_CHARS characters
    raw_chars: int  # the whole line's length


class SessionItem(TypedDict):
    seq: int
    kind: Literal["session"]
    session: SessionDoc


class EntryItem(TypedDict):
    seq: int
    kind: Literal["entry"]
    version: EntryVersion


class TombstoneItem(TypedDict):
    seq: int
    kind: Literal["tombstone"]
    tombstone: TombstoneDoc


#: One item of a push (any kind) or of a pull (entries and tombstones).
Item = EventItem | SessionItem | EntryItem | TombstoneItem


class PushBatch(TypedDict):
    """`POST /sync/push`'s body. `after` is where the device's push cursor stood: the hub keeps
    no use for it and does not check it. `partial` parts of one batch share `after` and `last`;
    the hub records the device's cursor only at the last part."""

    after: int
    last: int
    partial: NotRequired[bool]
    items: list[Item]


class PushAnswer(TypedDict):
    acknowledged: int
    applied: int


class PullAnswer(TypedDict):
    """`GET /sync/pull`'s answer: entries and tombstones, the feed position to ask after next,
    whether there is more, and the name of the token that asked (what `origin connect` keeps)."""

    items: list[Item]
    next: int
    more: bool
    device: NotRequired[str]


def encode_item(item: Item) -> bytes:
    return orjson.dumps(item)


def batch_bytes(after: int, last: int, items: Sequence[bytes], *, partial: bool = False) -> bytes:
    """A push batch's body from its items, each serialized once (`encode_item`)."""
    head = b'{"after":%d,"last":%d,%b"items":[' % (
        after,
        last,
        b'"partial":true,' if partial else b"",
    )
    return b"".join((head, b",".join(items), b"]}"))


def encode_batch(batch: PushBatch) -> bytes:
    """`batch` as one body: what `orjson.dumps` gives for it, built as a device builds it."""
    items = [encode_item(item) for item in batch["items"]]
    return batch_bytes(batch["after"], batch["last"], items, partial=batch.get("partial", False))


def parse_batch(body: bytes) -> PushBatch:
    """A push body as the hub takes it: checked whole, or `BatchRefused` with the message the hub
    answers 400 with (nothing is applied of a batch refused)."""
    try:
        batch = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise BatchRefused(f"The batch is not JSON: {error}.") from None
    if not isinstance(batch, dict):
        raise BatchRefused("The batch must be an object {after, last, items}.")
    try:
        items = check_items(batch.get("items"), PUSH_KINDS)
    except BatchRefused as error:
        raise BatchRefused(f"The batch was refused whole, nothing applied: {error}") from None
    last = batch.get("last")
    if type(last) is not int or any(item["seq"] > last for item in items):
        raise BatchRefused("last must be a whole number at least every item's seq.")
    if type(batch.get("partial", False)) is not bool:
        raise BatchRefused("partial must be true or false.")
    return cast(PushBatch, batch)
