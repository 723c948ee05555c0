"""Load on the loopback server: ``patgate serve`` in one process, N clients in this one.

The server runs as a subprocess (``patgate serve --port 0 --world FILE``). For ``seconds``
seconds, ``clients`` threads send requests, each on its own keep-alive connection:
``writers`` of them loop create -> list -> delete with the admin's PAT (an even-numbered
writer then creates one more and keeps it), the rest read
(the hubs listing with a client-credential token, then with the PAT, then the viewer over
GraphQL). The admin starts with 1 token and each writer holds at most one more, so with at
most 4 writers the cap of 5 is never what refuses a create.

Every status and latency is recorded. Afterwards it verifies what the issue asks: every
request was answered, none got a 5xx, and no write was lost (the admin's tokens are exactly
those held at the start plus those created minus those deleted). Then it stops the server
with SIGTERM and expects exit code 0. Prints one JSON object: requests per second, p50 and
p99 latency (overall and per kind), statuses, and the checks.

Usage: ``python -m benchmarks.load [--clients 20] [--seconds 10] [--writers 4] [--json PATH]``
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Sample", "percentile", "run_load"]

CAP = 5
LIST = "{ viewer { personalAccessTokens { id } } }"
READ_KINDS = ("hubs_client_token", "hubs_pat", "viewer")


@dataclass(frozen=True)
class Sample:
    """One request: its kind, its status (0: no answer) and how long it took."""

    kind: str
    status: int
    seconds: float


@dataclass
class _Worker:
    samples: list[Sample] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    write_errors: list[str] = field(default_factory=list)
    failure: str | None = None


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of ``values`` (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, int(fraction * len(ordered) + 0.5) - 1))
    return ordered[rank]


def _patgate() -> list[str]:
    script = shutil.which("patgate", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "patgate"]


def _start_server(world_file: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [*_patgate(), "serve", "--port", "0", "--world", str(world_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "listening on" not in line:
        process.kill()  # the server this function started
        process.wait(timeout=10)
        raise RuntimeError(f"patgate serve did not start: {line!r}")
    return process, line.rsplit(" ", 1)[1].strip()


def _stop_server(process: subprocess.Popen[str]) -> tuple[int | None, str]:
    """SIGTERM to the server started here, by its pid; its exit code and stderr."""
    process.send_signal(signal.SIGTERM)
    try:
        _, stderr = process.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        _, stderr = process.communicate(timeout=15)
        return None, stderr
    return process.returncode, stderr


class _Session:
    """One client thread's keep-alive connection, timing every request it sends."""

    def __init__(self, worker: _Worker, world: dict[str, str]) -> None:
        import httpx

        self.worker = worker
        self.world = world
        self.http = httpx.Client(timeout=30)

    def send(self, kind: str, request: Callable[[Any], Any]) -> Any:
        started = time.perf_counter()
        try:
            response = request(self.http)
        except Exception as error:  # no answer at all: recorded, and the check fails
            self.worker.samples.append(Sample(kind, 0, time.perf_counter() - started))
            self.worker.failure = f"{kind}: {type(error).__name__}"
            return None
        self.worker.samples.append(
            Sample(kind, response.status_code, time.perf_counter() - started)
        )
        return response

    def graphql(self, kind: str, query: str) -> dict[str, Any] | None:
        url, token = self.world["graphql_url"], self.world["admin_token"]
        headers = {"Authorization": f"Bearer {token}"}
        response = self.send(
            kind, lambda http: http.post(url, json={"query": query}, headers=headers)
        )
        if response is None or response.status_code != 200:
            return None
        body: dict[str, Any] = response.json()
        return body


def _reader(session: _Session, client_token: str, deadline: float) -> None:
    hubs = session.world["base_url"] + "/v2/content/hubs"
    bearers = {
        "hubs_client_token": {"Authorization": f"Bearer {client_token}"},
        "hubs_pat": {"Authorization": f"Bearer {session.world['admin_token']}"},
    }
    turn = 0
    while time.monotonic() < deadline:
        kind = READ_KINDS[turn % len(READ_KINDS)]
        turn += 1
        if kind == "viewer":
            session.graphql(kind, LIST)
        else:
            session.send(kind, lambda http, h=bearers[kind]: http.get(hubs, headers=h))


def _create(session: _Session, index: int) -> str | None:
    worker = session.worker
    name = json.dumps(f"load-{index}-{len(worker.created)}")
    organization = json.dumps(session.world["organization_id"])
    created = session.graphql(
        "create",
        f"mutation {{ createPersonalAccessToken(input: {{name: {name}, "
        f"organizationId: {organization}}}) {{ id }} }}",
    )
    token = ((created or {}).get("data") or {}).get("createPersonalAccessToken")
    if not token:
        worker.write_errors.append(json.dumps(created)[:200])
        return None
    token_id: str = token["id"]
    worker.created.append(token_id)
    return token_id


