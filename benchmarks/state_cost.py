"""What ``patgate serve --state`` costs: the hubs p99 under wrk, and an idle server's CPU.

Two servers run side by side, each in a process of its own, each holding 3,000 PATs (600
admins with 5 tokens each, made through the control API, so the one with ``--state`` has
journaled every one of them): one with ``--state``, one without. wrk (one thread, 4
connections, keep-alive) loads the hubs GET with a PAT as the bearer, alternating which
server goes first; then both stay idle and their CPU time over a few seconds is read from
``/proc``. Goals: the hubs p99 with ``--state`` at most 1.1x the p99 without, and an idle
server with ``--state`` spending no more than 1 % of a core.

Usage: ``python -m benchmarks --only state_cost [--quick]``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.loopback import serve, wrk
from benchmarks.registry import Benchmark, Plan, Unavailable
from benchmarks.timing import Goal, Result, compare

__all__ = ["BENCHMARKS", "run"]

TOKENS = 3000
GOAL_RATIO = 1.1
IDLE_GOAL_PERCENT = 1.0


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def populate(world: dict[str, str], tokens: int) -> None:
    """``tokens`` PATs through the control API: admins with 5 UI tokens each."""
    import httpx

    auth = {"Authorization": f"Bearer {world['control_token']}"}
    control = world["control_url"]
    with httpx.Client(headers=auth, timeout=30) as http:
        for number in range(tokens // 5):
            user = http.post(
                control + "/users", json={"name": f"bench {number}", "role": "admin"}
            ).json()
            for slot in range(5):
                http.post(
                    control + "/token-requests", json={"user_id": user["id"], "name": f"t{slot}"}
                ).raise_for_status()


def _settle(state: Path) -> None:
    """Wait until the journal of the populating writes is folded into the snapshot."""
    deadline = time.monotonic() + 60
    old = state.with_name(state.name + ".journal.old")
    while old.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(3)  # and the last lazy write is done


def _idle_percent(pid: int, seconds: float) -> float:
    before = cpu_seconds(pid)
    time.sleep(seconds)
    return 100 * (cpu_seconds(pid) - before) / seconds


def run(plan: Plan) -> list[Result]:
    """Both servers, populated alike, loaded by wrk in alternating rounds, then left idle."""
    if shutil.which("wrk") is None:
        raise Unavailable("needs wrk (apt-get install wrk)")
    rounds, seconds = plan.rounds_for(5, 3), plan.pick(5, 2)
    tokens = TOKENS
    with tempfile.TemporaryDirectory(prefix="patgate-state-") as name:
        folder = Path(name)
        stateful = [sys.executable, "-m", "patgate", "serve", "--world", str(folder / "a.json")]
        stateful += ["--state", str(folder / "state.json")]
        plain = [sys.executable, "-m", "patgate", "serve", "--world", str(folder / "b.json")]
        with serve(stateful) as (_, with_process), serve(plain) as (_, without_process):
            worlds = {
                side: json.loads((folder / f"{side}.json").read_text(encoding="utf-8"))
                for side in ("a", "b")
            }
            for world in worlds.values():
                populate(world, tokens)
            _settle(folder / "state.json")
            p99: dict[str, list[float]] = {"a": [], "b": []}
            for number in range(rounds + 1):  # the first round warms both up
                order = ("a", "b") if number % 2 == 0 else ("b", "a")
                for side in order:
                    world = worlds[side]
                    summary = wrk(
                        world["base_url"] + "/v2/content/hubs",
                        connections=4,
                        seconds=seconds,
                        token=world["admin_token"],
                        body=None,
                    )
                    if number:
                        p99[side].append(summary["p99_us"] / 1000)
            time.sleep(3)  # lazy last-used dates are written within 2 s
            idle_with = [_idle_percent(with_process.pid, 2.0) for _ in range(rounds)]
            idle_without = [_idle_percent(without_process.pid, 2.0) for _ in range(rounds)]
            journal = folder / "state.json.journal"
            sizes = {
                "state_bytes": (folder / "state.json").stat().st_size,
                "journal_bytes": journal.stat().st_size if journal.exists() else 0,
            }
    return [
        compare(
            name="state_cost_p99",
            title=f"Hubs p99 under wrk with {tokens:,} PATs: --state against none",
            unit="ms",
            a_label="--state",
            a=p99["a"],
            b_label="no state",
            b=p99["b"],
            ratio_label="--state / none",
            goal=Goal("ratio", "<=", GOAL_RATIO, "--state / none"),
            note="wrk -t1 -c4, keep-alive, a PAT as the bearer; rounds alternate the servers.",
            details=sizes,
        ),
        compare(
            name="state_cost_idle",
            title=f"Idle CPU of patgate serve with {tokens:,} PATs: --state against none",
            unit="% of a core",
            a_label="--state",
            a=idle_with,
            b_label="",
            b=None,
            ratio_label="",
            goal=Goal("patgate", "<=", IDLE_GOAL_PERCENT, "--state", "%"),
            note="CPU time over 2 s of idleness, after the load, read from /proc; without "
            f"--state: {max(idle_without):.2f} % at most.",
            details={"idle_without_state_percent": idle_without},
        ),
    ]


BENCHMARKS = [
    Benchmark(
        "state_cost",
        run,
        order=92,
        description="what --state costs: hubs p99 under wrk, idle CPU",
    )
]
