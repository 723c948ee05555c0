"""HTTP fronts side by side: the same wire app behind ``patgate serve`` and three other HTTP
servers, each against a bare stdlib server answering canned bytes, all loaded by wrk.

Why ``patgate serve`` parses with httptools on a thread per connection, measured. Every front
serves the fake ``patgate serve`` builds (``Fake(deployment=Deployment(seed=0),
urls=FakeUrls.same_origin(base))``) through ``fake.handle``, in a process of its own:

- ``patgate serve``: httptools (llhttp), a thread per connection (the one chosen);
- ``http.server``: ``BaseHTTPRequestHandler`` on ``ThreadingHTTPServer``, keep-alive, the
  answer in one write (what ``patgate serve`` used before);
- ``h11``: pure-Python parsing, a thread per connection;
- ``uvicorn``: httptools and uvloop, an ASGI adapter calling the app inline.

The reference is ``benchmarks/_bare_server.py`` answering the pages ``patgate serve`` gave,
canned. wrk (one thread, keep-alive) loads one server at a time at 1 and 4 connections, for
the hubs GET with the admin's PAT (goal: at least 0.7x the bare server) and the GraphQL token
listing (at least 0.7x), the goals of ``benchmarks/loopback.py``. Each round runs every server
once per request and connection count, in an order that reverses every round. Each front's
result is its requests/s and its per-round ratio to the bare server's.

The uvicorn front needs ``uvicorn`` and ``uvloop`` (the ``bench`` extra): without them it is
left out, said on stderr and in the first result's note, and the other fronts still run.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.loopback import GOALS, LISTING, serve, wrk
from benchmarks.registry import Benchmark, Plan, Unavailable
from benchmarks.timing import Goal, Result, compare

__all__ = ["BENCHMARKS", "FRONTS", "Front", "run"]

CONNECTIONS = (1, 4)
_REQUESTS = {"hubs": "hubs GET, PAT", "graphql": "GraphQL token listing, PAT"}
_BARE = "bare"


@dataclass(frozen=True)
class Front:
    """One HTTP server in front of the app: how it is started and what it needs."""

    key: str
    """Its part of the result names, e.g. ``h11`` in ``fronts_h11_hubs_c1``."""
    label: str
    """How the table names it."""
    what: str
    """How it serves, for the note under the table."""
    needs: tuple[str, ...] = ()
    """Modules it imports beyond patgate's own dependencies."""

    def command(self, world_file: Path) -> list[str]:
        """The command that serves it, writing the fake's world to ``world_file``."""
        if self.key == "patgate":
            return [sys.executable, "-m", "patgate", "serve", "--world", str(world_file)]
        return [sys.executable, "-m", "benchmarks._fronts", self.key, str(world_file)]

    def missing(self) -> list[str]:
        """The modules it needs that are not installed."""
        return [name for name in self.needs if importlib.util.find_spec(name) is None]


FRONTS = (
    Front("patgate", "patgate serve", "httptools (llhttp), a thread per connection"),
    Front("stdlib", "http.server", "BaseHTTPRequestHandler on ThreadingHTTPServer"),
    Front("h11", "h11", "pure-Python parsing, a thread per connection", needs=("h11",)),
    Front(
        "uvicorn",
        "uvicorn",
        "httptools and uvloop, the app called inline from ASGI",
        needs=("uvicorn", "uvloop"),
    ),
)
"""The fronts, in the order of the table; ``patgate serve`` first, as it gives the pages."""


@dataclass(frozen=True)
class _Target:
    """Where one server answers the two requests, and the bearer it accepts."""

    hubs: str
    graphql: str
    token: str


