"""``python -m benchmarks``: every benchmark side by side, a table, and optionally JSON.

::

    python -m benchmarks                        # the full run (several minutes on two cores)
    python -m benchmarks --quick                # a short run: fewer rounds, noisier
    python -m benchmarks --only world_scale,graphql_documents --json out.json
    python -m benchmarks --json benchmarks/results.json --readme   # and rewrite the table page
    python -m benchmarks --from-json benchmarks/results.json --readme  # the table only
    python -m benchmarks --only pat_cycle --json benchmarks/results.json --merge --readme
                                                # new rows for some, the others kept
    python -m benchmarks --list

Run it from the repository root; some benchmarks need the ``bench`` extra (moto, boto3) or
``wrk`` and are reported as not run without them. Benchmarks are found in this folder (see
``benchmarks/registry.py``); each pair is timed interleaved in one process.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.registry import Plan, Unavailable, discover
from benchmarks.table import merge, render, replace_section
from benchmarks.timing import Result

TABLE_PAGE = Path(__file__).resolve().parents[1] / "docs/reference/benchmarks.md"
"""The page that holds the generated table (on the documentation site, under Reference)."""


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description="patgate's benchmarks, side by side."
    )
    parser.add_argument("--quick", action="store_true", help="fewer rounds: a short, noisier run")
    parser.add_argument("--rounds", type=int, help="rounds for every benchmark (overrides)")
    parser.add_argument("--only", help="comma-separated benchmark names (default: all)")
    parser.add_argument("--skip", help="comma-separated benchmark names to leave out")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results here")
    parser.add_argument(
        "--readme", action="store_true", help="rewrite the table page from these results"
    )
    parser.add_argument(
        "--from-json", type=Path, metavar="PATH", help="run nothing: use the results in PATH"
    )
    parser.add_argument(
        "--merge",
        action="store_true",
        help="with --json PATH: this run's rows replace those of the same name in PATH, "
        "the others are kept (each note names the command that made it)",
    )
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    parser.add_argument("--no-suite", action="store_true", help="same as --skip suite_wall")
    return parser.parse_args(argv)


def _names(value: str | None) -> list[str]:
    return [name.strip() for name in (value or "").split(",") if name.strip()]


def _run(args: argparse.Namespace, argv: list[str] | None) -> dict[str, Any] | int:
    benchmarks = discover()
    known = [entry.name for entry in benchmarks]
    chosen, skipped_names = _names(args.only) or known, _names(args.skip)
    if args.no_suite:
        skipped_names.append("suite_wall")
    unknown = [name for name in [*chosen, *skipped_names] if name not in known]
    if unknown:
        print(f"unknown benchmark {unknown}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    plan = Plan(quick=args.quick, rounds=args.rounds)
    started = time.perf_counter()
    results: list[Result] = []
    skipped: dict[str, str] = {}
    for entry in benchmarks:
        if entry.name not in chosen or entry.name in skipped_names:
            continue
        print(f"running {entry.name} ...", file=sys.stderr, flush=True)
        try:
            results.extend(entry.run(plan))
        except Unavailable as why:
            skipped[entry.name] = str(why)
            print(f"  not run: {why}", file=sys.stderr)
    return {
        "command": "python -m benchmarks " + " ".join(sys.argv[1:] if argv is None else argv),
        "quick": args.quick,
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
        },
        "seconds": round(time.perf_counter() - started, 1),
        "results": [result.to_json() for result in results],
        "skipped": skipped,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks, print the table, write JSON; 0 even when a goal is missed."""
    args = _arguments(argv)
    if args.list:
        for entry in discover():
            print(f"{entry.name:<20} {entry.description}")
        return 0
    if args.rounds is not None and args.rounds < 1:
        print("--rounds must be 1 or more", file=sys.stderr)
        return 2
    saved: dict[str, Any] | None = None
    if args.merge:
        if args.json is None or args.from_json is not None:
            print("--merge needs --json PATH (the saved results) and a run", file=sys.stderr)
            return 2
        try:
            saved = json.loads(args.json.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            print(f"cannot read {args.json}: {error}", file=sys.stderr)
            return 2
    if args.from_json is not None:
        try:
            document = json.loads(args.from_json.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            print(f"cannot read {args.from_json}: {error}", file=sys.stderr)
            return 2
    else:
        outcome = _run(args, argv)
        if isinstance(outcome, int):
            return outcome
        document = outcome if saved is None else merge(saved, outcome)
    section = render(document)
    print(section)
    if args.json is not None and args.from_json is None:
        args.json.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    if args.readme:
        TABLE_PAGE.write_text(
            replace_section(TABLE_PAGE.read_text(encoding="utf-8"), section), encoding="utf-8"
        )
        print(f"rewrote the table in {TABLE_PAGE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
