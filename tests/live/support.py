"""Helpers of the live tests: a ``patgate serve`` process and ``patgate`` commands run
against it, each started and ended through its own handle."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx


def patgate_command() -> list[str]:
    """The project's console script in this virtual environment, or ``python -m patgate``."""
    script = shutil.which("patgate", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "patgate"]


@dataclass
class Served:
    """A ``patgate serve`` process, its target file and a client to look at its state."""

    process: subprocess.Popen[str]
    url: str
    world_file: Path
    folder: Path
    control: dict[str, str] = field(default_factory=dict)
    """``control_url`` and ``control_token``, kept out of the target file."""

    @property
    def world(self) -> dict[str, str]:
        data: dict[str, str] = json.loads(self.world_file.read_text(encoding="utf-8"))
        return data

    def graphql(self, query: str, bearer: str) -> Any:
        answer = httpx.post(
            self.world["graphql_url"],
            json={"query": query},
            headers={"Authorization": f"Bearer {bearer}"},
            timeout=10,
        )
        answer.raise_for_status()
        return answer.json()

    def tokens(self, key: str = "admin_token") -> list[dict[str, str]]:
        """The tokens the holder of ``key`` lists: id and name."""
        body = self.graphql("{ viewer { personalAccessTokens { id name } } }", self.world[key])
        tokens: list[dict[str, str]] = body["data"]["viewer"]["personalAccessTokens"]
        return tokens

    def run_tokens(self, key: str = "admin_token") -> list[str]:
        """Names of the listed tokens a patgate run made (``patgate-<run id>-<n>``)."""
        return [t["name"] for t in self.tokens(key) if t["name"].startswith("patgate-")]

    def create_token(self, name: str) -> str:
        """Create a token for the admin outside any patgate run; its id."""
        organization = self.world["organization_id"]
        body = self.graphql(
            "mutation { createPersonalAccessToken(input: "
            f'{{name: "{name}", organizationId: "{organization}"}}) {{ id }} }}',
            self.world["admin_token"],
        )
        token_id: str = body["data"]["createPersonalAccessToken"]["id"]
        return token_id

    def write_world(self, path: Path, **changes: Any) -> Path:
        """A copy of the target file with ``changes``."""
        path.write_text(json.dumps({**self.world, **changes}), encoding="utf-8")
        return path

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """``patgate ARGS`` in the test's folder, to the end."""
        return subprocess.run(
            [*patgate_command(), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            cwd=self.folder,
        )

    def run_python(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """``python ARGS`` in the test's folder, to the end."""
        return subprocess.run(
            [sys.executable, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            cwd=self.folder,
        )

    def start(self, *args: str) -> subprocess.Popen[str]:
        """``patgate ARGS`` in the test's folder, in the background."""
        return self._popen([*patgate_command(), *args])

    def start_python(self, *args: str) -> subprocess.Popen[str]:
        """``python ARGS`` in the test's folder, in the background."""
        return self._popen([sys.executable, *args])

    def _popen(self, argv: list[str]) -> subprocess.Popen[str]:
        return subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=self.folder
        )


def stop(process: subprocess.Popen[str]) -> None:
    """End ``process`` (one the tests started) and close its pipes."""
    if process.poll() is None:
        process.terminate()  # by its handle, never by name
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def wait_for(path: Path, text: str, timeout: float = 30.0) -> None:
    """Until ``path`` exists and holds ``text`` (a run's ledger filling up)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text(encoding="utf-8"):
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} never held {text!r}")


def ledger_events(path: Path) -> list[dict[str, str]]:
    """The entries of a ledger file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


SLOW_CREATE = """\
id: slow-create
title: Creates a token, then waits long enough to be interrupted
rules: [PAT-CREATE-FIELDS]
steps:
  - name: create a token as the admin
    graphql: create_token
    args: {name: "${new_name}"}
    bearer: ${admin_token}
    expect:
      - ok: true
  - name: wait to be interrupted
    wait: 60
"""
"""A scenario that creates a token and then sleeps (run with ``--max-wait 120``)."""
