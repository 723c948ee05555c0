"""Timing two things side by side, and judging a goal only when the rounds agree.

This machine is shared and noisy: absolute figures drift by a third between runs while
ratios timed in one process hold. So A and B run in alternating batches (A B, then B A, ...)
in the same process; each batch gives one per-operation sample, each round one sample of
each side, and each round its own ratio. A result reports every figure as median and
min..max over the rounds.

A goal is judged on its measure's per-round values (the ratio, a difference or patgate's
own figure): it is **met** or **missed** only when the middle half of the rounds (the
interquartile range) lies wholly on one side of the goal's threshold and spans at most
:data:`SPREAD` of it; otherwise the verdict is **unsteady**, whatever the median says.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "SPREAD",
    "Goal",
    "Result",
    "Side",
    "Stats",
    "compare",
    "interleave",
    "judge",
    "paired",
    "stats",
]

SPREAD = 0.2
"""The widest interquartile range of a goal's per-round values, as a share of its threshold,
for which a verdict is given."""

Measure = Literal["ratio", "difference", "patgate"]


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
    """Median, min, max and quartiles of a list of samples, in the result's unit."""

    median: float
    low: float
    high: float
    samples: int
    q1: float
    q3: float

    def text(self, digits: int = 3) -> str:
        """``median (min..max)``, rounded to ``digits`` significant decimals."""
        low, high = _number(self.low, digits), _number(self.high, digits)
        return f"{_number(self.median, digits)} ({low}..{high})"


def warm_environment(folder: Path) -> dict[str, str]:
    """The environment of a timed command, as on a user's machine: bytecode is written and
    read (into ``folder``, whatever ``PYTHONDONTWRITEBYTECODE`` says here), so a command
    pays for compiling patgate only in its first round, not in each."""
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    return environment


def _number(value: float, digits: int) -> str:
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}" if abs(value) >= 1 else f"{value:.{digits}f}"


def stats(samples: Sequence[float], scale: float = 1.0) -> Stats:
    """:class:`Stats` of ``samples`` multiplied by ``scale`` (1000 for seconds -> ms)."""
    values = sorted(value * scale for value in samples)
    if not values:
        raise ValueError("no samples")
    if len(values) >= 2:
        q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    else:
        q1 = q3 = values[0]
    return Stats(
        round(statistics.median(values), 4),
        round(values[0], 4),
        round(values[-1], 4),
        len(values),
        round(q1, 4),
        round(q3, 4),
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
    falls on both sides alike. ``warmup`` rounds run first and are dropped. The i-th samples
    of both lists come from the same round.
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


def paired(
    a: Sequence[float], b: Sequence[float], combine: Callable[[float, float], float]
) -> list[float]:
    """``combine(a[i], b[i])`` for each round: per-round ratios or differences."""
    if len(a) != len(b):
        raise ValueError("both sides need one sample per round")
    return [combine(x, y) for x, y in zip(a, b, strict=True)]


@dataclass(frozen=True)
class Goal:
    """What a benchmark must reach: ``measure`` compared with ``threshold``.

    ``measure`` is ``"ratio"`` (the per-round ratio, as the result's ``ratio_label`` reads),
    ``"difference"`` (patgate minus reference, per round, in the result's unit) or
    ``"patgate"`` (patgate's own figure).
    """

    measure: Measure
    op: Literal["<=", ">="]
    threshold: float
    label: str
    """How the measure reads in the table, e.g. ``"fake / bare"`` or ``"median"``."""
    unit: str = ""

    def holds(self, value: float) -> bool:
        """Whether ``value`` meets the goal."""
        return value <= self.threshold if self.op == "<=" else value >= self.threshold

    def text(self) -> str:
        """The goal as the table shows it."""
        unit = f" {self.unit}" if self.unit else ""
        return f"{self.label} {self.op} {self.threshold:g}{unit}"


def judge(goal: Goal, values: Stats, spread: float = SPREAD) -> str:
    """``"met"``, ``"missed"`` or ``"unsteady"`` for the per-round ``values`` of a goal."""
    scale = abs(goal.threshold) or 1.0
    steady = (values.q3 - values.q1) <= spread * scale and goal.holds(values.q1) == goal.holds(
        values.q3
    )
    if not steady:
        return "unsteady"
    return "met" if goal.holds(values.median) else "missed"


@dataclass(frozen=True)
class Result:
    """One benchmark: patgate's side (``a``), the reference (``b``), the goal's measure.

    ``measure`` holds the goal's per-round values (ratios, differences, or ``a`` again);
    ``verdict`` is :func:`judge` of them. ``b`` is ``None`` when there is no reference.
    """

    name: str
    title: str
    unit: str
    a_label: str
    a: Stats
    b_label: str
    b: Stats | None
    ratio_label: str
    """What the ratio divides, e.g. ``"moto / fake"``; empty without a reference."""
    ratio: Stats | None
    goal: Goal
    measure: Stats
    verdict: str
    note: str = ""
    """A sentence shown under the benchmark table (latencies, sizes)."""
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def met(self) -> bool:
        """Whether the goal is met on steady rounds."""
        return self.verdict == "met"

    def to_json(self) -> dict[str, Any]:
        """A plain dict for ``--json``."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Result:
        """The inverse of :meth:`to_json`."""
        fields = dict(data)
        for key in ("a", "b", "ratio", "measure"):
            if fields.get(key) is not None:
                fields[key] = Stats(**fields[key])
        fields["goal"] = Goal(**fields["goal"])
        return cls(**fields)


def compare(
    *,
    name: str,
    title: str,
    unit: str,
    a_label: str,
    a: Sequence[float],
    b_label: str,
    b: Sequence[float] | None,
    ratio_label: str,
    goal: Goal,
    reference_over_patgate: bool = False,
    note: str = "",
    details: dict[str, Any] | None = None,
) -> Result:
    """A :class:`Result` from per-round samples of both sides (already in ``unit``).

    The ratio is ``a / b`` per round, or ``b / a`` with ``reference_over_patgate`` (how
    many times faster than moto, say); ``ratio_label`` says which in words.
    ``goal.measure`` picks which per-round values are judged.
    """
    ratios: list[float] | None = None
    if b is not None:
        ratios = paired(
            a, b, (lambda x, y: y / x) if reference_over_patgate else (lambda x, y: x / y)
        )
    if goal.measure == "ratio":
        if ratios is None:
            raise ValueError("a ratio goal needs a reference")
        measured = ratios
    elif goal.measure == "difference":
        if b is None:
            raise ValueError("a difference goal needs a reference")
        measured = paired(a, b, lambda x, y: x - y)
    else:
        measured = list(a)
    measure = stats(measured)
    return Result(
        name=name,
        title=title,
        unit=unit,
        a_label=a_label,
        a=stats(a),
        b_label=b_label,
        b=stats(b) if b is not None else None,
        ratio_label=ratio_label,
        ratio=stats(ratios) if ratios is not None else None,
        goal=goal,
        measure=measure,
        verdict=judge(goal, measure),
        note=note,
        details=details or {},
    )
