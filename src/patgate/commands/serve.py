"""``patgate serve``: the fake on a loopback address, for clients in any language.

Prints ``patgate serve: listening on http://HOST:PORT`` once it accepts connections, and
serves auth, content and GraphQL on that one origin until Ctrl-C or SIGTERM, then exits 0.
``--world PATH`` first writes the target file (JSON, readable by the owner only) holding
every key of the target contract, so ``patgate run --world PATH`` can test the server.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import traceback
from pathlib import Path
from types import FrameType

from patgate.commands.arguments import whole_number
from patgate.errors import UsageError

__all__ = ["configure", "main", "write_world"]


def configure(parser: argparse.ArgumentParser) -> None:
    """Add ``--host``, ``--port`` and ``--world``."""
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)"
    )
    parser.add_argument(
        "--port",
        type=whole_number(0, 65535, what="a port number"),
        default=0,
        help="port to listen on (default: 0, a free port)",
    )
    parser.add_argument(
        "--world",
        type=Path,
        metavar="PATH",
        help="write the target file (URLs, credentials, tokens) for this server to PATH",
    )


def write_world(path: Path, world: dict[str, str]) -> None:
    """Write ``world`` as JSON to ``path``, readable and writable by the owner only."""
    text = json.dumps(world, indent=2) + "\n"
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            # os.open's mode applies only to a new file; an existing one keeps its own.
            os.fchmod(handle.fileno(), 0o600)
            handle.write(text)
    except OSError as error:
        raise UsageError(f"cannot write the world file {path}: {error.strerror}") from None


def _print_error(error: BaseException) -> None:
    print("patgate serve: the fake failed on a request:", file=sys.stderr)
    traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)


def main(args: argparse.Namespace) -> int:
    """Serve until SIGINT or SIGTERM; 0 on a clean stop, 1 if the fake failed a request."""
    from patgate.harness import Fake
    from patgate.transports.loopback_server import LoopbackServer

    try:
        server = LoopbackServer(args.host, args.port, on_error=_print_error)
    except OSError as error:
        raise UsageError(
            f"cannot listen on {args.host}:{args.port}: {error.strerror or error}"
        ) from None
    stopping = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        del signum, frame
        stopping.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        fake = Fake(urls=server.urls)
        if args.world is not None:
            write_world(args.world, fake.world)
        server.start(fake.handle)
        print(f"patgate serve: listening on {server.base_url}", flush=True)
        print(f"patgate serve: management page at {fake.urls.ui_url}/", flush=True)
        if args.world is not None:
            print(f"patgate serve: target file written to {args.world}", flush=True)
        while not stopping.wait(0.5):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.stop(raise_errors=False)
    failures = len(server.errors)
    print("patgate serve: stopped", flush=True)
    if failures:
        print(f"patgate serve: {failures} request(s) failed inside the fake", file=sys.stderr)
        return 1
    return 0
