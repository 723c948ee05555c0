"""Network hygiene of ``patgate run`` in its own process: configurable timeouts (a create
that times out is settled by listing, never resent), TLS verified, ``http://`` refused off
loopback, and no redirect followed from the token endpoint."""

from __future__ import annotations

import datetime
import ipaddress
import json
import secrets
import ssl
import subprocess
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from patgate.harness import Fake
from patgate.transports.loopback_server import LoopbackServer
from patgate.wire.messages import WireHandler, WireRequest, WireResponse

from .support import ledger_events, patgate_command

pytestmark = pytest.mark.slow

CREATE_ONE = """\
id: create-one
title: Creates one token
rules: [PAT-CREATE-FIELDS]
steps:
  - name: create a token as the admin
    graphql: create_token
    args: {name: "${new_name}"}
    bearer: ${admin_token}
    expect:
      - ok: true
"""


def _patgate(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*patgate_command(), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
    )


def _late_creates() -> tuple[list[str], Callable[[WireHandler], WireHandler]]:
    """A create is done at once, but its answer is held back until the run lists the tokens,
    which it does only after giving up on that answer: late by construction, not by timing."""
    seen: list[str] = []
    listed = threading.Event()

    def wrap(app: WireHandler) -> WireHandler:
        def handler(request: WireRequest) -> WireResponse | None:
            response = app(request)
            if b"createPersonalAccessToken" in request.body:
                seen.append("create")
                listed.wait(timeout=60)
            elif seen and b"personalAccessTokens" in request.body:
                listed.set()
            return response

        return handler

    return seen, wrap


def test_a_create_that_times_out_is_found_by_listing_and_deleted(tmp_path: Path) -> None:
    seen, wrap = _late_creates()
    with LoopbackServer() as server:
        fake = Fake(urls=server.urls, wrap_app=wrap)
        server.start(fake.handle)
        world = tmp_path / "w.json"
        world.write_text(json.dumps(fake.world), encoding="utf-8")
        (tmp_path / "one.yaml").write_text(CREATE_ONE, encoding="utf-8")
        done = _patgate(
            "run",
            "--world",
            str(world),
            "--allow-writes",
            # Every other answer comes in milliseconds; this leaves room on a busy machine.
            "--read-timeout",
            "2",
            "--ledger",
            "l.jsonl",
            "--scenarios",
            "one.yaml",
            cwd=tmp_path,
        )
        tokens_left = len(fake.deployment.tokens)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "ReadTimeout" in done.stdout
    assert "a listing shows it was created" in done.stdout
    assert "tokens: 1 created, 1 deleted, 0 leaked" in done.stdout
    assert seen == ["create"], "the create was sent once, never resent"
    assert tokens_left == 4
    events = [e["event"] for e in ledger_events(tmp_path / "l.jsonl")]
    assert events == ["pending", "created", "deleted"]


def test_plain_http_is_refused_off_loopback(tmp_path: Path) -> None:
    done = _patgate("run", "--base-url", "http://api.example.test", cwd=tmp_path)
    assert done.returncode == 2
    assert "plain http is refused except on loopback" in done.stderr
    secret = secrets.token_urlsafe(16)
    done = _patgate("run", "--base-url", f"https://user:{secret}@api.example.test", cwd=tmp_path)
    assert done.returncode == 2
    assert "must not hold user information" in done.stderr
    assert secret not in done.stdout + done.stderr


class _Recorder(BaseHTTPRequestHandler):
    """Answers 200 and keeps every request body (the host a redirect would lead to)."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.server.bodies.append(self.rfile.read(length))  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: object) -> None:
        del format, args


def _redirecting_to(location: str) -> type[BaseHTTPRequestHandler]:
    class Redirect(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            self.send_response(307)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            del format, args

    return Redirect


@pytest.fixture
def serving() -> Iterator[list[ThreadingHTTPServer]]:
    started: list[ThreadingHTTPServer] = []
    yield started
    for server in started:
        server.shutdown()
        server.server_close()


def _serve(started: list[ThreadingHTTPServer], handler: type[BaseHTTPRequestHandler]) -> str:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.bodies = []  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    started.append(server)
    return f"http://127.0.0.1:{server.server_address[1]}"


def test_the_token_endpoint_redirect_is_not_followed(
    tmp_path: Path, serving: list[ThreadingHTTPServer]
) -> None:
    elsewhere = _serve(serving, _Recorder)
    redirecting = _serve(serving, _redirecting_to(f"{elsewhere}/oauth/token"))
    secret = secrets.token_urlsafe(24)
    done = _patgate(
        "run",
        "--auth-url",
        redirecting,
        "--base-url",
        redirecting,
        "--client-id",
        "some-client",
        f"--client-secret={secret}",  # a generated secret may start with "-"
        "--scenario",
        "token-ok",
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "expected status 200, got 307" in done.stdout
    assert serving[0].bodies == []  # type: ignore[attr-defined]
    assert secret not in done.stdout + done.stderr


def test_tls_certificates_are_verified(tmp_path: Path) -> None:
    pytest.importorskip("cryptography.x509", reason="it makes the self-signed certificate")
    certificate, key = _self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.bodies = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"https://127.0.0.1:{server.server_address[1]}"
        done = _patgate(
            "run",
            "--auth-url",
            url,
            "--base-url",
            url,
            "--client-id",
            "c",
            f"--client-secret={secrets.token_urlsafe(16)}",
            "--scenario",
            "token-ok",
            cwd=tmp_path,
        )
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 3, done.stdout + done.stderr
    assert "certificate verify failed" in done.stderr.lower()
    assert server.bodies == []  # type: ignore[attr-defined]


def _self_signed(folder: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    certificate_path, key_path = folder / "cert.pem", folder / "key.pem"
    certificate_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return certificate_path, key_path
