"""Wall time of the built-in conformance suite against the embedded fake.

Prints one JSON object: the median (and min, max) of N runs for three spans, all in
seconds and in this one process (interpreter start excluded):

- ``load``: reading and validating every built-in scenario file;
- ``fake``: building a fresh embedded fake with its default world;
- ``run``: ``run()`` of every scenario, from the first event to the last;
- ``total``: the three together, as ``patgate run`` spends them (reporters aside).

The first round also pays the one-off imports (httpx, graphql-core, jsonschema, faker);
it is reported apart as ``first_round``. Usage: ``python -m benchmarks.suite_wall [N]``.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from benchmarks.registry import Benchmark, Plan
from benchmarks.timing import Goal, Result, compare

GOAL_MS = 2000.0


def _timed(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = action()
    return time.perf_counter() - started, value


def _round() -> dict[str, float]:
    from patgate.basics.resources import scenarios_dir
    from patgate.runner import FakeTarget, run
    from patgate.runner.results.events import RunFinished
    from patgate.scenario import load_scenarios

    load, scenarios = _timed(lambda: load_scenarios([scenarios_dir()]))
    fake, target = _timed(FakeTarget)
    spent, events = _timed(lambda: list(run(scenarios, target)))
    last = events[-1]
    if not isinstance(last, RunFinished) or last.exit_code != 0:
        raise SystemExit("the built-in suite must pass against the embedded fake")
    return {"load": load, "fake": fake, "run": spent, "total": load + fake + spent}


def main(rounds: int) -> dict[str, Any]:
    from patgate.basics.resources import scenarios_dir

    # Each round loads the files anew: the loader's caches hold the schema, not the files.
    first = _round()
    samples = [_round() for _ in range(rounds)]
    result: dict[str, Any] = {"rounds": rounds, "first_round": first}
    for key in ("load", "fake", "run", "total"):
        values = [sample[key] for sample in samples]
        result[key] = {
            "median": round(statistics.median(values), 4),
            "min": round(min(values), 4),
            "max": round(max(values), 4),
        }
    result["scenario_files"] = len(list(scenarios_dir().glob("*.yaml")))
    return result


def run(plan: Plan) -> list[Result]:
    """The suite's total wall time per round (the first round, paying imports, dropped)."""
    _round()
    samples = [_round() for _ in range(plan.rounds_for(5, 2))]
    return [
        compare(
            name="suite_wall",
            title="The built-in conformance suite against the embedded fake",
            unit="ms",
            a_label="load + fake + run",
            a=[sample["total"] * 1000 for sample in samples],
            b_label="",
            b=None,
            ratio_label="",
            goal=Goal("patgate", "<=", GOAL_MS, "total", "ms"),
            details={
                key: round(statistics.median(sample[key] for sample in samples) * 1000, 1)
                for key in ("load", "fake", "run")
            },
        )
    ]


BENCHMARKS = [Benchmark("suite_wall", run, order=90, description="the built-in suite's wall")]


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    print(json.dumps(main(count), indent=2))
