"""Memory of ``patgate serve`` under an attacker who can send anything: RSS before and after.

One fresh ``patgate serve``, warmed with ordinary requests, then sent two floods over a few
keep-alive connections, its resident set size read before and after each:

- ``long_urls``: 10,000 GETs without credentials, each a distinct path of about 60 KB (the
  URL cache is keyed by the whole URL no more, and holds at most 1 MiB);
- ``huge_documents``: GraphQL documents with a removed user's PAT (it authenticates; its
  role is checked only when the document runs), each distinct: half of about 2 KB, many
  fragments that validation refuses (parsed documents pin about 100 bytes per character),
  half of 60 KB, above the size any cache keeps. 10,000 in a full run, 2,000 with
  ``--quick`` (each costs the server a parse and a validation).

Goal: the RSS after both floods at most :data:`CEILING_MB` above the RSS before them (the
caches are bounded by bytes: 32 MiB of parsed documents, 8 MiB of shapes, 2 MiB of depth
scans, 1 MiB of URLs, plus the request log's own bound). Before these bounds, the same
floods pinned about 500 MB and 1 GB.

Usage: ``python -m benchmarks --only hostile_memory [--quick]``.
"""

from __future__ import annotations

import json
import socket
import sys
import tempfile
import threading
from pathlib import Path

from benchmarks.loopback import serve
from benchmarks.registry import Benchmark, Plan
from benchmarks.serve_memory import rss_kib
from benchmarks.timing import Goal, Result, compare

__all__ = ["BENCHMARKS", "CEILING_MB", "run"]

CEILING_MB = 96.0
"""What the floods may add to the server's RSS, at most."""
CONNECTIONS = 4
URL_BYTES = 60 * 1024


def _flood(host: str, port: int, requests: list[bytes]) -> int:
    """Send ``requests`` on one keep-alive connection, reading each answer; answers read."""
    answered = 0
    with socket.create_connection((host, port), timeout=60) as sock:
        reader = sock.makefile("rb")
        for request in requests:
            sock.sendall(request)
            length = 0
            while line := reader.readline():
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            reader.read(length)
            answered += 1
    return answered


def _parallel(host: str, port: int, requests: list[bytes]) -> int:
    shares = [requests[n::CONNECTIONS] for n in range(CONNECTIONS)]
    counts = [0] * CONNECTIONS

    def send(index: int) -> None:
        counts[index] = _flood(host, port, shares[index])

    threads = [threading.Thread(target=send, args=(n,)) for n in range(CONNECTIONS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts)


def _long_url(number: int) -> bytes:
    path = f"/v2/content/hubs/{number}/" + "a" * URL_BYTES
    return f"GET {path}?n={number} HTTP/1.1\r\nHost: x\r\n\r\n".encode()


def _document(number: int, token: str) -> bytes:
    if number % 2:
        query = "{ viewer { email } } # " + f"{number} " + "x" * URL_BYTES
    else:
        fragments = " ".join(f"fragment f{number}x{i} on Viewer {{ email }}" for i in range(50))
        query = "{ viewer { email } } " + fragments
    body = json.dumps({"query": query}).encode()
    return (
        b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Authorization: Bearer " + token.encode() + b"\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    ) + body


def run(plan: Plan) -> list[Result]:
    """One server per round; RSS before the floods, after the URLs, after the documents."""
    urls, documents = 10_000, plan.pick(10_000, 2_000)
    growth: list[float] = []
    details: dict[str, list[float]] = {"before_mb": [], "after_urls_mb": [], "after_mb": []}
    for _ in range(plan.rounds_for(2, 1)):
        with tempfile.TemporaryDirectory(prefix="patgate-hostile-") as name:
            world_file = Path(name) / "w.json"
            command = [sys.executable, "-m", "patgate", "serve", "--world", str(world_file)]
            with serve(command) as (base_url, process):
                world = json.loads(world_file.read_text(encoding="utf-8"))
                host, port = base_url.removeprefix("http://").rsplit(":", 1)
                token = world["removed_token"]
                # Warm-up: every code path once, and the request log full.
                _parallel(host, int(port), [_long_url(n) for n in range(200)])
                _parallel(host, int(port), [_document(n, token) for n in range(100)])
                before = rss_kib(process.pid) / 1024
                sent = _parallel(host, int(port), [_long_url(n) for n in range(urls)])
                after_urls = rss_kib(process.pid) / 1024
                sent += _parallel(host, int(port), [_document(n, token) for n in range(documents)])
                after = rss_kib(process.pid) / 1024
                if sent != urls + documents:
                    raise RuntimeError(f"only {sent} of {urls + documents} requests answered")
        growth.append(after - before)
        details["before_mb"].append(before)
        details["after_urls_mb"].append(after_urls)
        details["after_mb"].append(after)
    return [
        compare(
            name="hostile_memory",
            title=f"patgate serve: RSS growth over {urls:,} long URLs and {documents:,} huge "
            "GraphQL documents",
            unit="MB",
            a_label="growth",
            a=growth,
            b_label="",
            b=None,
            ratio_label="",
            goal=Goal("patgate", "<=", CEILING_MB, "growth", "MB"),
            note=f"RSS before: {min(details['before_mb']):.0f} MB; after the URLs: "
            f"{max(details['after_urls_mb']):.0f} MB; "
            f"after both: {max(details['after_mb']):.0f} MB.",
            details=details,
        )
    ]


BENCHMARKS = [
    Benchmark(
        "hostile_memory",
        run,
        order=91,
        description="serve's memory under floods of long URLs and huge GraphQL documents",
    )
]
