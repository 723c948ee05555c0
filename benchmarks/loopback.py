"""Loopback throughput under an external load generator: ``patgate serve`` against a bare
stdlib ``ThreadingHTTPServer`` returning the same bytes, both loaded by wrk in one run.

Each server runs in a process of its own; wrk (keep-alive, one thread) loads one of them at
a time for a few seconds, at 1, 4 and 16 connections, for two requests:

- the hubs GET with the admin's PAT as the bearer (goal: at least 0.7x the bare server);
- the GraphQL token listing, a POST with the same PAT (goal: at least 0.5x).

The bare server answers each with the page the fake gave for it, canned. Rounds alternate
which server goes first. Figures: requests per second, and wrk's p50 and p99 latencies.
wrk comes from Debian's packages (``apt-get install wrk``; ``.ci/counterparts`` installs it).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.registry import Benchmark, Plan, Unavailable
from benchmarks.timing import Goal, Result, compare, stats

__all__ = ["BENCHMARKS", "LISTING", "run", "serve", "wrk"]

HERE = Path(__file__).resolve().parent
LUA = HERE / "wrk_request.lua"
CONNECTIONS = (1, 4, 16)
LISTING = "{ viewer { personalAccessTokens { id name token createdDate lastUsedDate } } }"
GOALS = {"hubs": 0.7, "graphql": 0.5}


@contextmanager
def serve(command: list[str]) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """Start ``command`` (a server printing ``listening on URL``); yield the URL; stop it."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=HERE.parent
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if "listening on " not in line:
            process.kill()
            _, error = process.communicate(timeout=10)
            raise RuntimeError(f"{' '.join(command)} did not start: {line}{error}")
        yield line.split("listening on ", 1)[1].strip(), process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


def wrk(url: str, *, connections: int, seconds: float, token: str, body: Path | None) -> dict:
    """One wrk run; its summary (requests, duration, errors, p50 and p99 in microseconds)."""
    environment = dict(os.environ, PATGATE_WRK_TOKEN=token)
    if body is not None:
        environment["PATGATE_WRK_BODY"] = str(body)
    command = [
        "wrk",
        "-t1",
        f"-c{connections}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "10s",
        "-s",
        str(LUA),
        url,
    ]
    done = subprocess.run(
        command, env=environment, capture_output=True, text=True, timeout=seconds + 60, check=False
    )
    summaries = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not summaries:
        raise RuntimeError(f"wrk failed: {done.stdout}{done.stderr}")
    summary: dict = json.loads(summaries[-1])
    if summary["socket_errors"] or summary["status_errors"]:
        raise RuntimeError(f"wrk saw errors against {url}: {summary}")
    summary["rps"] = summary["requests"] / (summary["duration_us"] / 1e6)
    return summary


def run(plan: Plan) -> list[Result]:
    """Load both servers at each connection count, alternating, for each request."""
    if shutil.which("wrk") is None:
        raise Unavailable("needs wrk (apt-get install wrk)")
    import httpx

    rounds, seconds = plan.rounds_for(3, 2), plan.pick(3, 1)
    samples: dict[tuple[str, int, str], list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="patgate-wrk-") as name:
        folder = Path(name)
        world_file = folder / "world.json"
        patgate = [sys.executable, "-m", "patgate", "serve", "--world", str(world_file)]
        with serve(patgate) as (fake_url, _):
            world = json.loads(world_file.read_text(encoding="utf-8"))
            token = world["admin_token"]
            auth = {"Authorization": "Bearer " + token}
            listing = folder / "listing.json"
            listing.write_text(json.dumps({"query": LISTING}), encoding="utf-8")
            with httpx.Client() as http:
                hubs_page = http.get(fake_url + "/v2/content/hubs", headers=auth)
                graphql_page = http.post(
                    world["graphql_url"], headers=auth, json={"query": LISTING}
                )
            for answer in (hubs_page, graphql_page):
                answer.raise_for_status()
            (folder / "get.json").write_bytes(hubs_page.content)
            (folder / "post.json").write_bytes(graphql_page.content)
            bare = [
                sys.executable,
                "-m",
                "benchmarks._bare_server",
                str(folder / "get.json"),
                str(folder / "post.json"),
            ]
            with serve(bare) as (bare_url, _):
                targets = {
                    "hubs": (fake_url + "/v2/content/hubs", bare_url + "/v2/content/hubs", None),
                    "graphql": (world["graphql_url"], bare_url + "/graphql", listing),
                }
                for number in range(rounds):
                    for request, (fake_target, bare_target, body) in targets.items():
                        for connections in CONNECTIONS:
                            order = [("patgate", fake_target), ("bare", bare_target)]
                            for side, url in order if number % 2 == 0 else order[::-1]:
                                samples.setdefault((request, connections, side), []).append(
                                    wrk(
                                        url,
                                        connections=connections,
                                        seconds=seconds,
                                        token=token,
                                        body=body,
                                    )
                                )
                                time.sleep(0.2)  # let lingering connections close
    return [
        _result(request, connections, samples, seconds)
        for request in GOALS
        for connections in CONNECTIONS
    ]


def _result(request: str, connections: int, samples: dict, seconds: float) -> Result:
    fake, bare = samples[(request, connections, "patgate")], samples[(request, connections, "bare")]
    label = "hubs GET, PAT" if request == "hubs" else "GraphQL token listing, PAT"

    def latency(runs: list[dict], key: str) -> str:
        return f"{stats([run[key] / 1000 for run in runs]).median:.2f}"

    note = (
        f"p50/p99 {latency(fake, 'p50_us')}/{latency(fake, 'p99_us')} ms against"
        f" {latency(bare, 'p50_us')}/{latency(bare, 'p99_us')} ms."
    )
    return compare(
        name=f"loopback_{request}_c{connections}",
        title=f"Loopback under wrk, {label}, {connections} connection{'s' * (connections > 1)}",
        unit="req/s",
        a_label="patgate serve",
        a=[run["rps"] for run in fake],
        b_label="bare ThreadingHTTPServer",
        b=[run["rps"] for run in bare],
        ratio_label="patgate / bare",
        goal=Goal("ratio", ">=", GOALS[request], "patgate / bare"),
        note=note,
        details={
            "seconds_per_run": seconds,
            "patgate_p50_ms": [run["p50_us"] / 1000 for run in fake],
            "patgate_p99_ms": [run["p99_us"] / 1000 for run in fake],
            "bare_p50_ms": [run["p50_us"] / 1000 for run in bare],
            "bare_p99_ms": [run["p99_us"] / 1000 for run in bare],
        },
    )


BENCHMARKS = [
    Benchmark("loopback", run, order=40, description="patgate serve against a bare server, wrk")
]
