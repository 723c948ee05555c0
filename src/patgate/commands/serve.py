"""``patgate serve``: the fake on a loopback address, for clients in any language.

Prints ``patgate serve: listening on http://HOST:PORT`` once it answers, and serves auth,
content and GraphQL on that one origin until Ctrl-C or SIGTERM, then exits 0.
``--world PATH`` writes the target file (JSON, readable by the owner only) holding every key
of the target contract, so ``patgate run --world PATH`` can test the server; its
``control_url`` and ``control_token`` reach the control API (``/__patgate/...``). The control
token goes to that file only, never to the output.

Readiness: the server first answers a request of its own over the socket, then the world
file is written atomically (a temporary file beside it, renamed over it), then the
"listening" line is printed. A script may wait for either: when the file exists, it is
whole and the server answers.

``--state PATH`` keeps the state across restarts (:mod:`patgate.commands.serve_state`);
``--seed N`` makes the world's ids the same on every run; ``--log-size N`` and
``--log-bytes N`` bound the request log. For CI: ``--expires-in SECONDS`` (client tokens'
lifetime), ``--public-url URL`` (the origin clients use: the world file, the HAL links and
the printed addresses say it; required when ``--host`` is not a loopback address) and
``--faults FILE`` (fault rules loaded at start, in the control API's format); and
``--profile FILE``, the fake's choices where the documentation is silent (docs/profile.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import json
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from patgate.commands.arguments import origin, whole_number
from patgate.errors import UsageError

if TYPE_CHECKING:
    from patgate.commands.serve_state import Persistence
    from patgate.fake.profile import Profile
    from patgate.harness import Fake
    from patgate.transports.loopback_server import LoopbackServer
    from patgate.wire.messages import WireHandler, WireRequest, WireResponse
    from patgate.wire.urls import FakeUrls

__all__ = [
    "MAX_FAULTS_BYTES",
    "REASON_HEADER",
    "configure",
    "explaining",
    "load_faults",
    "main",
    "write_world",
]

MAX_EXPIRES_IN = 10 * 365 * 86400
"""The longest client-token lifetime ``--expires-in`` takes: ten years, in seconds."""
READY_TIMEOUT = 10.0
"""Seconds the server has to answer its own first request before ``patgate serve`` gives up."""
MAX_FAULTS_BYTES = 16 * 1024 * 1024
"""A ``--faults`` file above 16 MiB is refused; it is read under the discipline of
:mod:`patgate.guards.supplied_files` (``/dev/zero`` or a pipe stops at the cap)."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``patgate serve`` (``--host``, ``--port``, ``--world``, ...)."""
    _configure_address_and_files(parser)
    _configure_seed_and_log(parser)
    _configure_choices(parser)
    _configure_serving(parser)


def _configure_address_and_files(parser: argparse.ArgumentParser) -> None:
    """Where it listens, and the files it writes: the target file and its kept state."""
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


def _configure_seed_and_log(parser: argparse.ArgumentParser) -> None:
    """The world's seed, and how much the request log keeps."""
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
        "--log-bytes",
        type=whole_number(1024, 2**40, what="a number of bytes"),
        default=None,
        metavar="N",
        # request_log.DEFAULT_LOG_BYTES, kept equal by a test.
        help="memory the request log's entries hold at most; older ones go first "
        "(default: 8388608, 8 MiB)",
    )


def _configure_choices(parser: argparse.ArgumentParser) -> None:
    """What the fake answers: token lifetime, public origin, profile, faults at start."""
    parser.add_argument(
        "--expires-in",
        type=whole_number(1, MAX_EXPIRES_IN, what="a number of seconds"),
        default=None,
        metavar="SECONDS",
        help="lifetime of client-credential tokens (default: 300), so expiry is checked in "
        "seconds: patgate run --max-wait covers it",
    )
    parser.add_argument(
        "--public-url",
        type=origin,
        default=None,
        metavar="URL",
        help="the origin clients reach this server by (http://patgate:8080 in a container): "
        "used in the world file, the HAL links and the printed addresses; required when "
        "--host is not a loopback address",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        metavar="FILE",
        help="the fake's choices where the documentation is silent, as a YAML profile "
        "(docs/profile.md; default: the shipped profile); GET /__patgate/profile shows it",
    )
    parser.add_argument(
        "--faults",
        type=Path,
        default=None,
        metavar="FILE",
        help="fault rules to load at start: a JSON list of rules as POST /__patgate/faults "
        'takes them, or {"faults": [...], "rate_limit": true} as GET /__patgate/faults answers',
    )


