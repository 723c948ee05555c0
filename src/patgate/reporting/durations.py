"""Where a run's time went: the slowest scenarios and steps (``patgate run --durations N``).

Read from the run's :class:`~patgate.runner.results.events.RunFinished` alone, as every
reporter reads events: each scenario's duration, and each step's
(:class:`~patgate.runner.results.events.StepTime`, repeats, retries and waits included).
Skipped scenarios that never sent a request are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from patgate.runner.results.events import RunFinished

__all__ = ["slowest"]

_SHOWN_BELOW = 0.0005
"""Times under half a millisecond are left out, as pytest leaves out its shortest ones."""


def slowest(runs: Sequence[tuple[str, RunFinished]], count: int) -> list[str]:
    """The lines to print for ``count`` slowest scenarios and steps (``0``: every one) of
    each ``(target label, finished run)``; ``[]`` when there is nothing to show."""
    scenarios: list[tuple[float, str]] = []
    steps: list[tuple[float, str]] = []
    several = len(runs) > 1
    for label, finished in runs:
        where = f"{label}: " if several and label else ""
        for result in finished.scenarios:
            if not result.steps:
                continue
            scenarios.append((result.duration, f"{where}{result.scenario_id}"))
            source = _shown(result.source.rpartition(":")[0])
            for step in result.steps:
                at = f"{source}:{step.line}" if source else f"line {step.line}"
                part = " (cleanup)" if step.cleanup else ""
                name = f"{where}{result.scenario_id}: {step.name}{part} ({at})"
                steps.append((step.seconds, name))
    lines: list[str] = []
    for title, timed in (("scenarios", scenarios), ("steps", steps)):
        timed.sort(key=lambda item: item[0], reverse=True)
        shown = [
            item for item in (timed if count == 0 else timed[:count]) if item[0] >= _SHOWN_BELOW
        ]
        if not shown:
            continue
        heading = f"slowest {len(shown)} {title}" if count else f"every {title[:-1]}, slowest first"
        lines.append(f"{heading}:")
        lines += [f"  {seconds * 1000:8.1f} ms  {name}" for seconds, name in shown]
    return lines


def _shown(source: str) -> str:
    """A scenario file's path, relative to the working folder when it lies inside it."""
    if not source:
        return source
    try:
        return str(Path(source).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return source
