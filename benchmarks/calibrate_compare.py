"""``patgate calibrate`` plus ``patgate compare`` against one ``patgate run --allow-writes``,
all against a deployment 50 ms away.

``patgate serve`` runs in a process of its own behind the delaying proxy of
:mod:`benchmarks.run_concurrency` (:data:`~benchmarks.run_concurrency.DELAY` before each
request). The target file names only what a real deployment's has: its URLs (through the
proxy) and credentials, no control API, so the probes wait in real time and the run skips
what needs control, as they would against a deployment. Each round runs, in alternating
order, ``patgate calibrate --allow-writes --out ...`` then ``patgate compare --allow-writes``
(the pair is one sample), and ``patgate run --allow-writes`` at its default concurrency; each
command's wall time is measured from its start to its exit (interpreter start included for
every command: the pair pays it twice; bytecode cached, as on a user's machine, by an
untimed first call of each).

Goal: the pair takes no longer than the run (ratio <= 1).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.registry import Benchmark, Plan
from benchmarks.run_concurrency import DELAY, served_behind_proxy
from benchmarks.timing import Goal, Result, compare, warm_environment

__all__ = ["BENCHMARKS", "run"]

_NOT_A_DEPLOYMENTS = ("control_url", "control_token", "ui_url")
"""Keys of a served fake's target file that a real deployment's would not have."""


def _timed(command: list[str], folder: Path, allowed: tuple[int, ...]) -> float:
    """Wall seconds of ``command``; a ``RuntimeError`` for an exit code not ``allowed``."""
    environment = warm_environment(folder)
    started = time.perf_counter()
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=folder,
        env=environment,
    )
    seconds = time.perf_counter() - started
    if done.returncode not in allowed:
        raise RuntimeError(f"{' '.join(command[2:4])} exited {done.returncode}:\n{done.stderr}")
    return seconds


def run(plan: Plan) -> list[Result]:
    """Alternating rounds of the pair and the run, through the proxy."""
    rounds = plan.rounds_for(5, 2)
    pairs: list[float] = []
    runs: list[float] = []
    with tempfile.TemporaryDirectory(prefix="patgate-calibrate-") as name:
        folder = Path(name)
        with served_behind_proxy(folder, leave_out=_NOT_A_DEPLOYMENTS) as (target_file, proxy):
            patgate = [sys.executable, "-m", "patgate"]
            flags = ["--world", str(target_file), "--allow-writes"]
            calibrate = [*patgate, "calibrate", *flags, "--out", str(folder / "profile.yaml")]
            # The fake matches its own default profile: no drift, exit 0.
            compare_ = [*patgate, "compare", *flags]
            gate = [*patgate, "run", *flags]
            requests = {"pair": 0, "run": 0}
            # Untimed: each command once, so the bytecode cache holds what they import.
            for command in (calibrate, gate):
                _timed(command, folder, (0,))
            for number in range(rounds):
                order = ("pair", "run") if number % 2 == 0 else ("run", "pair")
                for which in order:
                    before = proxy.requests
                    if which == "pair":
                        seconds = _timed(calibrate, folder, (0,))
                        seconds += _timed(compare_, folder, (0,))
                        pairs.append(seconds)
                    else:
                        runs.append(_timed(gate, folder, (0,)))
                    requests[which] = proxy.requests - before
    return [
        compare(
            name="calibrate_compare",
            title=f"calibrate + compare vs one run --allow-writes, {DELAY * 1000:g} ms away",
            unit="ms",
            a_label="calibrate + compare",
            a=[seconds * 1000 for seconds in pairs],
            b_label="run --allow-writes",
            b=[seconds * 1000 for seconds in runs],
            ratio_label="(calibrate + compare) / run",
            goal=Goal("ratio", "<=", 1.0, "(calibrate + compare) / run"),
            note=(
                f"requests per sample: calibrate + compare {requests['pair']}, "
                f"run {requests['run']}; wall time of each command, interpreter start included"
            ),
            details={"requests": requests},
        )
    ]


BENCHMARKS = [
    Benchmark(
        "calibrate_compare",
        run,
        order=96,
        description="calibrate + compare vs one run --allow-writes through a 50 ms proxy",
    )
]
