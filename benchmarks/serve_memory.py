"""Memory of ``patgate serve`` under load: the request log is a ring buffer, so RSS stays flat.

Each round starts a fresh ``patgate serve`` (default ``--log-size``), warms it with enough
requests to fill the request log, reads its resident set size, then drives ``requests`` more
hub listings with wrk (the external load generator, on loopback, a PAT as the bearer) and
reads the RSS again. The growth per round is reported as median and min..max over the
rounds; the target is a growth within 5 MB for 100k requests.

Usage: ``python -m benchmarks.serve_memory [--requests 100000] [--rounds 3] [--json PATH]``,
or as ``serve_memory`` in ``python -m benchmarks``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.registry import Benchmark, Plan, Unavailable
from benchmarks.timing import Goal, Result, compare, stats

__all__ = ["BENCHMARKS", "rss_kib", "run"]

GOAL_MB = 5.0

WARMUP = 5000
"""Requests before the first reading: fills the default log (1000) with room to spare."""


def rss_kib(pid: int) -> int:
    """The resident set size of process ``pid`` in KiB (Linux ``/proc``)."""
    status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
    if match is None:
        raise RuntimeError("no VmRSS in /proc status")
    return int(match.group(1))


def _patgate() -> list[str]:
    script = shutil.which("patgate", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "patgate"]


def _wrk(url: str, token: str, requests: int) -> int:
    """Drive at least ``requests`` GETs of ``url`` with wrk; the number actually sent."""
    sent = 0
    while sent < requests:
        out = subprocess.run(
            ["wrk", "-t", "2", "-c", "8", "-d", "5s", "-H", f"Authorization: Bearer {token}", url],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
        match = re.search(r"(\d+) requests in", out)
        if match is None:
            raise RuntimeError(f"wrk printed no request count:\n{out}")
        sent += int(match.group(1))
    return sent


def _round(requests: int, folder: Path, *extra: str) -> tuple[float, int]:
    world_file = folder / "w.json"
    process = subprocess.Popen(
        [*_patgate(), "serve", "--port", "0", "--world", str(world_file), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if "listening on" not in line:
            raise RuntimeError(f"patgate serve did not start: {line!r}")
        world = json.loads(world_file.read_text(encoding="utf-8"))
        url = world["base_url"] + "/v2/content/hubs"
        _wrk(url, world["admin_token"], WARMUP)
        before = rss_kib(process.pid)
        sent = _wrk(url, world["admin_token"], requests)
        after = rss_kib(process.pid)
        return (after - before) / 1024, sent
    finally:
        process.terminate()  # the server this round started, by its handle
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


def _measure(requests: int, rounds: int) -> tuple[list[float], list[float], list[int]]:
    """Per round: growth with the default log, growth with a log that never drops, sent."""
    if shutil.which("wrk") is None:
        raise Unavailable("serve_memory needs wrk on PATH (.ci/counterparts installs it)")
    growth: list[float] = []
    unbounded: list[float] = []
    sent: list[int] = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(rounds):
            mb, count = _round(requests, Path(folder))
            growth.append(mb)
            sent.append(count)
            # The reference: a log larger than the run, as the log was before the ring buffer.
            never_full = ("--log-size", "10000000", "--log-bytes", str(2**40))
            unbounded.append(_round(requests, Path(folder), *never_full)[0])
    return growth, unbounded, sent


def _registered(plan: Plan) -> list[Result]:
    requests = plan.pick(100_000, 20_000)
    growth, unbounded, sent = _measure(requests, plan.rounds_for(3, 1))
    return [
        compare(
            name="serve_memory",
            title=f"patgate serve: RSS growth over {requests:,} requests (wrk, default log)",
            unit="MB",
            a_label="default log",
            a=growth,
            b_label="log never full",
            b=unbounded,
            ratio_label="default / never full",
            goal=Goal("patgate", "<=", GOAL_MB, "growth", "MB"),
            note=f"At least {min(sent):,} hub listings per round after a warm-up of {WARMUP:,}.",
        )
    ]


BENCHMARKS = [
    Benchmark(
        "serve_memory",
        _registered,
        order=90,
        description="serve's memory under wrk: the request log is a ring buffer",
    )
]


def run(requests: int = 100_000, rounds: int = 3) -> dict[str, Any]:
    """Rounds of fresh servers; RSS growth in MB over ``requests`` requests after warm-up."""
    try:
        growth, unbounded, sent = _measure(requests, rounds)
    except Unavailable as missing:
        raise SystemExit(str(missing)) from None
    summary, reference = stats(growth), stats(unbounded)
    return {
        "benchmark": "serve_memory",
        "requests_per_round": min(sent),
        "rss_growth_mb": {"median": summary.median, "min": summary.low, "max": summary.high},
        "rss_growth_mb_log_never_full": {
            "median": reference.median,
            "min": reference.low,
            "max": reference.high,
        },
        "rounds": rounds,
        "target": f"growth within {GOAL_MB:g} MB",
        "within_target": summary.high <= GOAL_MB,
    }


def main(argv: list[str] | None = None) -> int:
    """Print (and optionally write) the result as JSON."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.serve_memory")
    parser.add_argument("--requests", type=int, default=100_000, help="requests per round")
    parser.add_argument("--rounds", type=int, default=3, help="fresh servers to measure")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the JSON here")
    args = parser.parse_args(argv)
    result = run(args.requests, args.rounds)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
