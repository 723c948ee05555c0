"""The built-in run through a proxy adding 50 ms to every request: ``--concurrency 8``
against the sequential floor (every request one after another), ``--concurrency 1`` and the
run's critical path beside it.

``patgate serve`` runs in a process of its own; a small HTTP/1.1 proxy (``http.server``
threads in front of one pooled ``httpx`` client, keep-alive on both sides) sleeps
:data:`DELAY` before forwarding each request, as a deployment 50 ms away would answer. The
target file's URLs, the control API's included, point at the proxy. Each round runs
``patgate run --world ... --allow-writes --report json:...`` once with ``--concurrency 1``
and once with :data:`CONCURRENCY`, alternating which goes first; the figure is the run's own
duration from its JSON report (the interpreter's start and the scenario files' loading
excluded, the same for both).

**The sequential floor** is what one scenario at a time cannot beat: a counting pass (in
this process, one scenario at a time, through the same proxy) gives each scenario's request
count *r*, and the floor is 50 ms x the sum of *r*. Goal: the concurrent run in at most
0.5x of it.

**The critical path** (in the note) is the shortest any scheduler honouring the claims of
:func:`patgate.runner.planning.scheduler.claim_of` could take::

    critical = 50 ms x (sum of r over exclusive scenarios
                        + sum of r over the clock movers (the control phase)
                        + max(max over principals p of the sum of r of the scenarios
                              changing p or needing p alone,
                              max of r over the other scenarios))

(a lower bound: the waves in which writers share a principal's slots are not counted).
"""

from __future__ import annotations

import http.server
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.loopback import serve
from benchmarks.registry import Benchmark, Plan
from benchmarks.timing import Goal, Result, compare

__all__ = ["BENCHMARKS", "CONCURRENCY", "DELAY", "critical_path", "delaying_proxy", "run"]

