"""CLI start-up: ``patgate --help`` in a fresh interpreter, over a bare one.

The console script's own call (``from patgate.cli import main; main(["--help"])``) and
``python -c pass`` run in fresh interpreters, alternating; each round gives one sample of
each and their difference. Goal: at most 80 ms more than the bare interpreter.

Bytecode is cached, as on a user's machine: the interpreters run with
``PYTHONDONTWRITEBYTECODE`` removed and ``PYTHONPYCACHEPREFIX`` pointing into a temporary
folder (nothing is written into the source tree); warm-up rounds fill that cache.

Wall times on a shared machine swing with its load, so the CPU time (user + system) each
interpreter took is reported too, in ``details``: it moves far less with the neighbours.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.registry import Benchmark, Plan
from benchmarks.timing import Goal, Result, compare, stats, warm_environment

__all__ = ["BENCHMARKS", "run"]

GOAL_MS = 80.0
HELP = "import sys; from patgate.cli import main; sys.exit(main(['--help']))"
BARE = "pass"


def _seconds(code: str, environment: dict[str, str], cpu: list[float] | None = None) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-c", code],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if cpu is not None:
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        cpu.append(used * 1000)
    if completed.returncode != 0:
        raise RuntimeError(f"python -c {code!r} failed:\n{completed.stderr}")
    return elapsed


def run(plan: Plan) -> list[Result]:
    """As many ``patgate --help`` starts as bare interpreters, alternating."""
    rounds = plan.rounds_for(30, 8)
    with tempfile.TemporaryDirectory(prefix="patgate-bench-") as name:
        environment = warm_environment(Path(name))
        for _ in range(2):  # fill the bytecode cache, warm the file-system caches
            _seconds(HELP, environment)
            _seconds(BARE, environment)
        helped: list[float] = []
        bare: list[float] = []
        helped_cpu: list[float] = []
        bare_cpu: list[float] = []
        for number in range(rounds):
            pair = [(HELP, helped, helped_cpu), (BARE, bare, bare_cpu)]
            for code, samples, cpu in pair if number % 2 == 0 else reversed(pair):
                samples.append(_seconds(code, environment, cpu) * 1000)
    cpu_difference = stats([a - b for a, b in zip(helped_cpu, bare_cpu, strict=True)])
    return [
        compare(
            name="cli_start",
            title="patgate --help in a fresh interpreter",
            unit="ms",
            a_label="patgate --help",
            a=helped,
            b_label="python -c pass",
            b=bare,
            ratio_label="--help / bare",
            goal=Goal("difference", "<=", GOAL_MS, "--help - bare", "ms"),
            details={
                "help_cpu_ms": stats(helped_cpu).text(),
                "bare_cpu_ms": stats(bare_cpu).text(),
                "cpu_difference_ms": cpu_difference.text(),
            },
        )
    ]


BENCHMARKS = [Benchmark("cli_start", run, order=61, description="patgate --help start-up")]
