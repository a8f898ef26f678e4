"""Reading the change feed in a second process while this one indexes.

Before tantivy sees a document, Python spends ~21 µs on it (the record read and decompressed,
the analyzer's rewrite, the JSON); tantivy's indexing thread then spends ~25 µs. In one process
the Python side is one thread under the GIL, so a build from nothing kept one of two cores idle
much of the time (1M events: 46 s). For a catch-up of many items (`catchup.FEED_PROCESS_AT`) a
spawned reader does the Python side batch by batch and sends the finished documents over a
pipe, while this process hands them to tantivy and commits.

The reader only reads. The writer lock, the commits and the indexed sequence stay here, so a
kill of either process loses nothing: the next catch-up starts again from the last commit. A
reader that cannot start or ends early costs only speed: this process reads the rest itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from origin_store import Store

    from .feed import Batch


def batches(store: Store, after: int, limit: int) -> Iterator[Batch]:
    """What :func:`feed.read_batches` yields, read by another process where one can start."""
    from .feed import read_batches

    reader = _Reader.start(store, after, limit)
    if reader is None:
        yield from read_batches(store, after, limit)
        return
    try:
        while True:
            try:
                batch = reader.receive()
            except (EOFError, OSError):
                break  # the reader ended early
            if batch is None:
                return  # it read to the end of the feed
            yield batch
            after = batch[2]
    finally:
        reader.stop()
    yield from read_batches(store, after, limit)


class _Reader:
    def __init__(self, process: Any, connection: Any) -> None:  # multiprocessing's own types
        self.process = process
        self.connection = connection

    @classmethod
    def start(cls, store: Store, after: int, limit: int) -> _Reader | None:
        """A reader of the feed after `after`, or None where no process can be started (a
        daemonic process, no resources): the caller reads in process."""
        import multiprocessing

        try:
            context = multiprocessing.get_context("spawn")
            receiving, sending = context.Pipe(duplex=False)
            process = context.Process(
                target=reader_main,
                args=(
                    str(store.path.parent),
                    int(store.env.info()["map_size"]),
                    after,
                    limit,
                    sending,
                    os.getpid(),
                ),
                name="origin-index-reader",
                daemon=True,
            )
            process.start()
        except (OSError, AssertionError, ValueError):  # AssertionError: inside a daemon
            return None
        sending.close()  # only the reader holds it now: its exit ends the pipe
        return cls(process, receiving)

    def receive(self) -> Batch | None:
        found: Batch | None = self.connection.recv()
        return found

    def stop(self) -> None:
        self.connection.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join()


def reader_main(
    home: str, map_size: int, after: int, limit: int, connection: Any, parent: int
) -> None:
    """The reader process: every batch after `after`, then None; it dies with its parent."""
    from origin_store import Store
    from origin_store.system.oshelpers import die_with_parent

    from .feed import read_batches

    die_with_parent(parent)
    store = Store.open(Path(home), map_size=map_size)
    try:
        for batch in read_batches(store, after, limit):
            connection.send(batch)
        connection.send(None)
    finally:
        store.close()
        connection.close()
