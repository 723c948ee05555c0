"""``patgate serve``: the fake on a loopback address, for clients in any language.

Prints ``patgate serve: listening on http://HOST:PORT`` once it accepts connections, and
serves auth, content and GraphQL on that one origin until Ctrl-C or SIGTERM, then exits 0.
``--world PATH`` first writes the target file (JSON, readable by the owner only) holding
every key of the target contract, so ``patgate run --world PATH`` can test the server; its
``control_url`` and ``control_token`` reach the control API (``/__patgate/...``).
``--state PATH`` keeps the state across restarts (:mod:`patgate.commands.serve_state`);
``--seed N`` makes the world's ids the same on every run; ``--log-size N`` bounds the
request log.
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
from typing import TYPE_CHECKING

from patgate.commands.arguments import whole_number
from patgate.commands.serve_state import Persistence, open_state, refuse_symlink
from patgate.errors import UsageError

if TYPE_CHECKING:
    from patgate.harness import Fake
    from patgate.wire.urls import FakeUrls

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
    parser.add_argument(
        "--state",
        type=Path,
        metavar="PATH",
        help="keep users, roles, tokens (hashes only), pending requests, the clock and the "
        "world's credentials in PATH across restarts and crashes: each change is on disk "
        "before it is answered (a journal beside PATH); PATH.lock keeps a second server off",
    )
    parser.add_argument(
        "--seed",
        type=whole_number(0, 2**63 - 1, what="a seed"),
        default=0,
        metavar="N",
        help="seed of the world's ids and of fault probabilities (default: 0)",
    )
    parser.add_argument(
        "--log-size",
        type=whole_number(1, 10_000_000, what="a number of requests"),
        default=None,
        metavar="N",
        # The number is request_log.DEFAULT_LOG_SIZE; importing it here would load the wire
        # layer for every subcommand (a test keeps the two equal).
        help="requests the request log keeps; older ones go first (default: 1000)",
    )
    parser.add_argument(
        "--max-connections",
        type=whole_number(1, 100_000, what="a number of connections"),
        default=None,
        metavar="N",
        # The number is loopback_server.DEFAULT_MAX_CONNECTIONS (a test keeps the two equal).
        help="connections served at once; one more gets 503 and is closed (default: 256, "
        "and never more than the descriptor limit allows)",
    )


def write_world(path: Path, world: dict[str, str]) -> None:
    """Write ``world`` as JSON to ``path``, readable and writable by the owner only."""
    text = json.dumps(world, indent=2) + "\n"
    refuse_symlink(path, "world file")
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
        descriptor = os.open(path, flags, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            # os.open's mode applies only to a new file; an existing one keeps its own.
            os.fchmod(handle.fileno(), 0o600)
            handle.write(text)
    except OSError as error:
        raise UsageError(f"cannot write the world file {path}: {error.strerror}") from None


def _fake(args: argparse.Namespace, urls: FakeUrls) -> tuple[Fake, Persistence | None]:
    """The fake to serve, and its persistence with ``--state`` (restored when the file
    exists), else a new seeded world."""
    from patgate.fake.deployment import Deployment
    from patgate.harness import Fake

    if args.state is not None:
        persistence = open_state(args.state, urls, seed=args.seed, log_size=args.log_size)
        return persistence.fake, persistence
    fake = Fake(deployment=Deployment(seed=args.seed), urls=urls, log_size=args.log_size)
    return fake, None


def _print_error(error: BaseException) -> None:
    print("patgate serve: the fake failed on a request:", file=sys.stderr)
    traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)


def main(args: argparse.Namespace) -> int:
    """Serve until SIGINT or SIGTERM; 0 on a clean stop, 1 if the fake failed a request."""
    from patgate.transports.loopback_server import DEFAULT_MAX_CONNECTIONS, LoopbackServer

    try:
        server = LoopbackServer(
            args.host,
            args.port,
            on_error=_print_error,
            max_connections=args.max_connections or DEFAULT_MAX_CONNECTIONS,
        )
    except OSError as error:
        raise UsageError(
            f"cannot listen on {args.host}:{args.port}: {error.strerror or error}"
        ) from None
    stopping = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        del signum, frame
        stopping.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    persistence: Persistence | None = None
    try:
        fake, persistence = _fake(args, server.urls)
        if args.world is not None:
            write_world(args.world, fake.world)
        server.start(persistence.handle if persistence is not None else fake.handle)
        print(f"patgate serve: listening on {server.base_url}", flush=True)
        print(f"patgate serve: management page at {fake.urls.ui_url}/", flush=True)
        if args.world is not None:
            print(f"patgate serve: target file written to {args.world}", flush=True)
        print(
            f"patgate serve: control API at {fake.world['control_url']} "
            f"(Authorization: Bearer {fake.control_token})",
            flush=True,
        )
        while not stopping.wait(3600):  # nothing to do on a timer: an idle server sleeps
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.stop(raise_errors=False)
        if persistence is not None:
            persistence.close()
    failures = len(server.errors)
    print("patgate serve: stopped", flush=True)
    if failures:
        print(f"patgate serve: {failures} request(s) failed inside the fake", file=sys.stderr)
        return 1
    return 0
