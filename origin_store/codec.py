"""How an event record is kept in `events`: the one place that encodes and decodes its bytes.

A value's first byte says how it is kept:

- ``{``: plain orjson, the whole record (every store before schema 2, and the first events of a
  source while its dictionary is not trained yet).
- ``\\x01``: a dictionary id (u32, big-endian), then a magicless zstd frame of the orjson record
  without its ``id`` (the key is the id), compressed with that dictionary.

Dictionaries are trained once per source from its first events (`TRAIN_EVENTS` records of at
least `TRAIN_BYTES` in all, collected by whichever process gets there first) and kept in the
`dicts` database: ``id`` (u32) -> the dictionary's bytes, and `meta` ``dict:<source>`` names the
id new records of that source use. The first writer wins: a process that trained a dictionary
for a source that got one meanwhile throws its own away and uses the stored one, so every record
of a source names a dictionary every process can load. Ids are never reused and dictionaries
never change, so a value stays readable whatever is trained later.

Compressors and decompressors are made once per process and thread and dictionary, never per
event (zstd contexts are not safe to share between threads).
"""

from __future__ import annotations

import struct
import threading
from typing import TYPE_CHECKING, Any

import lmdb
import orjson
import zstandard

if TYPE_CHECKING:
    from .db import Store

PLAIN = ord("{")
ZSTD = 1
_HEAD = struct.Struct(">BI")
HEAD_BYTES = _HEAD.size
#: zstd level of event records: 3 keeps ~5 % more than 1 out at about the same speed here.
LEVEL = 3
#: What a source's dictionary is trained from: its first events, at least this many and bytes.
TRAIN_EVENTS = 2000
TRAIN_BYTES = 1 << 20
#: At most this many sample bytes are kept per source while waiting to train.
SAMPLE_CAP = 8 << 20
DICT_BYTES = 112 << 10
_PARAMS = zstandard.ZstdCompressionParameters.from_level(
    LEVEL,
    format=zstandard.FORMAT_ZSTD1_MAGICLESS,
    write_content_size=1,
    write_dict_id=0,
    write_checksum=0,
)


class CodecError(ValueError):
    """An event value that cannot be decoded (unknown marker or dictionary, damaged frame)."""


def dict_key(dict_id: int) -> bytes:
    return dict_id.to_bytes(4, "big")


def source_meta_key(source: str) -> bytes:
    return f"dict:{source}".encode()


class _Local(threading.local):
    def __init__(self) -> None:
        self.compressors: dict[int, zstandard.ZstdCompressor] = {}
        self.decompressors: dict[int, zstandard.ZstdDecompressor] = {}


