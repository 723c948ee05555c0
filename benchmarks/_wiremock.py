"""WireMock standalone, the reference of ``benchmarks/serve_vs_wiremock.py``: its install,
and a server answering canned stubs.

WireMock is a Java program. Its standalone jar comes pinned from the npm package of the same
name (which bundles it) into ``.cache/tools/wiremock`` (git-ignored); Java comes from the
distribution (``apt-get install default-jre-headless``). ``python -m benchmarks._wiremock``
installs the jar (``.ci/counterparts`` runs it); running it again installs nothing that is
already there. Neither is a dependency of patgate.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.npm_folder import install_lock, pinned_versions_installed

__all__ = [
    "FOLDER",
    "JAR",
    "JOURNAL_ENTRIES",
    "VERSION",
    "Stub",
    "install",
    "missing",
    "serve_stubs",
]

ROOT = Path(__file__).resolve().parents[1]
VERSION = "3.13.2"
"""The WireMock release the benchmark runs (the npm package's version is the jar's)."""
FOLDER = ROOT / ".cache" / "tools" / "wiremock"
JAR = FOLDER / "node_modules" / "wiremock" / "build" / f"wiremock-standalone-{VERSION}.jar"
JOURNAL_ENTRIES = 1000
"""WireMock keeps this many requests in its journal, as ``patgate serve`` keeps 1000 in its
request log by default: both keep a bounded record of what they were asked."""
INSTALL_COMMAND = "python -m benchmarks._wiremock (or bash .ci/counterparts)"
START_SECONDS = 60.0
"""How long the JVM has to start and say its port."""


def missing() -> str | None:
    """Why WireMock cannot run here (no Java, no jar), or ``None``."""
    if shutil.which("java") is None:
        return "needs java (apt-get install default-jre-headless)"
    if not JAR.is_file():
        return f"needs the WireMock {VERSION} jar: {INSTALL_COMMAND}"
    return None


def install() -> str | None:
    """Install the pinned jar unless present; ``None`` on success, else why not."""
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        return "needs node 20 and npm on PATH (apt-get install nodejs npm)"
    with install_lock(FOLDER):
        if pinned_versions_installed(FOLDER / "node_modules", {"wiremock": VERSION}):
            return None
        command = [npm, "install", "--prefix", str(FOLDER), "--no-audit", "--no-fund"]
        try:
            done = subprocess.run(
                [*command, "--save-exact", "--silent", f"wiremock@{VERSION}"],
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
                env={**os.environ, "npm_config_update_notifier": "false"},
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"npm install wiremock@{VERSION}: {error}"
        if done.returncode != 0 or not JAR.is_file():
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            return f"npm install wiremock@{VERSION} failed: {' / '.join(tail)}"
    return None


@dataclass(frozen=True)
class Stub:
    """One canned answer: ``method`` on ``path`` with ``token`` as the bearer gets ``body``
    (200, JSON); a POST matches only when its body is the JSON ``json_body``."""

    name: str
    method: str
    path: str
    token: str
    body: bytes
    json_body: object = None


def _write_stubs(root: Path, stubs: list[Stub]) -> None:
    (root / "mappings").mkdir(parents=True)
    for stub in stubs:
        request: dict[str, object] = {
            "method": stub.method,
            "url": stub.path,
            "headers": {"Authorization": {"equalTo": "Bearer " + stub.token}},
        }
        if stub.json_body is not None:
            request["bodyPatterns"] = [{"equalToJson": stub.json_body}]
        mapping = {
            "request": request,
            "response": {
                "status": 200,
                "headers": {"Content-Type": "application/json"},
                # Inline, not a file read per request: WireMock's quickest way to answer.
                "base64Body": base64.b64encode(stub.body).decode("ascii"),
            },
        }
        (root / "mappings" / f"{stub.name}.json").write_text(json.dumps(mapping), "utf-8")


@contextmanager
def serve_stubs(root: Path, stubs: list[Stub]) -> Iterator[str]:
    """Run WireMock on a free loopback port answering ``stubs`` from ``root`` (an empty
    folder); yield its URL; stop it."""
    _write_stubs(root, stubs)
    command = [
        "java",
        "-jar",
        str(JAR),
        "--port",
        "0",
        "--bind-address",
        "127.0.0.1",
        "--root-dir",
        str(root),
        "--max-request-journal-entries",
        str(JOURNAL_ENTRIES),
        "--disable-banner",
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=root
    )
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + START_SECONDS
        seen: list[str] = []
        port = None
        while port is None and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            seen.append(line)
            if line.startswith("port:"):
                port = int(line.split(":", 1)[1])
        if port is None:
            raise RuntimeError(f"WireMock did not start: {''.join(seen)[-2000:]}")
        # What it prints from now on is read and dropped: a full pipe would stall it.
        threading.Thread(target=process.stdout.read, daemon=True).start()
        yield f"http://127.0.0.1:{port}"
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


def main() -> int:
    """Install the jar, and say what happened."""
    problem = install()
    if problem:
        print(f"wiremock: {problem}", file=sys.stderr)
        return 1
    print(f"wiremock: {os.path.relpath(JAR, ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
