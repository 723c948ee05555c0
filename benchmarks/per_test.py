"""Per test, whole session: what a test using ``patgate_fake`` and sending one GET adds to a
pytest session, beside the same test written with pytest-httpx, respx and responses; and
what the first test using the fake pays once.

Each contender runs in a pytest session of its own, in a fresh interpreter with a warm
bytecode cache, as on a developer's machine: ``N`` tests, each taking its fixture (or
opening its mock), adding a canned answer where the library needs one, and sending one GET.
The same file with no tests is the empty session. A contender's per-test cost is its
session's time minus the empty session's, divided by ``N``: pytest's own work per test, the
fixture's set-up and teardown, the request, garbage collection and every one-time cost (the
fake's first test among them) all count. A session's time is the CPU time (user and system)
of its test loop (``pytest_runtestloop``, from the first test's set-up to the last one's
teardown), which other work on a shared machine disturbs far less than wall time, and
which leaves out the interpreter's start and the collection, the same for every session
and noisier than what is measured; every contender is CPU-bound (nothing sleeps or waits
on a socket). Every session imports the same libraries and makes its clients at import,
and opens with one plain test, so none of that is counted as a contender's. Each round
runs every session once, in a rotating order; the ratios are taken per round.

- the fake through httpx against pytest-httpx's ``httpx_mock`` (goal: at most 1.2x) and
  respx (goal: at most 1.0x);
- the fake through requests against responses (goal: at most 1.0x);
- one-time cost: the first fake test's duration minus the session's median fake test, as
  pytest reports them. Goal: under 150 ms.

Three more sessions say where a fresh fake's cost lies, shown in the notes (no goal):
one fake started at collection and reused by every test, through httpx and through
requests (no fresh state and no one-time cost: what the fake's request path costs), and
pytest-httpx answering the page the fake answers (the same body, parsed by the same test).
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

__all__ = ["BENCHMARKS", "KINDS", "run"]

HTTPX_RATIO_GOAL = 1.2
RESPONSES_RATIO_GOAL = 1.0
ONE_TIME_GOAL_MS = 150.0
TESTS = 200

KINDS = (
    "empty",
    "fake_httpx",
    "pytest_httpx",
    "respx",
    "fake_requests",
    "responses",
    "reused_httpx",
    "reused_requests",
    "httpx_mock_page",
)
"""The sessions of a round: the empty one, then one per contender, then the three that
only explain the figures (a reused fake, pytest-httpx with the fake's page)."""

_TESTS = """
import json
import os

import httpx
import pytest
import requests
import respx
import responses

HUBS = "https://api.amplience.net/v2/content/hubs"
KIND = os.environ["PATGATE_BENCH_KIND"]
COUNT = 0 if KIND == "empty" else int(os.environ["PATGATE_BENCH_TESTS"])
HTTP = httpx.Client()
SESSION = requests.Session()
PAGE = {"page": {"totalElements": 3}}
if KIND == "httpx_mock_page":
    with open(os.environ["PATGATE_BENCH_PAGE"], encoding="utf-8") as page:
        PAGE = json.load(page)
if KIND in ("reused_httpx", "reused_requests"):
    # Started at collection, outside the measured loop: no one-time cost, no fresh state.
    from patgate import Fake

    REUSED = Fake(urls={"auth_url": None, "base_url": None, "graphql_url": None})
    REUSED_AUTH = {"Authorization": "Bearer " + REUSED.world["admin_token"]}
    with REUSED:
        HTTP.get(HUBS, headers=REUSED_AUTH).json()
        SESSION.get(HUBS, headers=REUSED_AUTH).json()


def test_a_plain_first_test():
    pass


@pytest.mark.parametrize("n", range(COUNT))
def test_one_get(request, n):
    if KIND in ("fake_httpx", "fake_requests"):
        world = request.getfixturevalue("patgate_world")
        auth = {"Authorization": "Bearer " + world["admin_token"]}
        if KIND == "fake_httpx":
            answer = HTTP.get(HUBS, headers=auth).json()
        else:
            answer = SESSION.get(HUBS, headers=auth).json()
    elif KIND in ("reused_httpx", "reused_requests"):
        with REUSED:  # started and stopped per test, as the fixture does
            client = HTTP if KIND == "reused_httpx" else SESSION
            answer = client.get(HUBS, headers=REUSED_AUTH).json()
    elif KIND in ("pytest_httpx", "httpx_mock_page"):
        httpx_mock = request.getfixturevalue("httpx_mock")
        httpx_mock.add_response(url=HUBS, json=PAGE)
        answer = HTTP.get(HUBS, headers={"Authorization": "Bearer x"}).json()
    elif KIND == "respx":
        with respx.mock() as router:
            router.get(HUBS).respond(json=PAGE)
            answer = HTTP.get(HUBS, headers={"Authorization": "Bearer x"}).json()
    else:
        with responses.RequestsMock() as mock:
            mock.add(responses.GET, HUBS, json=PAGE)
            answer = SESSION.get(HUBS, headers={"Authorization": "Bearer x"}).json()
    assert answer["page"]["totalElements"] == 3
"""

_PLUGIN = """
import json, os, time

import pytest

durations = {}
loop = {}


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session):
    started = time.process_time()
    try:
        return (yield)
    finally:
        loop["cpu"] = time.process_time() - started


def pytest_runtest_logreport(report):
    durations.setdefault(report.nodeid, 0.0)
    durations[report.nodeid] += report.duration


def pytest_unconfigure(config):
    with open(os.environ["PATGATE_BENCH_OUT"], "w") as out:
        json.dump({"loop": loop["cpu"], "durations": durations}, out)
"""


def _session(folder: Path, kind: str, tests: int) -> tuple[float, list[float]]:
    """CPU seconds of one fresh pytest session's test loop, and its tests' durations."""
    out = folder / "durations.json"
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment.update(
        PYTHONPYCACHEPREFIX=str(folder / "pycache"),
        PATGATE_BENCH_OUT=str(out),
        PATGATE_BENCH_KIND=kind,
        PATGATE_BENCH_TESTS=str(tests),
        PATGATE_BENCH_PAGE=str(folder / "page.json"),
        PYTHONPATH=os.pathsep.join([str(folder), *filter(None, [os.environ.get("PYTHONPATH")])]),
    )
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "timer"]
    done = subprocess.run(
        [*command, "test_per_test.py"],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the {kind} session failed:\n{done.stdout}{done.stderr}")
    measured = json.loads(out.read_text(encoding="utf-8"))
    durations: dict[str, float] = measured["durations"]
    return measured["loop"], [s for node, s in durations.items() if "test_one_get[" in node]


def _fake_page() -> bytes:
    """The body a default fake answers to the tests' GET: pytest-httpx answers it too."""
    import httpx

    from patgate import Fake

    with Fake() as fake, httpx.Client() as http:
        auth = {"Authorization": "Bearer " + fake.world["admin_token"]}
        answer = http.get(fake.world["base_url"] + "/v2/content/hubs", headers=auth)
        answer.raise_for_status()
        return answer.content


def run(plan: Plan) -> list[Result]:
    """``rounds`` rounds of one session per kind, in a rotating order."""
    rounds = plan.rounds_for(5, 2)
    tests = plan.pick(TESTS, 60)
    per_test: dict[str, list[float]] = {kind: [] for kind in KINDS if kind != "empty"}
    one_time: list[float] = []
    with tempfile.TemporaryDirectory(prefix="patgate-bench-") as name:
        folder = Path(name)
        (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        (folder / "timer.py").write_text(_PLUGIN, encoding="utf-8")
        (folder / "test_per_test.py").write_text(_TESTS, encoding="utf-8")
        page = _fake_page()
        (folder / "page.json").write_bytes(page)
        for kind in KINDS:
            _session(folder, kind, 2)  # fills the bytecode cache
        for number in range(rounds):
            shift = number % len(KINDS)
            cpu: dict[str, float] = {}
            for kind in KINDS[shift:] + KINDS[:shift]:
                cpu[kind], durations = _session(folder, kind, tests)
                if kind == "fake_httpx":
                    median = statistics.median(durations[1:])
                    one_time.append((durations[0] - median) * 1000)
            for kind, samples in per_test.items():
                samples.append((cpu[kind] - cpu["empty"]) / tests * 1000)
    details = {"tests_per_session": tests}
    title = f"Per test, whole session of {tests} one-GET tests minus an empty session"
    medians = {kind: statistics.median(samples) for kind, samples in per_test.items()}
    budget = (HTTPX_RATIO_GOAL - 1) * medians["pytest_httpx"] * tests
    httpx_note = (
        f"one fake reused by every test (started at collection: no fresh state, no one-time "
        f"cost) takes {medians['reused_httpx']:.3f} ms a test; pytest-httpx answering the "
        f"fake's own hubs page ({len(page):,} bytes) {medians['httpx_mock_page']:.3f} ms. "
        f"The goal leaves the fake {budget:.0f} ms a session over pytest-httpx; the first "
        f"fake test alone pays {statistics.median(one_time):.0f} ms (importing the fake)."
    )
    requests_note = (
        f"one fake reused by every test takes {medians['reused_requests']:.3f} ms a test "
        f"through requests; the goal leaves the fake nothing over responses, and the first "
        f"fake test pays {statistics.median(one_time):.0f} ms."
    )
    return [
        compare(
            name="per_test",
            title=f"{title}: httpx",
            unit="ms",
            a_label="patgate_fake",
            a=per_test["fake_httpx"],
            b_label="pytest-httpx httpx_mock",
            b=per_test["pytest_httpx"],
            ratio_label="fake / httpx_mock",
            goal=Goal("ratio", "<=", HTTPX_RATIO_GOAL, "fake / httpx_mock"),
            note=httpx_note,
            details=details,
        ),
        compare(
            name="per_test_respx",
            title=f"{title}: httpx, respx",
            unit="ms",
            a_label="patgate_fake",
            a=per_test["fake_httpx"],
            b_label="respx.mock",
            b=per_test["respx"],
            ratio_label="fake / respx",
            goal=Goal("ratio", "<=", 1.0, "fake / respx"),
            details=details,
        ),
        compare(
            name="per_test_requests",
            title=f"{title}: requests",
            unit="ms",
            a_label="patgate_fake",
            a=per_test["fake_requests"],
            b_label="responses.RequestsMock",
            b=per_test["responses"],
            ratio_label="fake / responses",
            goal=Goal("ratio", "<=", RESPONSES_RATIO_GOAL, "fake / responses"),
            note=requests_note,
            details=details,
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
        description="patgate_fake + GET against pytest-httpx, respx and responses, whole "
        "session; the first test's cost",
    )
]
