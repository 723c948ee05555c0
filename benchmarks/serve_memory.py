"""Memory of ``patgate serve`` under load: the request log is a ring buffer, so RSS stays flat.

Each round starts a fresh ``patgate serve`` (default ``--log-size``), warms it with enough
requests to fill the request log, reads its resident set size, then drives ``requests`` more
hub listings with wrk (the external load generator, on loopback, a PAT as the bearer) and
reads the RSS again. The growth per round is reported as median and min..max over the
rounds; the target is a growth within 5 MB for 100k requests.

Usage: ``python -m benchmarks.serve_memory [--requests 100000] [--rounds 3] [--json PATH]``
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

from benchmarks.timing import stats

__all__ = ["rss_kib", "run"]

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


def _round(requests: int, folder: Path) -> tuple[float, int]:
    world_file = folder / "w.json"
    process = subprocess.Popen(
        [*_patgate(), "serve", "--port", "0", "--world", str(world_file)],
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


def run(requests: int = 100_000, rounds: int = 3) -> dict[str, Any]:
    """Rounds of fresh servers; RSS growth in MB over ``requests`` requests after warm-up."""
    if shutil.which("wrk") is None:
        raise SystemExit("serve_memory needs wrk on PATH (.ci/counterparts installs it)")
    growth: list[float] = []
    sent: list[int] = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(rounds):
            mb, count = _round(requests, Path(folder))
            growth.append(mb)
            sent.append(count)
    summary = stats(growth)
    return {
        "benchmark": "serve_memory",
        "requests_per_round": min(sent),
        "rss_growth_mb": {"median": summary.median, "min": summary.low, "max": summary.high},
        "rounds": rounds,
        "target": "growth within 5 MB",
        "within_target": summary.high <= 5.0,
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