def _writer(session: _Session, index: int, deadline: float) -> None:
    worker = session.worker
    while time.monotonic() < deadline:
        token_id = _create(session, index)
        if token_id is None:
            continue
        session.graphql("list", LIST)
        deleted = session.graphql(
            "delete",
            f"mutation {{ deletePersonalAccessToken(input: {{id: {json.dumps(token_id)}}}) }}",
        )
        if ((deleted or {}).get("data") or {}).get("deletePersonalAccessToken"):
            worker.deleted.append(token_id)
        else:
            worker.write_errors.append(json.dumps(deleted)[:200])
    if index % 2 == 0:
        _create(session, index)  # kept: the final listing must then differ from the first


def _admin_tokens(world: dict[str, str]) -> set[str]:
    import httpx

    headers = {"Authorization": f"Bearer {world['admin_token']}"}
    with httpx.Client(timeout=30) as http:
        body = http.post(world["graphql_url"], json={"query": LIST}, headers=headers).json()
    return {token["id"] for token in body["data"]["viewer"]["personalAccessTokens"]}


def _client_token(world: dict[str, str]) -> str:
    import httpx

    form = {
        "client_id": world["client_id"],
        "client_secret": world["client_secret"],
        "grant_type": "client_credentials",
    }
    with httpx.Client(timeout=30) as http:
        response = http.post(world["auth_url"] + "/oauth/token", data=form)
    response.raise_for_status()
    token: str = response.json()["access_token"]
    return token


def _latency(samples: list[Sample]) -> dict[str, float]:
    seconds = [sample.seconds for sample in samples]
    return {
        "p50_ms": round(percentile(seconds, 0.50) * 1000, 2),
        "p99_ms": round(percentile(seconds, 0.99) * 1000, 2),
        "max_ms": round(max(seconds, default=0.0) * 1000, 2),
    }


def run_load(*, clients: int = 20, seconds: float = 10.0, writers: int = 4) -> dict[str, Any]:
    """Load the server for ``seconds`` and verify it; the result as JSON-ready data."""
    if not 0 <= writers <= min(clients, CAP - 1):
        raise ValueError(f"writers must be 0 to {CAP - 1} (and at most clients), got {writers}")
    with tempfile.TemporaryDirectory() as folder:
        world_file = Path(folder) / "world.json"
        process, url = _start_server(world_file)
        try:
            world: dict[str, str] = json.loads(world_file.read_text())
            client_token = _client_token(world)
            before = _admin_tokens(world)
            workers = [_Worker() for _ in range(clients)]
            sessions = [_Session(worker, world) for worker in workers]
            deadline = time.monotonic() + seconds
            threads = [
                threading.Thread(
                    target=_writer if index < writers else _reader,
                    args=(session, index, deadline)
                    if index < writers
                    else (session, client_token, deadline),
                )
                for index, session in enumerate(sessions)
            ]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.perf_counter() - started
            for session in sessions:
                session.http.close()
            after = _admin_tokens(world)
        finally:
            exit_code, stderr = _stop_server(process)
    samples = [sample for worker in workers for sample in worker.samples]
    created = {token for worker in workers for token in worker.created}
    deleted = {token for worker in workers for token in worker.deleted}
    expected = (before | created) - deleted
    statuses = Counter(sample.status for sample in samples)
    by_kind = {
        kind: {"requests": len(group), **_latency(group)}
        for kind in (*READ_KINDS, "create", "list", "delete")
        if (group := [sample for sample in samples if sample.kind == kind])
    }
    checks = {
        "every_request_answered": statuses[0] == 0,
        "no_5xx": not any(status >= 500 for status in statuses),
        "no_write_refused": not any(worker.write_errors for worker in workers),
        "no_write_lost": after == expected,
        "server_exit_code_0": exit_code == 0,
        "server_reported_no_failure": "failed inside the fake" not in stderr,
    }
    return {
        "server": url,
        "clients": clients,
        "writers": writers,
        "seconds": round(elapsed, 2),
        "requests": len(samples),
        "requests_per_second": round(len(samples) / elapsed, 1) if elapsed else 0.0,
        **_latency(samples),
        "by_kind": by_kind,
        "statuses": {str(status): n for status, n in sorted(statuses.items())},
        "tokens": {
            "before": len(before),
            "created": len(created),
            "deleted": len(deleted),
            "after": len(after),
            "missing": len(expected - after),
            "unexpected": len(after - expected),
        },
        "client_failures": sorted({w.failure for w in workers if w.failure}),
        "checks": checks,
        "ok": all(checks.values()),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the load from the command line; exit 0 when every check held."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--json", type=Path, help="also write the result to this file")
    args = parser.parse_args(argv)
    result = run_load(clients=args.clients, seconds=args.seconds, writers=args.writers)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