DELAY = 0.05
"""Seconds the proxy adds to every request."""
CONCURRENCY = 8
"""Scenarios the concurrent run runs at once."""
GOAL = 0.5
"""The concurrent run / the sequential floor."""
_HOP = frozenset(
    {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host"}
    | {"content-length", "content-encoding", "proxy-authorization", "proxy-connection"}
)
"""Headers the proxy does not pass on (hop-by-hop, or recomputed: httpx decodes bodies)."""


class _Forward(http.server.BaseHTTPRequestHandler):
    """Sleeps :data:`DELAY`, forwards the request upstream, relays the answer."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes
    server: _Proxy

    def _forward(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.count()
        time.sleep(DELAY)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
        answer = self.server.upstream.request(
            self.command, self.server.origin + self.path, headers=headers, content=body
        )
        self.send_response(answer.status_code)
        for key, value in answer.headers.multi_items():
            if key.lower() not in _HOP:
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(answer.content)))
        self.end_headers()
        self.wfile.write(answer.content)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _forward

    def log_message(self, format: str, *args: Any) -> None:
        del format, args


class _Proxy(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, origin: str) -> None:
        import httpx

        super().__init__(("127.0.0.1", 0), _Forward)
        self.origin = origin
        self.upstream = httpx.Client(
            timeout=30, limits=httpx.Limits(max_connections=64, max_keepalive_connections=64)
        )
        self.requests = 0
        self._lock = threading.Lock()

    def count(self) -> None:
        with self._lock:
            self.requests += 1


@contextmanager
def delaying_proxy(origin: str) -> Iterator[_Proxy]:
    """A loopback proxy to ``origin`` adding :data:`DELAY` per request; ``.server_address``."""
    proxy = _Proxy(origin)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        proxy.shutdown()
        proxy.server_close()
        proxy.upstream.close()
        thread.join(10)


@contextmanager
def served_behind_proxy(
    folder: Path, *, leave_out: Sequence[str] = ()
) -> Iterator[tuple[Path, _Proxy]]:
    """``patgate serve`` behind :func:`delaying_proxy`, and a target file in ``folder`` whose
    URLs reach it through the proxy (its keys in ``leave_out`` left out)."""
    world_file = folder / "world.json"
    command = [sys.executable, "-m", "patgate", "serve", "--world", str(world_file)]
    with serve(command) as (origin, _), delaying_proxy(origin) as proxy:
        world = json.loads(world_file.read_text(encoding="utf-8"))
        near = f"http://127.0.0.1:{proxy.server_address[1]}"
        target = {
            key: value.replace(origin, near) if key.endswith("_url") else value
            for key, value in world.items()
            if key not in leave_out
        }
        target_file = folder / "target.json"
        target_file.write_text(json.dumps(target), encoding="utf-8")
        yield target_file, proxy


def critical_path(scenarios: Sequence[Any], requests: dict[str, int]) -> float:
    """Seconds of the longest chain the scheduler must serialize (the module's formula)."""
    from patgate.runner.planning.scheduler import CLOCK, claim_of

    exclusive = clock = 0
    chains: dict[str, int] = {}
    others = [0]
    for scenario in scenarios:
        count = requests.get(scenario.id, 0)
        claim = claim_of(scenario, controlled=True)
        if claim.exclusive:
            exclusive += count
        elif CLOCK in claim.touches:
            clock += count
        elif claim.touches or claim.alone_as:
            for principal in claim.touches | claim.alone_as:
                chains[principal] = chains.get(principal, 0) + count
        else:
            others.append(count)
    return DELAY * (exclusive + clock + max(max(chains.values(), default=0), max(others)))


def _count_requests(target_file: Path, proxy: _Proxy) -> tuple[dict[str, int], list[Any]]:
    """Requests per scenario: the built-in run, one at a time, through ``proxy``."""
    from patgate.basics.resources import scenarios_dir
    from patgate.runner import RunOptions, run
    from patgate.runner.connection.config import resolve_target_config
    from patgate.runner.results.events import RunFinished, ScenarioFinished, ScenarioStarted
    from patgate.runner.session import target_for
    from patgate.scenario import load_scenarios

    scenarios = load_scenarios([scenarios_dir()])
    target = target_for(resolve_target_config(target_file, {}, {}))
    counts: dict[str, int] = {}
    before = 0
    for event in run(scenarios, target, RunOptions(allow_writes=True, concurrency=1)):
        if isinstance(event, ScenarioStarted):
            before = proxy.requests
        elif isinstance(event, ScenarioFinished):
            counts[event.scenario_id] = proxy.requests - before
        elif isinstance(event, RunFinished) and event.exit_code != 0:
            raise RuntimeError(f"the counting run failed (exit {event.exit_code})")
    return counts, list(scenarios)


def _timed_run(target_file: Path, folder: Path, concurrency: int) -> float:
    """Seconds ``patgate run`` at ``concurrency`` spent, from its JSON report."""
    report = folder / f"report-{concurrency}.json"
    command = [sys.executable, "-m", "patgate", "run", "--world", str(target_file)]
    command += ["--allow-writes", "--concurrency", str(concurrency)]
    command += ["--report", f"json:{report}"]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=300, check=False, cwd=folder
    )
    if done.returncode != 0:
        raise RuntimeError(f"patgate run --concurrency {concurrency} failed:\n{done.stdout}")
    document = json.loads(report.read_text(encoding="utf-8"))
    seconds: float = document["duration"]
    return seconds


def run(plan: Plan) -> list[Result]:
    """Alternating rounds of ``--concurrency 1`` and :data:`CONCURRENCY`, through the proxy."""
    rounds = plan.rounds_for(5, 2)
    sequential: list[float] = []
    concurrent: list[float] = []
    with tempfile.TemporaryDirectory(prefix="patgate-concurrency-") as name:
        folder = Path(name)
        with served_behind_proxy(folder) as (target_file, proxy):
            requests, scenarios = _count_requests(target_file, proxy)
            critical = critical_path(scenarios, requests)
            for number in range(rounds):
                order = (1, CONCURRENCY) if number % 2 == 0 else (CONCURRENCY, 1)
                for concurrency in order:
                    seconds = _timed_run(target_file, folder, concurrency)
                    (sequential if concurrency == 1 else concurrent).append(seconds)
    floor_ms = DELAY * sum(requests.values()) * 1000
    critical_ms = critical * 1000
    return [
        compare(
            name="run_concurrency",
            title=f"The built-in run through a proxy adding {DELAY * 1000:g} ms per request",
            unit="ms",
            a_label=f"--concurrency {CONCURRENCY}",
            a=[seconds * 1000 for seconds in concurrent],
            b_label="sequential floor",
            b=[floor_ms] * len(concurrent),
            ratio_label="concurrent / sequential floor",
            goal=Goal("ratio", "<=", GOAL, "concurrent / sequential floor"),
            note=(
                f"{sum(requests.values())} requests; sequential floor {floor_ms:.0f} ms "
                f"(x {DELAY * 1000:g} ms); critical path {critical_ms:.0f} ms; "
                f"--concurrency 1: {statistics.median(sequential) * 1000:.0f} ms median "
                f"({min(sequential) * 1000:.0f}..{max(sequential) * 1000:.0f})"
            ),
            details={
                "sequential_ms": {
                    "median": round(statistics.median(sequential) * 1000, 1),
                    "min": round(min(sequential) * 1000, 1),
                    "max": round(max(sequential) * 1000, 1),
                },
                "sequential_floor_ms": round(floor_ms, 1),
                "critical_path_ms": round(critical_ms, 1),
                "requests": sum(requests.values()),
                "requests_by_scenario": requests,
            },
        )
    ]


BENCHMARKS = [
    Benchmark(
        "run_concurrency",
        run,
        order=95,
        description="the built-in run through a 50 ms proxy: --concurrency 8 vs one at a time",
    )
]
