"""Every LMDB key layout, built and parsed in one place.

Integers are big-endian so keys sort in numeric order. A mirror id takes 4 bytes (the low half
of a u64); lines, sequence numbers and times take 8. Text keys are UTF-8, parts joined by \\0.

- ev:        seq(8)   (event records in the order they were stored)
- ev_ids:    event id -> seq(8)
- events (before schema 4): event id
- dicts:     dictionary id(4)
- sessions:  source \\0 session
- sess_events: source \\0 session -> time(8) event id, duplicates sorted (a session's events in
  time order; the key once per session, not once per event)
- sess_seqs: source \\0 session -> time(8) seq(8), duplicates sorted (the same, in a store that
  names events by sequence number: `Store.seq_ids`)
- ev_keys:   16-byte hash of an event id -> seq(8) (`Store.seq_ids`)
- sess_ev (before schema 3): source \\0 session \\0 time(8) event id
- files:     original file path
- mirrors:   mirror id(4)
- frames:    mirror id(4) line(8)   (a frame's first line)
- tail_cuts: mirror id(4) line(8)   (a line in a mirror's plain tail)
- problems:  mirror id(4) line(8)
- feed:      seq(8)
- cites:     event id \\0 entry id
"""

from __future__ import annotations

import struct
from hashlib import blake2b

_U64 = struct.Struct(">Q")
#: Bytes of a mirror id at the head of a frames or problems key.
MIRROR_ID_BYTES = 4


def u64(value: int) -> bytes:
    return _U64.pack(value)


def read_u64(data: bytes) -> int:
    return int(_U64.unpack(data)[0])


def text_key(name: str) -> bytes:
    """An id or a path as a key (events, files, entries, hidden, tombstones, tokens, meta)."""
    return name.encode()


def session_key(source: str, session: str) -> bytes:
    return f"{source}\0{session}".encode()


def session_event_value(time: int, event_key: bytes) -> bytes:
    """A session's event in `sess_events` (times before 1970 sort first, as 0)."""
    return _U64.pack(time if time > 0 else 0) + event_key


def session_event_value_id(value: bytes) -> str:
    """The event id of a `sess_events` value."""
    return value[8:].decode()


def event_hash_key(event_key: bytes) -> bytes:
    """An event id's key in `ev_keys`: 16 bytes of BLAKE2b (the ids take 48-90)."""
    return blake2b(event_key, digest_size=16).digest()


def session_seq_value(time: int, seq: int) -> bytes:
    """A session's event in `sess_seqs`, named by its sequence number in `ev`."""
    return session_event_value(time, _U64.pack(seq))


def session_seq_value_seq(value: bytes) -> int:
    """The sequence number a `sess_seqs` value names."""
    return read_u64(value[8:16])


def split_session_event_key(key: bytes) -> tuple[bytes, bytes]:
    """A schema-2 `sess_ev` key as its `sess_events` key and value."""
    end = key.index(b"\0", key.index(b"\0") + 1)
    return key[:end], key[end + 1 :]


def session_events_prefix(source: str, session: str) -> bytes:
    """What every sess_ev key of one session starts with (schema 2 and before)."""
    return f"{source}\0{session}\0".encode()


def session_event_key(source: str, session: str, time: int, event_key: bytes) -> bytes:
    """A session's event in time order in `sess_ev` (schema 2 and before)."""
    return f"{source}\0{session}\0".encode() + _U64.pack(time if time > 0 else 0) + event_key


def session_event_id(prefix: bytes, key: bytes) -> str:
    """The event id of a sess_ev key that starts with `prefix`."""
    return key[len(prefix) + 8 :].decode()


def mirror_key(mirror_id: int) -> bytes:
    return _U64.pack(mirror_id)[MIRROR_ID_BYTES:]


def mirror_line_key(mirror_id: int, line: int) -> bytes:
    """A line of a mirror: a frame's first line (frames) or a line that could not be parsed (problems)."""
    return _U64.pack(mirror_id)[MIRROR_ID_BYTES:] + _U64.pack(line)


def mirror_of(key: bytes) -> int:
    """The mirror id of a frames or problems key."""
    return int.from_bytes(key[:MIRROR_ID_BYTES], "big")


def line_of(key: bytes) -> int:
    """The line of a frames or problems key."""
    return int.from_bytes(key[MIRROR_ID_BYTES:], "big")


def feed_key(seq: int) -> bytes:
    return _U64.pack(seq)


def feed_seq(key: bytes) -> int:
    return int(_U64.unpack(key)[0])


def cite_key(event_id: str, entry_id: str) -> bytes:
    return f"{event_id}\0{entry_id}".encode()


def cites_prefix(event_id: str) -> bytes:
    return f"{event_id}\0".encode()


def cite_entry_id(prefix: bytes, key: bytes) -> str:
    return key[len(prefix) :].decode()


def plain_left_key(source: str) -> bytes:
    """A `meta` key present while records of `source` kept plain before its first dictionary
    may be left to compress (see `codec`)."""
    return f"plain_left:{source}".encode()
