"""The reference server of the loopback benchmarks: a bare stdlib ``ThreadingHTTPServer``.

``python -m benchmarks._bare_server GET_BODY POST_BODY`` answers every GET with the bytes of
the file GET_BODY and every POST with those of POST_BODY (JSON, HTTP/1.1 keep-alive, Nagle's
algorithm off: the settings the fake's server uses), prints its URL, and serves until
SIGTERM or SIGINT. It reads a POST's body, as any server must, and does nothing else.
"""

from __future__ import annotations

import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType
from typing import Any


def wait_for_signal() -> None:
    """Block until SIGTERM or SIGINT (how the benchmarks stop a server they started)."""
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        del signum, frame
        stopping.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, stop)
    stopping.wait()


def main(get_body: bytes, post_body: bytes) -> None:
    """Serve the canned bodies on a free loopback port until a signal."""

    class Canned(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def _answer(self, body: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._answer(get_body)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self._answer(post_body)

        def log_message(self, format: str, *args: Any) -> None:
            del format, args

    server = ThreadingHTTPServer(("127.0.0.1", 0), Canned)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    wait_for_signal()
    server.shutdown()
    thread.join()
    server.server_close()


if __name__ == "__main__":
    main(Path(sys.argv[1]).read_bytes(), Path(sys.argv[2]).read_bytes())
