"""Percentiles and latency runs shared by every engine measured, so figures stay comparable.

Percentiles are nearest-rank (the smallest sample with at least p % of samples at or below it),
as in research/perf-baselines.md: no interpolation, every reported figure is a real sample.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

Q = TypeVar("Q")


def percentile(values: Iterable[float], p: float) -> float:
    """Nearest-rank percentile, p in (0, 100]."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values")
    if not 0 < p <= 100:
        raise ValueError(f"percentile must be in (0, 100], got {p}")
    rank = math.ceil(p / 100 * len(ordered))
    return ordered[max(rank, 1) - 1]


def median(values: Iterable[float]) -> float:
    """The plain median (mean of the middle two for an even count), for repeated runs."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("median of no values")
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


@dataclass(frozen=True, slots=True)
class Latency:
    """Milliseconds; n is the number of timed calls behind the figures."""

    p50: float
    p95: float
    p99: float
    n: int
    max: float = 0.0

    def row(self) -> str:
        return f"{self.p50:.2f} / {self.p95:.2f} / {self.p99:.2f} ms (n={self.n})"


def summarize(samples_ms: Sequence[float]) -> Latency:
    return Latency(
        p50=percentile(samples_ms, 50),
        p95=percentile(samples_ms, 95),
        p99=percentile(samples_ms, 99),
        n=len(samples_ms),
        max=max(samples_ms),
    )


def time_calls(fn: Callable[[Q], Any], queries: Sequence[Q], warmup: bool = True) -> list[float]:
    """Per-call wall times in ms. The warm-up pass fills caches so the timed pass is steady."""
    if warmup:
        for q in queries:
            fn(q)
    samples: list[float] = []
    clock = time.perf_counter
    for q in queries:
        t0 = clock()
        fn(q)
        samples.append((clock() - t0) * 1000)
    return samples


def measure_latency(fn: Callable[[Q], Any], queries: Sequence[Q], warmup: bool = True) -> Latency:
    return summarize(time_calls(fn, queries, warmup))


def hit_rate(fn: Callable[[Q], Sequence[Any]], queries: Sequence[Q]) -> float:
    """Fraction of queries with at least one hit: the recall measure used for CJK queries."""
    if not queries:
        return 0.0
    return sum(1 for q in queries if len(fn(q)) > 0) / len(queries)
