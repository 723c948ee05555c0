"""Timing two things side by side: alternating batches, medians, and one result per pair.

This machine is shared and noisy: absolute figures drift by a third between runs while
ratios timed in one process hold. So A and B run in alternating batches (A B, then B A, ...)
in the same process, each batch gives one per-operation sample, and a pair reports the
median of each side and their ratio.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Result", "Side", "Stats", "interleave", "stats"]


@dataclass(frozen=True)
class Side:
    """One contender: ``operation`` is timed; ``enter`` and ``exit`` bracket each batch untimed.

    ``enter``/``exit`` let two interceptions that would see each other's requests take turns.
    """

    label: str
    operation: Callable[[], object]
    enter: Callable[[], object] | None = None
    exit: Callable[[], object] | None = None


@dataclass(frozen=True)
class Stats:
    """Median, min and max of a list of samples, in the result's unit."""

    median: float
    low: float
    high: float
    samples: int


def stats(samples: list[float], scale: float = 1.0) -> Stats:
    """:class:`Stats` of ``samples`` multiplied by ``scale`` (1000 for seconds -> ms)."""
    values = [value * scale for value in samples]
    return Stats(
        round(statistics.median(values), 4),
        round(min(values), 4),
        round(max(values), 4),
        len(values),
    )


def _batch(side: Side, size: int) -> float:
    if side.enter is not None:
        side.enter()
    try:
        operation = side.operation
        started = time.perf_counter()
        for _ in range(size):
            operation()
        elapsed = time.perf_counter() - started
    finally:
        if side.exit is not None:
            side.exit()
    return elapsed / size


def interleave(
    a: Side, b: Side, *, rounds: int, batch: int, warmup: int = 1
) -> tuple[list[float], list[float]]:
    """Seconds per operation of ``a`` and ``b``: one sample per batch, ``rounds`` each.

    The order alternates every round (AB, BA, AB, ...) so a drift in the machine's speed
    falls on both sides alike. ``warmup`` rounds run first and are dropped.
    """
    for _ in range(warmup):
        _batch(a, batch)
        _batch(b, batch)
    samples_a: list[float] = []
    samples_b: list[float] = []
    for number in range(rounds):
        if number % 2 == 0:
            samples_a.append(_batch(a, batch))
            samples_b.append(_batch(b, batch))
        else:
            samples_b.append(_batch(b, batch))
            samples_a.append(_batch(a, batch))
    return samples_a, samples_b


@dataclass(frozen=True)
class Result:
    """One benchmark: patgate's side (``a``), the reference (``b``), their ratio, the goal."""

    name: str
    title: str
    unit: str
    a_label: str
    a: Stats
    b_label: str
    b: Stats
    ratio: float
    ratio_label: str
    """What ``ratio`` divides, e.g. ``"moto / fake"``."""
    goal: str
    met: bool
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """A plain dict for ``--json``."""
        return asdict(self)
