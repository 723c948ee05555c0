"""``patgate serve`` against WireMock standalone and a bare stdlib server, loaded by wrk.

Three servers, each in a process of its own, answer the same two requests with the same
bytes:

- ``patgate serve`` (the fake: routing, the PAT's authentication, the request log, the
  endpoint);
- WireMock standalone (``benchmarks/_wiremock.py``), the usual stub server of JVM projects,
  with two stubs matching the method, the path, the bearer and (for the POST) the JSON body,
  answering the page ``patgate serve`` gave, and its request journal bounded to 1000
  entries as patgate's request log is;
- a bare stdlib ``ThreadingHTTPServer`` (``benchmarks/_bare_server.py``) answering the same
  pages canned, the floor of what a Python server costs.

The requests: the hubs GET with the admin's PAT as the bearer, and the GraphQL token
listing (a POST with the same PAT). wrk (one thread, keep-alive) loads one server at a
time for a few seconds, at 1, 4 and 16 connections. Each server is warmed first (the JVM
compiles as it runs); then every round loads each server once per request and connection
count, in an order that rotates every round. Each result is patgate's requests/s with the
per-round ratio to one reference. Goals: at least WireMock's throughput on the hubs GET at
every connection count, at least 0.7x the bare server on both requests, and patgate's
throughput at 16 connections at least what it is at 1 (it must not fall as clients are
added).

WireMock needs Java (``apt-get install default-jre-headless``) and its jar (``python -m
benchmarks._wiremock``); without them it is left out, said on stderr and in the first
result's note, and patgate is still measured against the bare server.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import _wiremock
from benchmarks.loopback import LISTING, serve, wrk
from benchmarks.registry import Benchmark, Plan, Unavailable
from benchmarks.timing import Goal, Result, compare

__all__ = ["BENCHMARKS", "CONNECTIONS", "GOALS", "run"]

CONNECTIONS = (1, 4, 16)
REQUESTS = {"hubs": "hubs GET, PAT", "graphql": "GraphQL token listing, PAT"}
GOALS = {("wiremock", "hubs"): 1.0, ("bare", "hubs"): 0.7, ("bare", "graphql"): 0.7}
"""patgate's requests/s over the reference's, at least, per (reference, request)."""
SCALING_GOAL = 1.0
"""patgate's requests/s at 16 connections over those at 1, at least."""
LABELS = {
    "patgate": "patgate serve",
    "wiremock": f"WireMock {_wiremock.VERSION}",
    "bare": "bare ThreadingHTTPServer",
}


@dataclass(frozen=True)
class _Target:
    """Where one server answers a request, and what wrk sends."""

    url: str
    token: str
    body: Path | None


def run(plan: Plan) -> list[Result]:
    """Load every server in turn at each connection count and request; rotate the order."""
    if shutil.which("wrk") is None:
        raise Unavailable("needs wrk (apt-get install wrk)")
    not_run = _wiremock.missing()
    if not_run:
        print(f"  WireMock not run: {not_run}", file=sys.stderr)
    rounds, seconds, warmup = plan.rounds_for(5, 2), plan.pick(2, 1), plan.pick(5, 2)
    samples: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="patgate-wiremock-") as name, ExitStack() as stack:
        folder = Path(name)
        world_file = folder / "world.json"
        patgate = [sys.executable, "-m", "patgate", "serve", "--world", str(world_file)]
        patgate_url, _ = stack.enter_context(serve(patgate))
        world = json.loads(world_file.read_text(encoding="utf-8"))
        token = world["admin_token"]
        listing = folder / "listing.json"
        listing.write_text(json.dumps({"query": LISTING}), encoding="utf-8")
        targets = {
            "patgate": {
                "hubs": _Target(patgate_url + "/v2/content/hubs", token, None),
                "graphql": _Target(world["graphql_url"], token, listing),
            }
        }
        pages = _pages(targets["patgate"])
        (folder / "get.json").write_bytes(pages["hubs"])
        (folder / "post.json").write_bytes(pages["graphql"])
        bare = [sys.executable, "-m", "benchmarks._bare_server"]
        bare_url, _ = stack.enter_context(
            serve([*bare, str(folder / "get.json"), str(folder / "post.json")])
        )
        targets["bare"] = {
            "hubs": _Target(bare_url + "/v2/content/hubs", "unused", None),
            "graphql": _Target(bare_url + "/graphql", "unused", listing),
        }
        if not not_run:
            stubs = [
                _wiremock.Stub("hubs", "GET", "/v2/content/hubs", token, pages["hubs"]),
                _wiremock.Stub(
                    "graphql", "POST", "/graphql", token, pages["graphql"], {"query": LISTING}
                ),
            ]
            wiremock_url = stack.enter_context(_wiremock.serve_stubs(folder / "wiremock", stubs))
            targets["wiremock"] = {
                "hubs": _Target(wiremock_url + "/v2/content/hubs", token, None),
                "graphql": _Target(wiremock_url + "/graphql", token, listing),
            }
            if _pages(targets["wiremock"]) != pages:
                raise RuntimeError("WireMock's stubs do not answer patgate's pages")
        servers = [key for key in LABELS if key in targets]
        # Warm up: the JVM compiles as it runs (WireMock's throughput climbs for some
        # 15 s of load before it settles); patgate fills its caches.
        for side in servers:
            for target in targets[side].values():
                for _ in range(warmup if side == "wiremock" else 1):
                    _load(target, connections=4, seconds=seconds)
        for number in range(rounds):
            shift = number % len(servers)
            order = servers[shift:] + servers[:shift]
            for request in REQUESTS:
                for connections in CONNECTIONS:
                    for side in order:
                        samples.setdefault((request, connections, side), []).append(
                            _load(targets[side][request], connections, seconds)
                        )
    note = (
        "Each server in its own process, the same answer bytes from each, wrk with one"
        " thread; the order of the servers rotates every round."
    )
    if not_run:
        note += f" WireMock not run: {not_run}."
    results = []
    for request in REQUESTS:
        for connections in CONNECTIONS:
            for reference in ("wiremock", "bare"):
                if reference not in servers:
                    continue
                results.append(_result(request, connections, reference, samples, seconds, note))
                note = ""
        results.append(_scaling(request, samples))
    return results


