"""``patgate run`` against the embedded fake: this tree beside the previous release.

Each round runs ``python -m patgate run --report json:...`` (every built-in scenario, the
default ``--concurrency``) once with this tree's ``src`` first on ``PYTHONPATH`` and once
with the previous release's, alternating which goes first. The figure is the **scenario
phase**: the run's own duration from its JSON report (from the first scenario to the last,
the interpreter's start, the imports before the run and the scenario files' loading
excluded, the same for both). The whole command's wall time is given in the note.

The previous release is the newest tag (``git describe --tags --abbrev=0``), else the
``main`` branch; ``PATGATE_BASELINE`` names another git ref, or a folder holding a
``src/patgate`` (with its ``specs`` and ``scenarios`` beside ``src``). The ref's ``src``,
``specs`` and ``scenarios`` are taken with ``git archive`` into a temporary folder.
Goal: the scenario phase in at most half the previous release's.
"""

from __future__ import annotations

import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from benchmarks.registry import Benchmark, Plan, Unavailable
from benchmarks.timing import Goal, Result, compare

__all__ = ["BENCHMARKS", "baseline_source", "run"]

ROOT = Path(__file__).resolve().parents[1]
GOAL = 0.5
"""This tree's scenario phase / the previous release's."""


def _git(*arguments: str) -> bytes:
    done = subprocess.run(
        ["git", *arguments], cwd=ROOT, capture_output=True, timeout=60, check=False
    )
    if done.returncode != 0:
        raise Unavailable(f"git {' '.join(arguments)} failed: {done.stderr.decode().strip()}")
    return done.stdout


def baseline_source(folder: Path, given: str | None = None) -> tuple[Path, str]:
    """The previous release's ``src`` folder (extracted into ``folder`` from git when it is
    a ref) and what it is, for the note."""
    chosen = given if given is not None else os.environ.get("PATGATE_BASELINE")
    if chosen and (Path(chosen) / "src" / "patgate").is_dir():
        return Path(chosen) / "src", chosen
    if not chosen:
        try:
            chosen = _git("describe", "--tags", "--abbrev=0").decode().strip()
        except Unavailable:
            chosen = "main"
    archive = _git("archive", "--format=tar", chosen, "src", "specs", "scenarios")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder / "src", chosen


def _timed_run(source: Path, folder: Path, name: str) -> tuple[float, float]:
    """``(scenario phase, whole command)`` seconds of one ``patgate run`` from ``source``."""
    report = folder / f"report-{name}.json"
    environment = {**os.environ, "PYTHONPATH": str(source)}
    command = [sys.executable, "-m", "patgate", "run", "--report", f"json:{report}"]
    started = time.perf_counter()
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=folder,
        env=environment,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"patgate run from {source} failed:\n{done.stdout}\n{done.stderr}")
    document = json.loads(report.read_text(encoding="utf-8"))
    phase: float = document["duration"]
    return phase, wall


def run(plan: Plan) -> list[Result]:
    """Alternating rounds of this tree and the previous release."""
    rounds = plan.rounds_for(9, 3)
    ours: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory(prefix="patgate-embedded-run-") as name:
        folder = Path(name)
        baseline, label = baseline_source(folder / "baseline")
        here = ROOT / "src"
        _timed_run(here, folder, "warm")  # the first run pays the disk cache
        _timed_run(baseline, folder, "warm")
        for number in range(rounds):
            order = ((here, ours), (baseline, theirs))
            for source, samples in order if number % 2 == 0 else order[::-1]:
                samples.append(_timed_run(source, folder, "round"))
    walls = {
        key: statistics.median(w for _, w in side)
        for key, side in (("ours", ours), ("theirs", theirs))
    }
    return [
        compare(
            name="embedded_run",
            title="patgate run against the embedded fake: the scenario phase",
            unit="ms",
            a_label="this tree",
            a=[phase * 1000 for phase, _ in ours],
            b_label=f"previous release ({label})",
            b=[phase * 1000 for phase, _ in theirs],
            ratio_label="this tree / previous release",
            goal=Goal("ratio", "<=", GOAL, "this tree / previous release"),
            note=(
                f"every built-in scenario at the default --concurrency; the whole command "
                f"(interpreter start, imports, loading, reports): {walls['ours'] * 1000:.0f} ms "
                f"vs {walls['theirs'] * 1000:.0f} ms median"
            ),
            details={
                "command_ms": {key: round(value * 1000, 1) for key, value in walls.items()},
                "baseline": label,
            },
        )
    ]


BENCHMARKS = [
    Benchmark(
        "embedded_run",
        run,
        order=92,
        description="patgate run on the embedded fake: scenario phase vs the previous release",
    )
]
