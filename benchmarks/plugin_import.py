"""Plugin import: what the installed pytest plugin adds to a session that does not use it.

A trivial test file is run in a fresh interpreter (``python -m pytest``), with the plugin
enabled and with ``-p no:patgate``, alternating, many times; the medians are compared.
Goal: at most 50 ms more with the plugin.

Bytecode is cached, as on a developer's machine: the sessions run with
``PYTHONDONTWRITEBYTECODE`` removed and ``PYTHONPYCACHEPREFIX`` pointing into a temporary
folder (so nothing is written into the source tree), and warm-up sessions fill that cache.
Without a cache every session compiles, and assertion-rewrites, each patgate module it
imports: +36 to +70 ms over the session without the plugin, measured here.

Whole sessions vary by tens of milliseconds here, so the import of the plugin module alone
(after pytest's own) is also timed in fresh interpreters and reported in ``details``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.registry import Benchmark, Plan
from benchmarks.timing import Goal, Result, compare, stats, warm_environment

__all__ = ["BENCHMARKS", "run"]

GOAL_MS = 50.0
TRIVIAL_TEST = "def test_nothing():\n    assert True\n"
IMPORT_ONLY = (
    "import time, pytest\n"
    "started = time.perf_counter()\n"
    "import patgate.pytest_plugin\n"
    "print(time.perf_counter() - started)\n"
)


def _session_seconds(folder: Path, *extra: str) -> float:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra]
    started = time.perf_counter()
    completed = subprocess.run(
        [*command, "test_trivial.py"],
        cwd=folder,
        env=warm_environment(folder),
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{completed.stdout}{completed.stderr}")
    return elapsed


def _module_import_seconds(folder: Path) -> float:
    completed = subprocess.run(
        [sys.executable, "-c", IMPORT_ONLY],
        env=warm_environment(folder),
        capture_output=True,
        text=True,
        check=True,
    )
    return float(completed.stdout.strip())


def run(plan: Plan) -> list[Result]:
    """As many sessions with the plugin as without, alternating."""
    rounds = plan.rounds_for(15, 4)
    with tempfile.TemporaryDirectory(prefix="patgate-bench-") as name:
        folder = Path(name)
        # An ini file of its own, so the session does not pick up any project's settings.
        (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        (folder / "test_trivial.py").write_text(TRIVIAL_TEST, encoding="utf-8")
        with_plugin: list[float] = []
        without: list[float] = []
        for _ in range(2):  # fill the bytecode cache, warm the file-system caches
            _session_seconds(folder)
            _session_seconds(folder, "-p", "no:patgate")
        for number in range(rounds):
            if number % 2 == 0:
                with_plugin.append(_session_seconds(folder))
                without.append(_session_seconds(folder, "-p", "no:patgate"))
            else:
                without.append(_session_seconds(folder, "-p", "no:patgate"))
                with_plugin.append(_session_seconds(folder))
        module_import = stats([_module_import_seconds(folder) for _ in range(rounds)], 1000)
    # Neighbouring sessions see the same load: the goal is judged on their differences.
    return [
        compare(
            name="plugin_import",
            title="pytest start-up with the plugin installed, one trivial test",
            unit="ms",
            a_label="plugin enabled",
            a=[sample * 1000 for sample in with_plugin],
            b_label="-p no:patgate",
            b=[sample * 1000 for sample in without],
            ratio_label="enabled / disabled",
            goal=Goal("difference", "<=", GOAL_MS, "enabled - disabled", "ms"),
            details={"plugin_module_import_ms": module_import.median},
        )
    ]


BENCHMARKS = [
    Benchmark("plugin_import", run, order=60, description="pytest start-up with the plugin")
]
