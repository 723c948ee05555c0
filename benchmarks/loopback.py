"""Loopback server: hubs GETs per second over one keep-alive httpx client, against the fake's
server (``patgate serve``) and against a bare stdlib ``ThreadingHTTPServer`` returning the
same page, canned (Nagle's algorithm off on both). Goal: at least 0.7x the bare server.
Like the hubs GET, it runs with a client-credential token and with a PAT as the bearer.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from benchmarks.pat_cycle import client_token
from benchmarks.timing import Result, Side, interleave, stats

__all__ = ["bare_server", "run"]

GOAL = 0.7


@contextmanager
def bare_server(body: bytes, content_type: str) -> Iterator[str]:
    """A stdlib HTTP/1.1 server on loopback answering every GET with ``body``; yields its URL."""

    class Canned(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            del format, args

    server = ThreadingHTTPServer(("127.0.0.1", 0), Canned)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


def run(rounds: int, batch: int, *, bearer: str = "client") -> Result:
    """Time ``batch`` GETs per sample on each server, alternating; report requests per second.

    ``bearer``: ``"client"`` (a client-credential token) or ``"pat"`` (the admin's PAT).
    """
    import httpx

    from patgate import Fake
    from patgate.transports.loopback_server import LoopbackServer

    with LoopbackServer() as server:
        fake = Fake(urls=server.urls)
        server.start(fake.handle)
        world = fake.world
        fake_hubs = world["base_url"] + "/v2/content/hubs"
        with httpx.Client() as fake_http:
            token = client_token(fake_http, world) if bearer == "client" else world["admin_token"]
            auth = {"Authorization": "Bearer " + token}
            canned = fake_http.get(fake_hubs, headers=auth)
            canned.raise_for_status()
            with (
                bare_server(canned.content, canned.headers["content-type"]) as bare_url,
                httpx.Client() as bare_http,
            ):
                bare_hubs = bare_url + "/v2/content/hubs"

                def get_fake() -> None:
                    assert fake_http.get(fake_hubs, headers=auth).json()["page"]

                def get_bare() -> None:
                    assert bare_http.get(bare_hubs, headers=auth).json()["page"]

                samples_fake, samples_bare = interleave(
                    Side("patgate server", get_fake),
                    Side("bare ThreadingHTTPServer", get_bare),
                    rounds=rounds,
                    batch=batch,
                )
    # Seconds per request -> requests per second.
    fake_stats = stats([1 / sample for sample in samples_fake])
    bare_stats = stats([1 / sample for sample in samples_bare])
    ratio = fake_stats.median / bare_stats.median
    return Result(
        name="loopback" if bearer == "client" else "loopback_pat",
        title="Loopback server: hubs GETs per second, keep-alive, "
        + ("client token" if bearer == "client" else "PAT"),
        unit="req/s",
        a_label="patgate loopback server",
        a=fake_stats,
        b_label="bare ThreadingHTTPServer, canned page",
        b=bare_stats,
        ratio=round(ratio, 2),
        ratio_label="fake / bare",
        goal=f"fake / bare >= {GOAL:g}",
        met=ratio >= GOAL,
        details={"batch": batch, "bearer": bearer, "body_bytes": len(canned.content)},
    )
