"""The LMDB environment: named databases, the change feed, and writes that survive a full map.

One `Store` per process (LMDB refuses a second open of the same path in one process). Read
transactions are short and per request; write transactions are short too, since every
`origin mcp` process on the device shares this one environment and LMDB serialises writers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

import lmdb
import orjson

from ..errors import SchemaMismatch, StoreError
from ..mirrors import spans
from ..records import EventDoc, FeedItem
from ..system import pages
from . import storelock
from .codec import CodecError, EventCodec
from .keys import (
    event_hash_key,
    feed_key,
    feed_seq,
    line_of,
    mirror_key,
    read_u64,
    session_event_value,
    session_event_value_id,
    session_seq_value,
    session_seq_value_seq,
    u64,
)
from .lmdbio import Pairs, cursor_key, cursor_value, pairs, raw_get

#: 8: activity figures kept at ingest (`activity`): an older Origin would store events uncounted;
#: 7: a new store names events by sequence number where it named them by id (`seq_ids`); a
#: store from before keeps its layout, so its upgrade only sets the number;
#: 6: sealed mirror frames leave out the events' texts, which patches in `frames` name
#: (`spans`; a frame before it has no patches, so the upgrade has nothing to do but refuse the
#: store to an older Origin); 5: the directories sessions ran in (`cwds`), where project memory files are looked for;
#: 4: event records under sequence numbers in `ev`, found by id in `ev_ids`; 3: a session's
#: events are duplicates of one key (`sess_events`); 2: event records compressed with a
#: dictionary per source (`codec`); 1: plain orjson. `migrate.upgrade` brings a store up.
SCHEMA_VERSION = 8

#: Named databases. Keys are bytes (their layouts: `keys`); values orjson unless said otherwise.
DBS: tuple[str, ...] = (
    "meta",  # b"schema" -> version; small facts about the store
    "events",  # before schema 4: event id -> record (moved to ev by upgrade; still read)
    "dicts",  # dictionary id (4 BE) -> zstd dictionary bytes (not orjson); see `codec`
    "sessions",  # source \0 session -> session record
    "sess_ev",  # before schema 3: source \0 session \0 time(8 BE) id -> b"" (emptied by upgrade)
    "files",  # original file path -> cursor (offsets, mirror state, parser state)
    "mirrors",  # mirror id (4 BE) -> {original_file, mirror_file, source}
    "frames",  # mirror id (4 BE) + first line (8 BE) -> offset, length, lines (struct), patches
    "feed",  # seq (8 BE) -> {"t": type, "id": id} (an event's: b"e" id): what changed, in order
    "problems",  # mirror id (4 BE) + line (8 BE) -> {reason, detail}
    "entries",  # entry id -> entry version record
    "roots",  # root entry id -> {"versions": [ids]}
    "cites",  # event id \0 entry id -> b"" : which entries cite an event
    "tombstones",  # tombstone id -> {target, reason, entries, events, created, restored}
    "hidden",  # event or entry id -> tombstone id (present while forgotten)
    "tokens",  # token name -> {hash, scope, created}
    "sess_events",  # source \0 session -> time(8 BE) id, many, sorted: its events in time order
    "ev",  # seq (8 BE) -> event record, encoded by `codec`; appended, so pages are full
    "ev_ids",  # event id -> seq (8 BE) in ev
    "cwds",  # a directory some session ran in -> b"": where project memory files are looked for
    "tail_cuts",  # mirror id (4 BE) + line (8 BE) -> a tail line's cuts (`spans`), until sealed
    # A store created at schema 7 or later (`Store.seq_ids`) keeps these two instead of `ev_ids`
    # and `sess_events`, and its feed announces an event as b"E" seq (8 BE):
    "ev_keys",  # a 16-byte hash of the event id -> seq (8 BE) in ev (whose record holds the id)
    "sess_seqs",  # source \0 session -> time(8 BE) seq(8 BE), many, sorted
    "activity",  # b"d" day source \0 project / b"s" source \0 session -> figures (`activity`)
)
#: Databases whose keys hold many sorted values.
DUPSORT = frozenset({"sess_events", "sess_seqs"})
#: `meta` key naming a store's layout of events: b"seq" where events are named by sequence.
SEQ_IDS = b"ids"

T = TypeVar("T")


def dumps(value: Any) -> bytes:
    return orjson.dumps(value)


loads = orjson.loads

#: How a feed item announcing an event starts: the event's id follows (most items are these;
#: as orjson they took 20 bytes more); in a `seq_ids` store, FEED_SEQ and its record's sequence
#: number. Any other item is orjson, starting with "{".
FEED_EVENT = b"e"
FEED_SEQ = b"E"


def event_feed_item(event_key: bytes) -> bytes:
    return FEED_EVENT + event_key


def feed_item(value: bytes) -> FeedItem:
    """A feed item from its bytes."""
    if value[:1] == FEED_EVENT:
        return {"t": "event", "id": value[1:].decode()}
    found: FeedItem = loads(value)
    return found


class Store:
    """The open environment and its named databases."""

    def __init__(
        self, path: Path, env: lmdb.Environment, dbs: dict[str, Any], seq_ids: bool = False
    ) -> None:
        self.path = path
        self.env = env
        self.dbs = dbs
        #: Held by close, remaps and `release_pages`: the map's range stays the map meanwhile.
        self._map_lock = threading.Lock()
        self._closed = False
        #: The descriptor holding the store's lock (`storelock`) while it is open.
        self._users: int | None = None
        #: Events named by sequence number: records hold their ids (`codec.ZSTD_ID`), `ev_keys`
        #: finds them by a hash of the id, and `sess_seqs` and the feed name them by number.
        #: A store created before schema 7 keeps ids in `ev_ids`, `sess_events` and the feed.
        self.seq_ids = seq_ids
        self.ids_db = dbs["ev_keys"] if seq_ids else dbs["ev_ids"]
        self.sess_db = dbs["sess_seqs"] if seq_ids else dbs["sess_events"]
        self.codec = EventCodec(self)

    @classmethod
    def open(cls, home: Path, *, map_size: int = 1 << 30, alone: bool = False) -> Store:
        """The store under `home`, upgraded if it is older. It holds the store's lock shared while
        open (`storelock`), or `alone`: for `compact`, which replaces the data file; StoreBusy
        when that cannot be had."""
        path = home / "store"
        path.mkdir(parents=True, exist_ok=True)
        users = storelock.hold(path, alone=alone)
        try:
            if alone:  # an Origin from before the store's lock holds LMDB's alone
                with storelock.lmdb_alone(path):
                    pass
            store = cls._open(path, map_size)
        except BaseException:
            storelock.release(users)
            raise
        store._users = users
        return store

    @classmethod
    def _open(cls, path: Path, map_size: int) -> Store:
        env = lmdb.open(
            str(path),
            map_size=map_size,
            max_dbs=len(DBS) + 2,
            max_readers=256,
            subdir=True,
            readahead=False,
            # Commits are not fsynced one by one: ingest makes a pass durable at its end, and
            # what the user writes (entries, forgets, tokens) is synced at once (durable=True).
            # LMDB stays consistent either way; an OS crash can only undo the newest commits,
            # and the mirrors are cut back to what LMDB recorded.
            sync=False,
            # Commits write through the map instead of copying every dirty page into the file
            # (random event ids dirty a page per event: gigabytes per million events). The data
            # file then shows the map's size, sparse on disk.
            writemap=True,
        )
        env.reader_check()
        dbs: dict[str, Any] = {}
        with env.begin(write=True) as txn:
            for name in DBS:
                dbs[name] = env.open_db(name.encode(), txn=txn, dupsort=name in DUPSORT)
            found = txn.get(b"schema", db=dbs["meta"])
            if found is None:
                txn.put(b"schema", str(SCHEMA_VERSION).encode(), db=dbs["meta"])
                txn.put(SEQ_IDS, b"seq", db=dbs["meta"])
            elif int(found) > SCHEMA_VERSION:
                env.close()
                raise SchemaMismatch(
                    f"The store at {path} has schema {int(found)}; this Origin knows {SCHEMA_VERSION}. Upgrade Origin."
                )
            seq_ids = txn.get(SEQ_IDS, db=dbs["meta"]) == b"seq"
        store = cls(path, env, dbs, seq_ids)
        if found is not None and int(found) < SCHEMA_VERSION:
            from .migrate import upgrade

            try:
                upgrade(store, SCHEMA_VERSION)
            except BaseException:
                store.close()  # taken up again at the next open
                raise
        return store

    def close(self) -> None:
        with self._map_lock:
            if self._closed:
                return
            self._closed = True
            self.env.close()
            if self._users is not None:
                storelock.release(self._users)
                self._users = None

    def take_lock(self) -> int:
        """The descriptor holding the store's lock, handed to the caller (who releases it with
        `storelock.release`): `compact` keeps the store to itself after closing it, until the
        new data file is in place."""
        users, self._users = self._users, None
        if users is None:
            raise StoreError("This store's lock was handed over already.")
        return users

    def release_pages(self) -> int:
        """Unmap this process's pages of the data file (`pages`: they stay cached, and what a
        write dirtied stays dirty); how many maps were released. Under the lock that closing
        and remapping take, so the range is the store's map while it is released."""
        with self._map_lock:
            if self._closed:
                return 0
            return pages.release(pages.mapped_ranges((self.path / "data.mdb").resolve()))

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions -------------------------------------------------------------------------

    @contextmanager
    def read(self) -> Iterator[lmdb.Transaction]:
        txn = self._begin(write=False)
        try:
            yield txn
        finally:
            txn.abort()

    def write(self, work: Callable[[lmdb.Transaction], T], *, durable: bool = False) -> T:
        """Run `work` in a write transaction; grow the map and run it again if it is full.

        With `durable`, the commit is on disk when this returns (for what a person wrote).
        """
        while True:
            txn = self._begin(write=True)
            try:
                result = work(txn)
                txn.commit()
                if durable:
                    self.sync()
                return result
            except lmdb.MapFullError:
                txn.abort()
                with self._map_lock:
                    self.env.set_mapsize(self.env.info()["map_size"] * 2)
            except BaseException:
                txn.abort()
                raise

    def sync(self) -> None:
        """Flush every commit so far to the disk."""
        self.env.sync(True)

    def _begin(self, *, write: bool) -> lmdb.Transaction:
        try:
            return self.env.begin(write=write, buffers=False)
        except lmdb.MapResizedError:
            # Another process grew the map: adopt its size.
            with self._map_lock:
                self.env.set_mapsize(0)
            return self.env.begin(write=write, buffers=False)

    # -- helpers over a transaction -----------------------------------------------------------

    def get(self, txn: lmdb.Transaction, db: str, key: bytes) -> Any | None:
        raw = txn.get(key, db=self.dbs[db])
        return None if raw is None else loads(raw)

    # -- events: the one place that knows where a record is and how it is kept ----------------

    def event(self, txn: lmdb.Transaction, event_id: str) -> dict[str, Any] | None:
        """An event record, however it is kept (`codec`), or None."""
        key = event_id.encode()
        raw = self.event_value(txn, key)
        if raw is None:
            return None
        try:
            return self.codec.decode(txn, key, raw)
        except CodecError as error:
            raise CodecError(
                f"The stored record of {event_id} cannot be read ({error}); "
                "`origin verify` names every such record."
            ) from None

    def id_key(self, key: bytes) -> bytes:
        """An event id's key in `ids_db`: the id itself, or in a `seq_ids` store a 16-byte hash
        of it (the ids, 48-90 bytes, were a key per event)."""
        return event_hash_key(key) if self.seq_ids else key

    def event_seq(self, txn: lmdb.Transaction, event_id: str) -> int | None:
        """The sequence number an event's record is kept under in `ev`, or None."""
        seq = raw_get(txn, self.id_key(event_id.encode()), self.ids_db)
        return None if seq is None else read_u64(seq)

    def event_value(self, txn: lmdb.Transaction, key: bytes) -> bytes | None:
        """An event record's stored bytes by id: in `ev` through `ids_db`, else (a record from
        before schema 4 not moved yet, or put there by hand) in `events`."""
        seq = raw_get(txn, self.id_key(key), self.ids_db)
        if seq is not None:
            return raw_get(txn, seq, self.dbs["ev"])
        return raw_get(txn, key, self.dbs["events"])

    def event_id_at(self, txn: lmdb.Transaction, seq: int) -> str | None:
        """The id of the event kept at `seq` in `ev` (its record holds it), or None."""
        raw = raw_get(txn, u64(seq), self.dbs["ev"])
        return None if raw is None else self.codec.record_id(raw)

    # -- how a session's events and the feed name an event --------------------------------------

    def session_value(self, time: int, key: bytes, seq: int) -> bytes:
        """An event's value in its session's list (`sess_db`): time then id, or time then
        sequence number in a `seq_ids` store."""
        return session_seq_value(time, seq) if self.seq_ids else session_event_value(time, key)

    def session_value_id(self, txn: lmdb.Transaction, value: bytes) -> str | None:
        """The id of the event a `sess_db` value names."""
        if self.seq_ids:
            return self.event_id_at(txn, session_seq_value_seq(value))
        return session_event_value_id(value)

    def event_feed_item(self, key: bytes, seq: int) -> bytes:
        """The feed item announcing a new event."""
        return FEED_SEQ + u64(seq) if self.seq_ids else event_feed_item(key)

    def feed_item(self, txn: lmdb.Transaction, value: bytes) -> FeedItem:
        """A feed item from its bytes, the event it announces named."""
        if value[:1] == FEED_SEQ and len(value) == 9:
            return {"t": "event", "id": self.event_id_at(txn, read_u64(value[1:])) or ""}
        return feed_item(value)

    def event_text(self, txn: lmdb.Transaction, seq: int) -> str | None:
        """The text of the event at `seq` (what a mirror frame leaves out and puts back:
        `spans`), or None when no such record is kept."""
        raw = raw_get(txn, u64(seq), self.dbs["ev"])
        if raw is None:
            return None
        try:
            text = self.codec.decode(txn, b"", raw).get("text")
        except CodecError:
            return None
        return text if isinstance(text, str) else None

    def span_texts(
        self, txn: lmdb.Transaction, known: Mapping[int, str] | None = None
    ) -> spans.Texts:
        """`event_text` for many events, as `spans.rebuild` asks for them; those in `known`
        (read already by the caller) are not decoded again."""

        def texts(seqs: Iterable[int]) -> dict[int, str]:
            out: dict[int, str] = {}
            for seq in seqs:
                text = known.get(seq) if known else None
                if text is None:
                    text = self.event_text(txn, seq)
                if text is not None:
                    out[seq] = text
            return out

        return texts

    def drop_tail_cuts(
        self, txn: lmdb.Transaction, mirror_id: int, last_line: int | None = None
    ) -> None:
        """Forget the `tail_cuts` of a mirror's lines up to `last_line` (sealed now), or all
        of them (a version frozen with its tail: never sealed)."""
        prefix = mirror_key(mirror_id)
        cursor = txn.cursor(db=self.dbs["tail_cuts"])
        if not cursor.set_range(prefix):
            return
        while cursor_key(cursor).startswith(prefix):
            if last_line is not None and line_of(cursor_key(cursor)) > last_line:
                return
            if not cursor.delete():
                return

    def iter_events(
        self, txn: lmdb.Transaction, unnamed: Callable[[int], None] | None = None
    ) -> Pairs:
        """Every event's (id, stored bytes): in `ev` (by id, or by sequence in a `seq_ids`
        store, whose records hold their ids), then any left in `events`. A record that cannot
        say whose it is (its head damaged) is passed over, its sequence number to `unnamed`."""
        ev = txn.cursor(db=self.dbs["ev"])
        if self.seq_ids:
            record_id = self.codec.record_id
            for key, value in pairs(ev):
                found = record_id(value)
                if found is not None:
                    yield found.encode(), value
                elif unnamed is not None:
                    unnamed(read_u64(key))
        else:
            for key, seq in pairs(txn.cursor(db=self.dbs["ev_ids"])):
                if ev.set_key(seq):
                    yield key, cursor_value(ev)
        yield from pairs(txn.cursor(db=self.dbs["events"]))

    def event_count(self, txn: lmdb.Transaction) -> int:
        return int(txn.stat(self.ids_db)["entries"] + txn.stat(self.dbs["events"])["entries"])

    def put_event_value(self, txn: lmdb.Transaction, key: bytes, value: bytes) -> int:
        """Store an event record's bytes under its id: in place if it is there, else as the
        next sequence number (for upgrades and repairs; ingest appends a batch at once).
        Returns its sequence number (0: kept in `events`, from before schema 4)."""
        id_key = self.id_key(key)
        seq = raw_get(txn, id_key, self.ids_db)
        if seq is None and raw_get(txn, key, self.dbs["events"]) is not None:
            txn.put(key, value, db=self.dbs["events"])
            return 0
        if seq is None:
            seq = self.next_event_seq(txn)
            txn.put(id_key, seq, db=self.ids_db)
        txn.put(seq, value, db=self.dbs["ev"])
        return read_u64(seq)

    def next_event_seq(self, txn: lmdb.Transaction) -> bytes:
        cursor = txn.cursor(db=self.dbs["ev"])
        return u64(read_u64(cursor_key(cursor)) + 1 if cursor.last() else 1)

    def put(self, txn: lmdb.Transaction, db: str, key: bytes, value: Any) -> None:
        txn.put(key, dumps(value), db=self.dbs[db])

    def feed_append(
        self, txn: lmdb.Transaction, items: Sequence[FeedItem] | Sequence[bytes]
    ) -> int:
        """Add changes (dicts, or their bytes already made) to the feed with the next sequence
        numbers; returns the last one."""
        cursor = txn.cursor(db=self.dbs["feed"])
        seq = feed_seq(cursor_key(cursor)) if cursor.last() else 0
        for item in items:
            seq += 1
            cursor.put(feed_key(seq), item if isinstance(item, bytes) else dumps(item), append=True)
        return seq

    def feed_last(self, txn: lmdb.Transaction) -> int:
        cursor = txn.cursor(db=self.dbs["feed"])
        return feed_seq(cursor_key(cursor)) if cursor.last() else 0

    def feed_since(
        self, txn: lmdb.Transaction, after: int, limit: int | None = None
    ) -> Iterator[tuple[int, FeedItem]]:
        for seq, value in self._feed_values(txn, after, limit):
            yield seq, self.feed_item(txn, value)

    def feed_since_events(
        self, txn: lmdb.Transaction, after: int, limit: int | None = None
    ) -> Iterator[tuple[int, FeedItem, EventDoc | None]]:
        """`feed_since`, with each new event's record as `announced` reads it (an index build)."""
        for seq, value in self._feed_values(txn, after, limit):
            yield seq, *self.announced(txn, value)

    def announced(self, txn: lmdb.Transaction, value: bytes) -> tuple[FeedItem, EventDoc | None]:
        """A feed item from its bytes, and the record of the new event it names by sequence
        number, decoded once (None for other items, or a record that cannot be read): naming
        the event decodes its record for its id; reading it by id then costs a hash, a lookup
        in `ev_keys` and the same record decoded again."""
        if value[:1] != FEED_SEQ or len(value) != 9:
            return feed_item(value), None
        raw = raw_get(txn, value[1:], self.dbs["ev"])
        event = None
        if raw is not None:
            try:
                event = self.codec.decode(txn, b"", raw)
            except CodecError:
                event = None
        found = event.get("id") if event is not None else None
        if isinstance(found, str) and found:
            return {"t": "event", "id": found}, cast("EventDoc", event)
        return self.feed_item(txn, value), None  # as feed_item names it ("" when unreadable)

    def _feed_values(
        self, txn: lmdb.Transaction, after: int, limit: int | None
    ) -> Iterator[tuple[int, bytes]]:
        cursor = txn.cursor(db=self.dbs["feed"])
        if not cursor.set_range(feed_key(after + 1)):
            return
        for count, (key, value) in enumerate(pairs(cursor), start=1):
            yield feed_seq(key), value
            if limit is not None and count >= limit:
                return

    def meta_get(self, txn: lmdb.Transaction, key: str) -> Any | None:
        raw = txn.get(key.encode(), db=self.dbs["meta"])
        return None if raw is None else loads(raw)

    def meta_put(self, txn: lmdb.Transaction, key: str, value: Any) -> None:
        txn.put(key.encode(), dumps(value), db=self.dbs["meta"])
