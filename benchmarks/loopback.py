"""What the loopback benchmarks share: a server in a process of its own, and wrk loading it.

``benchmarks/serve_vs_wiremock.py`` loads ``patgate serve``, WireMock and a bare stdlib
server; ``benchmarks/server_fronts.py`` other HTTP fronts in front of the same app. wrk
(keep-alive, one thread) comes from Debian's packages (``apt-get install wrk``;
``.ci/counterparts`` installs it); its script ``wrk_request.lua`` sends the hubs GET or the
GraphQL token listing with a bearer and prints a JSON summary.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["GOALS", "LISTING", "serve", "wrk"]

HERE = Path(__file__).resolve().parent
LUA = HERE / "wrk_request.lua"
CONNECTIONS = (1, 4, 16)
LISTING = "{ viewer { personalAccessTokens { id name token createdDate lastUsedDate } } }"
GOALS = {"hubs": 0.7, "graphql": 0.7}
"""patgate's requests/s over the bare server's, at least, per request."""


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
