"""How an event record is kept (`ev`): the one place that encodes and decodes its bytes.

A value's first byte says how it is kept:

- ``{``: plain orjson, the whole record (every store before schema 2, and the first events of a
  source while its dictionary is not trained yet).
- ``\\x01``: a dictionary id (u32, big-endian), then a magicless zstd frame (level 3, with its
  content checksum) of the orjson record without its ``id`` (a record is found by its id, through
  `ev_ids`, so the reader knows it), compressed with that dictionary.

Dictionaries are trained per source in generations (`GENERATIONS`): the first soon, from the
events a process saw first; the last from a uniform sample of many more. Each is kept in the
`dicts` database (``id`` (u32) -> the dictionary's bytes), and `meta` ``dict:<source>`` names the
id and generation new records of that source use. The first writer wins: inside the write
transaction, a process that trained a generation that got stored meanwhile throws its own away
and uses the stored one, so every record names a dictionary every process can load. Ids are
never reused and dictionaries never change, so a value stays readable whatever is trained later.

Compressors and decompressors are made once per process and thread and dictionary, never per
event (zstd contexts are not safe to share between threads); a dictionary's compression tables
are made once per process and shared by them (`EventCodec._compressor` says why only once).
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

import lmdb
import orjson
import zstandard

from ..errors import StoreError
from .keys import plain_left_key
from .recordids import ID_LEN, id_before_frame, unpack_id

if TYPE_CHECKING:
    from .db import Store

PLAIN = ord("{")
ZSTD = 1
#: As ZSTD, with the record's id before the frame (u16 length, the id as `pack_id` keeps it):
#: in a store whose events are named by sequence number (`Store.seq_ids`), a record says whose
#: it is.
ZSTD_ID = 2
_HEAD = struct.Struct(">BI")
HEAD_BYTES = _HEAD.size


def _id_head(value: bytes) -> tuple[bytes, int] | None:
    """A ZSTD_ID record's id as kept and where its frame starts; None when no frame follows
    the id (a damaged head)."""
    start = HEAD_BYTES + ID_LEN.size
    if len(value) <= start:
        return None
    (size,) = ID_LEN.unpack_from(value, HEAD_BYTES)
    if start + size >= len(value):
        return None
    return value[start : start + size], start + size


def _without_id(record: dict[str, Any]) -> tuple[Any, bytes]:
    """A record's id, and the orjson of the rest: what a frame compresses and a sample holds
    (the id is kept apart, or is the record's key)."""
    event_id = record.pop("id")
    try:
        return event_id, orjson.dumps(record)
    finally:
        record["id"] = event_id


def named(value: bytes, event_id: str) -> bytes | None:
    """A record kept before `Store.seq_ids` (ZSTD, its id the key it was found by) as a
    `seq_ids` store keeps it (ZSTD_ID, its id before the same frame: nothing is compressed
    again); `value` itself where it holds its id already or is plain orjson, which holds it;
    None for an id too long to hold (the caller keeps that record plain, as `Encoder` does)."""
    if not value or value[0] != ZSTD:
        return value
    kept = id_before_frame(event_id)
    if kept is None:
        return None
    return bytes([ZSTD_ID]) + value[1:HEAD_BYTES] + kept + value[HEAD_BYTES:]


#: zstd level of event records. With a dictionary of DICT_BYTES, 5 keeps records ~4 % smaller
#: than 3 (~0.01x of the logs at 1M events) for ~3.5 µs more an event, paid again by a hub for
#: each event pushed to it; 7 another ~5 % for ~8 µs more. Decoding takes ~1.6 µs either way.
LEVEL = 3
#: A source's dictionaries, by generation: generation g is trained once a process has seen
#: GENERATIONS[g - 1] events of the source (and SAMPLE_BYTES of them in all), from a uniform
#: sample of them. The first comes soon (few records are kept plain before it); the second
#: from events spread over many sessions, which keeps ~20 % less than one from the first few.
GENERATIONS = (2000, 20_000)
#: Events in the sample a dictionary is trained from (a reservoir over all events seen).
SAMPLE_EVENTS = 2000
SAMPLE_BYTES = 1 << 20
#: Bytes of one record kept in a sample: a few long tool outputs must not make training slow
#: or a sample big (a dictionary learns from the starts of records as well).
SAMPLE_RECORD_BYTES = 8192
#: Records of the store looked at when a process samples the store's own (`_sample_store`).
STORE_LOOK = 4 * SAMPLE_EVENTS
#: A dictionary's size. Measured on 2,000 records of the 1M bench corpus (the sample one is
#: trained from), at level 3: 112 KiB kept Claude Code's records at 262 bytes, Codex's at 234;
#: 512 KiB at 239 and 210 (-9 %, -10 %); the text is now kept once (`spans`), so this is most
#: of what the store keeps of it. Training takes ~0.05 s either way.
DICT_BYTES = 512 << 10
#: fastCover's segment and d-mer sizes, given rather than searched for: training takes ~0.05 s
#: instead of ~0.2 s on 2,000 records (the search found dictionaries <1 % better).
TRAIN_K = 1024
TRAIN_D = 8
_PARAMS = zstandard.ZstdCompressionParameters.from_level(
    LEVEL,
    format=zstandard.FORMAT_ZSTD1_MAGICLESS,
    write_content_size=1,
    write_dict_id=0,
    write_checksum=1,  # 4 bytes: a damaged value is found, never read as another
)


class CodecError(StoreError, ValueError):
    """An event value that cannot be decoded (unknown marker or dictionary, damaged frame)."""


def dict_key(dict_id: int) -> bytes:
    return dict_id.to_bytes(4, "big")


def source_meta_key(source: str) -> bytes:
    return f"dict:{source}".encode()


class _Local(threading.local):
    def __init__(self) -> None:
        self.compressors: dict[int, zstandard.ZstdCompressor] = {}
        self.decompressors: dict[int, zstandard.ZstdDecompressor] = {}


def _uniform() -> float:
    """random.random, imported when first needed: `random` imports hashlib (OpenSSL), ~3 ms of
    every fresh process's start, which only a sampling ingest uses."""
    global _uniform
    from random import random

    _uniform = random
    return random()


class _Source:
    """What this process knows of one source: its dictionary now, and its sample."""

    __slots__ = ("dict_id", "gen", "looked", "sample", "sample_bytes", "seen")

    def __init__(self) -> None:
        self.dict_id: int | None = None
        self.gen = 0
        self.looked = 0  # the generation the store's own records were last sampled for
        self.seen = 0
        self.sample: list[bytes] = []
        self.sample_bytes = 0

    def add(self, body: bytes) -> None:
        """Keep `body` in a uniform sample of everything seen (reservoir sampling)."""
        self.seen += 1
        sample = self.sample
        if len(sample) < SAMPLE_EVENTS:
            sample.append(body)
            self.sample_bytes += len(body)
            return
        at = int(_uniform() * self.seen)
        if at < SAMPLE_EVENTS:
            self.sample_bytes += len(body) - len(sample[at])
            sample[at] = body

    def due(self) -> bool:
        """Whether the next generation's dictionary is due."""
        return (
            self.gen < len(GENERATIONS)
            and self.seen >= GENERATIONS[self.gen]
            and self.sample_bytes >= SAMPLE_BYTES
        )

    def skip_to_last(self) -> None:
        """Train the last generation next, as soon as the sample is big enough (an upgrade
        samples the whole store before training)."""
        if self.gen < len(GENERATIONS):
            self.gen = len(GENERATIONS) - 1
            self.seen = max(self.seen, GENERATIONS[-1])


class EventCodec:
    """One per open store: its dictionaries, the contexts made from them, samples to train."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.generations = GENERATIONS
        self._dicts: dict[int, zstandard.ZstdCompressionDict] = {}
        #: Dictionaries whose compression tables were made (once each: see `_compressor`).
        self._precomputed: set[int] = set()
        self._sources: dict[str, _Source] = {}
        #: Set when a source's first dictionary is stored or adopted with plain records left:
        #: the ingest compresses them (`migrate.recompress`) before its next batch.
        self.recompress_due = False
        self._local = _Local()
        self._lock = threading.Lock()

    # -- decoding -----------------------------------------------------------------------------

    @staticmethod
    def is_plain(value: bytes) -> bool:
        """Whether a stored event value is plain orjson (an older record, or one kept before its
        source had a dictionary)."""
        return value[:1] == b"{"

    def decode(self, txn: lmdb.Transaction, key: bytes, value: bytes) -> dict[str, Any]:
        """The record of event id `key` kept as `value` (a record that holds its id needs no
        key); CodecError if it cannot be read."""
        mark = value[0] if value else -1
        if mark == PLAIN:
            try:
                found: dict[str, Any] = orjson.loads(value)
            except orjson.JSONDecodeError as error:
                raise CodecError(f"plain record is not JSON ({error})") from None
            return found
        start = HEAD_BYTES
        if mark == ZSTD_ID:
            head = _id_head(value)
            if head is None:
                raise CodecError("record is cut short")
            key, start = head
        elif mark != ZSTD:
            raise CodecError(f"unknown record marker {mark}")
        if len(value) <= start:
            raise CodecError("record is cut short")
        dict_id = int.from_bytes(value[1:HEAD_BYTES], "big")
        dctx = self._local.decompressors.get(dict_id)
        if dctx is None:
            dctx = self._decompressor(txn, dict_id)
        try:
            body = orjson.loads(dctx.decompress(value[start:]))
        except (zstandard.ZstdError, orjson.JSONDecodeError) as error:
            raise CodecError(f"compressed record is damaged ({error})") from None
        if not isinstance(body, dict):
            raise CodecError("compressed record is not an object")
        try:
            return {"id": unpack_id(key) if mark == ZSTD_ID else key.decode(), **body}
        except (UnicodeDecodeError, ValueError):
            raise CodecError("a record's id is damaged") from None

    @staticmethod
    def record_id(value: bytes) -> str | None:
        """The id a record holds, read without decompressing it; None for one that does not
        hold it (kept before `Store.seq_ids`) or cannot be read."""
        mark = value[0] if value else -1
        if mark == ZSTD_ID:
            head = _id_head(value)
            if head is None:
                return None
            try:
                return unpack_id(head[0])
            except (UnicodeDecodeError, ValueError):
                return None
        if mark == PLAIN:
            try:
                found = orjson.loads(value).get("id")
            except (orjson.JSONDecodeError, AttributeError):
                return None
            return found if isinstance(found, str) else None
        return None

    def _decompressor(self, txn: lmdb.Transaction, dict_id: int) -> zstandard.ZstdDecompressor:
        dictionary = self._dictionary(txn, dict_id)
        with self._lock:
            dctx = zstandard.ZstdDecompressor(
                dict_data=dictionary, format=zstandard.FORMAT_ZSTD1_MAGICLESS
            )
        self._local.decompressors[dict_id] = dctx
        return dctx

    def _dictionary(self, txn: lmdb.Transaction, dict_id: int) -> zstandard.ZstdCompressionDict:
        found = self._dicts.get(dict_id)
        if found is None:
            raw = txn.get(dict_key(dict_id), db=self.store.dbs["dicts"])
            if raw is None:
                raise CodecError(f"unknown dictionary {dict_id}")
            found = zstandard.ZstdCompressionDict(bytes(raw))
            with self._lock:
                found = self._dicts.setdefault(dict_id, found)
        return found

    # -- encoding -----------------------------------------------------------------------------

    def with_dicts(self) -> list[str]:
        """The sources that have a dictionary in this process."""
        return [name for name, state in self._sources.items() if state.dict_id is not None]

    def dict_for(self, source: str) -> int | None:
        """The dictionary new records of `source` use in this process, if it has one yet."""
        found = self._sources.get(source)
        return None if found is None else found.dict_id

    def prepare(self, source: str, *, last: bool = False) -> int | None:
        """The dictionary id new records of `source` use, loading or training the next
        generation when it is due; None while there is none. Once per batch. With `last`,
        the sample so far trains the last generation at once, and the records kept before are
        left to the caller (an upgrade); else they are encoded again with the new dictionary."""
        state = self._sources.get(source)
        if state is None:
            state = self._sources[source] = _Source()
        if last:
            state.skip_to_last()
        if state.gen >= len(GENERATIONS) and state.dict_id is not None:
            return state.dict_id
        # While generations remain, another process may have stored one: a read per batch.
        adopted = left = False
        with self.store.read() as txn:
            stored = self._stored(txn, source)
            if stored is not None and (stored[1] > state.gen or not state.due()):
                first = state.dict_id is None
                self._adopt(txn, state, *stored)
                adopted = True
                # Records its trainer kept plain and did not get to compress (it was killed):
                left = (
                    first and txn.get(plain_left_key(source), db=self.store.dbs["meta"]) is not None
                )
            elif (
                not state.due()
                and state.looked <= state.gen < len(GENERATIONS)
                and self.store.event_count(txn) >= GENERATIONS[state.gen]
            ):
                # A process that sees few events (one of many, or one started for a short
                # pass) still trains once the store holds enough: from its newest records.
                state.looked = state.gen + 1
                self._sample_store(txn, source, state)
        if adopted:
            if left and not last:
                self.recompress_due = True
            return state.dict_id
        if not state.due():
            return state.dict_id
        while state.gen + 1 < len(GENERATIONS) and state.seen >= GENERATIONS[state.gen + 1]:
            state.gen += 1  # a later generation is due as well: train that one alone
        try:
            trained = zstandard.train_dictionary(
                DICT_BYTES, list(state.sample), level=LEVEL, k=TRAIN_K, d=TRAIN_D
            )
        except zstandard.ZstdError:
            state.gen += 1  # too little to learn from: wait for the next generation
            return state.dict_id
        data = trained.as_bytes()
        gen = state.gen + 1
        first = state.dict_id is None
        kept, dict_id, stored_gen = self.store.write(
            lambda txn: self._keep(txn, source, state.seen, gen, data)
        )
        with self.store.read() as txn:  # committed: what every other process reads too
            self._adopt(txn, state, dict_id, stored_gen)
        if kept and first and not last:
            self.recompress_due = True  # the records kept plain before it, with it
        return state.dict_id

    def _sample_store(self, txn: lmdb.Transaction, source: str, state: _Source) -> None:
        """Add the newest records of `source` in `ev` (of the newest STORE_LOOK) to its sample."""
        cursor = txn.cursor(db=self.store.dbs["ev"])
        if not cursor.last():
            return
        for _ in range(STORE_LOOK):
            try:
                record = self.decode(txn, b"", cast(bytes, cursor.value()))
            except CodecError:
                record = {}
            if record.get("source") == source:
                record.pop("id", None)
                state.add(orjson.dumps(record)[:SAMPLE_RECORD_BYTES])
            if not cursor.prev():
                return

    def _stored(self, txn: lmdb.Transaction, source: str) -> tuple[int, int] | None:
        """The stored dictionary id and generation of `source`, if any."""
        raw = txn.get(source_meta_key(source), db=self.store.dbs["meta"])
        if raw is None:
            return None
        meta = orjson.loads(raw)
        return int(meta["id"]), int(meta["gen"])

    def _keep(
        self, txn: lmdb.Transaction, source: str, seen: int, gen: int, data: bytes
    ) -> tuple[bool, int, int]:
        """Store a dictionary of generation `gen` for `source` unless one of that generation or
        later is there already (the first writer wins); whether it was stored, and the id and
        generation stored now. Nothing is cached here: a write transaction can still fail at
        its commit (a full map, then run again), and a dictionary cached from it under an id
        that another process then stores would compress this process's records with the wrong
        dictionary under that id."""
        stored = self._stored(txn, source)
        if stored is not None and stored[1] >= gen:
            return False, *stored
        cursor = txn.cursor(db=self.store.dbs["dicts"])
        dict_id = int.from_bytes(cursor.key(), "big") + 1 if cursor.last() else 1
        txn.put(dict_key(dict_id), data, db=self.store.dbs["dicts"])
        meta = {"id": dict_id, "gen": gen, "level": LEVEL, "seen": seen}
        txn.put(source_meta_key(source), orjson.dumps(meta), db=self.store.dbs["meta"])
        if stored is None:  # until `migrate.recompress` has been over every record
            txn.put(plain_left_key(source), b"1", db=self.store.dbs["meta"])
        return True, dict_id, gen

    def _adopt(self, txn: lmdb.Transaction, state: _Source, dict_id: int, gen: int) -> None:
        self._dictionary(txn, dict_id)
        state.dict_id = dict_id
        state.gen = max(gen, state.gen)
        if state.gen >= len(GENERATIONS):
            state.sample = []  # nothing more to train: stop sampling
            state.sample_bytes = 0

    def _compressor(self, dict_id: int) -> zstandard.ZstdCompressor:
        """This thread's compressor for a dictionary. The dictionary's compression tables
        (its CDict) are made once per process and shared by every thread's compressor, which
        zstd allows: `precompute_compress` frees the tables it made before, and a compressor
        keeps pointing at the tables it was made with. Precomputed again for each thread's
        first compressor, as it once was, every other thread's compressor read freed memory:
        records that no longer decoded (`Data corruption detected`) and processes ended by a
        segmentation fault, with several threads of one `origin mcp` writing."""
        cctx = self._local.compressors.get(dict_id)
        if cctx is None:
            dictionary = self._dicts[dict_id]
            with self._lock:
                if dict_id not in self._precomputed:
                    dictionary.precompute_compress(compression_params=_PARAMS)
                    self._precomputed.add(dict_id)
                cctx = zstandard.ZstdCompressor(dict_data=dictionary, compression_params=_PARAMS)
            self._local.compressors[dict_id] = cctx
        return cctx

    def presample(self, source: str, records: Iterable[dict[str, Any]]) -> bool:
        """Add records about to be encoded to the sample of `source` while a dictionary is
        still to be trained; whether they were (then encode them without sampling). Called
        before `prepare`, so that a dictionary falling due within a batch compresses that
        batch itself: a database's first batch of 20,000 rows was kept plain (~8 KB a record
        for zcode's messages, hundreds of MB held until the batch was written) and then
        compressed again with a dictionary trained on it."""
        state = self._sources.get(source)
        if state is None:
            state = self._sources[source] = _Source()
        if state.gen >= len(GENERATIONS):
            return False
        for record in records:
            state.add(_without_id(record)[1][:SAMPLE_RECORD_BYTES])
        return True

    def encoder(self, source: str, *, sample: bool = True) -> Encoder:
        """What encodes records of `source` now (call `prepare` first); it adds what it
        encodes to the source's sample while a dictionary is still to be trained, unless not
        to `sample` (records encoded again)."""
        state = self._sources.get(source)
        if state is None:
            state = self._sources[source] = _Source()
        sampling = state if sample and state.gen < len(GENERATIONS) else None
        with_id = self.store.seq_ids
        if state.dict_id is None:
            return Encoder(None, 0, sampling, with_id)
        return Encoder(self._compressor(state.dict_id), state.dict_id, sampling, with_id)


class Encoder:
    """Encodes records of one source with one dictionary (or plain), sampling them while a
    dictionary is still to be trained."""

    __slots__ = ("_cctx", "_head", "_sampling", "_with_id")

    def __init__(
        self,
        cctx: zstandard.ZstdCompressor | None,
        dict_id: int,
        sampling: _Source | None,
        with_id: bool = False,
    ) -> None:
        self._cctx = cctx
        self._head = _HEAD.pack(ZSTD_ID if with_id else ZSTD, dict_id)
        self._sampling = sampling
        self._with_id = with_id

    def __call__(self, record: Any) -> bytes:
        event_id, body = _without_id(record)
        if self._sampling is not None:
            self._sampling.add(body[:SAMPLE_RECORD_BYTES])
        if self._cctx is not None:
            if self._with_id:
                kept = id_before_frame(str(event_id))
                if kept is None:  # kept plain, with its id, all the same
                    return orjson.dumps(record)
                frame: bytes = self._cctx.compress(body)
                return self._head + kept + frame
            return self._head + self._cctx.compress(body)
        return orjson.dumps(record)
