"""The serve tutorial's curl walk-through of the control API runs against a real
``patgate serve``."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.counterparts import need_counterpart

from .served import served

pytestmark = pytest.mark.slow

README = (Path(__file__).resolve().parents[2] / "docs/tutorials/serve.md").read_text("utf-8")


def _walkthrough() -> str:
    section = README.split("\n## Controlling the served fake\n", 1)[1]
    match = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert match, "no sh block under 'Controlling the served fake'"
    return match.group(1)


def test_the_curl_walkthrough_resets_removes_approves_advances_faults_and_reads_the_log(
    tmp_path: Path,
) -> None:
    need_counterpart(
        bool(shutil.which("curl") and shutil.which("jq")),
        "needs curl and jq on PATH (apt-get install curl jq)",
    )
    with served(tmp_path / "w.json"):
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", _walkthrough()],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert result.returncode == 0, result.stderr
    out = result.stdout  # the JSON answers run together: curl adds no newline
    assert out.startswith('{"reset":true}')
    assert '"status":"active"' in out  # the approved request
    assert '"offset_seconds":3600' in out
    assert '"retry_after":5' in out
    met, logged = out.rstrip("\n").rsplit("\n", 1)
    assert met.endswith("429")  # the approved PAT meets the fault
    assert re.fullmatch(r'\[429,"http://127\.0\.0\.1:\d+/v2/content/hubs"\]', logged)


def _node_example() -> str:
    section = README.split("\n## Controlling the served fake\n", 1)[1]
    match = re.search(r"```js\n(.*?)```", section, re.DOTALL)
    assert match, "no js block under 'Controlling the served fake'"
    return match.group(1)


def _node_major() -> int:
    node = shutil.which("node")
    if node is None:
        return 0
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
    found = re.match(r"v(\d+)\.", version.stdout)
    return int(found.group(1)) if found else 0


def test_the_node_example_meets_the_429_fault_and_retries(tmp_path: Path) -> None:
    need_counterpart(_node_major() >= 18, "needs node 18 or later on PATH (apt-get install nodejs)")
    script = tmp_path / "retry.mjs"
    script.write_text(_node_example(), encoding="utf-8")
    with served(tmp_path / "w.json"):
        result = subprocess.run(
            ["node", str(script), "w.json"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["429, retrying after 1 s", "200 3 hubs"]
