"""Memory: what 20,000 requests to an active fake in one test add to the process's RSS.

Each sample runs in a fresh interpreter: a started ``Fake``, one reused client, 500 warm-up
hubs GETs, then 20,000 more; the sample is the growth of RSS (``VmRSS``) across those 20,000,
after a garbage collection. Goal: under 10 MB for httpx and for requests. Interception keeps
nothing per call beyond the fake's request log.

The reference is a bare respx route answering the same GETs, canned: respx records every
call, as interception did when it went through respx.
"""

from __future__ import annotations

import subprocess
import sys

from benchmarks.registry import Benchmark, Plan
from benchmarks.timing import Goal, Result, compare

__all__ = ["run"]

GOAL_MB = 10.0
REQUESTS = 20_000

_PROGRAM = """
import gc, sys

def rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")

import httpx, requests
from patgate import Fake

side, count = sys.argv[1], int(sys.argv[2])
with Fake() as fake:
    world = fake.world
    url = world["base_url"] + "/v2/content/hubs"
    auth = {"Authorization": "Bearer " + world["admin_token"]}
    if side == "respx":
        import respx
        router = respx.MockRouter(assert_all_called=False, using="httpx")
        router.get(url).respond(json={"page": {"totalElements": 3}})
        router.start()
    client = requests.Session() if side == "requests" else httpx.Client()
    for _ in range(500):
        assert client.get(url, headers=auth).status_code == 200
    gc.collect()
    before = rss_mb()
    for _ in range(count):
        client.get(url, headers=auth)
    gc.collect()
    print(rss_mb() - before)
"""


def _growth_mb(side: str, count: int) -> float:
    done = subprocess.run(
        [sys.executable, "-c", _PROGRAM, side, str(count)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return float(done.stdout.strip())


def run(plan: Plan) -> list[Result]:
    """Fresh interpreters per side, alternating httpx, requests and respx."""
    rounds = plan.rounds_for(3, 1)
    count = plan.pick(REQUESTS, 5_000)
    samples: dict[str, list[float]] = {"httpx": [], "requests": [], "respx": []}
    for _ in range(rounds):
        for side, values in samples.items():
            values.append(_growth_mb(side, count))
    goal = Goal("patgate", "<=", GOAL_MB, "growth", "MB")
    return [
        compare(
            name="memory",
            title=f"RSS growth over {count:,} hubs GETs in one test, httpx",
            unit="MB",
            a_label="patgate fake, httpx",
            a=samples["httpx"],
            b_label="bare respx route, canned (records every call)",
            b=samples["respx"],
            ratio_label="respx / fake",
            reference_over_patgate=True,
            goal=goal,
            details={"requests": count},
        ),
        compare(
            name="memory_requests",
            title=f"RSS growth over {count:,} hubs GETs in one test, requests",
            unit="MB",
            a_label="patgate fake, requests",
            a=samples["requests"],
            b_label="",
            b=None,
            ratio_label="",
            goal=goal,
            details={"requests": count},
        ),
    ]


BENCHMARKS = [
    Benchmark("memory", run, order=58, description="RSS growth over 20,000 requests in a test")
]
