"""An event's id as a compressed record keeps it, before its frame (`codec.ZSTD_ID`): read
without decompressing, in as few bytes as gives the id back exactly."""

from __future__ import annotations

import struct

from ..parsers.agents import AGENTS

ID_LEN = struct.Struct(">H")
#: Ids that start with an agent's name and a UUID (most of them: `claude-code:<uuid>`,
#: `codex:<uuid>:L<line>`) are kept as a byte naming the agent, the UUID's 16 bytes and the
#: rest: 17-21 bytes where they took 42-54. A kept id starting with a byte from 1 to 0x1f is
#: packed so, one starting with 0 is the rest's UTF-8 (an id that starts with a control
#: character, which no agent's does), any other is the id's UTF-8.
_PREFIXES = tuple(f"{name}:" for name in AGENTS)
_UUID_CHARS = 36


def pack_id(event_id: str) -> bytes:
    """An id as a record keeps it (see _PREFIXES); only a form that gives the id back exactly."""
    for code, prefix in enumerate(_PREFIXES, start=1):
        if not event_id.startswith(prefix):
            continue
        uuid = event_id[len(prefix) : len(prefix) + _UUID_CHARS]
        if len(uuid) == _UUID_CHARS and uuid[8] == uuid[13] == uuid[18] == uuid[23] == "-":
            try:
                packed = bytes([code]) + bytes.fromhex(uuid.replace("-", ""))
            except ValueError:
                break
            packed += event_id[len(prefix) + _UUID_CHARS :].encode()
            if len(packed) >= 17 and unpack_id(packed) == event_id:
                return packed
        break
    kept = event_id.encode()
    return b"\x00" + kept if kept[:1] and kept[0] < 0x20 else kept


def unpack_id(kept: bytes) -> str:
    """The id `pack_id` kept; UnicodeDecodeError or ValueError for what it cannot have made."""
    code = kept[0] if kept else 0x20
    if code >= 0x20:
        return kept.decode()
    if code == 0:  # an id that starts with a control character itself
        return kept[1:].decode()
    if not 1 <= code <= len(_PREFIXES) or len(kept) < 17:
        raise ValueError("a packed id is damaged")
    h = kept[1:17].hex()
    uuid = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    return _PREFIXES[code - 1] + uuid + kept[17:].decode()


def id_before_frame(event_id: str) -> bytes | None:
    """The id as a ZSTD_ID record keeps it between its head and its frame (its length, then
    `pack_id`); None for an id too long for that (no agent's), whose record is kept plain."""
    name = pack_id(event_id)
    return None if len(name) > 0xFFFF else ID_LEN.pack(len(name)) + name