def _load(target: _Target, connections: int, seconds: float) -> dict[str, Any]:
    summary = wrk(
        target.url,
        connections=connections,
        seconds=seconds,
        token=target.token,
        body=target.body,
    )
    time.sleep(0.2)  # let lingering connections close
    return summary


def _pages(targets: dict[str, _Target]) -> dict[str, bytes]:
    """Each request's answer from one server, checked: 200. Warms the server too."""
    import httpx

    pages: dict[str, bytes] = {}
    with httpx.Client(timeout=30) as http:
        for request, target in targets.items():
            headers = {"Authorization": "Bearer " + target.token}
            for _ in range(5):
                if target.body is None:
                    answer = http.get(target.url, headers=headers)
                else:
                    headers["Content-Type"] = "application/json"
                    answer = http.post(
                        target.url, headers=headers, content=target.body.read_bytes()
                    )
            if answer.status_code != 200:
                raise RuntimeError(
                    f"{target.url} answered {answer.status_code}: {answer.text[:200]}"
                )
            pages[request] = answer.content
    return pages


def _plural(connections: int) -> str:
    return f"{connections} connection{'s' * (connections > 1)}"


def _result(
    request: str,
    connections: int,
    reference: str,
    samples: dict[tuple[str, int, str], list[dict[str, Any]]],
    seconds: float,
    note: str,
) -> Result:
    ours = samples[(request, connections, "patgate")]
    theirs = samples[(request, connections, reference)]
    ratio_label = f"patgate / {'WireMock' if reference == 'wiremock' else 'bare'}"
    threshold = GOALS.get((reference, request), 1.0)
    return compare(
        name=f"serve_{request}_c{connections}_{reference}",
        title=f"patgate serve vs {LABELS[reference]}, {REQUESTS[request]}, {_plural(connections)}",
        unit="req/s",
        a_label=LABELS["patgate"],
        a=[run["rps"] for run in ours],
        b_label=LABELS[reference],
        b=[run["rps"] for run in theirs],
        ratio_label=ratio_label,
        goal=Goal("ratio", ">=", threshold, ratio_label),
        note=note,
        details={
            "reference": reference,
            "seconds_per_run": seconds,
            "patgate_p50_ms": [run["p50_us"] / 1000 for run in ours],
            "patgate_p99_ms": [run["p99_us"] / 1000 for run in ours],
            f"{reference}_p50_ms": [run["p50_us"] / 1000 for run in theirs],
            f"{reference}_p99_ms": [run["p99_us"] / 1000 for run in theirs],
        },
    )


def _scaling(request: str, samples: dict[tuple[str, int, str], list[dict[str, Any]]]) -> Result:
    many, one = CONNECTIONS[-1], CONNECTIONS[0]
    label = f"{many} conn. / {one} conn."
    return compare(
        name=f"serve_{request}_scaling",
        title=f"patgate serve, {REQUESTS[request]}, {_plural(many)} against {one}",
        unit="req/s",
        a_label=f"{_plural(many)}",
        a=[run["rps"] for run in samples[(request, many, "patgate")]],
        b_label=f"{_plural(one)}",
        b=[run["rps"] for run in samples[(request, one, "patgate")]],
        ratio_label=label,
        goal=Goal("ratio", ">=", SCALING_GOAL, label),
    )


BENCHMARKS = [
    Benchmark(
        "serve_vs_wiremock",
        run,
        order=40,
        description="patgate serve against WireMock and a bare server, wrk at 1/4/16",
    )
]