def _configure_serving(parser: argparse.ArgumentParser) -> None:
    """How it serves: naming refusals, and the connections held at once."""
    parser.add_argument(
        "--explain",
        action="store_true",
        help="name why the fake refused each refused request (the reason's code and facts; "
        "never a secret): one line on stderr, and an X-Patgate-Reason header on the answer",
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
    """Write ``world`` as JSON to ``path``, readable and writable by the owner only.

    Atomically: a reader sees no file (or the old one) until the whole new file is in place.
    """
    from patgate.commands.serve_state import refuse_symlink, write_atomically

    text = json.dumps(world, indent=2) + "\n"
    refuse_symlink(path, "world file")
    try:
        write_atomically(path, text)
    except OSError as error:
        raise UsageError(f"cannot write the world file {path}: {error.strerror}") from None


def load_faults(path: Path) -> tuple[list[dict[str, Any]], bool | None]:
    """The fault rules (and the rate-limit switch, if given) of a ``--faults`` file.

    A JSON list of rules as ``POST /__patgate/faults`` takes them, or an object
    ``{"faults": [...], "rate_limit": ...}`` as ``GET /__patgate/faults`` answers (rule
    ids are ignored). Each rule is checked later, when it is added.
    """
    from patgate.guards.supplied_files import FileRefused, load_json

    try:
        data = load_json(path, limit=MAX_FAULTS_BYTES)
    except FileRefused as error:
        raise UsageError(f"the faults file {error}") from None
    rate_limit: bool | None = None
    if isinstance(data, dict):
        unknown = sorted(set(data) - {"faults", "rate_limit"})
        if unknown:
            raise UsageError(
                f"the faults file {path}: unknown key(s) {unknown}; known: faults, rate_limit"
            )
        rate_limit = data.get("rate_limit")
        if rate_limit is not None and not isinstance(rate_limit, bool):
            raise UsageError(f"the faults file {path}: rate_limit must be true or false")
        data = data.get("faults", [])
    if not isinstance(data, list):
        raise UsageError(
            f"the faults file {path} must hold a JSON list of fault rules, "
            'or an object {"faults": [...]}'
        )
    rules: list[dict[str, Any]] = []
    for number, rule in enumerate(data, 1):
        if not isinstance(rule, dict):
            raise UsageError(f"the faults file {path}: rule {number} is not a JSON object")
        rules.append({key: value for key, value in rule.items() if key != "id"})
    return rules, rate_limit


def _add_faults(fake: Fake, path: Path) -> None:
    from patgate.errors import DomainError

    rules, rate_limit = load_faults(path)
    for number, rule in enumerate(rules, 1):
        try:
            fake.faults.add_from_json(rule)
        except DomainError as error:
            raise UsageError(f"the faults file {path}: rule {number}: {error}") from None
    if rate_limit is not None:
        fake.faults.set_rate_limit(rate_limit)


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _public_origin(args: argparse.Namespace) -> str | None:
    """``--public-url`` checked; a usage error when a non-loopback ``--host`` lacks it."""
    from patgate.wire.urls import FakeUrls

    if args.public_url is None:
        if not _is_loopback(args.host):
            raise UsageError(
                f"--host {args.host} is not a loopback address: give --public-url URL, the "
                "origin clients reach this server by (such as http://patgate:8080); the "
                "world file and the HAL links use it"
            )
        return None
    return FakeUrls.same_origin(args.public_url).base_url


def _wait_until_answering(server: LoopbackServer, fake: Fake) -> None:
    """Return once the server answers a request of its own over the socket."""
    import http.client

    host, port = server.bound_address
    if host in ("0.0.0.0", ""):  # noqa: S104 - the address bound, not one to bind
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    path = fake.world["control_url"].removeprefix(fake.urls.base_url) + "/clock"
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        connection = http.client.HTTPConnection(host, port, timeout=2)
        try:
            connection.request(
                "GET", path, headers={"Authorization": f"Bearer {fake.control_token}"}
            )
            connection.getresponse().read()
            return
        except OSError as error:
            if time.monotonic() > deadline:
                raise UsageError(
                    f"the server on {server.bound_url} does not answer: {error}"
                ) from None
            time.sleep(0.05)
        finally:
            connection.close()


def _fake(
    args: argparse.Namespace, urls: FakeUrls, profile: Profile
) -> tuple[Fake, Persistence | None]:
    """The fake to serve, and its persistence with ``--state`` (restored when the file
    exists), else a new seeded world."""
    from patgate.fake.deployment import Deployment
    from patgate.harness import Fake

    if args.state is not None:
        from patgate.commands.serve_state import open_state

        persistence = open_state(
            args.state, urls, seed=args.seed, log_size=args.log_size, profile=profile
        )
        fake = persistence.fake
        if args.log_bytes is not None:
            fake.request_log.max_bytes = args.log_bytes
        if args.expires_in is not None:
            fake.deployment.client_tokens.expires_in = args.expires_in
        return fake, persistence
    settings = {"expires_in": args.expires_in} if args.expires_in is not None else {}
    fake = Fake(
        deployment=Deployment(seed=args.seed, profile=profile, **settings),
        urls=urls,
        log_size=args.log_size,
        log_bytes=args.log_bytes,
    )
    return fake, None


REASON_HEADER = "X-Patgate-Reason"


def explaining(handle: WireHandler) -> WireHandler:
    """``handle``, logging each refusal's reason on stderr (one line: method, path, status,
    reason) and sending it as :data:`REASON_HEADER`. Opt-in: a parent that captures the
    server's stderr without reading it would otherwise see the server stall once the pipe
    is full."""
    from patgate.guards.untrusted_text import one_line

    def answer(request: WireRequest) -> WireResponse | None:
        response = handle(request)
        if response is None or response.reason is None:
            return response
        path = request.url.partition("?")[0]
        line = one_line(f"{request.method} {path} -> {response.status} {response.reason}")
        print(f"patgate serve: refused {line}", file=sys.stderr, flush=True)
        # A header value is Latin-1 without line breaks: the reason's text, escaped.
        value = one_line(str(response.reason)).encode("ascii", "backslashreplace").decode()
        return dataclasses.replace(
            response, headers=(*response.headers, (REASON_HEADER, value[:1000]))
        )

    return answer


def _print_error(error: BaseException) -> None:
    print("patgate serve: the fake failed on a request:", file=sys.stderr)
    traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)