class EventCodec:
    """One per open store: its dictionaries, the contexts made from them, samples to train."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.train_events = TRAIN_EVENTS
        self.train_bytes = TRAIN_BYTES
        self._dicts: dict[int, zstandard.ZstdCompressionDict] = {}
        self._source_dict: dict[str, int] = {}
        self._samples: dict[str, list[bytes]] = {}
        self._sample_bytes: dict[str, int] = {}
        self._local = _Local()
        self._lock = threading.Lock()

    # -- decoding -----------------------------------------------------------------------------

    def decode(self, txn: lmdb.Transaction, key: bytes, value: bytes) -> dict[str, Any]:
        """The record kept as `value` under `key`; CodecError if it cannot be read."""
        mark = value[0] if value else -1
        if mark == PLAIN:
            try:
                found: dict[str, Any] = orjson.loads(value)
            except orjson.JSONDecodeError as error:
                raise CodecError(f"plain record is not JSON ({error})") from None
            return found
        if mark != ZSTD or len(value) <= HEAD_BYTES:
            raise CodecError(f"unknown record marker {mark}")
        dict_id = int.from_bytes(value[1:HEAD_BYTES], "big")
        dctx = self._local.decompressors.get(dict_id)
        if dctx is None:
            dctx = self._decompressor(txn, dict_id)
        try:
            body = orjson.loads(dctx.decompress(value[HEAD_BYTES:]))
        except (zstandard.ZstdError, orjson.JSONDecodeError) as error:
            raise CodecError(f"compressed record is damaged ({error})") from None
        if not isinstance(body, dict):
            raise CodecError("compressed record is not an object")
        return {"id": key.decode(), **body}

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

    def dict_for(self, source: str) -> int | None:
        """The dictionary new records of `source` use in this process, if it has one yet."""
        return self._source_dict.get(source)

    def enough_samples(self, source: str) -> bool:
        return (
            len(self._samples.get(source, ())) >= self.train_events
            and self._sample_bytes.get(source, 0) >= self.train_bytes
        )

    def prepare(self, source: str) -> int | None:
        """The dictionary id new records of `source` use, loading it or training it (once
        enough samples were seen) if needed; None while there is none. Once per batch."""
        dict_id = self._source_dict.get(source)
        if dict_id is not None:
            return dict_id
        with self.store.read() as txn:
            dict_id = self._stored_id(txn, source)
            if dict_id is not None:
                self._adopt(txn, source, dict_id)
                return dict_id
        if not self.enough_samples(source):
            return None
        samples: list[bytes | bytearray | memoryview] = list(self._samples[source])
        try:
            trained = zstandard.train_dictionary(DICT_BYTES, samples, level=LEVEL).as_bytes()
        except zstandard.ZstdError:
            # Too little to learn from: try again with more samples, up to the cap.
            self.train_events *= 2
            return None
        return self.store.write(lambda txn: self._keep(txn, source, trained), durable=True)

    def _stored_id(self, txn: lmdb.Transaction, source: str) -> int | None:
        raw = txn.get(source_meta_key(source), db=self.store.dbs["meta"])
        return None if raw is None else int(orjson.loads(raw)["id"])

    def _keep(self, txn: lmdb.Transaction, source: str, trained: bytes) -> int:
        """Store a trained dictionary for `source` unless one is there already (first writer
        wins); the id the source uses now."""
        dict_id = self._stored_id(txn, source)
        if dict_id is None:
            cursor = txn.cursor(db=self.store.dbs["dicts"])
            dict_id = int.from_bytes(cursor.key(), "big") + 1 if cursor.last() else 1
            txn.put(dict_key(dict_id), trained, db=self.store.dbs["dicts"])
            meta = {"id": dict_id, "level": LEVEL, "samples": len(self._samples.get(source, []))}
            txn.put(source_meta_key(source), orjson.dumps(meta), db=self.store.dbs["meta"])
        self._adopt(txn, source, dict_id)
        return dict_id

    def _adopt(self, txn: lmdb.Transaction, source: str, dict_id: int) -> None:
        self._dictionary(txn, dict_id)
        self._source_dict[source] = dict_id
        self._samples.pop(source, None)
        self._sample_bytes.pop(source, None)

    def _compressor(self, dict_id: int) -> zstandard.ZstdCompressor:
        cctx = self._local.compressors.get(dict_id)
        if cctx is None:
            dictionary = self._dicts[dict_id]
            with self._lock:
                dictionary.precompute_compress(compression_params=_PARAMS)
                cctx = zstandard.ZstdCompressor(dict_data=dictionary, compression_params=_PARAMS)
            self._local.compressors[dict_id] = cctx
        return cctx

    def encoder(self, source: str) -> Encoder:
        """What encodes records of `source` now (call `prepare` first)."""
        dict_id = self._source_dict.get(source)
        if dict_id is None:
            return Encoder(None, 0, self._samples.setdefault(source, []), self, source)
        return Encoder(self._compressor(dict_id), dict_id, None, self, source)

    def _sampled(self, source: str, size: int) -> None:
        self._sample_bytes[source] = self._sample_bytes.get(source, 0) + size


class Encoder:
    """Encodes records of one source with one dictionary (or plain, keeping samples)."""

    __slots__ = ("_cctx", "_codec", "_head", "_samples", "_source")

    def __init__(
        self,
        cctx: zstandard.ZstdCompressor | None,
        dict_id: int,
        samples: list[bytes] | None,
        codec: EventCodec,
        source: str,
    ) -> None:
        self._cctx = cctx
        self._head = _HEAD.pack(ZSTD, dict_id)
        self._samples = samples
        self._codec = codec
        self._source = source

    def __call__(self, record: Any) -> bytes:
        event_id = record.pop("id")
        try:
            body = orjson.dumps(record)
        finally:
            record["id"] = event_id
        if self._cctx is not None:
            return self._head + self._cctx.compress(body)
        samples = self._samples
        if samples is not None and self._codec._sample_bytes.get(self._source, 0) < SAMPLE_CAP:
            samples.append(body)
            self._codec._sampled(self._source, len(body))
        return orjson.dumps(record)
