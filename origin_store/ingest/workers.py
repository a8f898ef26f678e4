"""Worker processes sharing a large backfill: spawned, each opening the store, dying with their parent."""

from __future__ import annotations

import os
import queue as queue_module
from collections.abc import Callable
from typing import Any

from ..settings import Settings
from .discovery import LogFile
from .report import IngestReport, Progress

#: What a worker runs: (environment, its files, the queue it reports to, the parent's pid).
WorkerMain = Callable[[dict[str, str], list[LogFile], Any, int], None]


class Child:
    """A worker process ingesting a group of files; it dies with its parent (SIGKILL included)."""

    def __init__(self, process: Any, queue: Any) -> None:  # multiprocessing's Process and Queue
        self.process = process
        self.queue = queue
        self.result: dict[str, Any] | None = None

    def drain(self, progress: Progress | None, block: bool = False) -> None:
        while self.result is None:
            try:
                item = self.queue.get(timeout=0.2) if block else self.queue.get_nowait()
            except queue_module.Empty:
                if block and not self.process.is_alive():
                    self.result = {
                        "errors": [f"an ingest worker ended with code {self.process.exitcode}"]
                    }
                return
            if isinstance(item, int):
                if progress:
                    progress(item)
            else:
                self.result = item

    def finish(self, progress: Progress | None) -> IngestReport:
        while self.result is None:
            self.drain(progress, block=True)
        self.process.join()
        return IngestReport.from_dict(self.result)


def spawn(settings: Settings, logs: list[LogFile], main: WorkerMain) -> Child:
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(
        target=main, args=(dict(settings.environ), logs, queue, os.getpid()), daemon=True
    )
    process.start()
    return Child(process, queue)


def relay(progress: Progress | None, children: list[Child]) -> Progress | None:
    """This process's progress callback, also passing on what the workers report."""
    if not children:
        return progress

    def report(count: int) -> None:
        if progress:
            progress(count)
        for child in children:
            child.drain(progress)

    return report


def balance(logs: list[LogFile], workers: int) -> list[list[LogFile]]:
    """Files in `workers` groups of about equal bytes, the largest files placed first."""
    if workers <= 1:
        return [logs]
    sizes = []
    for log in logs:
        try:
            sizes.append((log.path.stat().st_size, log))
        except OSError:
            sizes.append((0, log))
    groups: list[list[LogFile]] = [[] for _ in range(workers)]
    loads = [0] * workers
    for size, log in sorted(sizes, key=lambda item: -item[0]):
        target = loads.index(min(loads))
        groups[target].append(log)
        loads[target] += size
    return [g for g in groups if g] or [[]]
