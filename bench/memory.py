"""Peak memory of a build step, per process: anonymous memory apart from RSS.

RSS counts the pages of files a process maps (LMDB's map, written through ``writemap``), which
the kernel can drop or write back, so it grows with the store; anonymous memory (``RssAnon``) is
what the process itself holds, the figure the per-process target bounds. A step is sampled from
outside, its own process and every process it starts (ingest workers), since ``ru_maxrss``
sees one process and no anonymous share. Linux only: elsewhere the figures are None.
"""

from __future__ import annotations

import os
import resource
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

PROC = Path("/proc")
FIELDS = {b"RssAnon:": "anon", b"VmHWM:": "hwm"}


def status(pid: int) -> dict[str, int] | None:
    """A process's anonymous resident memory and peak RSS in bytes, None once it has gone."""
    found: dict[str, int] = {}
    try:
        with open(PROC / str(pid) / "status", "rb") as f:
            for row in f:
                name = FIELDS.get(row.split(b"\t", 1)[0].split(b" ", 1)[0])
                if name:
                    found[name] = int(row.split()[1]) * 1024  # reported in kB
    except (OSError, ValueError, IndexError):
        return None
    return found


def descendants(root: int) -> list[int]:
    """``root`` and every process below it, from each process's parent in ``/proc/<pid>/stat``."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir(PROC):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"{entry.path}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()  # the name may hold spaces and parens
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


@dataclass(slots=True)
class Peaks:
    """Per-process peaks over a step: anonymous memory and RSS (``VmHWM``), in bytes."""

    anon: dict[int, int] = field(default_factory=dict)
    rss: dict[int, int] = field(default_factory=dict)
    samples: int = 0

    def add(self, pid: int, figures: dict[str, int]) -> None:
        if "anon" in figures:
            self.anon[pid] = max(self.anon.get(pid, 0), figures["anon"])
        if "hwm" in figures:
            self.rss[pid] = max(self.rss.get(pid, 0), figures["hwm"])

    def summary(self) -> dict[str, int | None]:
        """The largest process's peaks (the per-process target) and how many processes ran."""
        return {
            "peak_anon_bytes": max(self.anon.values(), default=None),
            "peak_rss_bytes": max(self.rss.values(), default=None),
            "processes": len(self.anon) or None,
            "samples": self.samples,
        }


class Sampler:
    """Samples a process tree every ``interval`` seconds on a thread until stopped."""

    def __init__(self, pid: int, interval: float = 0.02) -> None:
        self.pid = pid
        self.interval = interval
        self.peaks = Peaks()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Sampler:
        if PROC.is_dir():
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        # The process list changes slowly: rescan it every tenth sample only.
        tree: list[int] = []
        while not self._stop.is_set():
            if self.peaks.samples % 10 == 0:
                tree = descendants(self.pid)
            for pid in tree:
                figures = status(pid)
                if figures:
                    self.peaks.add(pid, figures)
            self.peaks.samples += 1
            self._stop.wait(self.interval)


@dataclass(slots=True)
class Sampled:
    """A step run to its end: its stdout, wall and CPU seconds, and per-process memory peaks."""

    out: str
    seconds: float
    #: User and system CPU of the step's process and every process it waited for (its ingest
    #: workers, the index's feed reader): on 2 cores a step cannot take less than half of it,
    #: and it moves less than wall time when the machine is busy with something else.
    cpu_seconds: float
    peaks: dict


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_sampled(args: Sequence[str], env: dict[str, str]) -> Sampled:
    """Run a command to its end, sampling its process tree's memory meanwhile."""
    started = time.perf_counter()
    cpu = _children_cpu()
    proc = subprocess.Popen(
        list(args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    with Sampler(proc.pid) as sampler:
        out, err = proc.communicate()
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, list(args), out, err)
    return Sampled(out, seconds, _children_cpu() - cpu, sampler.peaks.summary())