_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


def _warn_if_reachable(host: str, base_url: str) -> None:
    """Say on stderr what a listening address beyond this machine exposes, and to whom."""
    if host.lower() in _LOOPBACK_HOSTS or host.startswith("127."):
        return
    print(
        f"patgate serve: warning: --host {host} listens beyond this machine. Anyone who can "
        f"reach {base_url} can use the token endpoint, the content API and GraphQL with the "
        "world's credentials; the control API needs its token and the management page needs "
        "the key in its address, so keep the target file and the printed address private.",
        file=sys.stderr,
        flush=True,
    )


def _listen(args: argparse.Namespace, public_url: str | None) -> LoopbackServer:
    """The server bound to ``--host`` and ``--port`` (a refusal of the address: exit 2)."""
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
    if public_url is not None:
        server.use_public_url(public_url)
    return server


def _announce(args: argparse.Namespace, server: LoopbackServer, fake: Fake, public: bool) -> None:
    """Say where the fake listens, where its page and control API are, and the target file."""
    where = server.base_url
    if public:
        where += f" (bound to {server.bound_url})"
    print(f"patgate serve: listening on {where}", flush=True)
    # The page's address carries this run's key: opening it signs a browser in.
    print(f"patgate serve: management page at {fake.ui_address}", flush=True)
    _warn_if_reachable(args.host, server.base_url)
    if args.world is not None:
        print(f"patgate serve: target file written to {args.world}", flush=True)
        token_note = f"its token is the control_token of {args.world}"
    else:
        token_note = "its token is written to the world file: give --world PATH"
    print(
        f"patgate serve: control API at {fake.world['control_url']} ({token_note})",
        flush=True,
    )


def main(args: argparse.Namespace) -> int:
    """Serve until SIGINT or SIGTERM; 0 on a clean stop, 1 if the fake failed a request."""
    from patgate.fake.profile import load_profile

    public_url = _public_origin(args)
    profile = load_profile(args.profile)  # a bad file: a UsageError naming file and line
    server = _listen(args, public_url)
    stopping = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        del signum, frame
        stopping.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    persistence: Persistence | None = None
    try:
        fake, persistence = _fake(args, server.urls, profile)
        if args.faults is not None:
            _add_faults(fake, args.faults)
        handle = persistence.handle if persistence is not None else fake.handle
        server.start(explaining(handle) if args.explain else handle)
        _wait_until_answering(server, fake)
        if args.world is not None:
            write_world(args.world, fake.world)
        _announce(args, server, fake, public_url is not None)
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
