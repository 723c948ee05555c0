"""``python -m benchmarks``: every benchmark side by side, a table, and optionally JSON.

::

    python -m benchmarks                 # the full run (a few minutes on two cores)
    python -m benchmarks --quick         # a short run: fewer rounds, noisier
    python -m benchmarks --json out.json --only pat_cycle,hubs_get

Needs the ``bench`` extra (moto, boto3). Run it from the repository root. Each pair is
timed interleaved in one process; the figures to quote are the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.timing import Result


@dataclass(frozen=True)
class Plan:
    """How much of each benchmark to run: rounds (samples per side) and batch sizes."""

    rounds: int
    fresh_rounds: int
    plugin_rounds: int
    suite_rounds: int
    cycle_batch: int = 20
    get_batch: int = 50
    loopback_batch: int = 200


FULL = Plan(rounds=30, fresh_rounds=30, plugin_rounds=15, suite_rounds=3)
QUICK = Plan(rounds=8, fresh_rounds=8, plugin_rounds=4, suite_rounds=1, loopback_batch=100)


def _benchmarks(plan: Plan) -> dict[str, Callable[[], Result]]:
    from benchmarks import (
        fresh_test,
        hubs_get,
        loopback,
        memory,
        pat_cycle,
        per_test,
        plugin_import,
    )

    return {
        "pat_cycle": lambda: pat_cycle.run(plan.rounds, plan.cycle_batch),
        "hubs_get": lambda: hubs_get.run(plan.rounds, plan.get_batch, bearer="client"),
        "hubs_get_pat": lambda: hubs_get.run(plan.rounds, plan.get_batch, bearer="pat"),
        "fresh_test": lambda: fresh_test.run(plan.fresh_rounds),
        "loopback": lambda: loopback.run(plan.rounds, plan.loopback_batch, bearer="client"),
        "loopback_pat": lambda: loopback.run(plan.rounds, plan.loopback_batch, bearer="pat"),
        "plugin_import": lambda: plugin_import.run(plan.plugin_rounds),
        "per_test": lambda: per_test.run(plan.suite_rounds + 2),
        "memory": lambda: memory.run(plan.suite_rounds),
    }


def _suite_wall(rounds: int) -> dict[str, Any]:
    """The built-in suite's wall time, from ``benchmarks/suite_wall.py`` when it offers one."""
    try:
        from benchmarks import suite_wall
    except ImportError as error:
        return {"skipped": f"benchmarks/suite_wall.py cannot be imported: {error}"}
    main = getattr(suite_wall, "main", None)
    if not callable(main):
        return {"skipped": "benchmarks/suite_wall.py has no main(rounds) function"}
    try:
        figures: dict[str, Any] = main(rounds)
    except (Exception, SystemExit) as error:
        # It belongs to the suite under measurement; a failure there must not lose the rest.
        return {"skipped": f"benchmarks/suite_wall.py failed: {type(error).__name__}: {error}"}
    return figures


def _figure(value: float, unit: str) -> str:
    return f"{value:,.0f} {unit}" if unit == "req/s" else f"{value:.3f} {unit}"


def _table(results: list[Result]) -> str:
    header = ("benchmark", "patgate (median)", "reference (median)", "ratio", "goal", "met")
    rows = [header]
    for result in results:
        rows.append(
            (
                result.name,
                _figure(result.a.median, result.unit),
                _figure(result.b.median, result.unit),
                f"{result.ratio:g} ({result.ratio_label})",
                result.goal,
                "yes" if result.met else "NO",
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(line.rstrip() for line in lines)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description="patgate's benchmarks, side by side."
    )
    parser.add_argument("--quick", action="store_true", help="fewer rounds: a short, noisier run")
    parser.add_argument("--rounds", type=int, help="samples per side for the timed pairs")
    parser.add_argument("--only", help="comma-separated benchmark names (default: all)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results here")
    parser.add_argument("--no-suite", action="store_true", help="skip the suite wall time")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks, print the table, write JSON; 0 even when a goal is missed."""
    args = _arguments(argv)
    plan = QUICK if args.quick else FULL
    if args.rounds is not None:
        if args.rounds < 1:
            print("--rounds must be 1 or more", file=sys.stderr)
            return 2
        plan = Plan(args.rounds, args.rounds, args.rounds, plan.suite_rounds)
    available = _benchmarks(plan)
    known = [*available, "suite_wall"]
    chosen = known if not args.only else [name.strip() for name in args.only.split(",")]
    unknown = [name for name in chosen if name not in known]
    if unknown:
        print(f"unknown benchmark {unknown}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    run_suite = "suite_wall" in chosen and not args.no_suite
    chosen = [name for name in chosen if name != "suite_wall"]
    started = time.perf_counter()
    results: list[Result] = []
    for name in chosen:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        results.append(available[name]())
    if run_suite:
        print("running suite_wall ...", file=sys.stderr, flush=True)
    suite = _suite_wall(plan.suite_rounds) if run_suite else None
    print(_table(results))
    if suite is not None:
        if "skipped" in suite:
            print(f"suite_wall: skipped ({suite['skipped']})")
        else:
            print(f"suite_wall: built-in suite, median {suite['total']['median'] * 1000:.0f} ms")
    if args.json is not None:
        document = {
            "command": "python -m benchmarks " + " ".join(sys.argv[1:] if argv is None else argv),
            "quick": args.quick,
            "plan": plan.__dict__,
            "machine": {
                "python": platform.python_version(),
                "platform": platform.platform(),
                "cpus": os.cpu_count(),
            },
            "seconds": round(time.perf_counter() - started, 1),
            "results": [result.to_json() for result in results],
            "suite_wall": suite,
        }
        args.json.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
