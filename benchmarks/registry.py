"""Which benchmarks exist: every module of this folder that defines ``BENCHMARKS``.

Adding a benchmark is one file: a module ``benchmarks/<name>.py`` with a function
``run(plan: Plan) -> list[Result]`` (see :func:`benchmarks.timing.compare`) and a
module-level ``BENCHMARKS = [Benchmark("<name>", run, order=...)]``. ``python -m benchmarks``
finds it, ``--only <name>`` picks it, and its results join the JSON and the benchmark table.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.timing import Result

__all__ = ["Benchmark", "Plan", "Unavailable", "discover"]

# Modules of this folder that are not benchmarks (the command and its helpers).
_NOT_BENCHMARKS = {"__main__", "registry", "timing", "table"}


@dataclass(frozen=True)
class Plan:
    """How long a run is: ``quick`` for a short, noisier one; ``rounds`` overrides each count."""

    quick: bool = False
    rounds: int | None = None

    def rounds_for(self, full: int, quick: int) -> int:
        """The rounds a benchmark runs: its own full or quick count, unless overridden."""
        if self.rounds is not None:
            return self.rounds
        return quick if self.quick else full

    def pick(self, full: int, quick: int) -> int:
        """A size (batch, seconds) for this run: ``quick`` in a quick run, else ``full``."""
        return quick if self.quick else full


class Unavailable(Exception):
    """A benchmark cannot run here (a missing extra or program); the message says what."""


@dataclass(frozen=True)
class Benchmark:
    """One entry of ``python -m benchmarks``: a name, what it runs, where it sits."""

    name: str
    run: Callable[[Plan], list[Result]]
    order: int = 100
    """Lower runs first (and is listed first); ties go by name."""
    description: str = ""


def discover(folder: Path | None = None) -> list[Benchmark]:
    """Every ``BENCHMARKS`` entry of the modules in ``benchmarks/``, in run order."""
    folder = folder or Path(__file__).resolve().parent
    found: dict[str, Benchmark] = {}
    for module_info in pkgutil.iter_modules([str(folder)]):
        if module_info.name in _NOT_BENCHMARKS or module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"benchmarks.{module_info.name}")
        for entry in getattr(module, "BENCHMARKS", []):
            if entry.name in found:
                raise ValueError(f"two benchmarks are named {entry.name!r}")
            found[entry.name] = entry
    return sorted(found.values(), key=lambda entry: (entry.order, entry.name))