def run(plan: Plan) -> list[Result]:
    """Load every front and the bare server, in turn, at each connection count and request."""
    if shutil.which("wrk") is None:
        raise Unavailable("needs wrk (apt-get install wrk)")
    fronts: list[Front] = []
    not_run: list[str] = []
    for front in FRONTS:
        missing = front.missing()
        if missing:
            not_run.append(f"{front.label} (needs {', '.join(missing)}: the bench extra)")
        else:
            fronts.append(front)
    for why in not_run:
        print(f"  front not run: {why}", file=sys.stderr)
    rounds, seconds = plan.rounds_for(3, 2), plan.pick(2, 1)
    samples: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="patgate-fronts-") as name, ExitStack() as servers:
        folder = Path(name)
        listing = folder / "listing.json"
        listing.write_text(json.dumps({"query": LISTING}), encoding="utf-8")
        targets: dict[str, _Target] = {}
        for front in fronts:
            world_file = folder / f"{front.key}-world.json"
            url, _ = servers.enter_context(serve(front.command(world_file)))
            world = json.loads(world_file.read_text(encoding="utf-8"))
            targets[front.key] = _Target(
                url + "/v2/content/hubs", world["graphql_url"], world["admin_token"]
            )
        pages = {key: _pages(target, listing) for key, target in targets.items()}
        canned = [folder / "get.json", folder / "post.json"]
        for path, page in zip(canned, pages["patgate"], strict=True):
            path.write_bytes(page)
        bare = [sys.executable, "-m", "benchmarks._bare_server", *map(str, canned)]
        bare_url, _ = servers.enter_context(serve(bare))
        bare_target = _Target(bare_url + "/v2/content/hubs", bare_url + "/graphql", "unused")
        # The bare server sits mid-order, so each front is timed close to its reference.
        keys = [*targets]
        middle = (len(keys) + 1) // 2
        order = [*keys[:middle], _BARE, *keys[middle:]]
        targets[_BARE] = bare_target
        for number in range(rounds):
            for request in _REQUESTS:
                for connections in CONNECTIONS:
                    for side in order if number % 2 == 0 else order[::-1]:
                        target = targets[side]
                        samples.setdefault((request, connections, side), []).append(
                            wrk(
                                target.hubs if request == "hubs" else target.graphql,
                                connections=connections,
                                seconds=seconds,
                                token=target.token,
                                body=listing if request == "graphql" else None,
                            )
                        )
                        time.sleep(0.2)  # let lingering connections close
    # Said once, under the first result: what each front is, and which were left out.
    note = "The same app behind each front: " + "; ".join(
        f"{front.label}: {front.what}" for front in fronts
    )
    note += ". Each ratio is to the bare server answering canned bytes."
    note += f" Not run: {'; '.join(not_run)}." if not_run else ""
    results = []
    for request in _REQUESTS:
        for connections in CONNECTIONS:
            for front in fronts:
                results.append(_result(front, request, connections, samples, seconds, note))
                note = ""
    return results


def _pages(target: _Target, listing: Path) -> tuple[bytes, bytes]:
    """Both answers of one front, checked: 200 with a Content-Length. Warms the front too."""
    import httpx

    auth = {"Authorization": "Bearer " + target.token}
    body = listing.read_bytes()
    with httpx.Client(timeout=10) as http:
        for _ in range(10):
            hubs = http.get(target.hubs, headers=auth)
            graphql = http.post(
                target.graphql,
                headers={**auth, "Content-Type": "application/json"},
                content=body,
            )
    for answer in (hubs, graphql):
        # A chunked answer would not be the same work as the bare server's.
        if answer.status_code != 200 or "content-length" not in answer.headers:
            raise RuntimeError(f"{answer.url} answered {answer.status_code}: {answer.text[:200]}")
    return hubs.content, graphql.content


def _result(
    front: Front,
    request: str,
    connections: int,
    samples: dict[tuple[str, int, str], list[dict[str, Any]]],
    seconds: float,
    note: str,
) -> Result:
    runs, bare = samples[(request, connections, front.key)], samples[(request, connections, _BARE)]
    plural = "s" * (connections > 1)
    return compare(
        name=f"fronts_{front.key}_{request}_c{connections}",
        title=f"HTTP front {front.label}, {_REQUESTS[request]}, {connections} connection{plural}",
        unit="req/s",
        a_label=front.label,
        a=[run["rps"] for run in runs],
        b_label="bare ThreadingHTTPServer",
        b=[run["rps"] for run in bare],
        ratio_label=f"{front.label} / bare",
        goal=Goal("ratio", ">=", GOALS[request], f"{front.label} / bare"),
        note=note,
        details={
            "front": front.key,
            "seconds_per_run": seconds,
            "front_p50_ms": [run["p50_us"] / 1000 for run in runs],
            "front_p99_ms": [run["p99_us"] / 1000 for run in runs],
            "bare_p50_ms": [run["p50_us"] / 1000 for run in bare],
            "bare_p99_ms": [run["p99_us"] / 1000 for run in bare],
        },
    )


BENCHMARKS = [
    Benchmark(
        "server_fronts",
        run,
        order=41,
        description="the app behind patgate serve, http.server, h11, uvicorn; wrk",
    )
]
