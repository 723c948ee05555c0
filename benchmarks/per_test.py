"""Per test: ``patgate_fake`` plus one hubs GET, against pytest-httpx's ``httpx_mock`` plus one
GET, in the same pytest session; and what the first test using the fake pays once.

A generated test file alternates the two kinds of test (mock, fake, mock, fake, ...). A small
plugin sums each test's set-up, call and teardown durations as pytest reports them. Every
session is a fresh interpreter with a warm bytecode cache, as on a developer's machine. A
mock test comes first, so what the session's first test pays whatever it uses (the test
file's shared httpx client, about 45 ms for its SSL context, and the session fixtures of
other installed plugins) is not counted as the fake's.

- per-test cost: the median over the tests of each kind (the first of each kind excluded),
  median across sessions. Goal: the fake within 1.5x of pytest-httpx.
- one-time cost: the first fake test's duration minus the session's median fake test.
  Goal: under 150 ms.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.registry import Benchmark, Plan
from benchmarks.timing import Goal, Result, compare

__all__ = ["run"]

RATIO_GOAL = 1.5
ONE_TIME_GOAL_MS = 150.0
TESTS_PER_KIND = 60

_TESTS = """
import httpx
import pytest

HUBS = "https://api.amplience.net/v2/content/hubs"


@pytest.fixture(scope="session")
def http():
    with httpx.Client() as client:
        yield client


@pytest.mark.parametrize("n", range(COUNT))
@pytest.mark.parametrize("kind", ["mock", "fake"])
def test_one_get(request, http, kind, n):
    if kind == "fake":
        world = request.getfixturevalue("patgate_world")
        answer = http.get(HUBS, headers={"Authorization": "Bearer " + world["admin_token"]})
        assert answer.json()["page"]["totalElements"] == 3
    else:
        httpx_mock = request.getfixturevalue("httpx_mock")
        httpx_mock.add_response(url=HUBS, json={"page": {"totalElements": 3}})
        answer = http.get(HUBS, headers={"Authorization": "Bearer x"})
        assert answer.json()["page"]["totalElements"] == 3
"""

_PLUGIN = """
import json, os

durations = {}


def pytest_runtest_logreport(report):
    durations.setdefault(report.nodeid, 0.0)
    durations[report.nodeid] += report.duration


def pytest_sessionfinish(session):
    with open(os.environ["PATGATE_BENCH_OUT"], "w") as out:
        json.dump(durations, out)
"""


def _session(folder: Path) -> tuple[list[float], list[float]]:
    """Seconds per test of each kind, in run order, from one fresh pytest session."""
    out = folder / "durations.json"
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    environment["PATGATE_BENCH_OUT"] = str(out)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "timer"]
    done = subprocess.run(
        [*command, "test_per_test.py"],
        cwd=folder,
        env={**environment, "PYTHONPATH": str(folder)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the per-test session failed:\n{done.stdout}{done.stderr}")
    durations: dict[str, float] = json.loads(out.read_text(encoding="utf-8"))
    fake = [seconds for node, seconds in durations.items() if "[fake-" in node]
    mock = [seconds for node, seconds in durations.items() if "[mock-" in node]
    return fake, mock


def run(plan: Plan) -> list[Result]:
    """Fresh sessions of ``TESTS_PER_KIND`` tests of each kind (fewer in a quick run)."""
    rounds = plan.rounds_for(5, 2)
    tests = plan.pick(TESTS_PER_KIND, 30)
    per_fake: list[float] = []
    per_mock: list[float] = []
    one_time: list[float] = []
    with tempfile.TemporaryDirectory(prefix="patgate-bench-") as name:
        folder = Path(name)
        (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        (folder / "timer.py").write_text(_PLUGIN, encoding="utf-8")
        (folder / "test_per_test.py").write_text(
            _TESTS.replace("COUNT", str(tests)), encoding="utf-8"
        )
        _session(folder)  # fills the bytecode cache
        for _ in range(rounds):
            fake, mock = _session(folder)
            fake_median = statistics.median(fake[1:])
            per_fake.append(fake_median * 1000)
            per_mock.append(statistics.median(mock[1:]) * 1000)
            one_time.append((fake[0] - fake_median) * 1000)
    return [
        compare(
            name="per_test",
            title="Per test: fixture + one hubs GET, set-up to teardown, same session",
            unit="ms",
            a_label="patgate_fake + GET",
            a=per_fake,
            b_label="pytest-httpx httpx_mock + GET",
            b=per_mock,
            ratio_label="fake / httpx_mock",
            goal=Goal("ratio", "<=", RATIO_GOAL, "fake / httpx_mock"),
            details={"tests_per_kind": tests},
        ),
        compare(
            name="first_test",
            title="The first test using the fake: its one-time cost over a later one",
            unit="ms",
            a_label="first fake test - median fake test",
            a=one_time,
            b_label="",
            b=None,
            ratio_label="",
            goal=Goal("patgate", "<=", ONE_TIME_GOAL_MS, "one-time cost", "ms"),
        ),
    ]


BENCHMARKS = [
    Benchmark(
        "per_test",
        run,
        order=55,
        description="patgate_fake + GET against httpx_mock + GET; the first test's cost",
    )
]
